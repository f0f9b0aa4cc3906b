/**
 * Group commit: after a write, an fsync of the log (then its folder, then the
 * head) starts within the flush window, covering everything written until
 * then. A power cut can lose at most the entries of that window; a crash of
 * Airlock loses nothing that was written. An append that asks for `flushed`
 * waits for an fsync that started after its write.
 *
 * A failed flush is kept (`failed`): the writer accepts nothing more until a
 * flush succeeds, so no entry is acknowledged past a disk that stopped taking
 * them.
 */
import type { AuditFileSystem } from './audit-fs';
import type { HeadWriter } from './head-anchor';
import { closeQuietly } from './log-files';

/** A timer the log can set and cancel (injectable, so a test can run the flush window by hand). */
export interface FlushTimer {
  set(callback: () => void, ms: number): { cancel(): void };
}

export const realTimer: FlushTimer = {
  set(callback, ms) {
    const handle = setTimeout(callback, ms);
    handle.unref?.();
    return { cancel: () => clearTimeout(handle) };
  },
};

/** What group commit needs from the log. */
export interface GroupCommitDeps {
  files: AuditFileSystem;
  dir: string;
  timer: FlushTimer;
  /** The flush window (ms). */
  windowMs: number;
  /** The active file now: its descriptor and the seq of its last entry. */
  active(): { fd: number; seq: number } | null;
  head: HeadWriter;
  /** After a flush moved the durable point: record it in the head, if nobody else wrote since. */
  refreshHead(): void;
}

export class GroupCommit {
  readonly #deps: GroupCommitDeps;
  /** Files replaced since the last flush (rotated, or re-opened after another writer): fsynced, then closed. */
  #retired: number[] = [];
  #dirDirty = false;
  #writeGen = 0;
  #flushedGen = 0;
  #flushTimer: { cancel(): void } | null = null;
  #flushing: Promise<void> | null = null;
  #flushError: Error | null = null;

  constructor(deps: GroupCommitDeps) {
    this.#deps = deps;
  }

  /** How many batches were written (a flush covers those written before it started). */
  get writeGen(): number {
    return this.#writeGen;
  }

  /** The last flush's failure, until one succeeds. */
  get failed(): Error | null {
    return this.#flushError;
  }

  /** A batch was written. */
  wrote(): void {
    this.#writeGen += 1;
  }

  /** A file was replaced: it is fsynced with the next flush, then closed. */
  retire(fd: number): void {
    this.#retired.push(fd);
  }

  /** The folder changed (a file created or renamed): it is fsynced with the next flush. */
  dirChanged(): void {
    this.#dirDirty = true;
  }

  /** Starts the flush window, unless one is running or nothing is unflushed. */
  schedule(): void {
    if (this.#flushTimer || this.#flushedGen >= this.#writeGen) return;
    this.#flushTimer = this.#deps.timer.set(() => {
      this.#flushTimer = null;
      // A timed flush has no caller to tell: its failure stays in #flushError, which the next append
      // (and every append asking for `flushed`) meets and retries before anything else is written.
      this.flushUpTo(this.#writeGen).catch(() => undefined);
    }, this.#deps.windowMs);
  }

  cancelTimer(): void {
    this.#flushTimer?.cancel();
    this.#flushTimer = null;
  }

  /** Closes the files retired since the last flush (the log is closing). */
  closeRetired(): void {
    for (const fd of this.#retired.splice(0)) closeQuietly(this.#deps.files, fd);
  }

  /** Resolves once an fsync that started after write generation `gen` returned. */
  async flushUpTo(gen: number): Promise<void> {
    while (this.#flushedGen < gen) {
      if (this.#flushing) {
        // Its failure is read from #flushError just below (and retried here), not from the rejection.
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
    const { files, dir, head } = this.#deps;
    const gen = this.#writeGen;
    const active = this.#deps.active();
    const seq = active?.seq ?? 0;
    const retired = this.#retired.splice(0);
    const fds = [...retired, ...(active ? [active.fd] : [])];
    const dirDirty = this.#dirDirty;
    this.#dirDirty = false;
    try {
      // The log first, then its folder (new and renamed files), then the head: the head never names an entry the disk may not hold.
      await Promise.all(fds.map((fd) => files.fsync(fd)));
      if (dirDirty) await files.fsyncDir(dir);
      this.#flushError = null;
    } catch (error) {
      this.#retired.unshift(...retired);
      if (dirDirty) this.#dirDirty = true;
      this.#flushError = error as Error;
      throw error;
    }
    for (const fd of retired) closeQuietly(files, fd);
    this.#flushedGen = Math.max(this.#flushedGen, gen);
    if (seq > head.durableSeq) {
      head.durableSeq = seq;
      this.#deps.refreshHead();
    }
    // The head is a record of the end, not an entry: if it does not reach the disk, the next
    // take-over finds it behind the log and notes that (an `anchor` entry); no entry is lost.
    if (head.fd !== null) await files.fsync(head.fd).catch(() => undefined);
  }
}
