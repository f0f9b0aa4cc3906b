import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';

/** Options for `acquireFileLock`. */
export interface FileLockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock older than this (ms) whose holder cannot be shown alive is taken over. */
  staleMs?: number;
}

/** Releases a lock; safe to call twice. */
export type ReleaseLock = () => Promise<void>;

/**
 * A cross-process lock: a file created with O_CREAT|O_EXCL holding the
 * owner's pid, host and a nonce. Waits with jittered back-off; takes over a
 * lock whose holder died (same host, pid gone) or that is older than
 * `staleMs`. Throws when the lock cannot be had within `timeoutMs`.
 *
 * Every process that appends to the audit log takes this lock around
 * reading the tail hash and writing, so two processes stay one chain.
 */
export async function acquireFileLock(lockPath: string, options: FileLockOptions = {}): Promise<ReleaseLock> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const owner = `${process.pid} ${hostname()} ${randomBytes(8).toString('hex')}`;
  const started = Date.now();
  let wait = 1;
  for (;;) {
    try {
      const handle = await fs.open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(owner);
      } finally {
        await handle.close();
      }
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        // Only remove the lock if it is still ours (it may have been taken over as stale).
        const now = await fs.readFile(lockPath, 'utf8').catch(() => '');
        if (now === owner) await fs.unlink(lockPath).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    await breakIfStale(lockPath, staleMs);
    if (Date.now() - started > timeoutMs) {
      throw new Error(`Could not lock ${lockPath} within ${timeoutMs} ms; another Airlock process holds it.`);
    }
    await new Promise((r) => setTimeout(r, wait + Math.random() * wait));
    wait = Math.min(wait * 2, 50);
  }
}

async function breakIfStale(lockPath: string, staleMs: number): Promise<void> {
  let content: string;
  let mtimeMs: number;
  try {
    content = await fs.readFile(lockPath, 'utf8');
    mtimeMs = (await fs.stat(lockPath)).mtimeMs;
  } catch {
    return; // gone already, or unreadable: try again
  }
  const [pidText, host] = content.split(' ');
  const pid = Number(pidText);
  let holderDead = false;
  if (host === hostname() && Number.isInteger(pid) && pid > 0) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      holderDead = (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }
  // A lock being written (empty content) is fresh, not stale.
  const old = Date.now() - mtimeMs > staleMs;
  if (!holderDead && !old) return;
  if (content === '' && !old) return;
  // Take over only if it is still the same lock we judged.
  const again = await fs.readFile(lockPath, 'utf8').catch(() => null);
  if (again === content) await fs.unlink(lockPath).catch(() => undefined);
}
