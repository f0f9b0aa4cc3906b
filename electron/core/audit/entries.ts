/**
 * The shape of the audit log on disk: one canonical JSON object per line,
 * each carrying the hash of the one before; the head record that anchors
 * the end; and the few pure helpers both the writer and the readers use.
 */
import * as nodeCrypto from 'node:crypto';
import { createHash } from 'node:crypto';
import type { Caller, Rule, Verdict } from '../../../shared/domain';
import { sha256OfCanonical } from '../tools/canonical-json';
import { macEquals, type AuditKey } from './audit-key';

/** prevHash of the very first entry. */
export const GENESIS_HASH = '0'.repeat(64);
/** The file being appended to; rotated files are `audit-000001.jsonl`, … */
export const ACTIVE_FILE = 'audit.jsonl';
export const ROTATED = /^audit-(\d{6,})\.jsonl$/;
export const HEAD_FILE = 'audit.head.json';
export const LOCK_FILE = 'audit.lock';

/** How a call ended. `unknown`: timeout, lost connection or Airlock stopped — the server may have acted. */
/** `not-running`: not sent, because the server was not running (it crashed, or could not start) — nobody refused it. */
export type CallOutcome = 'ok' | 'tool-error' | 'unknown' | 'denied' | 'not-running';

/** Who answered a confirmation, and how (or why nobody did). */
export interface AuditAnswer {
  /** allow-once | allow-session | allow-always | deny | deny-always | expired | cancelled | console */
  how: string;
  /** The shell that answered: window | terminal | gateway | console … */
  by?: string;
  edited?: boolean;
  confirmationId?: string;
}

/** Fields every entry has. */
interface EntryCommon {
  /**
   * 1: written by an Airlock without a keyed head; 2: by one that anchors the
   * end with a key (so a head without a key after a v2 entry was replaced).
   */
  v: 1 | 2;
  /** 1, 2, 3 … across all files. */
  seq: number;
  /** ISO time. */
  time: string;
  /** Joins a decision with its outcome ('' for entries that are not about a call). */
  callId: string;
  server: string;
  tool: string;
  /** `hash` of the previous entry (GENESIS_HASH for the first). */
  prevHash: string;
  /** sha256 of this entry's canonical JSON without `hash`. */
  hash: string;
}

/** The decision on a call, written before the server sees anything. */
export interface DecisionEntry extends EntryCommon {
  type: 'decision';
  caller: Caller;
  fingerprint: string | null;
  /** Arguments with the values the person marked secret, and values that look like secrets, redacted. */
  arguments: unknown;
  /** Paths of redacted values. */
  redacted: string[];
  /** sha256 of canonical (server, tool, exact arguments) — the approval token's digest. */
  argumentsDigest: string;
  /** What the policy said. */
  verdict: Verdict;
  /** What happened: allow (sent) or deny (not sent). */
  final: 'allow' | 'deny';
  reasons: string[];
  /** What decided (`Decision.decidedBy.kind`). */
  decidedBy?: string;
  /** The rule that decided, if any. */
  rule?: Rule;
  answer?: AuditAnswer;
  /** The Airlock process that wrote it (see session.ts); absent in entries from before sessions. */
  session?: string;
  /** For a server reached by URL: the URL the call was sent to (its provenance), in the chained record. */
  remote?: string;
}

/** How a call ended, written after. */
export interface OutcomeEntry extends EntryCommon {
  type: 'outcome';
  outcome: CallOutcome;
  durationMs: number;
  /** Airlock's short description (e.g. "timed out after 30 s"). */
  detail?: string;
  /** Written by a later Airlock process for a call whose process stopped before it finished. */
  recovered?: boolean;
}

/**
 * Written when an append finds the log ending in an incomplete line (a crash
 * or a full disk cut a write short): the damaged bytes are sealed with a
 * newline and this entry, chained to the last good entry, records which line
 * was damaged and the sha256 of its bytes. `verify()` accepts exactly that
 * line, and reports it.
 */
export interface RepairEntry extends EntryCommon {
  type: 'repair';
  /** 1-based line number of the (first) damaged line in the same file. */
  damagedLine: number;
  /** How many damaged lines in a row (absent: one). */
  damagedLines?: number;
  /** Length and sha256 of the damaged lines' bytes, joined by newlines. */
  damagedBytes: number;
  damagedSha256: string;
}

/** Who decided a network request. */
export type NetworkDecider =
  /** the server's grant */
  | 'grant'
  /** a person answered the question */
  | 'person'
  /** nobody could be asked, or nobody answered in time */
  | 'nobody'
  /** the server may not be asked about (contained, or no questions): not granted means no */
  | 'policy'
  /** Airlock's own checks (a malformed host, a private address, a name that does not resolve) */
  | 'airlock';

/** A network request a sandboxed server made through its proxy, and what was decided. */
export interface NetworkEntry extends EntryCommon {
  type: 'network';
  host: string;
  port: number;
  decision: 'allow' | 'deny';
  /** The proxy's reason (`granted`, `user-denied`, `ask-failed`, …). */
  reason: string;
  decidedBy: NetworkDecider;
  /** The shell a person answered in (window, terminal). */
  answeredBy?: string;
  /** This entry stands for `1 + repeats` identical decisions (a flood is counted over a minute, not written one by one). */
  repeats?: number;
  /** This entry stands for that many decisions about other hosts in the minute before it (the last one named): a flood of names. */
  otherHosts?: number;
}

/**
 * A refusal the operating system's sandbox reported for a server (macOS:
 * Seatbelt, read back through `log stream`; Linux and Windows report none).
 * What the server tried, in the sandbox's words — data, shown inert.
 */
export interface SandboxRefusalEntry extends EntryCommon {
  type: 'sandbox';
  /** The sandbox's line ("deny(1) file-read-data /Users/ann/.ssh/id_rsa"), capped. */
  detail: string;
  /** This entry stands for `1 + repeats` identical refusals (counted over a minute). */
  repeats?: number;
}

/**
 * A tool did, during one of its calls, something its claims say it does not
 * (claims/): which call, what it claimed, what it did and where (a path in
 * a write grant, a host and port, the OS sandbox's refusal), when, and what
 * followed for its claims. Paths and hosts are data, redacted like every
 * entry's text.
 */
export interface ClaimsContradictedEntry extends EntryCommon {
  type: 'claims-contradicted';
  /** The definition it had (its fingerprint). */
  fingerprint: string;
  /** The claims it contradicted. */
  claims: Array<'readOnlyHint' | 'destructiveHint' | 'openWorldHint'>;
  /** What it did against each, in order seen. */
  evidence: Array<{ claim: string; did: string; target: string; at: string; alongside?: string[]; allowed?: boolean }>;
  /** Further things it did in that call that were not written one by one. */
  more?: number;
  /**
   * What followed: `withdrawn` (its claims are no longer used until the
   * person reviews them), `already-withdrawn`, `distrusted` (the person
   * chose not to trust them), `kept` (the person chose to keep trusting
   * these claims of this definition: recorded, not withdrawn again).
   */
  effect: 'withdrawn' | 'already-withdrawn' | 'distrusted' | 'kept';
}

/** What Airlock found about the end of the log when it took over writing. */
export type AnchorFinding =
  /** The record of the end was missing. */
  | 'head-missing'
  /** It did not verify with the key (edited, or forged without the key). */
  | 'head-forged'
  /** It was made with a different key. */
  | 'head-other-key'
  /** It carried no MAC (an older Airlock). */
  | 'head-unkeyed'
  /** It named entries the log no longer has: entries were cut from the end. */
  | 'truncated'
  /** It named a different last entry than the one the log holds: the end was rewritten. */
  | 'rewritten'
  /** The log held entries after the recorded end (a crash between the two writes, or added by hand). */
  | 'unanchored-entries';

/**
 * Written by the first append after Airlock found the end of the log not as
 * it was recorded: the finding stays in the chain, so the next append cannot
 * quietly anchor a cut log.
 */
export interface AnchorEntry extends EntryCommon {
  type: 'anchor';
  finding: AnchorFinding;
  detail: string;
  /** The last entry the head named, when it named one. */
  headSeq?: number;
}

/** What a `change` entry records: a rule, a grant, trust, a setting, an approval of a changed tool or code, or a server itself. */
export type ChangeKind =
  | 'rule-added'
  | 'rule-removed'
  | 'rules-revoked'
  | 'trust'
  | 'grants'
  | 'unsandboxed'
  | 'policy-mode'
  | 'strict-durability'
  | 'server-requests'
  | 'tool-approved'
  | 'screen-approved'
  | 'code-approved'
  | 'server-added'
  | 'server-updated'
  | 'server-removed'
  /** The organisation's managed policy took effect, changed, stopped or let a server run again, or refused a change. */
  | 'managed-policy'
  /** Where the audit log is streamed (an OpenTelemetry collector) was changed. */
  | 'audit-export'
  /** The person reviewed what a tool did against its claims: kept trusting them, or not. */
  | 'claims-reviewed';

/** Where the person made a change: Airlock's window, or the `airlock` command line; or the organisation's managed policy. */
export type ChangeActor = 'window' | 'command-line' | 'organisation';

/**
 * A change a person made to what Airlock allows (a rule, grants, trust, the
 * policy mode, strict durability, a server added or removed), in the same
 * chain as the calls it affects. `server` is '' for settings; `tool` names a
 * rule's tool ('' otherwise).
 */
export interface ChangeEntry extends EntryCommon {
  type: 'change';
  change: ChangeKind;
  by: ChangeActor;
  /** How the change was made when not by a plain command: an "always" answer to a confirmation, a network question's "remember". */
  via?: 'confirmation' | 'network-question';
  /** What changed, one line per change, in words ("write grant added: /home/me/notes"). */
  changes: string[];
}

/** One line of the log. */
export type AuditEntry = DecisionEntry | OutcomeEntry | RepairEntry | NetworkEntry | AnchorEntry | ChangeEntry | SandboxRefusalEntry | ClaimsContradictedEntry;

/** Findings that leave the log unconfirmable (reported by `verify()` as problems, for good). */
export const FAILING_FINDINGS: ReadonlySet<AnchorFinding> = new Set(['head-missing', 'head-forged', 'head-other-key', 'truncated', 'rewritten']);

type OneShotHash = (algorithm: string, data: string) => string;
const oneShot = (nodeCrypto as unknown as { hash?: OneShotHash }).hash;

/** sha256 (hex) of a string: Node's one-shot `crypto.hash` where it exists (20.12+), else a Hash object. */
export function sha256Hex(text: string): string {
  return oneShot ? oneShot('sha256', text) : createHash('sha256').update(text).digest('hex');
}

/** The bytes a repair entry describes: the damaged lines joined by newlines. */
export function damagedRunBytes(lines: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  lines.forEach((line, i) => {
    if (i > 0) parts.push(Buffer.from('\n'));
    parts.push(line);
  });
  return Buffer.concat(parts);
}

/** sha256 of an entry's canonical JSON without its `hash` member. */
export function hashOf(entry: AuditEntry | Record<string, unknown>): string {
  const { hash: _ignored, ...rest } = entry as Record<string, unknown>;
  return sha256OfCanonical(rest);
}

/**
 * A record with its own keys in sorted order (a shallow copy; the record
 * itself when they already are). Nested values are not copied.
 */
export function inKeyOrder<T extends object>(record: T): T {
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!;
  // A `__proto__` key cannot be copied by assignment: such a record stays as it is (and is sealed member by member).
  if (sorted || Object.hasOwn(record, '__proto__')) return record;
  const copy: Record<string, unknown> = Object.create(Object.getPrototypeOf(record) === null ? null : Object.prototype);
  for (const key of keys.sort()) copy[key] = (record as Record<string, unknown>)[key];
  return copy as T;
}

/**
 * Builds an entry from its members (without `hash`): the hash of its
 * canonical JSON, and the line to write — the canonical JSON of the entry
 * with `hash` at its sorted place (equal to `canonicalJson(entry)`, built
 * without serialising twice).
 */
export function sealEntry(withoutHash: Record<string, unknown>): { entry: AuditEntry; line: string } {
  const keys = Object.keys(withoutHash).sort();
  return sealNative(withoutHash, keys) ?? sealByMember(withoutHash, keys);
}

/**
 * `sealEntry` with the native serialiser, when every member is plain data
 * already in canonical order: the members before `hash` and those after it,
 * each written by one `JSON.stringify`. Undefined when any member is not
 * (then each member is written on its own).
 */
function sealNative(withoutHash: Record<string, unknown>, keys: readonly string[]): { entry: AuditEntry; line: string } | undefined {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  let hasBefore = false;
  let hasAfter = false;
  for (const key of keys) {
    const member = withoutHash[key];
    if (member === undefined) continue;
    // Own data members only (a `__proto__` key would set a prototype here).
    if (key === '__proto__' || key === 'hash') return undefined;
    if (key < 'hash') {
      before[key] = member;
      hasBefore = true;
    } else {
      after[key] = member;
      hasAfter = true;
    }
  }
  if (!inCanonicalOrder(before, 0) || !inCanonicalOrder(after, 0)) return undefined;
  // "{…}" without its braces.
  const head = hasBefore ? JSON.stringify(before).slice(1, -1) : '';
  const tail = hasAfter ? JSON.stringify(after).slice(1, -1) : '';
  const hash = sha256Hex(hasBefore && hasAfter ? `{${head},${tail}}` : `{${head}${tail}}`);
  const line = `{${hasBefore ? `${head},` : ''}"hash":"${hash}"${hasAfter ? `,${tail}` : ''}}`;
  return { entry: { ...withoutHash, hash } as AuditEntry, line };
}

function sealByMember(withoutHash: Record<string, unknown>, keys: readonly string[]): { entry: AuditEntry; line: string } {
  // Members before and after `hash` in sorted order, built once: the hashed text joins them,
  // the line puts `"hash":"…"` between them.
  let before = '';
  let after = '';
  for (const key of keys) {
    const member = withoutHash[key];
    if (member === undefined) continue;
    const part = `${JSON.stringify(key)}:${canonicalText(member)}`;
    if (key < 'hash') before = before === '' ? part : `${before},${part}`;
    else after = after === '' ? part : `${after},${part}`;
  }
  const hash = sha256Hex(before === '' || after === '' ? `{${before}${after}}` : `{${before},${after}}`);
  const field = `"hash":"${hash}"`;
  const line = `{${before === '' ? '' : `${before},`}${field}${after === '' ? '' : `,${after}`}}`;
  return { entry: { ...withoutHash, hash } as AuditEntry, line };
}

/**
 * `canonicalJson` (tools/canonical-json.ts) without building sorted copies:
 * the same text — keys sorted, `undefined` members dropped (null in arrays),
 * everything else as JSON.stringify writes it — built directly, since the
 * audit log serialises every entry on the hot path. A property test holds
 * the two equal.
 */
export function canonicalText(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Already in canonical order (keys sorted at every level, plain data only): the native serialiser writes the same text.
  return inCanonicalOrder(value, 0) ? JSON.stringify(value) : canonicalSlow(value);
}

/**
 * True when `JSON.stringify(value)` is the canonical text: plain objects
 * (Object or null prototype, no `toJSON`) whose keys are already sorted and
 * none array-index-like, arrays, and members that are strings, finite
 * numbers, booleans or null — no `undefined`, functions, symbols, bigints,
 * non-finite numbers or other objects (Date, boxed values), which the two
 * write differently or refuse. Anything else takes the slow path.
 */
function inCanonicalOrder(value: object, depth: number): boolean {
  if (depth > 64) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) if (!plainMember(value[i], depth)) return false;
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  if ('toJSON' in value) return false;
  const keys = Object.keys(value);
  // The keys first, so an unsorted object is refused before anything beneath it is looked at.
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (i > 0 && !(keys[i - 1]! < key)) return false;
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39 && isIndexKey(key)) return false;
  }
  for (const key of keys) if (!plainMember((value as Record<string, unknown>)[key], depth)) return false;
  return true;
}

function plainMember(member: unknown, depth: number): boolean {
  switch (typeof member) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(member);
    case 'object':
      return member === null || inCanonicalOrder(member, depth + 1);
    default:
      return false;
  }
}

function canonicalSlow(value: object): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const member: unknown = value[i];
      out += member === undefined || typeof member === 'function' || typeof member === 'symbol' ? 'null' : canonicalText(member);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  // canonicalJson inserts the sorted keys into an object, which lists array-index keys first, in numeric order.
  // (Sorted, any index key sorts before the first key that does not start with a digit or a lower character.)
  if (keys.length > 0 && !(keys[0]!.charCodeAt(0) > 0x39) && keys.some(isIndexKey)) {
    const indices = keys.filter(isIndexKey).sort((a, b) => Number(a) - Number(b));
    keys.splice(0, keys.length, ...indices, ...keys.filter((key) => !isIndexKey(key)));
  }
  let out = '{';
  let first = true;
  for (const key of keys) {
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    if (!first) out += ',';
    first = false;
    out += `${JSON.stringify(key)}:${canonicalText(member)}`;
  }
  return `${out}}`;
}

function isIndexKey(key: string): boolean {
  return /^(0|[1-9][0-9]{0,9})$/.test(key) && Number(key) < 4294967295;
}

/**
 * Checks one line's hash. Fast path: the line is canonical, so the bytes
 * without `,"hash":"…"` are what was hashed. Otherwise the canonical form of
 * the parsed entry is hashed (both are binding: any changed byte changes the
 * hash, and the next entry's link).
 */
export function lineHashMatches(line: string, entry: { hash: string }): boolean {
  const field = `,"hash":"${entry.hash}"`;
  const at = line.indexOf(field);
  if (at > 0 && /^[0-9a-f]{64}$/.test(entry.hash)) {
    const hashed = sha256Hex(line.slice(0, at) + line.slice(at + field.length));
    if (hashed === entry.hash) return true;
  }
  return hashOf(entry) === entry.hash;
}

// ── The head: where the log ended, anchored by a key ─────────────────────

/** Fixed size, overwritten in place (no truncation: ext4 flushes a truncated-and-rewritten small file at once). */
export const HEAD_BYTES = 256;

/** What `audit.head.json` records. */
export interface HeadRecord {
  v?: 2;
  /** The last entry written. */
  seq: number;
  hash: string;
  /** The last entry known flushed to disk when this was written (entries after it may be lost in a power cut). */
  durable?: number;
  /** The key's id and the MAC; absent in heads from older Airlock versions or without a key. */
  key?: string;
  mac?: string;
}

function headMessage(seq: number, hash: string, durable: number): string {
  return `airlock-audit-head v2\n${seq}\n${hash}\n${durable}`;
}

/** The bytes of a head record for the end `seq/hash` (keyed when a key is given). */
export function headBytes(seq: number, hash: string, durable: number, key: AuditKey | undefined): Buffer {
  const record: HeadRecord = { v: 2, seq, hash, durable, ...(key ? { key: key.id, mac: key.mac(headMessage(seq, hash, durable)) } : {}) };
  return Buffer.from(`${JSON.stringify(record).padEnd(HEAD_BYTES - 1, ' ')}\n`, 'utf8');
}

/** How the head checks out against the key. */
export type HeadCheck =
  | { status: 'missing' }
  | { status: 'malformed' }
  | { status: 'valid'; head: HeadRecord }
  /** No key to check with: the head is only a hint. */
  | { status: 'unchecked'; head: HeadRecord }
  | { status: 'unkeyed'; head: HeadRecord }
  | { status: 'other-key'; head: HeadRecord }
  | { status: 'forged'; head: HeadRecord };

/** Parses and checks a head record's text (null: the file does not exist). */
export function checkHead(text: string | null, key: AuditKey | undefined): HeadCheck {
  if (text === null) return { status: 'missing' };
  let head: HeadRecord;
  try {
    head = JSON.parse(text) as HeadRecord;
  } catch {
    return { status: 'malformed' };
  }
  if (!head || typeof head !== 'object' || !Number.isSafeInteger(head.seq) || head.seq < 0 || typeof head.hash !== 'string') return { status: 'malformed' };
  if (head.durable !== undefined && !Number.isSafeInteger(head.durable)) return { status: 'malformed' };
  if (!key) return { status: 'unchecked', head };
  if (head.mac === undefined && head.key === undefined) return { status: 'unkeyed', head };
  if (head.key !== key.id) return { status: 'other-key', head };
  if (typeof head.mac !== 'string' || !macEquals(head.mac, key.mac(headMessage(head.seq, head.hash, head.durable ?? 0)))) return { status: 'forged', head };
  return { status: 'valid', head };
}
