import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEntryName, extractZip, listZipEntries, ZipError } from '../../../electron/core/install/zip-reader';
import { writeZip } from '../../fixtures/install/zip-writer';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'airlock-zip-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('entry names (zip slip)', () => {
  it.each(['manifest.json', 'server/index.js', 'a/b/c/', 'dots..in..name.js', '.hidden'])('accepts %s', (name) => {
    expect(() => checkEntryName(name)).not.toThrow();
  });
  it.each(['../x', 'a/../../x', 'a/..', '/etc/passwd', 'C:/x', 'c:x', '..\\x', 'a\\b', '', 'a\0b'])('refuses %j', (name) => {
    expect(() => checkEntryName(name)).toThrow(ZipError);
  });
});

describe('extracting', () => {
  it('writes files with only the executable bit kept', async () => {
    const dest = join(work, 'modes');
    const result = await extractZip(
      writeZip([
        { name: 'bin/', data: '', unixMode: 0o40755 },
        { name: 'bin/run', data: '#!/bin/sh\n', unixMode: 0o106777 },
        { name: 'readme.txt', data: 'hi', unixMode: 0o100666 },
      ]),
      dest,
    );
    expect(result).toEqual({ files: 2, bytes: 12 });
    expect((await stat(join(dest, 'bin/run'))).mode & 0o7777).toBe(0o755);
    expect((await stat(join(dest, 'readme.txt'))).mode & 0o7777).toBe(0o644);
  });

  it('refuses a non-empty destination', async () => {
    const dest = join(work, 'full');
    await mkdir(dest);
    await writeFile(join(dest, 'keep'), 'x');
    await expect(extractZip(writeZip([{ name: 'a', data: 'b' }]), dest)).rejects.toThrow(/not empty/);
  });

  it('refuses a corrupted entry before writing anything', async () => {
    const zip = writeZip([{ name: 'good.txt', data: 'fine' }, { name: 'bad.txt', data: 'AAAA' }]);
    const at = zip.indexOf('AAAA');
    zip.write('BBBB', at);
    const dest = join(work, 'crc');
    await expect(extractZip(zip, dest)).rejects.toThrow(/“bad.txt” fails its CRC check/);
    expect(await readdir(dest)).toEqual([]);
  });

  it('refuses duplicates, too many entries and too many bytes', () => {
    expect(() => listZipEntries(writeZip([{ name: 'a', data: '1' }, { name: 'A', data: '2' }]))).toThrow(/appears twice/);
    expect(() => listZipEntries(writeZip([{ name: 'a', data: '1' }, { name: 'b', data: '2' }]), { maxEntries: 1, maxTotalBytes: 100 })).toThrow(/2 entries/);
    expect(() => listZipEntries(writeZip([{ name: 'a', data: 'x'.repeat(101) }]), { maxEntries: 10, maxTotalBytes: 100 })).toThrow(/more than 100 bytes/);
  });
});
