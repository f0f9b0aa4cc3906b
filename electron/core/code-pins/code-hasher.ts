/**
 * sha256 of the files a local server runs (its executable and script), fast
 * enough to do at every start. Hashing `node` itself (≈ 100 MB) takes about
 * a quarter of a second, so a file's hash is remembered — in memory and in
 * `code-hashes.json` in Airlock's data folder — together with what `stat`
 * says about it: device, inode, size, and the modification and change times
 * in nanoseconds. A remembered hash is used only while all of these are
 * unchanged.
 *
 * Why that is sound: the change time (ctime) is set by the kernel on every
 * write, truncate, rename or `utimes`, to the current time; no unprivileged
 * call sets it back (only changing the system clock, which needs root). A
 * same-size edit with the modification time restored still moves ctime.
 * Like git's "racily clean" entries, a hash taken within `RACY_MS` of the
 * file's ctime is not remembered (a write in the same clock tick could keep
 * ctime equal), and neither is one whose `stat` changed while it was read.
 * The cache file is Airlock's own data: no server can read or write it; a
 * process that can rewrite it can rewrite the pinned hashes in the store too.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { nameKeyedRecord } from '../../../shared/domain';

/** The cache file inside Airlock's data folder. */
export const CODE_HASHES_FILE = 'code-hashes.json';

/** A hash taken this close (ms) to the file's last change is not remembered (racily clean). */
export const RACY_MS = 2_000;

/** Most files remembered (the oldest are dropped first). */
const MAX_ENTRIES = 2_000;

const EntrySchema = z.object({ identity: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
const CacheFileSchema = z.object({ version: z.literal(1), files: nameKeyedRecord(z.string(), EntrySchema) });

export interface CodeHasherOptions {
  /** Airlock's data folder (the cache file lives there); absent: remember in memory only. */
  dataDir?: string;
  /** Wall clock in epoch ms (tests step it). */
  now?: () => number;
  /** How a file is hashed (tests count calls); default: streamed sha256. */
  hashFile?: (path: string) => Promise<string>;
}

/** sha256 (hex) of a file's bytes, streamed. */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Hashes files, remembering each hash while the file's identity is unchanged. */
export class CodeHasher {
  private readonly files = new Map<string, { identity: string; sha256: string }>();
  private readonly path: string | undefined;
  private readonly now: () => number;
  private readonly hashFile: (path: string) => Promise<string>;

  constructor(options: CodeHasherOptions = {}) {
    this.path = options.dataDir ? join(options.dataDir, CODE_HASHES_FILE) : undefined;
    this.now = options.now ?? Date.now;
    this.hashFile = options.hashFile ?? sha256OfFile;
    this.load();
  }

  /**
   * The file's remembered sha256 if it is unchanged since (one `stat`, no
   * read); undefined when it must be hashed. Throws when it cannot be stat'ed.
   */
  remembered(path: string): string | undefined {
    const known = this.files.get(path);
    if (!known) return undefined;
    const now = statSync(path, { bigint: true });
    return now.isFile() && identityOf(now) === known.identity ? known.sha256 : undefined;
  }

  /** The file's sha256 now. Throws when it cannot be read (missing, not a file, no permission). */
  async sha256(path: string): Promise<string> {
    // A synchronous stat: a few microseconds, against a thread-pool round trip per call for the async one.
    const before = statSync(path, { bigint: true });
    if (!before.isFile()) throw new Error(`${path} is not a file`);
    const identity = identityOf(before);
    const known = this.files.get(path);
    if (known && known.identity === identity) return known.sha256;
    const startedAt = this.now();
    const sha256 = await this.hashFile(path);
    const after = statSync(path, { bigint: true });
    const ctimeMs = Number(after.ctimeNs / 1_000_000n);
    // Remember only a hash of a file that did not change while it was read, and whose last
    // change is clearly older than the read (a write in the same clock tick could hide).
    if (identityOf(after) === identity && startedAt - ctimeMs > RACY_MS) {
      this.files.delete(path);
      this.files.set(path, { identity, sha256 });
      this.save();
    } else if (known) {
      this.files.delete(path);
      this.save();
    }
    return sha256;
  }

  private load(): void {
    if (!this.path || !existsSync(this.path)) return;
    try {
      const parsed = CacheFileSchema.safeParse(JSON.parse(readFileSync(this.path, 'utf8')));
      // A cache that cannot be read is only a cache: start empty, hash again.
      if (parsed.success) for (const [file, entry] of Object.entries(parsed.data.files)) this.files.set(file, entry);
    } catch {
      this.files.clear();
    }
  }

  private save(): void {
    if (!this.path) return;
    while (this.files.size > MAX_ENTRIES) this.files.delete(this.files.keys().next().value as string);
    const temp = `${this.path}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, JSON.stringify({ version: 1, files: Object.fromEntries(this.files) }), { mode: 0o600 });
      renameSync(temp, this.path);
    } catch {
      // Not remembering costs time at the next start, nothing else.
    }
  }
}

function identityOf(info: { dev: bigint; ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint; mode: bigint }): string {
  return [info.dev, info.ino, info.size, info.mtimeNs, info.ctimeNs, info.mode].join(':');
}
