/**
 * The audit log's face: what goes in each kind of entry (a call's decision
 * and outcome, a network decision, a sandbox refusal, a server's request, a
 * change a person made), with the secrets a person gave a server hidden
 * before anything is written; and the reads and checks of the chain. How
 * entries reach the disk as one chain — batches, the lock, the head,
 * rotation, repair, flushing — is the writer's job (log-writer.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Caller, Rule, Verdict } from '../../../shared/domain';
import { nodeAuditFileSystem, type AuditFileSystem } from './audit-fs';
import type { AuditKey } from './audit-key';
import {
  canonicalText,
  inKeyOrder,
  sha256Hex,
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
import { readAudit, type AuditQuery, type AuditRecord, type ActivityRecord, type VerifiedMark, type VerifyResult } from './audit-reader';
import { verifyAudit, type ChainCheck } from './audit-verify';
import { realTimer, type FlushTimer } from './group-commit';
import { listLogFiles } from './log-files';
import { LogWriter, type AuditDurability } from './log-writer';
import { redactArguments, redactName, redactText, WITHHELD } from './redact';
import { newSessionId } from './session';
import { changeBody, type ChangeInput } from './change-record';
import { serverRequestBody, type ServerRequestAuditEntry, type ServerRequestAuditInput } from './server-request-entries';
import { claimsContradictedBody, type ClaimsContradictedInput } from './claims-entries';

export * from './entries';
export type { AuditQuery, AuditRecord, ActivityRecord, VerifyResult, VerifiedMark, AuditProblem, AuditNote } from './audit-reader';
export type { AuditDurability } from './log-writer';
export type { FlushTimer } from './group-commit';
export { AuditWriteError, type AuditWriteProblem } from './write-errors';
export { listLogFiles, splitLines } from './log-files';

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

/**
 * The audit log: append-only JSON lines, hash-chained across rotated files,
 * with its end anchored by a keyed head record.
 *
 * - Each append builds its entry's body here — redacted: a secret the person
 *   gave a server is hidden wherever the server or a caller put it — and the
 *   writer (log-writer.ts) puts it on the chain: batched, under a lock shared
 *   by every process on the folder, its head rewritten, flushed within
 *   `flushWindowMs` (or before it resolves, with `flushed`).
 * - When it takes over from another writer (first append, or someone else
 *   wrote since), the writer checks the head against the tail and writes what
 *   it found (`anchor` entries), seals a line a crash or a full disk cut short
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
  readonly #key: AuditKey | undefined;
  readonly #windowMs: number;
  readonly #fs: AuditFileSystem;
  readonly #session: string;
  readonly #secretValues: ((server: string) => readonly string[]) | undefined;
  readonly #writer: LogWriter;

  /** See `AuditLogOptions`. Nothing is touched until the first call. */
  constructor(options: AuditLogOptions) {
    this.#dir = options.dir;
    this.#key = options.key;
    this.#windowMs = options.flushWindowMs ?? DEFAULT_FLUSH_WINDOW_MS;
    this.#fs = options.fs ?? nodeAuditFileSystem;
    this.#session = options.session ?? newSessionId();
    this.#secretValues = options.secretValues;
    this.#writer = new LogWriter({
      dir: this.#dir,
      files: this.#fs,
      key: this.#key,
      now: options.now ?? (() => Date.now()),
      maxFileBytes: options.maxFileBytes ?? 8 * 1024 * 1024,
      lockTimeoutMs: options.lockTimeoutMs ?? 10_000,
      windowMs: this.#windowMs,
      timer: options.timer ?? realTimer,
      session: this.#session,
      recoveryScanBytes: options.recoveryScanBytes ?? 1024 * 1024,
    });
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
      // On macOS, the path the server tried (it chose it): redacted like a host name.
      detail: this.#text(String(input.server), String(input.detail).slice(0, 2000), redactName).slice(0, 500),
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
      host: this.#text(server, String(input.host).slice(0, 300), redactName),
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
  #text(server: string, text: string, redact: (text: string, secrets: readonly string[]) => string = redactText): string {
    const hidden = this.#hidden(server);
    return 'withheld' in hidden ? WITHHELD : redact(text, hidden.values);
  }

  /**
   * Runs the take-over checks now (they run at the first append anyway):
   * seals a damaged end, records what the head says, and gives unfinished
   * calls of stopped processes the outcome `unknown`.
   */
  async recoverInterrupted(): Promise<void> {
    if (this.#writer.tookOver) return;
    await this.#append(null, 'written');
  }

  /** Flushes (fsync) everything written so far, and what was left for after this turn. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /** Flushes and closes the files; later appends reopen them. */
  close(): Promise<void> {
    return this.#writer.close();
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
    const result = await verifyAudit({ dir: this.#dir, key: this.#key, lock: () => this.#writer.lockForReading() }, mark);
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
    const records = await readAudit({ dir: this.#dir, lock: () => this.#writer.lockForReading() }, query, false);
    return records as AuditRecord[];
  }

  /** As `read`, with network decisions among the calls (the Activity page). */
  readActivity(query: AuditQuery = {}): Promise<ActivityRecord[]> {
    return readAudit({ dir: this.#dir, lock: () => this.#writer.lockForReading() }, query, true);
  }

  /** The log files in chain order (oldest first). */
  async files(): Promise<string[]> {
    return listLogFiles(this.#fs, this.#dir);
  }

  #append(body: Record<string, unknown> | null, durability: AuditDurability = 'written', afterThisTurn = false): Promise<AuditEntry | null> {
    return this.#writer.append(body, durability, afterThisTurn);
  }
}
