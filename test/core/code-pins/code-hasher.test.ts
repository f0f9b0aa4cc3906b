/**
 * The code hasher remembers a file's hash only while the file is provably
 * unchanged (device, inode, size, modification and change time), and never
 * a hash taken within a clock tick of the file's last change.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CODE_HASHES_FILE, CodeHasher, RACY_MS, sha256OfFile } from '../../../electron/core/code-pins/code-hasher';
import { codeChangeOf, CodePins, pinnedFiles } from '../../../electron/core/code-pins/code-pins';
import type { Provenance } from '../../../shared/domain';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-code-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A hasher whose clock reads `offset` ms after real time, counting how often it reads a file. */
function counting(offset: number, dataDir?: string) {
  const reads: string[] = [];
  const hasher = new CodeHasher({
    ...(dataDir ? { dataDir } : {}),
    now: () => Date.now() + offset,
    hashFile: async (path) => (reads.push(path), sha256OfFile(path)),
  });
  return { hasher, reads };
}

describe('CodeHasher', () => {
  it('hashes a file, and remembers it while nothing about the file changed', async () => {
    const file = join(dir, 'server.js');
    writeFileSync(file, 'one');
    const { hasher, reads } = counting(RACY_MS + 60_000);
    expect(await hasher.sha256(file)).toBe(sha('one'));
    expect(await hasher.sha256(file)).toBe(sha('one'));
    expect(reads).toHaveLength(1);
  });

  it('an edit of the same size with the modification time put back is still seen (the change time moves)', async () => {
    const file = join(dir, 'server.js');
    writeFileSync(file, 'safe');
    const { mtime } = statSync(file);
    const { hasher } = counting(RACY_MS + 60_000);
    expect(await hasher.sha256(file)).toBe(sha('safe'));
    // The kernel's change time is coarse (a few ms): edits within one tick are the racily-clean case, tested below
    // with the real clock; here the clock says "long after", so let ctime move first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    writeFileSync(file, 'evil');
    utimesSync(file, mtime, mtime);
    expect(Math.round(statSync(file).mtimeMs)).toBe(mtime.getTime());
    expect(await hasher.sha256(file)).toBe(sha('evil'));
  });

  it('does not remember a hash taken within a clock tick of the last change (racily clean)', async () => {
    const file = join(dir, 'server.js');
    writeFileSync(file, 'fresh');
    const { hasher, reads } = counting(0);
    await hasher.sha256(file);
    await hasher.sha256(file);
    expect(reads).toHaveLength(2);
  });

  it('keeps hashes across processes in the data folder, and starts empty from a corrupt cache', async () => {
    const file = join(dir, 'server.js');
    writeFileSync(file, 'kept');
    await counting(RACY_MS + 60_000, dir).hasher.sha256(file);
    expect(JSON.parse(readFileSync(join(dir, CODE_HASHES_FILE), 'utf8')).files[file].sha256).toBe(sha('kept'));
    expect(statSync(join(dir, CODE_HASHES_FILE)).mode & 0o777).toBe(0o600);
    const again = counting(RACY_MS + 60_000, dir);
    expect(await again.hasher.sha256(file)).toBe(sha('kept'));
    expect(again.reads).toEqual([]);
    writeFileSync(join(dir, CODE_HASHES_FILE), '{not json');
    const fresh = counting(RACY_MS + 60_000, dir);
    expect(await fresh.hasher.sha256(file)).toBe(sha('kept'));
    expect(fresh.reads).toEqual([file]);
  });

  it('a file that is gone or not a file cannot be hashed', async () => {
    const { hasher } = counting(0);
    await expect(hasher.sha256(join(dir, 'missing.js'))).rejects.toThrow();
    await expect(hasher.sha256(dir)).rejects.toThrow(/not a file/);
  });
});

describe('code pins', () => {
  const local = (script: string, scriptSha: string): Provenance => ({ kind: 'local', executable: '/usr/bin/node', executableSha256: 'e'.repeat(64), script: { path: script, sha256: scriptSha } });

  it('only local servers are pinned: npm and MCPB folders are Airlock’s own data', () => {
    expect(pinnedFiles(local('/s.js', 'a'.repeat(64))).map((file) => file.role)).toEqual(['executable', 'script']);
    expect(pinnedFiles({ kind: 'npm', name: 'x', version: '1.0.0', integrity: 'sha512-x', installDir: '/d' })).toEqual([]);
  });

  it('a start and a later check: an edit counts at once, and an edit reverted after the start still counts until the next start', async () => {
    const script = join(dir, 'server.js');
    writeFileSync(script, 'approved');
    const node = join(dir, 'node');
    writeFileSync(node, 'binary');
    const provenance: Provenance = { kind: 'local', executable: node, executableSha256: sha('binary'), script: { path: script, sha256: sha('approved') } };
    const pins = new CodePins({ hasher: new CodeHasher(), now: () => 0 });
    expect(await pins.check('s', provenance, 'start')).toBeNull();
    writeFileSync(script, 'edited');
    expect(await pins.check('s', provenance, 'call')).toEqual({
      files: [
        { role: 'executable', path: node, approved: sha('binary'), current: sha('binary') },
        { role: 'script', path: script, approved: sha('approved'), current: sha('edited') },
      ],
    });
    expect(await pins.check('s', provenance, 'start')).not.toBeNull();
    writeFileSync(script, 'approved');
    // Reverted on disk, but the process started on the edited file: still changed, showing what runs.
    expect((await pins.check('s', provenance, 'call'))?.files[1]?.current).toBe(sha('edited'));
    expect(await pins.check('s', provenance, 'start')).toBeNull();
    rmSync(script);
    expect((await pins.check('s', provenance, 'call'))?.files[1]?.current).toBeNull();
  });

  it('observations of other files (the record was replaced) are no evidence', () => {
    const observation = { files: [{ role: 'script' as const, path: '/old.js', current: 'b'.repeat(64) }], checkedAt: 0 };
    expect(codeChangeOf(local('/new.js', 'a'.repeat(64)), { atStart: observation, latest: observation })).toBeNull();
  });
});
