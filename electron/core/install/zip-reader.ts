import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';

/** A zip archive Airlock will not extract, with the reason. */
export class ZipError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipError';
  }
}

/** One entry of a zip's central directory. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  crc32: number;
  localHeaderOffset: number;
  isDirectory: boolean;
  /** Unix mode from the external attributes, when the archive was made on Unix. */
  unixMode?: number;
  flags: number;
}

/** Bounds on what one archive may unpack to (zip bombs). */
export interface ZipLimits {
  maxEntries: number;
  maxTotalBytes: number;
}

/** Default bounds: 20 000 entries, 1 GiB unpacked. */
export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxEntries: 20_000, maxTotalBytes: 1024 * 1024 * 1024 };

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/**
 * Reads a zip's central directory. Refuses (ZipError) ZIP64, encryption,
 * symlinks, duplicate names and any name that could land outside the folder
 * it is extracted to: absolute paths, drive letters, `..` segments, backslashes.
 */
export function listZipEntries(zip: Buffer, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipEntry[] {
  const eocd = findEndOfCentralDirectory(zip);
  const count = zip.readUInt16LE(eocd + 10);
  const size = zip.readUInt32LE(eocd + 12);
  const offset = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) throw new ZipError('ZIP64 archives are not supported');
  if (count > limits.maxEntries) throw new ZipError(`the archive has ${count} entries; the limit is ${limits.maxEntries}`);
  if (offset + size > zip.length) throw new ZipError('the archive is truncated (central directory out of range)');

  const entries: ZipEntry[] = [];
  const seen = new Set<string>();
  let at = offset;
  let total = 0;
  for (let index = 0; index < count; index += 1) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) throw new ZipError('the archive is damaged (bad central directory entry)');
    const madeBy = zip.readUInt16LE(at + 4) >> 8;
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const compressedSize = zip.readUInt32LE(at + 20);
    const uncompressedSize = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const external = zip.readUInt32LE(at + 38);
    const localHeaderOffset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;

    if (compressedSize === 0xffffffff || uncompressedSize === 0xffffffff || localHeaderOffset === 0xffffffff) {
      throw new ZipError('ZIP64 archives are not supported');
    }
    checkEntryName(name);
    if (flags & 0x1) throw new ZipError(`“${name}” is encrypted`);
    if (method !== 0 && method !== 8) throw new ZipError(`“${name}” uses compression method ${method}; only stored and deflate are supported`);
    const unixMode = madeBy === 3 ? external >>> 16 : undefined;
    // SECURITY (invariant 5): a symlink entry could point anywhere; following it later would
    // let a bundle read or overwrite files outside its folder.
    if (unixMode !== undefined && (unixMode & S_IFMT) === S_IFLNK) throw new ZipError(`“${name}” is a symbolic link; bundles may not contain links`);
    const key = name.replace(/\/+$/, '').toLowerCase();
    if (seen.has(key)) throw new ZipError(`“${name}” appears twice in the archive`);
    seen.add(key);
    total += uncompressedSize;
    if (total > limits.maxTotalBytes) throw new ZipError(`the archive unpacks to more than ${limits.maxTotalBytes} bytes`);
    entries.push({
      name,
      method,
      compressedSize,
      uncompressedSize,
      crc32: crc,
      localHeaderOffset,
      isDirectory: name.endsWith('/'),
      ...(unixMode !== undefined ? { unixMode } : {}),
      flags,
    });
  }
  return entries;
}

/**
 * The zip-slip check for one entry name. Exported so tests (and other
 * archive formats) hold the same rule.
 */
export function checkEntryName(name: string): void {
  if (!name || name.includes('\0')) throw new ZipError('an entry has an empty or invalid name');
  if (name.includes('\\')) throw new ZipError(`“${name}” uses backslashes; entry paths must use /`);
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new ZipError(`“${name}” is an absolute path: it would be written outside the bundle's folder`);
  if (name.split('/').some((part) => part === '..')) throw new ZipError(`“${name}” climbs out of the bundle's folder with “..”`);
}

function findEndOfCentralDirectory(zip: Buffer): number {
  const stop = Math.max(0, zip.length - 22 - 0xffff);
  for (let at = zip.length - 22; at >= stop; at -= 1) {
    if (zip.readUInt32LE(at) === 0x06054b50) return at;
  }
  throw new ZipError('not a zip archive (no end of central directory)');
}

/** Decompresses one entry, checking its size and CRC against the directory. */
export function readZipEntry(zip: Buffer, entry: ZipEntry): Buffer {
  const at = entry.localHeaderOffset;
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== 0x04034b50) throw new ZipError(`“${entry.name}” is damaged (bad local header)`);
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const end = start + entry.compressedSize;
  if (end > zip.length) throw new ZipError(`“${entry.name}” is truncated`);
  const raw = zip.subarray(start, end);
  let data: Buffer;
  if (entry.method === 0) data = Buffer.from(raw);
  else {
    try {
      // maxOutputLength bounds a bomb that lies about its size.
      data = inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
    } catch (error) {
      throw new ZipError(`“${entry.name}” could not be decompressed (${(error as Error).message})`);
    }
  }
  if (data.length !== entry.uncompressedSize) throw new ZipError(`“${entry.name}” is not the size the archive says`);
  if (crc32(data) >>> 0 !== entry.crc32 >>> 0) throw new ZipError(`“${entry.name}” fails its CRC check`);
  return data;
}

/**
 * Extracts a zip into `destDir`, which must be absent or empty. Every entry
 * is checked before anything is written, so a refused archive leaves
 * nothing behind. Files get mode 0644, or 0755 when the archive marks them
 * executable; nothing else of the archive's modes is kept.
 */
export async function extractZip(
  zip: Buffer,
  destDir: string,
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): Promise<{ files: number; bytes: number }> {
  const root = resolve(destDir);
  const entries = listZipEntries(zip, limits);
  const targets = entries.map((entry) => {
    const target = resolve(root, entry.name);
    const rel = relative(root, target);
    // SECURITY (invariant 5): the zip-slip guard, checked again on the resolved path.
    if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) {
      throw new ZipError(`“${entry.name}” would be written outside the bundle's folder`);
    }
    return target;
  });
  await mkdir(root, { recursive: true });
  if ((await readdir(root)).length > 0) throw new ZipError(`${root} is not empty; unpack into a fresh folder`);
  // Decompress (and check CRCs) before the first write.
  const contents = entries.map((entry) => (entry.isDirectory ? undefined : readZipEntry(zip, entry)));
  let bytes = 0;
  for (const [index, entry] of entries.entries()) {
    const target = targets[index]!;
    if (entry.isDirectory) {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    const executable = entry.unixMode !== undefined && (entry.unixMode & 0o111) !== 0;
    // 'wx' never follows or replaces an existing path.
    await writeFile(target, contents[index]!, { flag: 'wx', mode: executable ? 0o755 : 0o644 });
    bytes += contents[index]!.length;
  }
  return { files: entries.filter((entry) => !entry.isDirectory).length, bytes };
}
