/**
 * The file operations the audit log's append path uses, as one small
 * interface: the default is node:fs; a test passes a recording wrapper to
 * prove the order of `write` and `fsync` against the moment a call is sent,
 * or one that fails with ENOSPC.
 *
 * Everything but `fsync` is synchronous on purpose: an append is a handful of
 * cheap system calls into the page cache, and doing them inline keeps the
 * hot path free of thread-pool hops. `fsync` is the one call that waits for
 * the disk, so it runs on the thread pool, off the hot path.
 */
import * as fs from 'node:fs';

/** What the log needs to know about a file: which one it is and how long. */
export interface FileIdentity {
  ino: number;
  size: number;
}

export interface AuditFileSystem {
  /** Creates the folder (and parents) with mode 0700 if missing. */
  mkdirp(path: string): void;
  readdir(path: string): string[];
  /** Opens for appending (O_APPEND|O_CREAT), mode 0600 when created. */
  openAppend(path: string): number;
  /** Opens for reading and writing in place (O_RDWR|O_CREAT), mode 0600 when created. */
  openInPlace(path: string): number;
  /** Creates a file that must not exist yet (O_CREAT|O_EXCL); throws EEXIST. */
  createExclusive(path: string): number;
  openRead(path: string): number;
  close(fd: number): void;
  /** write(2): how many bytes the kernel took (may be fewer than asked). `position` null appends. */
  write(fd: number, buffer: Buffer, offset: number, length: number, position: number | null): number;
  read(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
  fstat(fd: number): FileIdentity;
  /** null when the path does not exist. */
  stat(path: string): FileIdentity | null;
  rename(from: string, to: string): void;
  unlink(path: string): void;
  /** Sets a file's modification time to now (a lock's holder shows it is alive). */
  touch(path: string): void;
  /** fsync(2) of a file, on the thread pool: the only call that waits for the disk. */
  fsync(fd: number): Promise<void>;
  /** Makes a folder's entries (a created or renamed file) durable. */
  fsyncDir(path: string): Promise<void>;
}

/** The real thing. */
export const nodeAuditFileSystem: AuditFileSystem = {
  mkdirp: (path) => void fs.mkdirSync(path, { recursive: true, mode: 0o700 }),
  readdir: (path) => fs.readdirSync(path),
  openAppend: (path) => fs.openSync(path, 'a', 0o600),
  openInPlace: (path) => fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600),
  createExclusive: (path) => fs.openSync(path, 'wx', 0o600),
  openRead: (path) => fs.openSync(path, 'r'),
  close: (fd) => fs.closeSync(fd),
  write: (fd, buffer, offset, length, position) => fs.writeSync(fd, buffer, offset, length, position),
  read: (fd, buffer, offset, length, position) => fs.readSync(fd, buffer, offset, length, position),
  fstat: (fd) => identity(fs.fstatSync(fd)),
  stat: (path) => {
    const stats = fs.statSync(path, { throwIfNoEntry: false });
    return stats ? identity(stats) : null;
  },
  rename: (from, to) => fs.renameSync(from, to),
  unlink: (path) => fs.unlinkSync(path),
  touch: (path) => {
    const now = new Date();
    fs.utimesSync(path, now, now);
  },
  fsync: (fd) => new Promise((resolve, reject) => fs.fsync(fd, (error) => (error ? reject(error) : resolve()))),
  fsyncDir: (path) =>
    new Promise((resolve, reject) => {
      fs.open(path, 'r', (openError, fd) => {
        if (openError) return reject(openError);
        fs.fsync(fd, (syncError) => fs.close(fd, () => (syncError ? reject(syncError) : resolve())));
      });
    }),
};

function identity(stats: fs.Stats): FileIdentity {
  return { ino: stats.ino, size: stats.size };
}

/** True for the errors that mean "no space left" (a full disk or a quota). */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
