import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { AirlockStore, STORE_VERSION } from '../../../electron/core/store/store';
import { defaultDataDir } from '../../../electron/core/data-dir';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const record = {
  name: 'files',
  spec: { command: '/usr/bin/node', args: ['server.js'], env: {} },
  provenance: { kind: 'local' as const, executable: '/usr/bin/node', executableSha256: 'a'.repeat(64) },
  profile: defaultSandboxProfile(),
  trusted: false,
  enabled: false,
  approvedTools: {},
  createdAt: '2026-12-02T00:00:00.000Z',
};

describe('AirlockStore', () => {
  it('starts with defaults and a versioned file only the user can read', () => {
    const store = new AirlockStore(dir);
    expect(store.read()).toEqual({ servers: {}, rules: [], settings: { policyMode: 'default' } });
    store.update((data) => ({ ...data, settings: { policyMode: 'strict' } }));
    const file = JSON.parse(readFileSync(join(dir, 'airlock.json'), 'utf8'));
    expect(file.__internal__.migrations.version).toBe(STORE_VERSION);
    expect(statSync(join(dir, 'airlock.json')).mode & 0o077).toBe(0);
    expect(store.notices).toEqual([]);
  });

  it('persists across instances (the app and the CLI open the same file)', () => {
    new AirlockStore(dir).update((data) => ({ ...data, servers: { files: record } }));
    expect(new AirlockStore(dir).read().servers.files).toEqual(record);
  });

  it('sees a change made by another instance without reopening', () => {
    const a = new AirlockStore(dir);
    const b = new AirlockStore(dir);
    a.update((data) => ({ ...data, settings: { policyMode: 'strict' } }));
    expect(b.read().settings.policyMode).toBe('strict');
  });

  it('refuses to write invalid state and leaves the file as it was', () => {
    const store = new AirlockStore(dir);
    store.update((data) => ({ ...data, servers: { files: record } }));
    const before = readFileSync(join(dir, 'airlock.json'), 'utf8');
    expect(() => store.update((data) => ({ ...data, servers: { 'Bad Name': record } }))).toThrow();
    expect(readFileSync(join(dir, 'airlock.json'), 'utf8')).toBe(before);
  });

  it.each([
    ['not JSON', '{"servers": {'],
    ['the wrong shape', JSON.stringify({ servers: [], rules: 'x', settings: {} })],
  ])('keeps a corrupt file (%s) aside, says so, and loses nothing else', (_label, content) => {
    writeFileSync(join(dir, 'airlock.json'), content);
    writeFileSync(join(dir, 'audit.jsonl'), 'keep me\n');
    const store = new AirlockStore(dir, undefined, () => new Date('2026-12-02T10:00:00Z'));
    const aside = readdirSync(dir).find((name) => name.startsWith('airlock.corrupt-'));
    expect(aside).toBeDefined();
    expect(readFileSync(join(dir, aside!), 'utf8')).toBe(content);
    expect(store.notices).toHaveLength(1);
    expect(store.notices[0]!.level).toBe('error');
    expect(store.notices[0]!.message).toContain(aside!);
    expect(readFileSync(join(dir, 'audit.jsonl'), 'utf8')).toBe('keep me\n');
    expect(store.read().servers).toEqual({});
  });

  it('reports a file broken while running instead of overwriting it', () => {
    const store = new AirlockStore(dir);
    store.update((data) => ({ ...data, servers: { files: record } }));
    writeFileSync(join(dir, 'airlock.json'), JSON.stringify({ servers: 1, rules: [], settings: { policyMode: 'default' } }));
    expect(() => store.read()).toThrow(/changed to something invalid/);
    expect(() => store.update((data) => data)).toThrow(/changed to something invalid/);
    expect(existsSync(join(dir, 'airlock.json'))).toBe(true);
  });
});

describe('defaultDataDir', () => {
  it.each([
    ['linux', {}, '/home/u/.config/Airlock'],
    ['linux', { XDG_CONFIG_HOME: '/x' }, '/x/Airlock'],
    ['darwin', {}, '/home/u/Library/Application Support/Airlock'],
    ['win32', { APPDATA: 'C:/Users/u/AppData/Roaming' }, 'C:/Users/u/AppData/Roaming/Airlock'],
    ['linux', { AIRLOCK_DATA_DIR: '/data' }, '/data'],
  ] as const)('%s %j → %s (Electron’s userData for the app)', (platform, env, expected) => {
    expect(defaultDataDir(env as NodeJS.ProcessEnv, platform, '/home/u').replaceAll('\\', '/')).toBe(expected);
  });
});
