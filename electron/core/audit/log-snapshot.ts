/**
 * How the audit log's readers read its files: a snapshot taken under the
 * log's lock (which files, how long each, the head's text — no append or
 * rotation is half-way), then the lines of each file read without the lock,
 * a chunk at a time, forwards (to verify) or backwards (to read the newest
 * first). Memory stays bounded at any size: a line longer than any entry
 * Airlock writes is handed on as one bad line, never gathered whole.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { AuditKey } from './audit-key';
import { ACTIVE_FILE, HEAD_FILE, ROTATED, type AuditEntry } from './entries';

/** Where a reader reads: the log's folder, its key, and its lock. */
export interface ReaderContext {
  dir: string;
  key?: AuditKey;
  /** Takes the log's lock; resolves with its release. */
  lock: () => Promise<() => void>;
}

/** A file as the snapshot found it. */
export interface SnapshotFile {
  name: string;
  size: number;
  ino: number;
  /** The active file is opened under the lock (a rotation afterwards keeps this inode). */
  handle?: fs.FileHandle;
}

/** The files to read, in chain order, and the head's text (null: none; '': unreadable). */
export interface Snapshot {
  files: SnapshotFile[];
  headText: string | null;
}

/** Which files to read and how far, and the head's text, noted under the log's lock. */
export async function snapshot(context: ReaderContext): Promise<Snapshot> {
  // No folder (or none this user may list): there is no log to read, which the caller shows as empty.
  const names = await fs.readdir(context.dir).catch(() => null);
  if (names === null) return { files: [], headText: null };
  const release = await context.lock();
  const files: SnapshotFile[] = [];
  let headText: string | null = null;
  try {
    const rotated = (await fs.readdir(context.dir))
      .map((name) => ({ name, m: ROTATED.exec(name) }))
      .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
      .sort((a, b) => Number(a.m[1]) - Number(b.m[1]));
    for (const { name } of rotated) {
      // Removed since the listing (Airlock never removes one): left out, and verify reports the gap it leaves in the chain.
      const stat = await fs.stat(join(context.dir, name)).catch(() => null);
      if (stat) files.push({ name, size: stat.size, ino: stat.ino });
    }
    try {
      const handle = await fs.open(join(context.dir, ACTIVE_FILE), 'r');
      const stat = await handle.stat();
      files.push({ name: ACTIVE_FILE, size: stat.size, ino: stat.ino, handle });
    } catch {
      // no active file yet
    }
    try {
      headText = (await fs.readFile(join(context.dir, HEAD_FILE), 'utf8')).trim();
    } catch (error) {
      headText = (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : '';
    }
  } finally {
    release();
  }
  return { files, headText };
}

/** The file's handle (the active one was opened under the lock). */
export async function openFile(dir: string, file: SnapshotFile): Promise<fs.FileHandle> {
  return file.handle ?? fs.open(join(dir, file.name), 'r');
}

/** Closes the handles the snapshot opened. */
export async function closeAll(files: SnapshotFile[]): Promise<void> {
  // A file that fails to close was only read: nothing is lost.
  await Promise.all(files.flatMap((f) => (f.handle ? [f.handle.close().catch(() => undefined)] : [])));
}

const CHUNK = 1024 * 1024;
/** A longer line is not an entry Airlock wrote (arguments are capped far below): reading it whole would let a file grow memory. */
const MAX_LINE = 16 * 1024 * 1024;

/**
 * Calls `onLine` for every line of the first `size` bytes (from `from`, a
 * line's start, when given), in order, reading a chunk at a time. `terminated` is false only for a last line without a
 * newline. Returns false if `onLine` returned false (stop).
 */
export async function forEachLine(
  handle: fs.FileHandle,
  size: number,
  onLine: (bytes: Buffer, lineNo: number, terminated: boolean) => boolean,
  from: { position: number; lineNo: number } = { position: 0, lineNo: 0 },
): Promise<boolean> {
  let carry: Buffer = Buffer.alloc(0);
  let position = from.position;
  let lineNo = from.lineNo;
  while (position < size) {
    const want = Math.min(CHUNK, size - position);
    const chunk = Buffer.alloc(want);
    const { bytesRead } = await handle.read(chunk, 0, want, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    let data = chunk.subarray(0, bytesRead);
    if (carry.length) data = Buffer.concat([carry, data]);
    let start = 0;
    for (;;) {
      const nl = data.indexOf(0x0a, start);
      if (nl < 0) break;
      lineNo += 1;
      if (!onLine(data.subarray(start, nl), lineNo, true)) return false;
      start = nl + 1;
    }
    carry = Buffer.from(data.subarray(start));
    if (carry.length > MAX_LINE) {
      // Handed on as one bad line (it cannot parse); the rest of it is skipped up to the next newline.
      lineNo += 1;
      if (!onLine(carry.subarray(0, 64), lineNo, true)) return false;
      const rest = await skipToNewline(handle, position, size);
      position = rest;
      carry = Buffer.alloc(0);
    }
  }
  if (carry.length) {
    lineNo += 1;
    if (!onLine(carry, lineNo, false)) return false;
  }
  return true;
}

async function skipToNewline(handle: fs.FileHandle, from: number, size: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  let position = from;
  while (position < size) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, size - position), position);
    if (bytesRead === 0) return size;
    const nl = chunk.subarray(0, bytesRead).indexOf(0x0a);
    if (nl >= 0) return position + nl + 1;
    position += bytesRead;
  }
  return size;
}

/** A line as an entry (with its text, for the hash check), or undefined when it is not one. */
export function parseEntry(bytes: Buffer): { entry: AuditEntry; text: string } | undefined {
  const text = bytes.toString('utf8');
  try {
    const entry = JSON.parse(text) as AuditEntry;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry) || typeof entry.hash !== 'string') return undefined;
    return { entry, text };
  } catch {
    return undefined;
  }
}

/** Calls `onLine` for each line of the first `size` bytes, last line first; stops when it returns false. */
export async function forEachLineBackwards(handle: fs.FileHandle, size: number, onLine: (bytes: Buffer) => boolean): Promise<boolean> {
  let position = size;
  // Bytes after the last newline seen so far (the start of a line whose beginning is in an earlier chunk).
  let carry: Buffer = Buffer.alloc(0);
  let chunkSize = 64 * 1024;
  while (position > 0) {
    const want = Math.min(chunkSize, position);
    chunkSize = Math.min(chunkSize * 2, CHUNK);
    const chunk = Buffer.alloc(want);
    const start = position - want;
    let got = 0;
    while (got < want) {
      const { bytesRead } = await handle.read(chunk, got, want - got, start + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    position = start;
    const data = carry.length ? Buffer.concat([chunk.subarray(0, got), carry]) : chunk.subarray(0, got);
    let endAt = data.length;
    for (;;) {
      const nl = data.lastIndexOf(0x0a, endAt - 1);
      if (nl < 0) break;
      if (nl + 1 < endAt && !onLine(data.subarray(nl + 1, endAt))) return false;
      endAt = nl;
    }
    carry = Buffer.from(data.subarray(0, endAt));
    // An overlong line cannot be an entry: drop what is gathered of it.
    if (carry.length > MAX_LINE) carry = Buffer.alloc(0);
  }
  if (carry.length && !onLine(carry)) return false;
  return true;
}
