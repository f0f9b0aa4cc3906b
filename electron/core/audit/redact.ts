/**
 * Redaction before arguments reach the audit log, by what the values are —
 * never by what the server named its parameters (a server that names a
 * parameter `api_token` must not be able to keep what was sent to it out of
 * the log; issue 9.8):
 * - the values the person marked secret for that server (its granted
 *   secrets), wherever they appear, inside longer strings too;
 * - strings that look like keys whatever their place (provider key
 *   prefixes, JWTs, PEM private keys, bearer tokens, passwords in URLs,
 *   long random-looking strings).
 * Errs towards hiding a value that looks like a key: a hash in an argument
 * may be hidden too; the log keeps the digest of the exact arguments, so
 * nothing is lost for verification.
 */

/** The marker written in place of a secret. */
export const REDACTED = '[redacted]';

/**
 * Written in place of what could not be checked for the person's secrets
 * (the secret store could not be read): fail closed — nothing that may hold
 * a secret is written or sent in clear.
 */
export const WITHHELD = '[withheld: Airlock could not read this server’s secrets to hide them]';

const MAX_DEPTH = 32;
const MAX_STRING = 16 * 1024;
/** A marked secret shorter than this is hidden only where it is the whole value (a short one would hide ordinary text). */
const MIN_SECRET_SUBSTRING = 4;

const VALUE_PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{16,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/g,
  /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{12,}/gi,
];

// A long run without separators, mixing letters and digits, with high entropy.
const CANDIDATE = /[A-Za-z0-9_+=-]{32,}/g;

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

function looksRandom(s: string): boolean {
  return /[0-9]/.test(s) && /[A-Za-z]/.test(s) && entropy(s) >= 3.5;
}

/**
 * The shortest text any pattern here can match: `a://b:c@` (a password in a
 * URL); every other pattern needs 15 characters or more. A shorter string
 * is left as it is without running them (most arguments and keys are short).
 */
export const SHORTEST_MATCH = 8;

/** Replaces secret-looking parts of a string; returns the string and whether anything was hidden. */
export function redactString(value: string): { value: string; redacted: boolean } {
  if (value.length < SHORTEST_MATCH) return { value, redacted: false };
  let out = value;
  for (const re of VALUE_PATTERNS) out = out.replace(re, (m, scheme?: string) =>
    typeof scheme === 'string' && /^(Bearer|Basic|Token)$/i.test(scheme) ? `${scheme} ${REDACTED}` : REDACTED,
  );
  // user:password@ in URLs
  // Bounded repeats keep this linear on long runs of letters (no quadratic backtracking).
  out = out.replace(/([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:@/]{1,256}:)[^\s@/]{1,256}@/gi, `$1${REDACTED}@`);
  out = out.replace(CANDIDATE, (m) => (looksRandom(m) ? REDACTED : m));
  return { value: out, redacted: out !== value };
}

/** The redacted copy of some arguments and where values were hidden. */
export interface Redaction {
  value: unknown;
  /** JSON-pointer-like paths of hidden values, e.g. `/headers/Authorization`. */
  paths: string[];
  /** True when the copy differs from the input in any way (hidden, shortened, cut off, a number written as text). */
  changed: boolean;
}

/** What `redactArguments` hides besides values that look like secrets. */
export interface RedactOptions {
  /** The values the person marked secret (the server's granted secrets). */
  secrets?: readonly string[];
}

/** Hides each marked secret inside a string: whole-value matches for short ones, every occurrence for the rest. */
function hideMarked(value: string, secrets: readonly string[]): string {
  let out = value;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    if (secret.length < MIN_SECRET_SUBSTRING) {
      if (out === secret) out = REDACTED;
    } else if (out.includes(secret)) {
      out = out.split(secret).join(REDACTED);
    }
  }
  return out;
}

/** A text with the marked secrets and secret-looking parts hidden (a log line, a host name, a change). */
export function redactText(text: string, secrets: readonly string[] = []): string {
  const marked = hideMarked(text, longestFirst(secrets));
  return redactString(marked).value;
}

/**
 * A name a server chose and Airlock rewrote — a host name (written in small
 * letters), a path the sandbox refused (on macOS, in the file system's own
 * capitals) — with the marked secrets hidden in any capitals and across the
 * separators a name puts between its parts (`opensesa.me4821.example.com`),
 * then the secret-looking parts as in `redactText`.
 */
export function redactName(text: string, secrets: readonly string[] = []): string {
  return redactText(hideLoosely(text, longestFirst(secrets)), secrets);
}

/** Letters and digits, in small letters, with where each came from in the text (start and end, in UTF-16 units). */
function foldOf(text: string): { folded: string; starts: number[]; ends: number[] } {
  let folded = '';
  const starts: number[] = [];
  const ends: number[] = [];
  let index = 0;
  for (const char of text) {
    if (/[\p{L}\p{N}]/u.test(char)) {
      const lower = char.toLowerCase();
      folded += lower;
      for (let i = 0; i < lower.length; i += 1) {
        starts.push(index);
        ends.push(index + char.length);
      }
    }
    index += char.length;
  }
  return { folded, starts, ends };
}

/** Hides every place a marked secret appears in `text` once capitals and separators are set aside. */
function hideLoosely(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0) return text;
  const { folded, starts, ends } = foldOf(text);
  const spans: Array<[number, number]> = [];
  for (const secret of secrets) {
    const wanted = foldOf(secret).folded;
    if (wanted.length < MIN_SECRET_SUBSTRING) continue;
    for (let found = folded.indexOf(wanted); found >= 0; found = folded.indexOf(wanted, found + wanted.length)) spans.push([starts[found]!, ends[found + wanted.length - 1]!]);
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    if (end <= from) continue;
    out += `${text.slice(from, Math.max(from, start))}${REDACTED}`;
    from = end;
  }
  return out + text.slice(from);
}

/** The marked secrets, each once, longest first (a secret that contains another is hidden whole). */
function longestFirst(secrets: readonly string[]): string[] {
  return [...new Set(secrets.filter((secret) => typeof secret === 'string' && secret.length > 0))].sort((a, b) => b.length - a.length);
}

/**
 * Copies `value` with only the marked secrets (the person's own values)
 * hidden, wherever they appear in its strings and keys; nothing else is
 * changed. For what goes to a model: a tool's result, a resource, a prompt
 * — text that must stay as the server wrote it except for the person's
 * secrets. `__proto__` keys are copied as plain data.
 */
export function hideMarkedSecrets<T>(value: T, secrets: readonly string[]): T {
  const marked = longestFirst(secrets);
  if (marked.length === 0) return value;
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return hideMarked(v, marked);
    if (v === null || typeof v !== 'object') return v;
    if (depth > MAX_DEPTH) return REDACTED;
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, member] of Object.entries(v)) Object.defineProperty(out, hideMarked(k, marked), { value: walk(member, depth + 1), enumerable: true, writable: true, configurable: true });
    return out;
  };
  return walk(value, 0) as T;
}

/**
 * Copies `value` with the marked secrets and secret-looking values replaced
 * by `[redacted]`, over-long strings shortened and very deep nesting cut
 * off. Object keys are data too: a key holding a secret is replaced. Never
 * throws; `__proto__` keys are copied as plain data.
 *
 * SECURITY: secrets passed in arguments must not end up in a plain-text log
 * (SECURITY.md 10: credentials are never kept in plain files); what the
 * server named a parameter decides nothing.
 */
export function redactArguments(value: unknown, options: RedactOptions = {}): Redaction {
  const paths: string[] = [];
  let changed = false;
  // Longest first, so a secret that contains another is hidden whole.
  const secrets = longestFirst(options.secrets ?? []);
  const clean = (text: string): { value: string; redacted: boolean } => {
    const marked = hideMarked(text, secrets);
    const r = redactString(marked);
    return { value: r.value, redacted: r.redacted || marked !== text };
  };
  const walk = (v: unknown, path: string, depth: number): unknown => {
    if (depth > MAX_DEPTH) {
      paths.push(path);
      changed = true;
      return '[too deep]';
    }
    if (typeof v === 'string') {
      // Marked secrets are looked for in the whole string; the patterns only ever see a bounded one.
      const marked = hideMarked(v, secrets);
      const cut = marked.length > MAX_STRING ? marked.slice(0, MAX_STRING) : marked;
      const r = redactString(cut);
      if (r.redacted || marked !== v) paths.push(path || '/');
      if (r.redacted || marked !== v || cut !== marked) changed = true;
      return marked.length > MAX_STRING ? `${r.value}…[${marked.length - MAX_STRING} more characters]` : r.value;
    }
    if (v === null || typeof v === 'boolean') return v;
    if (typeof v === 'number') {
      if (Number.isFinite(v)) return v;
      changed = true;
      return String(v);
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, `${path}/${i}`, depth + 1));
    if (typeof v === 'object') {
      const out: Record<string, unknown> = Object.create(null);
      let hiddenKeys = 0;
      // In sorted key order: the copy is then already in canonical order (entries.ts writes it natively).
      for (const k of Object.keys(v).sort()) {
        const member = (v as Record<string, unknown>)[k];
        const key = k.length > MAX_STRING ? { value: `${k.slice(0, 64)}…`, redacted: true } : clean(k);
        let name = key.value;
        if (name !== k) changed = true;
        if (key.redacted) {
          hiddenKeys += 1;
          name = `${REDACTED}#${hiddenKeys}`;
          paths.push(`${path}/${name}`);
        }
        out[name] = walk(member, `${path}/${name}`, depth + 1);
      }
      return out;
    }
    // A function, symbol, bigint or undefined: not copied.
    if (v !== undefined) changed = true;
    return undefined;
  };
  try {
    const copy = walk(value, '', 0);
    return { value: copy, paths, changed };
  } catch {
    return { value: REDACTED, paths: ['/'], changed: true };
  }
}
