/**
 * The audit log's files, as the writer sees them: their names in chain order,
 * rotation (the active file renamed to the next `audit-NNNNNN.jsonl`), and
 * the synchronous reads a writer makes under the lock — the last entry of a
 * file, the end of one, the head's text. Everything goes through the injected
 * file system (audit-fs.ts), so tests can record or fail each call.
 */
import { join } from 'node:path';
import type { AuditFileSystem } from './audit-fs';
import { ACTIVE_FILE, GENESIS_HASH, ROTATED, type AuditEntry } from './entries';
import { AuditWriteError } from './write-errors';

/** The end of the chain a writer appends to. */
export interface Tail {
  seq: number;
  hash: string;
  /** The entry's format version (absent for the start of the log). */
  v?: number;
}

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

/** The rotated files, oldest first, with their numbers. */
export function listRotated(files: AuditFileSystem, dir: string): { name: string; n: number }[] {
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

/** Renames the active file to the next rotated name; the chain continues across the rename. */
export function rotateActiveFile(files: AuditFileSystem, dir: string): void {
  const rotated = listRotated(files, dir);
  const next = (rotated.at(-1)?.n ?? 0) + 1;
  files.rename(join(dir, ACTIVE_FILE), join(dir, `audit-${String(next).padStart(6, '0')}.jsonl`));
}

/** The last entry of the newest rotated file (before `before`, if given); the start of the log when there is none. */
export function tailOfRotated(files: AuditFileSystem, dir: string, before?: string): Tail {
  const rotated = listRotated(files, dir).map((r) => r.name);
  const own = before ? rotated.indexOf(before) : -1;
  const name = own >= 0 ? rotated[own - 1] : rotated.at(-1);
  if (!name) return { seq: 0, hash: GENESIS_HASH };
  const found = readLastEntry(files, join(dir, name));
  if (found.kind === 'damaged') throw new AuditWriteError(`The rotated audit file ${name} ends with an incomplete line; run \`airlock audit verify\`.`, 'damaged');
  return found.tail;
}

export function parseTail(line: string): Tail | undefined {
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

/** Up to `length` bytes of an open file from `start` (fewer when it ends sooner). */
function readFrom(files: AuditFileSystem, fd: number, start: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let off = 0;
  while (off < buf.length) {
    const n = files.read(fd, buf, off, buf.length - off, start + off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

/** Up to `max` bytes from the end of a file. */
export function readEnd(files: AuditFileSystem, path: string, max: number): Buffer {
  return withFd(files, path, (fd) => {
    const size = files.fstat(fd).size;
    const start = Math.max(0, size - max);
    return readFrom(files, fd, start, size - start);
  });
}

export function readWhole(files: AuditFileSystem, path: string): Buffer {
  return readEnd(files, path, Number.MAX_SAFE_INTEGER);
}

/** The last complete entry of a file, growing the window for long lines. */
export function readLastEntry(files: AuditFileSystem, path: string): { kind: 'ok'; tail: Tail } | { kind: 'damaged' } {
  return withFd(files, path, (fd) => {
    const size = files.fstat(fd).size;
    if (size === 0) return { kind: 'ok', tail: { seq: 0, hash: GENESIS_HASH } };
    let window = 64 * 1024;
    for (;;) {
      const start = Math.max(0, size - window);
      const buf = readFrom(files, fd, start, size - start);
      const off = buf.length;
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

/** The head's text; null when there is none, '' when it cannot be read. */
export function readHeadText(files: AuditFileSystem, path: string): string | null {
  if (!files.stat(path)) return null;
  try {
    return readEnd(files, path, 4096).toString('utf8').trim();
  } catch {
    return '';
  }
}

/** Closes a file this log opened; one already closed is no loss. */
export function closeQuietly(files: AuditFileSystem, fd: number): void {
  try {
    files.close(fd);
  } catch {
    // already closed
  }
}
