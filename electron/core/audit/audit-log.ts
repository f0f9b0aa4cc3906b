import { createHash, randomUUID } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import { basename, join } from 'node:path';
import type { Caller, Rule, Verdict } from '../../../shared/domain';
import { callDigest } from '../approvals/approval-tokens';
import { canonicalJson, sha256OfCanonical } from '../tools/canonical-json';
import { acquireFileLock } from './file-lock';
import { redactArguments } from './redact';
import { serverRequestBody, type ServerRequestAuditEntry, type ServerRequestAuditInput } from './server-request-entries';

/** prevHash of the very first entry. */
export const GENESIS_HASH = '0'.repeat(64);
/** The file being appended to; rotated files are `audit-000001.jsonl`, … */
export const ACTIVE_FILE = 'audit.jsonl';
const ROTATED = /^audit-(\d{6,})\.jsonl$/;
const HEAD_FILE = 'audit.head.json';
const LOCK_FILE = 'audit.lock';

/** How a call ended. `unknown`: timeout or lost connection — the server may have acted. */
export type CallOutcome = 'ok' | 'tool-error' | 'unknown' | 'denied';

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
  v: 1;
  /** 1, 2, 3 … across all files. */
  seq: number;
  /** ISO time. */
  time: string;
  /** Joins a decision with its outcome. */
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
  /** Arguments with secret-looking values redacted. */
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
}

/** How a call ended, written after. */
export interface OutcomeEntry extends EntryCommon {
  type: 'outcome';
  outcome: CallOutcome;
  durationMs: number;
  /** Airlock's short description (e.g. "timed out after 30 s"). */
  detail?: string;
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
  /** 1-based line number of the damaged line in the same file. */
  damagedLine: number;
  damagedBytes: number;
  damagedSha256: string;
}

/** One line of the log. */
export type AuditEntry = DecisionEntry | OutcomeEntry | RepairEntry;

/** What `appendDecision` takes. */
export interface DecisionInput {
  /** Generated when absent; pass it on to `appendOutcome`. */
  callId?: string;
  caller: Caller;
  server: string;
  tool: string;
  fingerprint: string | null;
  /** The exact arguments to be sent (redacted before writing). */
  arguments: unknown;
  verdict: Verdict;
  final: 'allow' | 'deny';
  reasons: readonly string[];
  decidedBy?: string;
  rule?: Rule | null;
  answer?: AuditAnswer | null;
}

/** What `appendOutcome` takes. */
export interface OutcomeInput {
  callId: string;
  server: string;
  tool: string;
  outcome: CallOutcome;
  durationMs: number;
  detail?: string;
}

/** Where verification failed. `line` is 1-based within `file`. */
export interface AuditProblem {
  file: string;
  line: number;
  kind: 'malformed' | 'edited' | 'removed' | 'reordered' | 'broken-chain' | 'truncated';
  message: string;
}

/** The result of `verify()`. */
export interface VerifyResult {
  ok: boolean;
  entries: number;
  files: string[];
  problem?: AuditProblem;
  /** Incomplete writes sealed by a repair entry (not tampering, but worth showing). */
  repaired: { file: string; line: number }[];
}

/** A decision with its outcome, as `read()` returns them (newest first). */
export interface AuditRecord {
  decision: DecisionEntry;
  outcome?: OutcomeEntry;
}

/** Filters for `read()`. `decision` matches the policy verdict, or the final allow/deny. */
export interface AuditQuery {
  server?: string;
  tool?: string;
  decision?: Verdict;
  limit?: number;
}

/** Construction options for `AuditLog`. */
export interface AuditLogOptions {
  /** The folder holding the log (created if missing, mode 0700). */
  dir: string;
  /** Rotate when the active file reaches this size (bytes). Default 8 MiB. */
  maxFileBytes?: number;
  /** Epoch ms; injectable for tests. */
  now?: () => number;
  /** Lock wait limit (ms). */
  lockTimeoutMs?: number;
}

/** An audit write failed: the call must not go ahead. */
export class AuditWriteError extends Error {
  override name = 'AuditWriteError';
}

interface Tail {
  seq: number;
  hash: string;
}

interface Snapshot {
  files: { name: string; bytes: Buffer; text: string }[];
  head: Tail | null;
}

/** The log ends in an incomplete line: the next append seals it. */
class DamagedTailError extends AuditWriteError {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/**
 * The audit log: append-only JSON lines, hash-chained across rotated files.
 *
 * - `appendDecision` is written and fsync'ed before it resolves: the
 *   pipeline sends the call only after it resolves (invariant 1).
 * - Appends from several processes stay one chain: each append takes a lock
 *   file, re-reads the tail hash, appends with O_APPEND, fsyncs, releases.
 * - `verify()` recomputes every hash and link and names the first bad line.
 *
 * SECURITY: invariant 1 — the decision is in the log before the server
 * sees anything; a write failure rejects, and the caller must not send.
 * The chain detects edits, removals and reordering by anyone without the
 * ability to rewrite the whole tail (there is no key; a keyed chain is a
 * later step).
 */
export class AuditLog {
  readonly #dir: string;
  readonly #maxFileBytes: number;
  readonly #now: () => number;
  readonly #lockTimeoutMs: number;
  #queue: Promise<unknown> = Promise.resolve();
  // Tail cache: valid while the active file is the one we last wrote (same inode and size).
  #cache: { ino: number; size: number; tail: Tail } | null = null;
  #ready: Promise<void> | null = null;

  /** See `AuditLogOptions`. Nothing is touched until the first call. */
  constructor(options: AuditLogOptions) {
    this.#dir = options.dir;
    this.#maxFileBytes = options.maxFileBytes ?? 8 * 1024 * 1024;
    this.#now = options.now ?? (() => Date.now());
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
  }

  /** The folder holding the log. */
  get dir(): string {
    return this.#dir;
  }

  /**
   * Appends the decision on a call and fsyncs it. Resolves with the entry
   * written; rejects with `AuditWriteError` (then the call must not be sent).
   */
  appendDecision(input: DecisionInput): Promise<DecisionEntry> {
    const callId = input.callId ?? randomUUID();
    const redaction = redactArguments(input.arguments);
    let digest: string;
    try {
      digest = callDigest(input.server, input.tool, input.arguments);
    } catch {
      digest = 'unavailable';
    }
    const body = {
      type: 'decision' as const,
      callId,
      server: String(input.server),
      tool: String(input.tool),
      caller: input.caller,
      fingerprint: input.fingerprint,
      arguments: redaction.value,
      redacted: redaction.paths,
      argumentsDigest: digest,
      verdict: input.verdict,
      final: input.final,
      reasons: [...input.reasons],
      ...(input.decidedBy ? { decidedBy: input.decidedBy } : {}),
      ...(input.rule ? { rule: input.rule } : {}),
      ...(input.answer ? { answer: input.answer } : {}),
    };
    return this.#append(body) as Promise<DecisionEntry>;
  }

  /** Appends how a call ended (fsync'ed too). */
  appendOutcome(input: OutcomeInput): Promise<OutcomeEntry> {
    const body = {
      type: 'outcome' as const,
      callId: input.callId,
      server: String(input.server),
      tool: String(input.tool),
      outcome: input.outcome,
      durationMs: Math.max(0, Math.round(input.durationMs)),
      ...(input.detail !== undefined ? { detail: String(input.detail).slice(0, 500) } : {}),
    };
    return this.#append(body) as Promise<OutcomeEntry>;
  }

  /**
   * Appends an entry about a request from a server — its decision (before a
   * model, a person or a folder list is involved) or its outcome — into the
   * same chain, fsync'ed like a call's decision (see server-request-entries.ts).
   */
  appendServerRequest(input: ServerRequestAuditInput): Promise<ServerRequestAuditEntry> {
    return this.#append(serverRequestBody(input)) as unknown as Promise<ServerRequestAuditEntry>;
  }

  /**
   * Checks the whole chain across files: every line parses, every hash
   * matches its content, every entry links to the one before, sequence
   * numbers run without gaps, and the log is not shorter than the last
   * append recorded. Names the first bad file and line.
   */
  async verify(): Promise<VerifyResult> {
    const snap = await this.#snapshot();
    const files = snap.files.map((f) => f.name);
    let expectedPrev = GENESIS_HASH;
    let expectedSeq = 1;
    let entries = 0;
    let last: { file: string; line: number } = { file: files[0] ?? ACTIVE_FILE, line: 0 };
    let headChecked = false;
    const repaired: { file: string; line: number }[] = [];
    const fail = (problem: AuditProblem): VerifyResult => ({ ok: false, entries, files, problem, repaired });

    // Every sequence number present, to tell a moved entry from a missing one.
    const present = new Set<number>();
    for (const { text } of snap.files) {
      for (const line of text.split('\n')) {
        const m = /"seq":(\d+)/.exec(line);
        if (m) present.add(Number(m[1]));
      }
    }

    for (const { name, bytes } of snap.files) {
      const raw = splitLines(bytes);
      if (raw.length > 0 && !raw[raw.length - 1]!.terminated) {
        return fail({
          file: name,
          line: raw.length,
          kind: 'malformed',
          message: 'The last line is incomplete (a write was cut short, or the file was edited); the next append seals it.',
        });
      }
      for (let i = 0; i < raw.length; i++) {
        const where = { file: name, line: i + 1 };
        let entry: AuditEntry;
        try {
          entry = JSON.parse(raw[i]!.bytes.toString('utf8')) as AuditEntry;
          if (!entry || typeof entry !== 'object' || typeof entry.hash !== 'string') throw new Error('shape');
        } catch {
          // Accepted only when the next line is a repair entry naming exactly these bytes.
          if (sealedBy(raw[i + 1]?.bytes, i + 1, raw[i]!.bytes)) {
            repaired.push(where);
            continue;
          }
          return fail({ ...where, kind: 'malformed', message: 'This line is not an audit entry.' });
        }
        if (hashOf(entry) !== entry.hash) {
          return fail({ ...where, kind: 'edited', message: 'This entry was changed after it was written.' });
        }
        if (entry.prevHash !== expectedPrev || entry.seq !== expectedSeq) {
          let kind: AuditProblem['kind'] = 'broken-chain';
          let message = 'This entry does not follow the one before it.';
          if (typeof entry.seq === 'number' && entry.seq > expectedSeq && present.has(expectedSeq)) {
            kind = 'reordered';
            message = `Entry ${entry.seq} appears before entry ${expectedSeq}: entries were moved.`;
          } else if (typeof entry.seq === 'number' && entry.seq > expectedSeq) {
            kind = 'removed';
            message =
              entry.seq - 1 === expectedSeq
                ? `Entry ${expectedSeq} is missing before this line.`
                : `Entries ${expectedSeq}–${entry.seq - 1} are missing before this line.`;
          } else if (typeof entry.seq === 'number' && entry.seq < expectedSeq) {
            kind = 'reordered';
            message = `Entry ${entry.seq} appears after entry ${expectedSeq - 1}: entries were moved.`;
          } else {
            message = 'The entry before this one was replaced or rewritten.';
          }
          return fail({ ...where, kind, message });
        }
        if (snap.head && entry.seq === snap.head.seq) {
          if (entry.hash !== snap.head.hash) {
            return fail({ ...where, kind: 'edited', message: 'This entry differs from the one Airlock last recorded.' });
          }
          headChecked = true;
        }
        expectedPrev = entry.hash;
        expectedSeq = entry.seq + 1;
        entries++;
        last = where;
      }
    }
    if (snap.head && !headChecked && snap.head.seq >= expectedSeq) {
      return fail({
        ...last,
        kind: 'truncated',
        message: `The log ends at entry ${expectedSeq - 1}, but Airlock wrote up to entry ${snap.head.seq}: entries at the end were removed.`,
      });
    }
    return { ok: true, entries, files, repaired };
  }

  /**
   * Decisions with their outcomes, newest first, filtered. Reads every file
   * (fine for the sizes a desktop log reaches; an index is a later step).
   */
  async read(query: AuditQuery = {}): Promise<AuditRecord[]> {
    const snap = await this.#snapshot();
    const limit = query.limit ?? 100;
    const outcomes = new Map<string, OutcomeEntry>();
    const decisions: DecisionEntry[] = [];
    for (const { text } of snap.files) {
      for (const line of text.split('\n')) {
        if (line === '') continue;
        let e: AuditEntry;
        try {
          e = JSON.parse(line) as AuditEntry;
        } catch {
          continue; // verify() reports it; reading shows what can be read
        }
        if (e.type === 'outcome') outcomes.set(e.callId, e);
        else if (e.type === 'decision') decisions.push(e);
      }
    }
    const out: AuditRecord[] = [];
    for (let i = decisions.length - 1; i >= 0 && out.length < limit; i--) {
      const d = decisions[i]!;
      if (query.server !== undefined && d.server !== query.server) continue;
      if (query.tool !== undefined && d.tool !== query.tool) continue;
      if (query.decision !== undefined && d.verdict !== query.decision && d.final !== query.decision) continue;
      const o = outcomes.get(d.callId);
      out.push(o ? { decision: d, outcome: o } : { decision: d });
    }
    return out;
  }

  /** The log files in chain order (oldest first). */
  async files(): Promise<string[]> {
    return (await this.#listFiles()).map((f) => f.name);
  }

  #append(body: Record<string, unknown>): Promise<AuditEntry> {
    const run = this.#queue.then(() => this.#appendLocked(body));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #ensureDir(): Promise<void> {
    this.#ready ??= fs.mkdir(this.#dir, { recursive: true, mode: 0o700 }).then(() => undefined);
    await this.#ready;
  }

  async #appendLocked(body: Record<string, unknown>): Promise<AuditEntry> {
    try {
      await this.#ensureDir();
    } catch (error) {
      throw new AuditWriteError(`Cannot create the audit folder: ${(error as Error).message}`);
    }
    let release;
    try {
      release = await acquireFileLock(join(this.#dir, LOCK_FILE), { timeoutMs: this.#lockTimeoutMs });
    } catch (error) {
      throw new AuditWriteError((error as Error).message);
    }
    try {
      const active = join(this.#dir, ACTIVE_FILE);
      const stat = await statOrNull(active);
      let tail: Tail;
      try {
        tail = await this.#tail(active, stat);
      } catch (error) {
        if (!(error instanceof DamagedTailError)) throw error;
        tail = await this.#sealDamagedEnd(error.path);
      }
      // Rotate after the tail is known (and sealed if damaged); the chain continues across the rename.
      if (stat && stat.size >= this.#maxFileBytes) await this.#rotate(active);
      const withoutHash = {
        v: 1 as const,
        seq: tail.seq + 1,
        time: new Date(this.#now()).toISOString(),
        prevHash: tail.hash,
        ...body,
      };
      const entry = { ...withoutHash, hash: sha256OfCanonical(withoutHash) } as AuditEntry;
      const line = Buffer.from(`${canonicalJson(entry)}\n`, 'utf8');
      // SECURITY: invariant 1 — O_APPEND, one write, fsync before resolving.
      await this.#appendBytes(active, line, { seq: entry.seq, hash: entry.hash });
      // The head lets verify() notice entries cut from the end; it is a hint, written after.
      await writeHead(join(this.#dir, HEAD_FILE), { seq: entry.seq, hash: entry.hash }).catch(() => undefined);
      return entry;
    } catch (error) {
      if (error instanceof AuditWriteError) throw error;
      throw new AuditWriteError(`Could not write the audit log: ${(error as Error).message}`);
    } finally {
      await release();
    }
  }

  // One O_APPEND write (looped if the kernel writes less), then fsync.
  async #appendBytes(active: string, bytes: Buffer, tail: Tail): Promise<void> {
    const handle = await fs.open(active, 'a', 0o600);
    try {
      let off = 0;
      while (off < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, off, bytes.length - off);
        if (bytesWritten <= 0) throw new Error('no progress writing the audit log');
        off += bytesWritten;
      }
      await handle.sync();
      const after = await handle.stat();
      this.#cache = { ino: after.ino, size: after.size, tail };
    } finally {
      await handle.close();
    }
  }

  // The active file ends in an incomplete line: seal it with a newline and a
  // repair entry chained to the last good entry. Anything else wrong with
  // the end of the log is left for a person (fail closed).
  async #sealDamagedEnd(path: string): Promise<Tail> {
    const bytes = await fs.readFile(path);
    const lines = splitLines(bytes);
    const damaged = lines.at(-1);
    if (!damaged || damaged.terminated) throw new AuditWriteError('The audit log could not be repaired; run `airlock audit verify`.');
    let tail: Tail;
    if (lines.length >= 2) {
      try {
        const prev = JSON.parse(lines[lines.length - 2]!.bytes.toString('utf8')) as AuditEntry;
        if (typeof prev.seq !== 'number' || typeof prev.hash !== 'string') throw new Error('shape');
        tail = { seq: prev.seq, hash: prev.hash };
      } catch {
        throw new AuditWriteError('The audit log is damaged beyond its last line; run `airlock audit verify`.');
      }
    } else {
      // The damaged line is the file's first: chain to the file before it.
      const names = (await this.#listRotated()).map((r) => r.name);
      const own = names.indexOf(basename(path));
      const before = own >= 0 ? names[own - 1] : names.at(-1);
      tail = before ? await readTail(join(this.#dir, before)) : { seq: 0, hash: GENESIS_HASH };
    }
    const withoutHash = {
      v: 1 as const,
      seq: tail.seq + 1,
      time: new Date(this.#now()).toISOString(),
      prevHash: tail.hash,
      type: 'repair' as const,
      callId: '',
      server: '',
      tool: '',
      damagedLine: lines.length,
      damagedBytes: damaged.bytes.length,
      damagedSha256: createHash('sha256').update(damaged.bytes).digest('hex'),
    };
    const entry = { ...withoutHash, hash: sha256OfCanonical(withoutHash) };
    const sealed = { seq: entry.seq, hash: entry.hash };
    await this.#appendBytes(path, Buffer.from(`\n${canonicalJson(entry)}\n`, 'utf8'), sealed);
    return sealed;
  }

  async #rotate(active: string): Promise<void> {
    const rotated = await this.#listRotated();
    const next = (rotated.at(-1)?.n ?? 0) + 1;
    // The chain continues: the next entry's prevHash is this file's last hash (read via the rotated file).
    await fs.rename(active, join(this.#dir, `audit-${String(next).padStart(6, '0')}.jsonl`));
    this.#cache = null;
  }

  async #tail(active: string, stat: Stats | null): Promise<Tail> {
    if (stat && stat.size > 0) {
      if (this.#cache && this.#cache.ino === stat.ino && this.#cache.size === stat.size) return this.#cache.tail;
      return readTail(active);
    }
    // Empty or missing active file: chain to the last rotated file.
    const rotated = await this.#listRotated();
    const lastFile = rotated.at(-1);
    if (!lastFile) return { seq: 0, hash: GENESIS_HASH };
    return readTail(join(this.#dir, lastFile.name));
  }

  async #listRotated(): Promise<{ name: string; n: number }[]> {
    const names = await fs.readdir(this.#dir).catch(() => [] as string[]);
    return names
      .map((name) => ({ name, m: ROTATED.exec(name) }))
      .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
      .map((x) => ({ name: x.name, n: Number(x.m[1]) }))
      .sort((a, b) => a.n - b.n);
  }

  async #listFiles(): Promise<{ name: string }[]> {
    const rotated = await this.#listRotated();
    const out: { name: string }[] = rotated.map((r) => ({ name: r.name }));
    if (await statOrNull(join(this.#dir, ACTIVE_FILE))) out.push({ name: ACTIVE_FILE });
    return out;
  }

  // Opens every file under the lock (so no append or rotation is half-way),
  // notes sizes, releases, then reads up to those sizes.
  async #snapshot(): Promise<Snapshot> {
    const names = await fs.readdir(this.#dir).catch(() => null);
    if (names === null) return { files: [], head: null };
    const release = await acquireFileLock(join(this.#dir, LOCK_FILE), { timeoutMs: this.#lockTimeoutMs });
    const opened: { name: string; handle: fs.FileHandle; size: number }[] = [];
    let head: Tail | null = null;
    try {
      for (const f of await this.#listFiles()) {
        const handle = await fs.open(join(this.#dir, f.name), 'r');
        opened.push({ name: f.name, handle, size: (await handle.stat()).size });
      }
      try {
        const h = JSON.parse(await fs.readFile(join(this.#dir, HEAD_FILE), 'utf8')) as Tail;
        if (typeof h.seq === 'number' && typeof h.hash === 'string') head = h;
      } catch {
        head = null;
      }
    } finally {
      await release();
    }
    const files: Snapshot['files'] = [];
    for (const o of opened) {
      try {
        const buf = Buffer.alloc(o.size);
        let off = 0;
        while (off < o.size) {
          const { bytesRead } = await o.handle.read(buf, off, o.size - off, off);
          if (bytesRead === 0) break;
          off += bytesRead;
        }
        const bytes = buf.subarray(0, off);
        files.push({ name: o.name, bytes, text: bytes.toString('utf8') });
      } finally {
        await o.handle.close();
      }
    }
    return { files, head };
  }
}

/** sha256 of an entry's canonical JSON without its `hash` member. */
export function hashOf(entry: AuditEntry | Record<string, unknown>): string {
  const { hash: _ignored, ...rest } = entry as Record<string, unknown>;
  return sha256OfCanonical(rest);
}

/** A line's bytes (without the newline) and whether a newline ended it. */
function splitLines(bytes: Buffer): { bytes: Buffer; terminated: boolean }[] {
  const out: { bytes: Buffer; terminated: boolean }[] = [];
  let start = 0;
  for (;;) {
    const nl = bytes.indexOf(0x0a, start);
    if (nl < 0) break;
    out.push({ bytes: bytes.subarray(start, nl), terminated: true });
    start = nl + 1;
  }
  if (start < bytes.length) out.push({ bytes: bytes.subarray(start), terminated: false });
  return out;
}

// True when `next` is a well-formed repair entry for exactly `damaged` at `line`.
function sealedBy(next: Buffer | undefined, line: number, damaged: Buffer): boolean {
  if (!next) return false;
  try {
    const e = JSON.parse(next.toString('utf8')) as RepairEntry;
    return (
      e.type === 'repair' &&
      e.damagedLine === line &&
      e.damagedBytes === damaged.length &&
      e.damagedSha256 === createHash('sha256').update(damaged).digest('hex')
    );
  } catch {
    return false;
  }
}

const HEAD_BYTES = 160;

// Overwrites the head record in place (fixed size, no truncation): truncating
// and rewriting a small file makes ext4 flush it (auto_da_alloc), which cost
// more than the fsync of the entry itself.
async function writeHead(path: string, head: Tail): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path, 'r+');
  } catch {
    handle = await fs.open(path, 'w', 0o600);
  }
  try {
    const record = Buffer.from(`${JSON.stringify(head).padEnd(HEAD_BYTES - 1, ' ')}\n`, 'utf8');
    await handle.write(record, 0, record.length, 0);
  } finally {
    await handle.close();
  }
}

async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await fs.stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

// Reads the last complete line of a file (growing the window for long lines).
async function readTail(path: string): Promise<Tail> {
  const handle = await fs.open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    if (size === 0) return { seq: 0, hash: GENESIS_HASH };
    let window = 64 * 1024;
    for (;;) {
      const start = Math.max(0, size - window);
      const buf = Buffer.alloc(size - start);
      await handle.read(buf, 0, buf.length, start);
      const text = buf.toString('utf8');
      if (!text.endsWith('\n')) {
        // SECURITY: invariant 1 — fail closed rather than chain onto a damaged line.
        throw new DamagedTailError('The audit log ends with an incomplete line.', path);
      }
      const body = text.slice(0, -1);
      const nl = body.lastIndexOf('\n');
      if (nl >= 0 || start === 0) {
        const lastLine = body.slice(nl + 1);
        let entry: AuditEntry;
        try {
          entry = JSON.parse(lastLine) as AuditEntry;
        } catch {
          throw new AuditWriteError('The last audit entry cannot be read; run `airlock audit verify`.');
        }
        if (typeof entry.seq !== 'number' || typeof entry.hash !== 'string') {
          throw new AuditWriteError('The last audit entry is damaged; run `airlock audit verify`.');
        }
        return { seq: entry.seq, hash: entry.hash };
      }
      window *= 4;
    }
  } finally {
    await handle.close();
  }
}
