/**
 * An npm server is pinned: changing its version is an explicit update that
 * shows a new disclosure, installs beside the old version, and replaces it
 * only when agreed. Real registry, real sandbox. What the person allowed a
 * server's screens (MCP Apps) survives an update, as far as the new
 * version's screens still ask for it (the published server-map, whose
 * screen asks for map and tile addresses).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airlockCli } from '../support/cli';

let work: string;

const cli = airlockCli('airlock-update-', { timeout: 180_000 });
const { root, run: airlock } = cli;

beforeAll(() => {
  work = join(root, 'work');
  mkdirSync(work);
  writeFileSync(join(work, 'a.txt'), 'updated or not');
});
afterAll(() => cli.remove());

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

  it('keeps what the person allowed its screens — what they still ask for — and, not inspected, keeps their pins and grants whole', () => {
    const add = airlock(['add', 'map', '--npm', '@modelcontextprotocol/server-map@2.0.2', '--yes', '--allow-screen', 'https://cesium.com', '--', '--stdio']);
    expect(add.code, add.err).toBe(0);
    expect(add.out).toContain('asks to connect to https://cesium.com: allowed');
    // An address no screen asks for any more (allowed by hand): an update has no reason to keep it.
    expect(airlock(['screens', 'map', '--allow', 'https://gone.example.com']).code).toBe(0);
    const screens = () => JSON.parse(airlock(['show', 'map', '--json']).out).screens as { allowed: Record<string, string[]>; screens: Array<{ uri: string; state: string }> };
    expect(screens().allowed).toMatchObject({ connect: ['https://cesium.com', 'https://gone.example.com'], resource: ['https://cesium.com'] });

    const update = airlock(['update', 'map', '2.0.3', '--yes']);
    expect(update.code, update.err).toBe(0);
    expect(update.out).toContain('Update @modelcontextprotocol/server-map from 2.0.2 to 2.0.3');
    // The inspection shows the carried-over grants as they will be saved.
    expect(update.out).toContain('asks to load scripts, styles, images and fonts from https://cesium.com: allowed');
    expect(update.out).toContain('asks to connect to https://*.openstreetmap.org: refused');
    const after = screens();
    expect(after.allowed).toMatchObject({ connect: ['https://cesium.com'], resource: ['https://cesium.com'], frame: [], baseUri: [] });
    expect(after.screens).toEqual([expect.objectContaining({ uri: 'ui://cesium-map/mcp-app.html', state: 'approved' })]);
    expect(airlock(['audit', '--json', '--server', 'map', '--limit', '10']).out).toContain('screens may no longer connect to https://gone.example.com');

    // Updated without an inspection: nothing of its screens is dropped.
    const blind = airlock(['update', 'map', '2.0.3', '--yes', '--no-probe']);
    expect(blind.code, blind.err).toBe(0);
    const kept = screens();
    expect(kept.allowed).toEqual(after.allowed);
    expect(kept.screens).toEqual([expect.objectContaining({ uri: 'ui://cesium-map/mcp-app.html', state: 'approved' })]);
  }, 400_000);
});
