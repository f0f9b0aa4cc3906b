import { createHash, randomUUID } from 'node:crypto';
import { basename, join } from 'node:path';
import type { Caller, Rule, Verdict } from '../../../shared/domain';
import { isDiskFull, nodeAuditFileSystem, type AuditFileSystem } from './audit-fs';
import type { AuditKey } from './audit-key';
import {
  ACTIVE_FILE,
  GENESIS_HASH,
  HEAD_BYTES,
  HEAD_FILE,
  LOCK_FILE,
  ROTATED,
  canonicalText,
  inKeyOrder,
  checkHead,
  sha256Hex,
  damagedRunBytes,
  headBytes,
  sealEntry,
  type AnchorFinding,
  type AuditAnswer,
  type AuditEntry,
  type CallOutcome,
  type ChangeEntry,
  type ClaimsContradictedEntry,
  type DecisionEntry,
  type NetworkDecider,
  type NetworkEntry,
  type OutcomeEntry,
  type SandboxRefusalEntry,
} from './entries';
import { breakIfStale, takeFileLockSync, tryFileLockSync } from './file-lock';
import { readAudit, verifyAudit, type AuditQuery, type AuditRecord, type ActivityRecord, type ChainCheck, type VerifiedMark, type VerifyResult } from './audit-reader';
import { redactArguments, redactText, WITHHELD } from './redact';
import { isSessionDead, newSessionId } from './session';
import { changeBody, type ChangeInput } from './change-record';
import { serverRequestBody, type ServerRequestAuditEntry, type ServerRequestAuditInput } from './server-request-entries';
import { claimsContradictedBody, type ClaimsContradictedInput } from './claims-entries';

export * from './entries';
export type { AuditQuery, AuditRecord, ActivityRecord, VerifyResult, VerifiedMark, AuditProblem, AuditNote } from './audit-reader';

/**
 * How far an append must have gone before it resolves:
 * - `written`: `write(2)` returned — the entry survives any crash of Airlock;
 *   it is flushed to disk within the log's window (`flushWindowMs`).
 * - `flushed`: `fsync(2)` returned — it survives a power cut too.
 */
export type AuditDurability = 'written' | 'flushed';

/** How long at most between writing an entry and starting the fsync that flushes it (ms). */
export const DEFAULT_FLUSH_WINDOW_MS = 50;

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
  /**
   * Every value the person gave this server: hidden wherever it appears in
   * the arguments; never written. Absent: the log reads them itself
   * (`AuditLogOptions.secretValues`); null: they could not be read, so the
   * arguments are withheld.
   */
  secretValues?: readonly string[] | null;
  /** A remote server's URL (where the call goes). */
  remote?: string;
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

/** What `appendNetwork` takes. */
export interface NetworkInput {
  server: string;
  host: string;
  port: number;
  allowed: boolean;
  reason: string;
  decidedBy: NetworkDecider;
  answeredBy?: string;
  repeats?: number;
  /** Decisions for other hosts of this server in the same minute, past the first few, counted in this entry (a flood of names). */
  otherHosts?: number;
}

/** Per-append options. */
export interface AppendOptions {
  /** Default `written`. */
  durability?: AuditDurability;
  /**
   * Written once the current turn of the event loop is over (`setImmediate`),
   * not before the caller goes on: for a record of something that already
   * happened (a call's outcome), kept off the caller's path. Readers, `flush`
   * and `close` of this log write such entries first. Only with `written`.
   */
  afterThisTurn?: boolean;
}

/** A timer the log can set and cancel (injectable, so a test can run the flush window by hand). */
export interface FlushTimer {
  set(callback: () => void, ms: number): { cancel(): void };
}

const realTimer: FlushTimer = {
  set(callback, ms) {
    const handle = setTimeout(callback, ms);
    handle.unref?.();
    return { cancel: () => clearTimeout(handle) };
  },
};

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
  /** The key that anchors the end (see audit-key.ts). Without one, the head is only a hint. */
  key?: AuditKey;
  /** Entries written with `written` durability are fsynced at most this long after (ms). Default 50. */
  flushWindowMs?: number;
  /** The file operations of the append path (tests record or fail them). */
  fs?: AuditFileSystem;
  timer?: FlushTimer;
  /** This process's session id (default: a new one; see session.ts). */
  session?: string;
  /** How far back from the end the first append looks for unfinished calls of stopped processes (bytes). Default 1 MiB. */
  recoveryScanBytes?: number;
  /**
   * Every value the person gave a server (its granted secrets, header keys,
   * sign-in tokens; see secrets/server-secrets.ts): hidden in every entry
   * about that server, of every kind, before it is written. Throws when they
   * cannot be read: then what could hold one is withheld, not written.
   */
  secretValues?: (server: string) => readonly string[];
}

/** Why an audit write failed. */
export type AuditWriteProblem = 'disk-full' | 'locked' | 'damaged' | 'io';

/** An audit write failed: the call must not go ahead. */
export class AuditWriteError extends Error {
  override name = 'AuditWriteError';
  constructor(
    message: string,
    readonly problem: AuditWriteProblem = 'io',
  ) {
    super(message);
  }
}

interface Tail {
  seq: number;
  hash: string;
  /** The entry's format version (absent for the start of the log). */
  v?: number;
}

interface Pending {
  /** null: no entry, only the take-over checks (`recoverInterrupted`). */
  body: Record<string, unknown> | null;
  durability: AuditDurability;
  resolve: (entry: AuditEntry | null) => void;
  reject: (error: Error) => void;
}

interface ActiveFile {
  fd: number;
  ino: number;
  size: number;
  tail: Tail;
}

const MAX_BATCH = 512;
/** The lock is kept between batches (a lease) and let go after this long without one (ms). */
const LEASE_IDLE_MS = 25;
/** While holding the lease, the lock file's time is refreshed this often, so nobody takes it for a dead holder's (ms). */
const LEASE_TOUCH_MS = 5_000;
/**
 * While a lease is held, nobody else writes: the files are checked (active
 * file unchanged, head still there, lock still ours, anyone waiting) at most
 * this often, and at every fresh take of the lock (ms).
 */
const RECHECK_MS = 10;
/** After handing the lock to a waiting process, this one waits this long before taking it again (ms). */
const YIELD_MS = 25;
/** A process that wants the lock says so with this file; the holder hands the lock over after its batch. */
const WANT_FILE = 'audit.lock.want';

// Leases still held when the process exits are let go (a killed process's lock is taken over as stale).
const heldLeases = new Set<() => void>();
// Entries left for after the turn are written when the process exits first (`process.exit` in that turn).
const laterAtExit = new Set<() => void>();
let exitHook = false;
function onExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const write of laterAtExit) write();
    for (const release of heldLeases) release();
  });
}
function holdLease(release: () => void): void {
  heldLeases.add(release);
  onExit();
}
/** A seal covers at most this many damaged lines (a torn write, and a torn seal of it); more is not a crash. */
const MAX_DAMAGED_LINES = 4;
const RECOVERED_DETAIL = 'Airlock stopped before the call finished; the server may have acted.';

/**
 * The audit log: append-only JSON lines, hash-chained across rotated files,
 * with its end anchored by a keyed head record.
 *
 * - Appends are queued and written in batches: whoever calls while a batch
 *   is being written joins the next one. A batch is one lock and one
 *   `write(2)` of all its lines; the head is rewritten in place at most
 *   RECHECK_MS later — synchronous system calls into the page cache, no disk
 *   wait. An append resolves once its line is written (`written`), or once
 *   an fsync that covers it returned (`flushed`). An append made with
 *   `afterThisTurn` (a call's outcome) joins a batch once the current turn
 *   of the event loop is over.
 * - Group commit: after a write, an fsync of the log (then the head) starts
 *   within `flushWindowMs`, covering everything written until then. A power
 *   cut can lose at most the entries of that window; a crash of Airlock
 *   loses nothing that was written.
 * - Several processes stay one chain: each batch takes the lock file,
 *   checks the active file is the one it last wrote (inode and size; else
 *   re-reads the tail), appends with O_APPEND, and releases.
 * - When it takes over from another writer (first append, or someone else
 *   wrote since), it checks the head against the tail and writes what it
 *   found (`anchor` entries), seals a line a crash or a full disk cut short
 *   (`repair`), and gives unfinished calls of processes that are gone the
 *   outcome `unknown`.
 *
 * SECURITY: invariant 1 — the decision is written (`write(2)` returned)
 * before the caller sends the call, and flushed first when the caller asks
 * for `flushed`; any failure rejects, and the caller must not send. The
 * chain finds edits, removals and reordering; the keyed head finds entries
 * cut from the end (issue 9.6).
 */
export class AuditLog {
  readonly #dir: string;
  readonly #maxFileBytes: number;
  readonly #now: () => number;
  readonly #lockTimeoutMs: number;
  readonly #key: AuditKey | undefined;
  readonly #windowMs: number;
  readonly #fs: AuditFileSystem;
  readonly #timer: FlushTimer;
  readonly #session: string;
  readonly #recoveryScanBytes: number;
  readonly #secretValues: ((server: string) => readonly string[]) | undefined;

  #queue: Pending[] = [];
  #draining = false;
  #dirReady = false;
  #active: ActiveFile | null = null;
  #headFd: number | null = null;
  #headIno = -1;
  #tookOver = false;
  /** Files replaced since the last flush (rotated, or re-opened after another writer): fsynced, then closed. */
  #retired: number[] = [];
  #dirDirty = false;
  #writeGen = 0;
  #flushedGen = 0;
  #durableSeq = 0;
  #flushTimer: { cancel(): void } | null = null;
  #flushing: Promise<void> | null = null;
  #flushError: Error | null = null;
  #closed = false;
  /** The lock, kept between batches while this process appends (see `#tryLock`). */
  #lease: { ino: number; release: () => void; touched: number } | null = null;
  #leaseTimer: ReturnType<typeof setTimeout> | null = null;
  // The lease's times are on the steady clock (performance.now), never the wall clock: a clock set
  // back must not make this process hold the lock, or stand aside, for as long as it was set back
  // (issue 16.3), and one set forward must not time a wait out early.
  #lastBatchAt = -Infinity;
  #yieldUntil = -Infinity;
  #announced = false;
  /** When the files were last checked under the lock (-Infinity: at the next batch). */
  #checkedAt = -Infinity;
  /** When this process last looked whether another one waits for the lock. */
  #wantCheckedAt = -Infinity;
  /** While a reader of this process notes what to read, no batch is written. */
  #readerGate: Promise<void> | null = null;
  /** The end the head must record, written by `#writeDueHead` (see `#writeBatch`). */
  #headDue: { tail: Tail; check: boolean } | null = null;
  #headTimer: ReturnType<typeof setTimeout> | null = null;
  /** Appends made with `afterThisTurn`, queued when the turn is over (see `#promoteLater`). */
  #later: Pending[] = [];
  #laterImmediate: ReturnType<typeof setImmediate> | null = null;

  /** See `AuditLogOptions`. Nothing is touched until the first call. */
  constructor(options: AuditLogOptions) {
    this.#dir = options.dir;
    this.#maxFileBytes = options.maxFileBytes ?? 8 * 1024 * 1024;
    this.#now = options.now ?? (() => Date.now());
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    this.#key = options.key;
    this.#windowMs = options.flushWindowMs ?? DEFAULT_FLUSH_WINDOW_MS;
    this.#fs = options.fs ?? nodeAuditFileSystem;
    this.#timer = options.timer ?? realTimer;
    this.#session = options.session ?? newSessionId();
    this.#recoveryScanBytes = options.recoveryScanBytes ?? 1024 * 1024;
    this.#secretValues = options.secretValues;
  }

  /**
   * The values to hide in an entry about `server`, or `withheld` when they
   * cannot be read.
   * SECURITY: invariant 5 and SECURITY.md rule 10 — a secret the person gave
   * a server never reaches the log in clear, whatever the server put it in;
   * failing to read them fails closed.
   */
  #hidden(server: string, given?: readonly string[] | null): { values: readonly string[] } | { withheld: true } {
    if (given === null) return { withheld: true };
    if (given) return { values: given };
    if (!this.#secretValues || !server) return { values: [] };
    try {
      return { values: this.#secretValues(server) };
    } catch {
      // The entry is still written (the decision must be on record); what could hold a secret is withheld.
      return { withheld: true };
    }
  }

  /** The folder holding the log. */
  get dir(): string {
    return this.#dir;
  }

  /** This process's session id (written in each decision). */
  get session(): string {
    return this.#session;
  }

  /** The flush window (ms): the longest an entry waits in the page cache before its fsync starts. */
  get flushWindowMs(): number {
    return this.#windowMs;
  }

  /**
   * Appends the decision on a call. Resolves with the entry once it is
   * written (or flushed, with `durability: 'flushed'`); rejects with
   * `AuditWriteError` (then the call must not be sent).
   */
  appendDecision(input: DecisionInput, options: AppendOptions = {}): Promise<DecisionEntry> {
    const callId = input.callId ?? randomUUID();
    const hidden = this.#hidden(String(input.server), input.secretValues);
    const redaction = 'withheld' in hidden ? { value: WITHHELD, paths: ['/'] } : redactArguments(input.arguments, { secrets: hidden.values });
    let digest: string;
    try {
      // callDigest (approval-tokens.ts), computed with the faster serialiser (same text: the members in sorted order).
      if (input.arguments !== undefined && typeof input.server === 'string' && typeof input.tool === 'string') {
        digest = sha256Hex(`{"arguments":${canonicalText(input.arguments)},"server":${JSON.stringify(input.server)},"tool":${JSON.stringify(input.tool)}}`);
      } else digest = sha256Hex(canonicalText({ server: input.server, tool: input.tool, arguments: input.arguments }));
    } catch {
      digest = 'unavailable';
    }
    const body = {
      type: 'decision' as const,
      callId,
      server: String(input.server),
      tool: String(input.tool),
      // Small records in sorted key order, so the entry is sealed natively (entries.ts, sealEntry).
      caller: inKeyOrder(input.caller),
      fingerprint: input.fingerprint,
      arguments: redaction.value,
      redacted: redaction.paths,
      argumentsDigest: digest,
      verdict: input.verdict,
      final: input.final,
      // A frozen list (a reused decision's) cannot change after this: no copy needed.
      reasons: Object.isFrozen(input.reasons) ? input.reasons : [...input.reasons],
      session: this.#session,
      ...(input.decidedBy ? { decidedBy: input.decidedBy } : {}),
      ...(input.rule ? { rule: inKeyOrder(input.rule) } : {}),
      ...(input.answer ? { answer: inKeyOrder(input.answer) } : {}),
      ...(input.remote ? { remote: String(input.remote) } : {}),
    };
    return this.#append(body, options.durability) as Promise<DecisionEntry>;
  }

  /** Appends how a call ended. */
  appendOutcome(input: OutcomeInput, options: AppendOptions = {}): Promise<OutcomeEntry> {
    const detail = input.detail === undefined ? undefined : this.#text(String(input.server), String(input.detail).slice(0, 2000)).slice(0, 500);
    const body = {
      type: 'outcome' as const,
      callId: input.callId,
      server: String(input.server),
      tool: String(input.tool),
      outcome: input.outcome,
      durationMs: Math.max(0, Math.round(input.durationMs)),
      ...(detail !== undefined ? { detail } : {}),
    };
    return this.#append(body, options.durability, options.afterThisTurn === true && options.durability !== 'flushed') as Promise<OutcomeEntry>;
  }

  /** Appends a refusal the operating system's sandbox reported for a server (see sandbox-refusal-record.ts). */
  appendSandboxRefusal(input: { server: string; detail: string; repeats?: number }, options: AppendOptions = {}): Promise<SandboxRefusalEntry> {
    const body = {
      type: 'sandbox' as const,
      callId: '',
      server: String(input.server),
      tool: '',
      detail: String(input.detail).slice(0, 500),
      ...(input.repeats ? { repeats: input.repeats } : {}),
    };
    return this.#append(body, options.durability) as Promise<SandboxRefusalEntry>;
  }

  /** Appends a network decision the sandbox's proxy took. */
  appendNetwork(input: NetworkInput, options: AppendOptions = {}): Promise<NetworkEntry> {
    const server = String(input.server);
    const body = {
      type: 'network' as const,
      callId: '',
      server,
      tool: '',
      // A server chooses the host name: it may carry a secret out (`<key>.attacker.example`).
      host: this.#text(server, String(input.host).slice(0, 300)),
      port: Number.isInteger(input.port) ? input.port : 0,
      decision: input.allowed ? ('allow' as const) : ('deny' as const),
      reason: String(input.reason),
      ...(input.otherHosts ? { otherHosts: input.otherHosts } : {}),
      decidedBy: input.decidedBy,
      ...(input.answeredBy ? { answeredBy: input.answeredBy } : {}),
      ...(input.repeats ? { repeats: input.repeats } : {}),
    };
    return this.#append(body, options.durability) as Promise<NetworkEntry>;
  }

  /**
   * Appends an entry about a request from a server — its decision (before a
   * model, a person or a folder list is involved) or its outcome — into the
   * same chain. Flushed (fsync) before it resolves: these requests are rare,
   * and most involve a person (see server-request-entries.ts).
   */
  appendServerRequest(input: ServerRequestAuditInput): Promise<ServerRequestAuditEntry> {
    const body = serverRequestBody(input);
    const hidden = this.#hidden(String(input.server));
    // What the server asked and what went back: the server wrote it, so it may carry a secret the person gave it.
    for (const field of ['request', 'response'] as const) {
      if (body[field] === undefined) continue;
      body[field] = 'withheld' in hidden ? WITHHELD : redactArguments(body[field], { secrets: hidden.values }).value;
    }
    for (const field of ['detail', 'answerer'] as const) if (typeof body[field] === 'string') body[field] = this.#text(String(input.server), body[field]);
    return this.#append(body, 'flushed') as unknown as Promise<ServerRequestAuditEntry>;
  }

  /**
   * Appends a change a person made to what Airlock allows (a rule, grants,
   * trust, a setting, a server added or removed; see change-record.ts).
   * Flushed before it resolves: changes are rare, and off the call path.
   */
  appendChange(input: ChangeInput): Promise<ChangeEntry> {
    const server = String(input.server ?? '');
    return this.#append(changeBody({ ...input, changes: input.changes.map((line) => this.#text(server, String(line).slice(0, 2000))) }), 'flushed') as Promise<ChangeEntry>;
  }

  /** Appends what a tool did against its claims (see claims-entries.ts). Flushed before it resolves: rare, and off the call path. */
  appendClaimsContradicted(input: ClaimsContradictedInput): Promise<ClaimsContradictedEntry> {
    return this.#append(claimsContradictedBody(input, (text) => this.#text(String(input.server), text)), 'flushed') as Promise<ClaimsContradictedEntry>;
  }

  /** A text for an entry about `server`, its secrets and secret-looking parts hidden (withheld when they cannot be read). */
  #text(server: string, text: string): string {
    const hidden = this.#hidden(server);
    return 'withheld' in hidden ? WITHHELD : redactText(text, hidden.values);
  }

  /**
   * Runs the take-over checks now (they run at the first append anyway):
   * seals a damaged end, records what the head says, and gives unfinished
   * calls of stopped processes the outcome `unknown`.
   */
  async recoverInterrupted(): Promise<void> {
    if (this.#tookOver) return;
    await this.#append(null, 'written');
  }

  /** Flushes (fsync) everything written so far, and what was left for after this turn. */
  async flush(): Promise<void> {
    await this.#settleLater();
    await this.#flushUpTo(this.#writeGen);
  }

  /** Flushes and closes the files; later appends reopen them. */
  async close(): Promise<void> {
    await this.#settleLater();
    while (this.#draining || this.#queue.length) await new Promise((resolve) => setImmediate(resolve));
    this.#writeDueHead();
    if (this.#headTimer) clearTimeout(this.#headTimer);
    this.#headTimer = null;
    await this.flush().catch(() => undefined);
    this.#flushTimer?.cancel();
    this.#flushTimer = null;
    if (this.#active) this.#retire(this.#active.fd);
    this.#active = null;
    this.#closeHead();
    for (const fd of this.#retired.splice(0)) this.#closeQuietly(fd);
    this.#dropLease(true);
    this.#withdraw();
    this.#closed = true;
  }

  /**
   * Checks the whole chain across files (every line parses, every hash
   * matches, every entry links to the one before, no gaps) and the end
   * against the keyed head. Names the first bad file and line.
   */
  async verify(): Promise<VerifyResult> {
    const { scope: _scope, mark: _mark, ...result } = await this.#verify(undefined);
    return result;
  }

  /**
   * Like `verify()`, but reads only the lines appended since the last clean
   * check this object made (held in memory), when every file before that
   * point is still exactly the one it read (same inode and size, the last
   * entry it checked still in place); otherwise checks everything. The end
   * is checked against the keyed head every time. For the Activity page's
   * check after each append: an edit in place to an older entry is found by
   * `verify()`, which stays the default everywhere else.
   */
  async verifyNew(): Promise<VerifyResult & { scope: 'all' | 'new' }> {
    const { mark: _mark, ...result } = await this.#verify(this.#verified);
    return result;
  }

  /** Where the last clean check ended (see `verifyNew`). */
  #verified: VerifiedMark | undefined;

  async #verify(mark: VerifiedMark | undefined): Promise<ChainCheck> {
    const result = await verifyAudit({ dir: this.#dir, key: this.#key, lock: () => this.#lockForReading() }, mark);
    // A failed chain forgets the mark: the next check reads everything again.
    this.#verified = result.mark;
    return result;
  }

  /**
   * Decisions with their outcomes, newest first, filtered: reads from the
   * end backwards and stops when `limit` calls are found (the first page of
   * a log of a million entries reads only its tail).
   */
  async read(query: AuditQuery = {}): Promise<AuditRecord[]> {
    const records = await readAudit({ dir: this.#dir, lock: () => this.#lockForReading() }, query, false);
    return records as AuditRecord[];
  }

  /** As `read`, with network decisions among the calls (the Activity page). */
  readActivity(query: AuditQuery = {}): Promise<ActivityRecord[]> {
    return readAudit({ dir: this.#dir, lock: () => this.#lockForReading() }, query, true);
  }

  /** The log files in chain order (oldest first). */
  async files(): Promise<string[]> {
    return listLogFiles(this.#fs, this.#dir);
  }

  // ── Appending ──────────────────────────────────────────────────────────

  #append(body: Record<string, unknown> | null, durability: AuditDurability = 'written', afterThisTurn = false): Promise<AuditEntry | null> {
    this.#closed = false;
    return new Promise((resolve, reject) => {
      const pending: Pending = { body, durability, resolve, reject };
      if (afterThisTurn) {
        this.#later.push(pending);
        this.#laterImmediate ??= setImmediate(() => this.#promoteLater());
        laterAtExit.add(this.#writeLaterAtExit);
        onExit();
        return;
      }
      this.#queue.push(pending);
      this.#startDrain();
    });
  }

  #startDrain(): void {
    if (this.#draining) return;
    this.#draining = true;
    // A microtask later, so appends made in the same turn (concurrent callers) share one batch.
    queueMicrotask(() => void this.#drain());
  }

  // At exit, in the turn that left them: written now, synchronously, if the lock can be had without waiting.
  readonly #writeLaterAtExit = (): void => {
    laterAtExit.delete(this.#writeLaterAtExit);
    if (this.#later.length === 0) return;
    let release: (() => void) | undefined;
    try {
      release = this.#tryLock();
      if (!release) return;
      const batch = this.#later.splice(0);
      const written = this.#writeBatch(batch);
      batch.forEach((pending, i) => pending.resolve(written[i]!));
    } catch {
      // Exiting: the next process gives an unfinished call the outcome unknown.
    } finally {
      release?.();
    }
  };

  // The entries left for after the turn join the queue (at the turn's end, or when a reader or a flush needs them now).
  #promoteLater(): void {
    if (this.#laterImmediate) clearImmediate(this.#laterImmediate);
    this.#laterImmediate = null;
    laterAtExit.delete(this.#writeLaterAtExit);
    if (this.#later.length === 0) return;
    this.#queue.push(...this.#later.splice(0));
    this.#startDrain();
  }

  // Resolves once every entry left for after the turn is written (or failed).
  async #settleLater(): Promise<void> {
    if (this.#later.length === 0) return;
    const waits = this.#later.map((pending) => {
      const { resolve, reject } = pending;
      return new Promise<void>((done) => {
        pending.resolve = (entry) => (resolve(entry), done());
        pending.reject = (error) => (reject(error), done());
      });
    });
    this.#promoteLater();
    await Promise.all(waits);
  }

  // Writes queued entries batch by batch; waits only for the lock when another process holds it.
  async #drain(): Promise<void> {
    try {
      while (this.#queue.length) {
        if (this.#flushError) {
          // A flush failed: nothing more is accepted until one succeeds.
          try {
            await this.#flushUpTo(this.#writeGen);
          } catch (error) {
            this.#rejectAll(this.#queue.splice(0), this.#writeError(error, 'Airlock could not flush its audit log to disk'));
            continue;
          }
        }
        while (this.#readerGate) await this.#readerGate;
        let release: (() => void) | undefined;
        try {
          release = this.#tryLock() ?? (await this.#waitForLock());
        } catch (error) {
          this.#rejectAll(this.#queue.splice(0), error instanceof AuditWriteError ? error : new AuditWriteError((error as Error).message, 'locked'));
          continue;
        }
        const batch = this.#queue.splice(0, MAX_BATCH);
        let written: (AuditEntry | null)[];
        try {
          written = this.#writeBatch(batch);
        } catch (error) {
          this.#rejectAll(batch, this.#writeError(error, 'Could not write the audit log'));
          continue;
        } finally {
          release();
        }
        const gen = this.#writeGen;
        batch.forEach((pending, i) => {
          if (pending.durability === 'written') pending.resolve(written[i]!);
          else
            this.#flushUpTo(gen).then(
              () => pending.resolve(written[i]!),
              (error: unknown) => pending.reject(this.#writeError(error, 'Airlock could not flush its audit log to disk')),
            );
        });
        if (this.#queue.length) await Promise.resolve();
      }
    } finally {
      this.#draining = false;
    }
  }

  #rejectAll(batch: Pending[], error: Error): void {
    for (const pending of batch) pending.reject(error);
  }

  #writeError(error: unknown, what: string): AuditWriteError {
    if (error instanceof AuditWriteError) return error;
    if (isDiskFull(error)) {
      return new AuditWriteError(`The disk holding Airlock's audit log (${this.#dir}) is full: ${what}. Free some space; nothing is sent until its decision can be recorded.`, 'disk-full');
    }
    return new AuditWriteError(`${what}: ${(error as Error).message}`, 'io');
  }

  // ── The lock: one writer at a time across processes ──────────────────
  //
  // Taking a lock file and removing it costs two directory changes, more
  // than the rest of a batch. So a process keeps the lock between batches (a
  // lease) and lets go when it has been idle for LEASE_IDLE_MS, or at once
  // after a batch when another process has asked for it (WANT_FILE). Every
  // batch checks the lock file is still the one it took (same inode).

  /** The lock for one batch, without waiting: the lease held, or a fresh one; undefined when another process holds it. */
  #tryLock(): (() => void) | undefined {
    if (!this.#dirReady) {
      try {
        this.#fs.mkdirp(this.#dir);
      } catch (error) {
        throw this.#writeError(error, 'Cannot create the audit folder');
      }
      this.#dirReady = true;
    }
    try {
      if (this.#lease && this.#checkDue() && !this.#leaseStillOurs()) this.#dropLease(false);
      if (!this.#lease) {
        if (performance.now() < this.#yieldUntil) return undefined;
        const taken = takeFileLockSync(join(this.#dir, LOCK_FILE), this.#fs);
        if (!taken) {
          this.#announce();
          return undefined;
        }
        // Letting the lock go (when idle, handing it over, at exit) writes the head first.
        const release = () => {
          this.#writeDueHead();
          taken.release();
        };
        this.#lease = { ino: taken.ino, release, touched: performance.now() };
        holdLease(release);
        this.#withdraw();
        // Others may have written since this process last held the lock.
        this.#checkedAt = -Infinity;
      }
    } catch (error) {
      throw this.#writeError(error, 'Cannot lock the audit log');
    }
    return () => this.#afterBatch();
  }

  #checkDue(): boolean {
    return performance.now() - this.#checkedAt >= RECHECK_MS;
  }

  #leaseStillOurs(): boolean {
    const lease = this.#lease!;
    const lockPath = join(this.#dir, LOCK_FILE);
    const now = performance.now();
    if (now - lease.touched > LEASE_TOUCH_MS) {
      try {
        this.#fs.touch(lockPath);
      } catch {
        // checked below
      }
      lease.touched = now;
    }
    return this.#fs.stat(lockPath)?.ino === lease.ino;
  }

  // After a batch: hand the lock over when another process asked for it; otherwise keep it until idle.
  #afterBatch(): void {
    this.#lastBatchAt = performance.now();
    const now = this.#lastBatchAt;
    if (now - this.#wantCheckedAt >= RECHECK_MS && ((this.#wantCheckedAt = now), this.#fs.stat(join(this.#dir, WANT_FILE)))) {
      this.#dropLease(true);
      this.#yieldUntil = performance.now() + YIELD_MS;
      return;
    }
    if (this.#leaseTimer) return;
    const check = () => {
      const idle = performance.now() - this.#lastBatchAt;
      if (idle >= LEASE_IDLE_MS || this.#closed) {
        this.#leaseTimer = null;
        // Not while a batch of this process is being written (they are synchronous: this runs between them).
        this.#dropLease(true);
      } else {
        this.#leaseTimer = setTimeout(check, LEASE_IDLE_MS - idle);
        this.#leaseTimer.unref?.();
      }
    };
    this.#leaseTimer = setTimeout(check, LEASE_IDLE_MS);
    this.#leaseTimer.unref?.();
  }

  #dropLease(release: boolean): void {
    const lease = this.#lease;
    // Letting go: the head first, still under the lock. A lease found not ours any more:
    // another process writes now, and our head would overwrite its.
    if (release) this.#writeDueHead();
    else this.#headDue = null;
    this.#lease = null;
    if (this.#leaseTimer) clearTimeout(this.#leaseTimer);
    this.#leaseTimer = null;
    if (!lease) return;
    heldLeases.delete(lease.release);
    if (release) lease.release();
  }

  // Tells the holder this process waits (it hands the lock over after its batch).
  #announce(): void {
    if (this.#announced) return;
    try {
      this.#fs.close(this.#fs.createExclusive(join(this.#dir, WANT_FILE)));
    } catch {
      // someone else is waiting too: the file says enough
    }
    this.#announced = true;
  }

  #withdraw(): void {
    if (!this.#announced) return;
    this.#announced = false;
    try {
      this.#fs.unlink(join(this.#dir, WANT_FILE));
    } catch {
      // gone already (another waiter may put it back)
    }
  }

  async #waitForLock(): Promise<() => void> {
    const started = performance.now();
    let wait = 1;
    for (;;) {
      await breakIfStale(join(this.#dir, LOCK_FILE), 30_000);
      if (performance.now() - started > this.#lockTimeoutMs) {
        this.#withdraw();
        throw new AuditWriteError(`Could not lock ${join(this.#dir, LOCK_FILE)} within ${this.#lockTimeoutMs} ms; another Airlock process holds it.`, 'locked');
      }
      await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait));
      wait = Math.min(wait * 2, 10);
      // Another waiter that got the lock removes the request: put it back.
      if (this.#announced && !this.#fs.stat(join(this.#dir, WANT_FILE))) this.#announced = false;
      const release = this.#tryLock();
      if (release) return release;
    }
  }

  // For readers: no batch is written (here or elsewhere) while they note which files to read and how far.
  async #lockForReading(): Promise<() => void> {
    // A reader of this process sees the outcomes of the calls that returned before it asked.
    await this.#settleLater();
    try {
      this.#fs.mkdirp(this.#dir);
      this.#dirReady = true;
    } catch {
      // a reader of a missing folder reads nothing
    }
    while (this.#readerGate) await this.#readerGate;
    let open!: () => void;
    this.#readerGate = new Promise((resolve) => (open = resolve));
    let release: (() => void) | undefined;
    try {
      release = this.#tryLock() ?? (await this.#waitForLock());
    } catch (error) {
      this.#readerGate = null;
      open();
      throw error;
    }
    // A reader sees the head that names everything this process wrote.
    this.#writeDueHead();
    return () => {
      release();
      this.#readerGate = null;
      open();
    };
  }

  // Under the lock, synchronously: find the tail, take over if needed, rotate, write the batch and the head.
  #writeBatch(batch: Pending[]): (AuditEntry | null)[] {
    const files = this.#fs;
    const activePath = join(this.#dir, ACTIVE_FILE);
    const active = this.#active;
    // Under a lease checked a moment ago nobody else writes: the file is the one this process last wrote.
    const check = active === null || this.#checkDue();
    const stat = check ? files.stat(activePath) : { ino: active.ino, size: active.size };
    const current = active !== null && stat !== null && stat.ino === active.ino && stat.size === active.size;
    const prefix: Record<string, unknown>[] = [];
    let tail: Tail;
    let sealing = false;
    if (current) {
      tail = active.tail;
    } else {
      // What this process wrote last is recorded before the end is compared with the record.
      this.#writeDueHead();
      const taken = this.#takeOver(stat, prefix);
      tail = taken.tail;
      sealing = taken.sealing;
    }

    const entries: (AuditEntry | null)[] = [];
    // A damaged line ends without a newline: the repair entry starts on a fresh line, in the same write.
    const chunks: string[] = sealing ? ['\n'] : [];
    const add = (body: Record<string, unknown>): AuditEntry => {
      const { entry, line } = sealEntry({ v: 2, seq: tail.seq + 1, time: new Date(this.#now()).toISOString(), prevHash: tail.hash, ...body });
      tail = { seq: entry.seq, hash: entry.hash };
      chunks.push(line, '\n');
      return entry;
    };
    for (const body of prefix) add(body);
    for (const pending of batch) entries.push(pending.body ? add(pending.body) : null);
    if (chunks.length === 0) return entries;

    let file = this.#active ?? this.#openActive(tail);
    // Rotate after the tail is known; a damaged end is sealed in its own file first. The chain continues across the rename.
    if (!sealing && file.size >= this.#maxFileBytes) file = this.#rotate(file);
    const bytes = Buffer.from(chunks.join(''), 'utf8');
    this.#writeAll(file, bytes);
    file.size += bytes.length;
    file.tail = tail;
    this.#writeGen += 1;
    // The head is a record of where the log ends, not the entry. With the files just checked (a
    // fresh lock, or every RECHECK_MS under a lease) it is written now; otherwise at most
    // RECHECK_MS later (the next checked batch, or a timer) — still under the lock, and always
    // before the lock is let go (to another process, at exit), a reader of this process looks,
    // or a flush records the durable point. A stream of calls shares one head write per
    // RECHECK_MS instead of one per batch: a keyed hash and a write off every call's path.
    if (check) this.#writeHead(tail, true);
    else {
      this.#headDue = { tail, check: false };
      if (!this.#headTimer) {
        this.#headTimer = setTimeout(() => {
          this.#headTimer = null;
          this.#writeDueHead();
        }, RECHECK_MS);
        this.#headTimer.unref?.();
      }
    }
    if (check) this.#checkedAt = performance.now();
    this.#scheduleFlush();
    return entries;
  }

  #openActive(tail: Tail): ActiveFile {
    let fd: number;
    try {
      fd = this.#fs.openAppend(join(this.#dir, ACTIVE_FILE));
    } catch (error) {
      throw this.#writeError(error, 'Could not open the audit log');
    }
    const opened = this.#fs.fstat(fd);
    if (opened.size === 0) this.#dirDirty = true;
    this.#active = { fd, ino: opened.ino, size: opened.size, tail };
    return this.#active;
  }

  // SECURITY: invariant 1 — O_APPEND, all of the batch in one write (looped
  // only if the kernel takes less); a failure part-way leaves a torn line that
  // the next batch seals, and rejects every entry of this batch.
  #writeAll(file: ActiveFile, bytes: Buffer): void {
    let offset = 0;
    try {
      while (offset < bytes.length) {
        const n = this.#fs.write(file.fd, bytes, offset, bytes.length - offset, null);
        if (n <= 0) throw new Error('no progress writing the audit log');
        offset += n;
      }
    } catch (error) {
      // The file may now end in a part of this batch, or the batch held a seal or take-over notes that
      // were not written: forget what this process knew, so the next batch re-reads (and seals) the end.
      this.#retire(file.fd);
      this.#active = null;
      throw error;
    }
  }

  // Another writer touched the log since our last batch, or this is our first:
  // read the tail, seal a torn end, compare the head, recover stopped calls.
  // The active file is (re)opened only when something is written.
  #takeOver(stat: { ino: number; size: number } | null, prefix: Record<string, unknown>[]): { tail: Tail; sealing: boolean } {
    const activePath = join(this.#dir, ACTIVE_FILE);
    if (this.#active) this.#retire(this.#active.fd);
    this.#active = null;
    let tail: Tail;
    let sealing = false;
    if (stat && stat.size > 0) {
      const found = readLastEntry(this.#fs, activePath);
      if (found.kind === 'damaged') {
        const sealed = this.#sealDamagedEnd(activePath);
        tail = sealed.tail;
        if (sealed.repair) prefix.push(sealed.repair);
        sealing = true;
      } else {
        tail = found.tail;
      }
    } else {
      tail = this.#tailOfRotated();
    }
    const anchor = this.#anchorFinding(tail);
    if (anchor) prefix.push(anchor);
    if (!this.#tookOver) prefix.push(...this.#interruptedCalls(activePath));
    this.#tookOver = true;
    return { tail, sealing };
  }

  // The active file ends in an incomplete line: a repair entry chained to the
  // last good entry (or the file before) records the damaged bytes — the run
  // of lines after the last entry that parses (a seal that was itself cut
  // short by a full disk leaves two).
  #sealDamagedEnd(path: string): { tail: Tail; repair?: Record<string, unknown> } {
    const bytes = readWhole(this.#fs, path);
    const lines = splitLines(bytes);
    if (!lines.length || lines.at(-1)!.terminated) throw new AuditWriteError('The audit log could not be repaired; run `airlock audit verify`.', 'damaged');
    // Only the newline was lost: the entry is whole; end its line and chain on.
    const whole = parseTail(lines.at(-1)!.bytes.toString('utf8'));
    if (whole) return { tail: whole };
    let first = lines.length - 1;
    let tail: Tail | undefined;
    while (first > 0) {
      tail = parseTail(lines[first - 1]!.bytes.toString('utf8'));
      if (tail) break;
      first -= 1;
    }
    if (lines.length - first > MAX_DAMAGED_LINES) {
      throw new AuditWriteError('The end of the audit log is damaged over several lines (not a write cut short); run `airlock audit verify`.', 'damaged');
    }
    // The damaged run starts the file: chain to the file before.
    tail ??= this.#tailOfRotated(basename(path));
    const run = damagedRunBytes(lines.slice(first).map((line) => line.bytes));
    return {
      tail,
      repair: {
        type: 'repair',
        callId: '',
        server: '',
        tool: '',
        damagedLine: first + 1,
        ...(lines.length - first > 1 ? { damagedLines: lines.length - first } : {}),
        damagedBytes: run.length,
        damagedSha256: createHash('sha256').update(run).digest('hex'),
      },
    };
  }

  // The last entry of the newest rotated file (before `before`, if given).
  #tailOfRotated(before?: string): Tail {
    const rotated = listRotated(this.#fs, this.#dir).map((r) => r.name);
    const own = before ? rotated.indexOf(before) : -1;
    const name = own >= 0 ? rotated[own - 1] : rotated.at(-1);
    if (!name) return { seq: 0, hash: GENESIS_HASH };
    const found = readLastEntry(this.#fs, join(this.#dir, name));
    if (found.kind === 'damaged') throw new AuditWriteError(`The rotated audit file ${name} ends with an incomplete line; run \`airlock audit verify\`.`, 'damaged');
    return found.tail;
  }

  // What the head says about the end, against the tail just read.
  #anchorFinding(tail: Tail): Record<string, unknown> | undefined {
    const check = checkHead(readHeadText(this.#fs, join(this.#dir, HEAD_FILE)), this.#key);
    const note = (finding: AnchorFinding, detail: string, headSeq?: number) => ({ type: 'anchor', callId: '', server: '', tool: '', finding, detail, ...(headSeq !== undefined ? { headSeq } : {}) });
    switch (check.status) {
      case 'missing':
        return tail.seq === 0 ? undefined : note('head-missing', `The record of where the log ended (${HEAD_FILE}) was missing: Airlock cannot confirm that no entries after entry ${tail.seq} were cut off.`);
      case 'malformed':
      case 'forged':
        return note('head-forged', `The record of where the log ended does not verify with Airlock's key: it was changed outside Airlock. Entries after entry ${tail.seq} may have been cut off.`);
      case 'other-key':
        return note('head-other-key', `The record of where the log ended was made with another key (an Airlock process that does not share this one's key, or forged): Airlock cannot confirm that no entries after entry ${tail.seq} were cut off.`, check.head.seq);
      case 'unkeyed':
        // After an entry this version wrote (v2), a head without a key was put there by someone else.
        if (tail.v === 2) {
          return note('head-forged', `The record of where the log ended carried no key, though Airlock keys it: it was replaced outside Airlock. Entries after entry ${tail.seq} may have been cut off.`, check.head.seq);
        }
        return note('head-unkeyed', `The record of where the log ended carried no key (written by an older Airlock): the end up to entry ${tail.seq} is taken as found.`, check.head.seq);
      case 'valid':
      case 'unchecked': {
        const { head } = check;
        this.#durableSeq = Math.min(head.durable ?? 0, tail.seq);
        if (head.seq > tail.seq) {
          const unflushed = tail.seq >= (head.durable ?? 0);
          return note(
            'truncated',
            `The log ended at entry ${tail.seq}, but Airlock had written up to entry ${head.seq}: entries ${tail.seq + 1}–${head.seq} were ${unflushed ? 'lost (they were not yet flushed to disk when the machine stopped) or cut off' : 'cut off'}.`,
            head.seq,
          );
        }
        if (head.seq === tail.seq && head.hash !== tail.hash) {
          return note('rewritten', `The log's last entry (${tail.seq}) is not the one Airlock wrote there: the end was rewritten.`, head.seq);
        }
        if (head.seq < tail.seq) {
          return note('unanchored-entries', `Entries ${head.seq + 1}–${tail.seq} came after the recorded end (written just before a crash, or added by hand).`, head.seq);
        }
        return undefined;
      }
    }
  }

  // Decisions of processes that are gone, sent (final allow) and without an
  // outcome, near the end of the log: their outcome is unknown.
  #interruptedCalls(activePath: string): Record<string, unknown>[] {
    const found: { seq: number; body: Record<string, unknown> }[] = [];
    const ended = new Set<string>();
    const dead = new Map<string, boolean>();
    let budget = this.#recoveryScanBytes;
    const paths = [...listRotated(this.#fs, this.#dir).map((r) => join(this.#dir, r.name)), activePath].reverse();
    for (const path of paths) {
      if (budget <= 0) break;
      let bytes: Buffer;
      try {
        bytes = readEnd(this.#fs, path, budget);
      } catch {
        break;
      }
      budget -= bytes.length;
      const lines = bytes.toString('utf8').split('\n');
      // The first piece may be a partial line when the window started mid-line; the last may be a torn one.
      for (let i = lines.length - 1; i >= 0; i--) {
        const line = lines[i]!;
        if (!line.includes('"callId":"') || line.includes('"callId":""')) continue;
        let entry: AuditEntry;
        try {
          entry = JSON.parse(line) as AuditEntry;
        } catch {
          continue;
        }
        if (entry.type === 'outcome') ended.add(entry.callId);
        else if (entry.type === 'decision' && entry.final === 'allow' && !ended.has(entry.callId) && typeof entry.session === 'string' && entry.session !== this.#session) {
          let gone = dead.get(entry.session);
          if (gone === undefined) dead.set(entry.session, (gone = isSessionDead(entry.session)));
          if (gone) {
            ended.add(entry.callId);
            found.push({
              seq: entry.seq,
              body: { type: 'outcome', callId: entry.callId, server: entry.server, tool: entry.tool, outcome: 'unknown', durationMs: 0, detail: RECOVERED_DETAIL, recovered: true },
            });
          }
        }
      }
    }
    return found.sort((a, b) => a.seq - b.seq).map((x) => x.body);
  }

  #rotate(file: ActiveFile): ActiveFile {
    const files = this.#fs;
    const rotated = listRotated(files, this.#dir);
    const next = (rotated.at(-1)?.n ?? 0) + 1;
    const activePath = join(this.#dir, ACTIVE_FILE);
    files.rename(activePath, join(this.#dir, `audit-${String(next).padStart(6, '0')}.jsonl`));
    this.#retire(file.fd);
    this.#dirDirty = true;
    const fd = files.openAppend(activePath);
    const opened = files.fstat(fd);
    this.#active = { fd, ino: opened.ino, size: opened.size, tail: file.tail };
    return this.#active;
  }

  // The head is rewritten in place after each batch. It is a record, not the
  // entry itself: a failure here does not undo the batch (the next take-over notes it).
  /** Writes the head a batch left due, if this process still holds the lock it wrote under. */
  #writeDueHead(): void {
    const due = this.#headDue;
    if (!due) return;
    this.#headDue = null;
    if (this.#lease) this.#writeHead(due.tail, due.check);
  }

  #writeHead(tail: Tail, check = true): void {
    const files = this.#fs;
    const path = join(this.#dir, HEAD_FILE);
    if (this.#headDue && this.#headDue.tail.seq <= tail.seq) this.#headDue = null;
    try {
      // Still the file at the path (not deleted or replaced since)? Checked with the others.
      const stat = check || this.#headFd === null ? files.stat(path) : { ino: this.#headIno, size: HEAD_BYTES };
      if (this.#headFd !== null && (!stat || stat.ino !== this.#headIno)) this.#closeHead();
      if (this.#headFd === null) {
        this.#headFd = files.openInPlace(path);
        this.#headIno = files.fstat(this.#headFd).ino;
        if (!stat) this.#dirDirty = true;
      }
      const record = headBytes(tail.seq, tail.hash, Math.min(this.#durableSeq, tail.seq), this.#key);
      files.write(this.#headFd, record, 0, HEAD_BYTES, 0);
    } catch {
      this.#closeHead();
    }
  }

  #closeHead(): void {
    if (this.#headFd !== null) this.#closeQuietly(this.#headFd);
    this.#headFd = null;
  }

  #retire(fd: number): void {
    this.#retired.push(fd);
  }

  #closeQuietly(fd: number): void {
    try {
      this.#fs.close(fd);
    } catch {
      // already closed
    }
  }

  // ── Flushing (group commit) ───────────────────────────────────────────

  #scheduleFlush(): void {
    if (this.#flushTimer || this.#flushedGen >= this.#writeGen) return;
    this.#flushTimer = this.#timer.set(() => {
      this.#flushTimer = null;
      this.#flushUpTo(this.#writeGen).catch(() => undefined);
    }, this.#windowMs);
  }

  // Resolves once an fsync that started after write generation `gen` returned.
  async #flushUpTo(gen: number): Promise<void> {
    while (this.#flushedGen < gen) {
      if (this.#flushing) {
        await this.#flushing.catch(() => undefined);
        if (this.#flushError && this.#flushedGen < gen) {
          // The flush that covered us failed: try once more, ourselves.
          await this.#flushOnce();
        }
        continue;
      }
      await this.#flushOnce();
    }
  }

  #flushOnce(): Promise<void> {
    if (this.#flushing) return this.#flushing;
    const run = this.#doFlush();
    this.#flushing = run;
    void run.then(
      () => (this.#flushing = null),
      () => (this.#flushing = null),
    );
    return run;
  }

  async #doFlush(): Promise<void> {
    const gen = this.#writeGen;
    const seq = this.#active?.tail.seq ?? 0;
    const retired = this.#retired.splice(0);
    const fds = [...retired, ...(this.#active ? [this.#active.fd] : [])];
    const dirDirty = this.#dirDirty;
    this.#dirDirty = false;
    try {
      // The log first, then its folder (new and renamed files), then the head: the head never names an entry the disk may not hold.
      await Promise.all(fds.map((fd) => this.#fs.fsync(fd)));
      if (dirDirty) await this.#fs.fsyncDir(this.#dir);
      this.#flushError = null;
    } catch (error) {
      this.#retired.unshift(...retired);
      if (dirDirty) this.#dirDirty = true;
      this.#flushError = error as Error;
      throw error;
    }
    for (const fd of retired) this.#closeQuietly(fd);
    this.#flushedGen = Math.max(this.#flushedGen, gen);
    if (seq > this.#durableSeq) {
      this.#durableSeq = seq;
      this.#refreshHead();
    }
    if (this.#headFd !== null) await this.#fs.fsync(this.#headFd).catch(() => undefined);
  }

  // After a flush, the head records the new durable point, if nobody else wrote since.
  #refreshHead(): void {
    const active = this.#active;
    if (!active || this.#closed || this.#readerGate) return;
    let release: (() => void) | undefined;
    try {
      release = this.#lease && this.#leaseStillOurs() ? () => undefined : tryFileLockSync(join(this.#dir, LOCK_FILE), this.#fs);
      if (!release) return;
      const stat = this.#fs.stat(join(this.#dir, ACTIVE_FILE));
      if (stat && stat.ino === active.ino && stat.size === active.size) this.#writeHead(active.tail);
    } catch {
      // the next batch writes it
    } finally {
      release?.();
    }
  }
}

// ── File helpers (synchronous, through the injected file system) ─────────

/** A line's bytes (without the newline) and whether a newline ended it. */
export function splitLines(bytes: Buffer): { bytes: Buffer; terminated: boolean }[] {
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

function listRotated(files: AuditFileSystem, dir: string): { name: string; n: number }[] {
  let names: string[];
  try {
    names = files.readdir(dir);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, m: ROTATED.exec(name) }))
    .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
    .map((x) => ({ name: x.name, n: Number(x.m[1]) }))
    .sort((a, b) => a.n - b.n);
}

/** The log files in chain order (oldest first). */
export function listLogFiles(files: AuditFileSystem, dir: string): string[] {
  const out = listRotated(files, dir).map((r) => r.name);
  if (files.stat(join(dir, ACTIVE_FILE))) out.push(ACTIVE_FILE);
  return out;
}

function parseTail(line: string): Tail | undefined {
  try {
    const entry = JSON.parse(line) as AuditEntry;
    if (typeof entry.seq !== 'number' || typeof entry.hash !== 'string') return undefined;
    return { seq: entry.seq, hash: entry.hash, v: entry.v };
  } catch {
    return undefined;
  }
}

function withFd<T>(files: AuditFileSystem, path: string, use: (fd: number) => T): T {
  const fd = files.openRead(path);
  try {
    return use(fd);
  } finally {
    files.close(fd);
  }
}

/** Up to `max` bytes from the end of a file. */
function readEnd(files: AuditFileSystem, path: string, max: number): Buffer {
  return withFd(files, path, (fd) => {
    const size = files.fstat(fd).size;
    const start = Math.max(0, size - max);
    const buf = Buffer.alloc(size - start);
    let off = 0;
    while (off < buf.length) {
      const n = files.read(fd, buf, off, buf.length - off, start + off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  });
}

function readWhole(files: AuditFileSystem, path: string): Buffer {
  return readEnd(files, path, Number.MAX_SAFE_INTEGER);
}

// The last complete entry of a file, growing the window for long lines.
function readLastEntry(files: AuditFileSystem, path: string): { kind: 'ok'; tail: Tail } | { kind: 'damaged' } {
  return withFd(files, path, (fd) => {
    const size = files.fstat(fd).size;
    if (size === 0) return { kind: 'ok', tail: { seq: 0, hash: GENESIS_HASH } };
    let window = 64 * 1024;
    for (;;) {
      const start = Math.max(0, size - window);
      const buf = Buffer.alloc(size - start);
      let off = 0;
      while (off < buf.length) {
        const n = files.read(fd, buf, off, buf.length - off, start + off);
        if (n === 0) break;
        off += n;
      }
      // SECURITY: invariant 1 — never chain onto a damaged line: seal it first.
      if (buf[off - 1] !== 0x0a) return { kind: 'damaged' };
      const body = buf.subarray(0, off - 1);
      const nl = body.lastIndexOf(0x0a);
      if (nl >= 0 || start === 0) {
        const tail = parseTail(body.subarray(nl + 1).toString('utf8'));
        if (!tail) throw new AuditWriteError('The last audit entry cannot be read; run `airlock audit verify`.', 'damaged');
        return { kind: 'ok', tail };
      }
      window *= 4;
    }
  });
}

function readHeadText(files: AuditFileSystem, path: string): string | null {
  if (!files.stat(path)) return null;
  try {
    return readEnd(files, path, 4096).toString('utf8').trim();
  } catch {
    return '';
  }
}
