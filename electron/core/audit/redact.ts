/**
 * Redaction of secret-looking values before arguments reach the audit log:
 * values under keys that name a secret (token, password, secret, api_key,
 * authorization, cookie, credential, private key…) and strings that look
 * like keys whatever their key (provider key prefixes, JWTs, PEM private
 * keys, bearer tokens, passwords in URLs, long random-looking strings).
 * Errs towards hiding: a hash in an argument may be hidden too; the log keeps
 * the digest of the exact arguments, so nothing is lost for verification.
 */

/** The marker written in place of a secret. */
export const REDACTED = '[redacted]';

const MAX_DEPTH = 32;
const MAX_STRING = 16 * 1024;

// Compared against the key lowercased with separators removed ("API-Key" → "apikey").
const SECRET_KEY_PARTS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'authorization',
  'credential',
  'privatekey',
  'accesskey',
  'cookie',
  'bearer',
  'sessionid',
  'signature',
];
const SECRET_KEY_EXACT = new Set(['auth', 'pwd', 'pass', 'pin', 'otp', 'sig']);

/** True when a key names a secret (`api_key`, `X-Auth-Token`, `password`, `clientSecret`…). */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (SECRET_KEY_EXACT.has(k)) return true;
  return SECRET_KEY_PARTS.some((part) => k.includes(part));
}

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

/** Replaces secret-looking parts of a string; returns the string and whether anything was hidden. */
export function redactString(value: string): { value: string; redacted: boolean } {
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
}

/**
 * Copies `value` with secret-looking values replaced by `[redacted]`,
 * over-long strings shortened and very deep nesting cut off. Never throws;
 * `__proto__` keys are copied as plain data.
 *
 * SECURITY: secrets passed in arguments must not end up in a plain-text log
 * (SECURITY.md 10: credentials are never kept in plain files).
 */
export function redactArguments(value: unknown): Redaction {
  const paths: string[] = [];
  const walk = (v: unknown, path: string, depth: number, secretKey: boolean): unknown => {
    if (depth > MAX_DEPTH) {
      paths.push(path);
      return '[too deep]';
    }
    if (typeof v === 'string') {
      if (secretKey) {
        paths.push(path || '/');
        return REDACTED;
      }
      // Cut first, so the patterns only ever see a bounded string.
      const cut = v.length > MAX_STRING ? v.slice(0, MAX_STRING) : v;
      const r = redactString(cut);
      if (r.redacted) paths.push(path || '/');
      return v.length > MAX_STRING ? `${r.value}…[${v.length - MAX_STRING} more characters]` : r.value;
    }
    if (v === null || typeof v === 'boolean') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
    if (Array.isArray(v)) {
      if (secretKey) {
        paths.push(path);
        return REDACTED;
      }
      return v.map((item, i) => walk(item, `${path}/${i}`, depth + 1, false));
    }
    if (typeof v === 'object') {
      if (secretKey) {
        paths.push(path);
        return REDACTED;
      }
      const out: Record<string, unknown> = Object.create(null);
      for (const [k, member] of Object.entries(v as Record<string, unknown>)) {
        out[k] = walk(member, `${path}/${k}`, depth + 1, isSecretKey(k));
      }
      return out;
    }
    return undefined;
  };
  try {
    return { value: walk(value, '', 0, false), paths };
  } catch {
    return { value: REDACTED, paths: ['/'] };
  }
}
