/**
 * An npm server is pinned: changing its version is an explicit update that
 * shows a new disclosure, installs beside the old version, and replaces it
 * only when agreed. Real registry, real sandbox.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '../../bin/airlock.js');
let root: string;
let dataDir: string;
let work: string;

function airlock(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 180_000, env: { ...process.env, HOME: join(root, 'home') } });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'airlock-update-'));
  dataDir = join(root, 'data');
  work = join(root, 'work');
  mkdirSync(work);
  mkdirSync(join(root, 'home'));
  writeFileSync(join(work, 'a.txt'), 'updated or not');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('airlock update', () => {
  it('installs a pinned npm version, then moves to another only after a new disclosure', () => {
    const add = airlock(['add', 'fs', '--npm', '@modelcontextprotocol/server-filesystem@2026.7.10', '--read', work, '--trust', '--yes', '--', work]);
    expect(add.code, add.err).toBe(0);
    const before = JSON.parse(airlock(['show', 'fs', '--json']).out);
    expect(before.provenance).toMatchObject({ kind: 'npm', version: '2026.7.10' });
    expect(before.provenance.integrity).toMatch(/^sha512-/);
    const oldDir = before.provenance.installDir as string;

    // Without --yes and without a terminal, nothing changes.
    expect(airlock(['update', 'fs', '2026.8.31']).code).toBe(4);
    expect(JSON.parse(airlock(['show', 'fs', '--json']).out).provenance.version).toBe('2026.7.10');
    expect(existsSync(oldDir)).toBe(true);

    const update = airlock(['update', 'fs', '2026.8.31', '--yes']);
    expect(update.code, update.err).toBe(0);
    expect(update.out).toContain('Update @modelcontextprotocol/server-filesystem from 2026.7.10 to 2026.8.31');
    // Said as what it was: an update, not a server added.
    expect(update.out).toContain('Updated fs from 2026.7.10 to 2026.8.31; it runs in its sandbox.');
    expect(update.out).not.toMatch(/^Added fs/m);
    const after = JSON.parse(airlock(['show', 'fs', '--json']).out);
    expect(after.provenance).toMatchObject({ kind: 'npm', version: '2026.8.31' });
    expect(after.trusted).toBe(true);
    expect(after.profile.filesystem.read).toEqual([work]);
    expect(after.spec.args.at(-1)).toBe(work);
    expect(existsSync(oldDir)).toBe(false);

    const call = airlock(['call', 'fs', 'read_text_file', '--args', JSON.stringify({ path: join(work, 'a.txt') })]);
    expect(call.out).toContain('updated or not');
  }, 300_000);
});
