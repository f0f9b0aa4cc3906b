/**
 * Reads the audit log forwards from a sequence number: the entries written
 * after it, as they are on disk, a batch at a time. The exporter reads the
 * log after entries are written — it is never on the call path, and the
 * log itself is the queue (nothing is held in memory but one batch).
 *
 * A cursor (file identity and byte offset) remembers where the last read
 * ended; rotation renames the active file, so the cursor follows the same
 * inode into its rotated name. Without a cursor (a new process, a file that
 * went away) the files are scanned from the one whose first entry is at or
 * before the position. Only complete lines (ending in a newline) are read: a
 * line being written is left for the next read.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ACTIVE_FILE, ROTATED } from '../audit/entries';

/** An entry as read back from the log (parsed JSON; `seq`, `type`, `hash`, `prevHash` and `time` checked). */
export type TailEntry = Record<string, unknown> & { seq: number; type: string; hash: string; prevHash: string; time: string };

interface LogFile {
  name: string;
  ino: number;
  size: number;
}

const CHUNK = 256 * 1024;

export class AuditTail {
  #cursor: { ino: number; offset: number; seq: number } | undefined;
  /** First sequence number of each rotated file, by inode (rotated files never change). */
  readonly #firstSeq = new Map<number, number>();

  constructor(private readonly dir: string) {}

  /** The last sequence number written (0 for an empty or missing log). */
  head(): number {
    const files = this.#files();
    for (let k = files.length - 1; k >= 0; k--) {
      const last = lastSeq(join(this.dir, files[k]!.name));
      if (last !== undefined) return last;
    }
    return 0;
  }

  /** Up to `limit` entries with a sequence number above `after` (and at most `upTo`), in order. */
  read(after: number, limit: number, upTo = Infinity): TailEntry[] {
    const files = this.#files();
    if (files.length === 0) return [];
    let index: number;
    let offset: number;
    const cursor = this.#cursor;
    const at = cursor && cursor.seq === after ? files.findIndex((file) => file.ino === cursor.ino) : -1;
    if (cursor && at >= 0) {
      index = at;
      offset = cursor.offset;
    } else {
      index = this.#fileHolding(files, after + 1);
      offset = 0;
    }
    const out: TailEntry[] = [];
    let lastSeq = after;
    for (; index < files.length && out.length < limit; index++, offset = 0) {
      const file = files[index]!;
      const path = join(this.dir, file.name);
      let fd: number;
      try {
        fd = openSync(path, 'r');
      } catch {
        // Rotated away between listing and opening: the next read lists again.
        break;
      }
      try {
        if (fstatSync(fd).ino !== file.ino) break;
        let position = offset;
        let carry = Buffer.alloc(0);
        for (;;) {
          const chunk = Buffer.alloc(CHUNK);
          const n = readSync(fd, chunk, 0, CHUNK, position);
          if (n === 0) break;
          const bytes = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
          let start = 0;
          for (let nl = bytes.indexOf(10, start); nl >= 0; nl = bytes.indexOf(10, start)) {
            const line = bytes.subarray(start, nl);
            const lineEnd = position - carry.length + nl + 1;
            start = nl + 1;
            const entry = parse(line);
            if (!entry || entry.seq <= lastSeq) continue;
            if (entry.seq > upTo) return out;
            out.push(entry);
            lastSeq = entry.seq;
            this.#cursor = { ino: file.ino, offset: lineEnd, seq: entry.seq };
            if (out.length >= limit) return out;
          }
          carry = Buffer.from(bytes.subarray(start));
          position += n;
        }
      } finally {
        closeSync(fd);
      }
    }
    return out;
  }

  #files(): LogFile[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const rotated = names
      .map((name) => ({ name, match: ROTATED.exec(name) }))
      .filter((item) => item.match)
      .sort((a, b) => Number(a.match![1]) - Number(b.match![1]))
      .map((item) => item.name);
    const out: LogFile[] = [];
    for (const name of [...rotated, ...(names.includes(ACTIVE_FILE) ? [ACTIVE_FILE] : [])]) {
      try {
        const stats = statSync(join(this.dir, name));
        out.push({ name, ino: stats.ino, size: stats.size });
      } catch {
        // Renamed between the listing and the stat (a rotation): the next read lists again.
      }
    }
    return out;
  }

  // The last file whose first entry is at or before `seq` (rotated files' first entries are remembered).
  #fileHolding(files: readonly LogFile[], seq: number): number {
    let found = 0;
    for (let k = 0; k < files.length; k++) {
      const file = files[k]!;
      let first = file.name === ACTIVE_FILE ? undefined : this.#firstSeq.get(file.ino);
      if (first === undefined) {
        first = firstSeq(join(this.dir, file.name));
        if (first !== undefined && file.name !== ACTIVE_FILE) this.#firstSeq.set(file.ino, first);
      }
      if (first === undefined) continue;
      if (first <= seq) found = k;
      else break;
    }
    return found;
  }
}

function parse(line: Buffer): TailEntry | undefined {
  if (line.length === 0) return undefined;
  try {
    const entry = JSON.parse(line.toString('utf8')) as TailEntry;
    if (!entry || typeof entry.seq !== 'number' || typeof entry.hash !== 'string' || typeof entry.type !== 'string') return undefined;
    return entry;
  } catch {
    // A line a crash cut short (sealed by a repair entry after it): not an entry.
    return undefined;
  }
}

/** What `read` finds in the open file; undefined when the file is gone (rotated or removed). */
function readOpen(path: string, read: (fd: number) => number | undefined): number | undefined {
  try {
    const fd = openSync(path, 'r');
    try {
      return read(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Gone (rotated or removed): not a candidate; the caller looks at the next file.
    return undefined;
  }
}

function firstSeq(path: string): number | undefined {
  return readOpen(path, (fd) => {
    const bytes = Buffer.alloc(64 * 1024);
    const n = readSync(fd, bytes, 0, bytes.length, 0);
    for (const line of bytes.subarray(0, n).toString('utf8').split('\n')) {
      const match = /"seq":(\d+)/.exec(line);
      if (match) return Number(match[1]);
    }
    return undefined;
  });
}

function lastSeq(path: string): number | undefined {
  return readOpen(path, (fd) => {
    const size = fstatSync(fd).size;
    const want = Math.min(size, 256 * 1024);
    const bytes = Buffer.alloc(want);
    readSync(fd, bytes, 0, want, size - want);
    const lines = bytes.toString('utf8').split('\n');
    for (let k = lines.length - 1; k >= 0; k--) {
      const line = lines[k]!;
      if (!line.endsWith('}')) continue;
      const entry = parse(Buffer.from(line));
      if (entry) return entry.seq;
    }
    return undefined;
  });
}
