import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { nodeAuditFileSystem, type AuditFileSystem } from './audit-fs';

/** Options for `acquireFileLock`. */
export interface FileLockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock older than this (ms) whose holder cannot be shown alive is taken over. */
  staleMs?: number;
  /** The file operations (tests inject failures). */
  fs?: AuditFileSystem;
}

/** Releases a lock; safe to call twice. */
export type ReleaseLock = () => Promise<void>;

/**
 * Tries once, without waiting, to take the lock: a file created with
 * O_CREAT|O_EXCL holding the owner's pid, host and a nonce. Returns a
 * synchronous release, or undefined when another holder has it. Release
 * removes the file only if it is still the one this call created (same
 * inode), so a lock taken over as stale is never removed by its old owner.
 */
export function tryFileLockSync(lockPath: string, files: AuditFileSystem = nodeAuditFileSystem): (() => void) | undefined {
  return takeFileLockSync(lockPath, files)?.release;
}

/** As `tryFileLockSync`, also saying which file (inode) is the lock, so a holder can check it still is. */
export function takeFileLockSync(lockPath: string, files: AuditFileSystem = nodeAuditFileSystem): { ino: number; release: () => void } | undefined {
  let fd: number;
  try {
    fd = files.createExclusive(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  let ino: number;
  try {
    const owner = Buffer.from(`${process.pid} ${hostname()} ${randomBytes(8).toString('hex')}`);
    files.write(fd, owner, 0, owner.length, 0);
    ino = files.fstat(fd).ino;
  } catch (error) {
    files.close(fd);
    try {
      files.unlink(lockPath);
    } catch {
      // nothing to undo
    }
    throw error;
  }
  files.close(fd);
  let released = false;
  return {
    ino,
    release: () => {
      if (released) return;
      released = true;
      try {
        if (files.stat(lockPath)?.ino === ino) files.unlink(lockPath);
      } catch {
        // gone already
      }
    },
  };
}

/**
 * A cross-process lock (see `tryFileLockSync`). Waits with jittered
 * back-off; takes over a lock whose holder died (same host, pid gone) or
 * that is older than `staleMs`. Throws when the lock cannot be had within
 * `timeoutMs`.
 *
 * Every process that appends to the audit log takes this lock around
 * reading the tail hash and writing, so two processes stay one chain.
 */
export async function acquireFileLock(lockPath: string, options: FileLockOptions = {}): Promise<ReleaseLock> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  // The wait is timed on the steady clock: a wall clock set forward must not end it early.
  const started = performance.now();
  let wait = 1;
  for (;;) {
    const release = tryFileLockSync(lockPath, options.fs);
    if (release) return async () => release();
    await breakIfStale(lockPath, staleMs);
    if (performance.now() - started > timeoutMs) {
      throw new Error(`Could not lock ${lockPath} within ${timeoutMs} ms; another Airlock process holds it.`);
    }
    await new Promise((r) => setTimeout(r, wait + Math.random() * wait));
    wait = Math.min(wait * 2, 50);
  }
}

/** How long an empty lock file may stay empty before it counts as a killed writer's (ms). */
const EMPTY_LOCK_STALE_MS = 1_000;

/** Removes the lock if its holder died (same host, pid gone), it is older than `staleMs`, or it has stayed empty (its writer was killed as it took it). */
export async function breakIfStale(lockPath: string, staleMs: number): Promise<void> {
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
  const age = Date.now() - mtimeMs;
  const old = age > staleMs;
  if (content === '') {
    // A live writer fills the file in the same synchronous step that creates it, so an empty
    // lock is either that instant or a writer killed between the two (found by the owner-kill
    // soak): still empty after EMPTY_LOCK_STALE_MS, it is a dead writer's. (The re-read below
    // leaves it alone if it was filled in meanwhile.)
    if (age <= EMPTY_LOCK_STALE_MS) return;
  } else if (!holderDead && !old) return;
  // Take over only if it is still the same lock we judged.
  const again = await fs.readFile(lockPath, 'utf8').catch(() => null);
  if (again === content) await fs.unlink(lockPath).catch(() => undefined); // Another process may have removed it first; the lock is free either way.
}
