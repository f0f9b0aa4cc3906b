/**
 * The audit log's writer: entries' bodies in, one hash chain on disk out.
 *
 * - Appends are queued and written in batches: whoever calls while a batch
 *   is being written joins the next one. A batch is one lock and one
 *   `write(2)` of all its lines; the head is rewritten in place at most
 *   RECHECK_MS later — synchronous system calls into the page cache, no disk
 *   wait. An append resolves once its line is written (`written`), or once
 *   an fsync that covers it returned (`flushed`; group-commit.ts). An append
 *   made with `afterThisTurn` (a call's outcome) joins a batch once the
 *   current turn of the event loop is over.
 * - Several processes stay one chain: each batch takes the lock
 *   (writer-lease.ts), checks the active file is the one it last wrote
 *   (inode and size; else re-reads the tail), appends with O_APPEND, and
 *   releases. Rotation renames the active file once it is full (log-files.ts).
 * - When it takes over from another writer (first append, or someone else
 *   wrote since), it checks the head against the tail (head-anchor.ts), seals
 *   a line a crash or a full disk cut short (log-repair.ts), and gives
 *   unfinished calls of processes that are gone the outcome `unknown`
 *   (interrupted-calls.ts).
 *
 * SECURITY: invariant 1 — an entry is written (`write(2)` returned) before
 * its append resolves, and flushed first when it asks for `flushed`; any
 * failure rejects, and the caller must not send.
 */
import { join } from 'node:path';
import type { AuditFileSystem } from './audit-fs';
import type { AuditKey } from './audit-key';
import { ACTIVE_FILE, sealEntry, type AuditEntry } from './entries';
import { GroupCommit, type FlushTimer } from './group-commit';
import { HeadWriter, anchorFinding } from './head-anchor';
import { interruptedCalls } from './interrupted-calls';
import { readLastEntry, rotateActiveFile, tailOfRotated, type Tail } from './log-files';
import { sealDamagedEnd } from './log-repair';
import { AuditWriteError, auditWriteError } from './write-errors';
import { RECHECK_MS, WriterLease, forgetAtExit, writeAtExit } from './writer-lease';

/**
 * How far an append must have gone before it resolves:
 * - `written`: `write(2)` returned — the entry survives any crash of Airlock;
 *   it is flushed to disk within the log's window (`flushWindowMs`).
 * - `flushed`: `fsync(2)` returned — it survives a power cut too.
 */
export type AuditDurability = 'written' | 'flushed';

/** How the writer is set up (see `AuditLogOptions`, from which it comes). */
export interface LogWriterOptions {
  dir: string;
  files: AuditFileSystem;
  key: AuditKey | undefined;
  now: () => number;
  maxFileBytes: number;
  lockTimeoutMs: number;
  windowMs: number;
  timer: FlushTimer;
  session: string;
  recoveryScanBytes: number;
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

export class LogWriter {
  readonly #o: LogWriterOptions;
  readonly #lease: WriterLease;
  readonly #head: HeadWriter;
  readonly #commit: GroupCommit;

  #queue: Pending[] = [];
  #draining = false;
  #active: ActiveFile | null = null;
  #tookOver = false;
  #closed = false;
  /** While a reader of this process notes what to read, no batch is written. */
  #readerGate: Promise<void> | null = null;
  /** Appends made with `afterThisTurn`, queued when the turn is over (see `#promoteLater`). */
  #later: Pending[] = [];
  #laterImmediate: ReturnType<typeof setImmediate> | null = null;

  constructor(options: LogWriterOptions) {
    this.#o = options;
    const { files, dir } = options;
    this.#head = new HeadWriter({ files, dir, key: options.key, holdsLock: () => this.#lease.held, created: () => this.#commit.dirChanged() });
    this.#lease = new WriterLease({
      files,
      dir,
      lockTimeoutMs: options.lockTimeoutMs,
      beforeLetGo: () => this.#head.writeDue(),
      lost: () => this.#head.forgetDue(),
      closed: () => this.#closed,
    });
    this.#commit = new GroupCommit({
      files,
      dir,
      timer: options.timer,
      windowMs: options.windowMs,
      active: () => (this.#active ? { fd: this.#active.fd, seq: this.#active.tail.seq } : null),
      head: this.#head,
      refreshHead: () => this.#refreshHead(),
    });
  }

  /** True once this process ran the take-over checks (see `#takeOver`). */
  get tookOver(): boolean {
    return this.#tookOver;
  }

  /** Queues a body (null: only the take-over checks); resolves with its entry once written, or flushed. */
  append(body: Record<string, unknown> | null, durability: AuditDurability = 'written', afterThisTurn = false): Promise<AuditEntry | null> {
    this.#closed = false;
    return new Promise((resolve, reject) => {
      const pending: Pending = { body, durability, resolve, reject };
      if (afterThisTurn) {
        this.#later.push(pending);
        this.#laterImmediate ??= setImmediate(() => this.#promoteLater());
        writeAtExit(this.#writeLaterAtExit);
        return;
      }
      this.#queue.push(pending);
      this.#startDrain();
    });
  }

  /** Flushes (fsync) everything written so far, and what was left for after this turn. */
  async flush(): Promise<void> {
    await this.#settleLater();
    await this.#commit.flushUpTo(this.#commit.writeGen);
  }

  /** Flushes and closes the files; later appends reopen them. */
  async close(): Promise<void> {
    await this.#settleLater();
    while (this.#draining || this.#queue.length) await new Promise((resolve) => setImmediate(resolve));
    this.#head.writeDue();
    this.#head.stopTimer();
    // A failed flush is not lost: it was rejected to every append that asked for `flushed`, and the
    // next append retries it before writing anything (see `#drain`). Closing goes on regardless.
    await this.flush().catch(() => undefined);
    this.#commit.cancelTimer();
    if (this.#active) this.#commit.retire(this.#active.fd);
    this.#active = null;
    this.#head.close();
    this.#commit.closeRetired();
    this.#lease.drop(true);
    this.#lease.withdraw();
    this.#closed = true;
  }

  /** For readers: no batch is written (here or elsewhere) while they note which files to read and how far. */
  async lockForReading(): Promise<() => void> {
    // A reader of this process sees the outcomes of the calls that returned before it asked.
    await this.#settleLater();
    try {
      this.#lease.readyDir();
    } catch {
      // a reader of a missing folder reads nothing
    }
    while (this.#readerGate) await this.#readerGate;
    let open!: () => void;
    this.#readerGate = new Promise((resolve) => (open = resolve));
    let release: (() => void) | undefined;
    try {
      release = this.#lease.tryLock() ?? (await this.#lease.waitForLock());
    } catch (error) {
      this.#readerGate = null;
      open();
      throw error;
    }
    // A reader sees the head that names everything this process wrote.
    this.#head.writeDue();
    return () => {
      release();
      this.#readerGate = null;
      open();
    };
  }

  // ── The queue ──────────────────────────────────────────────────────────

  #startDrain(): void {
    if (this.#draining) return;
    this.#draining = true;
    // A microtask later, so appends made in the same turn (concurrent callers) share one batch.
    queueMicrotask(() => void this.#drain());
  }

  // At exit, in the turn that left them: written now, synchronously, if the lock can be had without waiting.
  readonly #writeLaterAtExit = (): void => {
    forgetAtExit(this.#writeLaterAtExit);
    if (this.#later.length === 0) return;
    let release: (() => void) | undefined;
    try {
      release = this.#lease.tryLock();
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
    forgetAtExit(this.#writeLaterAtExit);
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
    const commit = this.#commit;
    try {
      while (this.#queue.length) {
        if (commit.failed) {
          // A flush failed: nothing more is accepted until one succeeds.
          try {
            await commit.flushUpTo(commit.writeGen);
          } catch (error) {
            this.#rejectAll(this.#queue.splice(0), this.#writeError(error, 'Airlock could not flush its audit log to disk'));
            continue;
          }
        }
        while (this.#readerGate) await this.#readerGate;
        let release: (() => void) | undefined;
        try {
          release = this.#lease.tryLock() ?? (await this.#lease.waitForLock());
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
        const gen = commit.writeGen;
        batch.forEach((pending, i) => {
          if (pending.durability === 'written') pending.resolve(written[i]!);
          else
            commit.flushUpTo(gen).then(
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
    return auditWriteError(this.#o.dir, error, what);
  }

  // ── A batch ────────────────────────────────────────────────────────────

  // Under the lock, synchronously: find the tail, take over if needed, rotate, write the batch and the head.
  #writeBatch(batch: Pending[]): (AuditEntry | null)[] {
    const activePath = join(this.#o.dir, ACTIVE_FILE);
    const active = this.#active;
    // Under a lease checked a moment ago nobody else writes: the file is the one this process last wrote.
    const check = active === null || this.#lease.checkDue();
    const stat = check ? this.#o.files.stat(activePath) : { ino: active.ino, size: active.size };
    const current = active !== null && stat !== null && stat.ino === active.ino && stat.size === active.size;
    const prefix: Record<string, unknown>[] = [];
    let tail: Tail;
    let sealing = false;
    if (current) {
      tail = active.tail;
    } else {
      // What this process wrote last is recorded before the end is compared with the record.
      this.#head.writeDue();
      const taken = this.#takeOver(stat, prefix);
      tail = taken.tail;
      sealing = taken.sealing;
    }

    const entries: (AuditEntry | null)[] = [];
    // A damaged line ends without a newline: the repair entry starts on a fresh line, in the same write.
    const chunks: string[] = sealing ? ['\n'] : [];
    const add = (body: Record<string, unknown>): AuditEntry => {
      const { entry, line } = sealEntry({ v: 2, seq: tail.seq + 1, time: new Date(this.#o.now()).toISOString(), prevHash: tail.hash, ...body });
      tail = { seq: entry.seq, hash: entry.hash };
      chunks.push(line, '\n');
      return entry;
    };
    for (const body of prefix) add(body);
    for (const pending of batch) entries.push(pending.body ? add(pending.body) : null);
    if (chunks.length === 0) return entries;

    let file = this.#active ?? this.#openActive(tail);
    // Rotate after the tail is known; a damaged end is sealed in its own file first. The chain continues across the rename.
    if (!sealing && file.size >= this.#o.maxFileBytes) file = this.#rotate(file);
    const bytes = Buffer.from(chunks.join(''), 'utf8');
    this.#writeAll(file, bytes);
    file.size += bytes.length;
    file.tail = tail;
    this.#commit.wrote();
    // The head is a record of where the log ends, not the entry. With the files just checked (a
    // fresh lock, or every RECHECK_MS under a lease) it is written now; otherwise at most
    // RECHECK_MS later (the next checked batch, or a timer) — still under the lock, and always
    // before the lock is let go (to another process, at exit), a reader of this process looks,
    // or a flush records the durable point. A stream of calls shares one head write per
    // RECHECK_MS instead of one per batch: a keyed hash and a write off every call's path.
    if (check) this.#head.write(tail, true);
    else this.#head.later(tail, RECHECK_MS);
    if (check) this.#lease.checked();
    this.#commit.schedule();
    return entries;
  }

  #openActive(tail: Tail): ActiveFile {
    let fd: number;
    try {
      fd = this.#o.files.openAppend(join(this.#o.dir, ACTIVE_FILE));
    } catch (error) {
      throw this.#writeError(error, 'Could not open the audit log');
    }
    const opened = this.#o.files.fstat(fd);
    if (opened.size === 0) this.#commit.dirChanged();
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
        const n = this.#o.files.write(file.fd, bytes, offset, bytes.length - offset, null);
        if (n <= 0) throw new Error('no progress writing the audit log');
        offset += n;
      }
    } catch (error) {
      // The file may now end in a part of this batch, or the batch held a seal or take-over notes that
      // were not written: forget what this process knew, so the next batch re-reads (and seals) the end.
      this.#commit.retire(file.fd);
      this.#active = null;
      throw error;
    }
  }

  // Another writer touched the log since our last batch, or this is our first:
  // read the tail, seal a torn end, compare the head, recover stopped calls.
  // The active file is (re)opened only when something is written.
  #takeOver(stat: { ino: number; size: number } | null, prefix: Record<string, unknown>[]): { tail: Tail; sealing: boolean } {
    const { files, dir } = this.#o;
    const activePath = join(dir, ACTIVE_FILE);
    if (this.#active) this.#commit.retire(this.#active.fd);
    this.#active = null;
    let tail: Tail;
    let sealing = false;
    if (stat && stat.size > 0) {
      const found = readLastEntry(files, activePath);
      if (found.kind === 'damaged') {
        const sealed = sealDamagedEnd(files, activePath);
        tail = sealed.tail;
        if (sealed.repair) prefix.push(sealed.repair);
        sealing = true;
      } else {
        tail = found.tail;
      }
    } else {
      tail = tailOfRotated(files, dir);
    }
    const anchor = anchorFinding(files, dir, this.#o.key, tail);
    if (anchor.durableSeq !== undefined) this.#head.durableSeq = anchor.durableSeq;
    if (anchor.note) prefix.push(anchor.note);
    if (!this.#tookOver) prefix.push(...interruptedCalls({ files, dir, activePath, session: this.#o.session, budget: this.#o.recoveryScanBytes }));
    this.#tookOver = true;
    return { tail, sealing };
  }

  #rotate(file: ActiveFile): ActiveFile {
    const { files, dir } = this.#o;
    rotateActiveFile(files, dir);
    this.#commit.retire(file.fd);
    this.#commit.dirChanged();
    const fd = files.openAppend(join(dir, ACTIVE_FILE));
    const opened = files.fstat(fd);
    this.#active = { fd, ino: opened.ino, size: opened.size, tail: file.tail };
    return this.#active;
  }

  // After a flush, the head records the new durable point, if nobody else wrote since.
  #refreshHead(): void {
    const active = this.#active;
    if (!active || this.#closed || this.#readerGate) return;
    let release: (() => void) | undefined;
    try {
      release = this.#lease.lockForAMoment();
      if (!release) return;
      const stat = this.#o.files.stat(join(this.#o.dir, ACTIVE_FILE));
      if (stat && stat.ino === active.ino && stat.size === active.size) this.#head.write(active.tail);
    } catch {
      // the next batch writes it
    } finally {
      release?.();
    }
  }
}
