/**
 * Which process owns a data folder: where its lock, key and socket live, and
 * the lock itself — taken with O_EXCL, taken over from a process that died,
 * or handed to a named process (the Airlock app taking over from a
 * command-line owner) so that nobody else can race for it.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the owner's lock, key and socket live for a data folder. */
export interface OwnerEndpoint {
  lockPath: string;
  /** The secret a client proves it can read (see the header). */
  keyPath: string;
  socketPath: string;
}

/** Unix socket paths are limited to about 104 bytes; long data folders get a short path in the temp folder. */
export function ownerEndpoint(dataDir: string, platform: NodeJS.Platform = process.platform): OwnerEndpoint {
  const lockPath = join(dataDir, 'owner.lock');
  const keyPath = join(dataDir, 'owner.key');
  const hash = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  if (platform === 'win32') return { lockPath, keyPath, socketPath: `\\\\.\\pipe\\airlock-${hash}` };
  const inside = join(dataDir, 'owner.sock');
  return { lockPath, keyPath, socketPath: Buffer.byteLength(inside) < 100 ? inside : join(tmpdir(), `airlock-${hash}.sock`) };
}

/** How a lock handed to another process is marked (`<pid> handed`), so only that process takes it. */
const HANDED = 'handed';
/** How long a handed lock waits for the process it was handed to. */
const HANDOVER_LAPSE_MS = 30_000;

/** The owner lock, held by this process. */
export interface LockHandle {
  release(): void;
  /** Writes another process's pid into the lock: it takes over the folder without a race with anyone else. */
  handTo(pid: number): void;
}

/**
 * Takes the owner lock (O_EXCL), taking over one left by a dead process or
 * handed to this one. Returns the handle, or undefined when another live
 * process holds it.
 */
export function takeLock(lockPath: string): LockHandle | undefined {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return lockHandle(lockPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const [pidText, mark] = readFileSync(lockPath, 'utf8').split(' ');
      const holder = Number(pidText);
      // Handed to this process by the previous owner (see `OwnerSocket.close(handTo)`): now it is ours.
      if (holder === process.pid && mark === HANDED) {
        writeFileSync(lockPath, String(process.pid), { mode: 0o600 });
        return lockHandle(lockPath);
      }
      // A hand-over the named process never took up (it died, or the pid was not an Airlock's) lapses.
      const lapsed = mark === HANDED && ageMs(lockPath) > HANDOVER_LAPSE_MS;
      if (!lapsed && Number.isInteger(holder) && holder > 0 && isAlive(holder)) return undefined;
      rmSync(lockPath, { force: true });
    }
  }
  return undefined;
}

function lockHandle(lockPath: string): LockHandle {
  let released = false;
  const mine = () => {
    try {
      return readFileSync(lockPath, 'utf8') === String(process.pid);
    } catch {
      return false;
    }
  };
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    if (mine()) rmSync(lockPath, { force: true });
  };
  process.once('exit', release);
  return {
    release,
    handTo(pid) {
      if (released) return;
      released = true;
      process.off('exit', release);
      if (!mine()) return;
      const temporary = `${lockPath}.${process.pid}.handover`;
      writeFileSync(temporary, `${pid} ${HANDED}`, { mode: 0o600 });
      renameSync(temporary, lockPath);
    },
  };
}

/** How long ago a file was last written; infinite when it is gone. */
function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
