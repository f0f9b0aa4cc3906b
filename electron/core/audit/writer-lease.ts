/**
 * The lock: one writer at a time across processes.
 *
 * Taking a lock file and removing it costs two directory changes, more than
 * the rest of a batch. So a process keeps the lock between batches (a lease)
 * and lets go when it has been idle for LEASE_IDLE_MS, or at once after a
 * batch when another process has asked for it (WANT_FILE). Every batch checks
 * the lock file is still the one it took (same inode), at most every
 * RECHECK_MS while the lease is held.
 *
 * The lease's times are on the steady clock (performance.now), never the wall
 * clock: a clock set back must not make this process hold the lock, or stand
 * aside, for as long as it was set back (issue 16.3), and one set forward must
 * not time a wait out early.
 */
import { join } from 'node:path';
import type { AuditFileSystem } from './audit-fs';
import { LOCK_FILE } from './entries';
import { breakIfStale, takeFileLockSync, tryFileLockSync } from './file-lock';
import { AuditWriteError, auditWriteError } from './write-errors';

/** The lock is kept between batches (a lease) and let go after this long without one (ms). */
const LEASE_IDLE_MS = 25;
/** While holding the lease, the lock file's time is refreshed this often, so nobody takes it for a dead holder's (ms). */
const LEASE_TOUCH_MS = 5_000;
/**
 * While a lease is held, nobody else writes: the files are checked (active
 * file unchanged, head still there, lock still ours, anyone waiting) at most
 * this often, and at every fresh take of the lock (ms).
 */
export const RECHECK_MS = 10;
/** After handing the lock to a waiting process, this one waits this long before taking it again (ms). */
const YIELD_MS = 25;
/** A process that wants the lock says so with this file; the holder hands the lock over after its batch. */
const WANT_FILE = 'audit.lock.want';

// Leases still held when the process exits are let go (a killed process's lock is taken over as stale);
// entries left for after the turn are written first (`process.exit` in that turn; see log-writer.ts).
const heldLeases = new Set<() => void>();
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

/** Runs `write` when the process exits, before any lease is let go (until `forgetAtExit`). */
export function writeAtExit(write: () => void): void {
  laterAtExit.add(write);
  onExit();
}

export function forgetAtExit(write: () => void): void {
  laterAtExit.delete(write);
}

/** What the lease needs from the log. */
export interface LeaseDeps {
  files: AuditFileSystem;
  dir: string;
  /** How long to wait for another process's lock (ms). */
  lockTimeoutMs: number;
  /** Before the lock is let go (idle, handed over, at exit): the head is written, still under it. */
  beforeLetGo(): void;
  /** The lock was found not ours any more: another process writes now, and our due head would overwrite its. */
  lost(): void;
  /** True once the log was closed (the lease is let go at the next idle check). */
  closed(): boolean;
}

export class WriterLease {
  readonly #deps: LeaseDeps;
  #dirReady = false;
  #lease: { ino: number; release: () => void; touched: number } | null = null;
  #leaseTimer: ReturnType<typeof setTimeout> | null = null;
  #lastBatchAt = -Infinity;
  #yieldUntil = -Infinity;
  #announced = false;
  /** When the files were last checked under the lock (-Infinity: at the next batch). */
  #checkedAt = -Infinity;
  /** When this process last looked whether another one waits for the lock. */
  #wantCheckedAt = -Infinity;

  constructor(deps: LeaseDeps) {
    this.#deps = deps;
  }

  /** True while this process holds the lock. */
  get held(): boolean {
    return this.#lease !== null;
  }

  /** Creates the log's folder once; throws an AuditWriteError when it cannot. */
  readyDir(): void {
    if (this.#dirReady) return;
    try {
      this.#deps.files.mkdirp(this.#deps.dir);
    } catch (error) {
      throw auditWriteError(this.#deps.dir, error, 'Cannot create the audit folder');
    }
    this.#dirReady = true;
  }

  /** The lock for one batch, without waiting: the lease held, or a fresh one; undefined when another process holds it. */
  tryLock(): (() => void) | undefined {
    this.readyDir();
    const { files, dir } = this.#deps;
    try {
      if (this.#lease && this.checkDue() && !this.stillOurs()) this.drop(false);
      if (!this.#lease) {
        if (performance.now() < this.#yieldUntil) return undefined;
        const taken = takeFileLockSync(join(dir, LOCK_FILE), files);
        if (!taken) {
          this.#announce();
          return undefined;
        }
        // Letting the lock go (when idle, handing it over, at exit) writes the head first.
        const release = () => {
          this.#deps.beforeLetGo();
          taken.release();
        };
        this.#lease = { ino: taken.ino, release, touched: performance.now() };
        heldLeases.add(release);
        onExit();
        this.withdraw();
        // Others may have written since this process last held the lock.
        this.#checkedAt = -Infinity;
      }
    } catch (error) {
      throw auditWriteError(dir, error, 'Cannot lock the audit log');
    }
    return () => this.#afterBatch();
  }

  /** Waits for the lock (another process holds it), up to the lock timeout. */
  async waitForLock(): Promise<() => void> {
    const { files, dir, lockTimeoutMs } = this.#deps;
    const started = performance.now();
    let wait = 1;
    for (;;) {
      await breakIfStale(join(dir, LOCK_FILE), 30_000);
      if (performance.now() - started > lockTimeoutMs) {
        this.withdraw();
        throw new AuditWriteError(`Could not lock ${join(dir, LOCK_FILE)} within ${lockTimeoutMs} ms; another Airlock process holds it.`, 'locked');
      }
      await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait));
      wait = Math.min(wait * 2, 10);
      // Another waiter that got the lock removes the request: put it back.
      if (this.#announced && !files.stat(join(dir, WANT_FILE))) this.#announced = false;
      const release = this.tryLock();
      if (release) return release;
    }
  }

  /**
   * The lock for a moment, without waiting (to record a flushed point in the
   * head): the lease when it is still ours, else a fresh take; undefined when
   * another process holds it.
   */
  lockForAMoment(): (() => void) | undefined {
    return this.#lease && this.stillOurs() ? () => undefined : tryFileLockSync(join(this.#deps.dir, LOCK_FILE), this.#deps.files);
  }

  /** True when the files are due a check (a fresh lock, or RECHECK_MS since the last). */
  checkDue(): boolean {
    return performance.now() - this.#checkedAt >= RECHECK_MS;
  }

  /** The files were just checked under the lock. */
  checked(): void {
    this.#checkedAt = performance.now();
  }

  /** True when the lock file is still the one this lease took (refreshing its time now and then). */
  stillOurs(): boolean {
    const lease = this.#lease!;
    const lockPath = join(this.#deps.dir, LOCK_FILE);
    const now = performance.now();
    if (now - lease.touched > LEASE_TOUCH_MS) {
      try {
        this.#deps.files.touch(lockPath);
      } catch {
        // checked below
      }
      lease.touched = now;
    }
    return this.#deps.files.stat(lockPath)?.ino === lease.ino;
  }

  /** Ends the lease: `release` lets the lock go (the head first); otherwise it is forgotten (no longer ours). */
  drop(release: boolean): void {
    const lease = this.#lease;
    // Letting go: the head first, still under the lock. A lease found not ours any more:
    // another process writes now, and our head would overwrite its.
    if (release) this.#deps.beforeLetGo();
    else this.#deps.lost();
    this.#lease = null;
    if (this.#leaseTimer) clearTimeout(this.#leaseTimer);
    this.#leaseTimer = null;
    if (!lease) return;
    heldLeases.delete(lease.release);
    if (release) lease.release();
  }

  /** Takes back this process's request for the lock. */
  withdraw(): void {
    if (!this.#announced) return;
    this.#announced = false;
    try {
      this.#deps.files.unlink(join(this.#deps.dir, WANT_FILE));
    } catch {
      // gone already (another waiter may put it back)
    }
  }

  // After a batch: hand the lock over when another process asked for it; otherwise keep it until idle.
  #afterBatch(): void {
    this.#lastBatchAt = performance.now();
    const now = this.#lastBatchAt;
    if (now - this.#wantCheckedAt >= RECHECK_MS && ((this.#wantCheckedAt = now), this.#deps.files.stat(join(this.#deps.dir, WANT_FILE)))) {
      this.drop(true);
      this.#yieldUntil = performance.now() + YIELD_MS;
      return;
    }
    if (this.#leaseTimer) return;
    const check = () => {
      const idle = performance.now() - this.#lastBatchAt;
      if (idle >= LEASE_IDLE_MS || this.#deps.closed()) {
        this.#leaseTimer = null;
        // Not while a batch of this process is being written (they are synchronous: this runs between them).
        this.drop(true);
      } else {
        this.#leaseTimer = setTimeout(check, LEASE_IDLE_MS - idle);
        this.#leaseTimer.unref?.();
      }
    };
    this.#leaseTimer = setTimeout(check, LEASE_IDLE_MS);
    this.#leaseTimer.unref?.();
  }

  // Tells the holder this process waits (it hands the lock over after its batch).
  #announce(): void {
    if (this.#announced) return;
    try {
      this.#deps.files.close(this.#deps.files.createExclusive(join(this.#deps.dir, WANT_FILE)));
    } catch {
      // someone else is waiting too: the file says enough
    }
    this.#announced = true;
  }
}
