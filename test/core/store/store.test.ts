import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import Conf from 'conf';
import { AirlockStore, STORE_VERSION, storeOptions, type StoreBackend, type StoreBackendFactory } from '../../../electron/core/store/store';
import { JsonFileStore } from '../../../electron/core/store/json-file';
import { killDuringSaves } from './support/kill-saves';
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

describe('AirlockStore: no file read on the hot path', () => {
  /** conf, with every read of the file counted. */
  function countingFactory() {
    const reads = { count: 0 };
    const factory: StoreBackendFactory = (options) => {
      const conf = new Conf(options) as unknown as StoreBackend;
      return {
        get path() {
          return conf.path;
        },
        get store() {
          reads.count += 1;
          return conf.store;
        },
        set: (object) => conf.set(object),
      };
    };
    return { reads, factory };
  }

  it('an unchanged file is not read again: one stat per read', () => {
    const { reads, factory } = countingFactory();
    const store = new AirlockStore(dir, factory);
    store.read();
    const before = reads.count;
    for (let i = 0; i < 100; i++) store.read();
    expect(reads.count).toBe(before);
  });

  it('a rule saved by another instance on the same file is seen by the next read', () => {
    const { reads, factory } = countingFactory();
    const mine = new AirlockStore(dir, factory);
    mine.read();
    const other = new AirlockStore(dir);
    other.update((data) => ({ ...data, rules: [{ server: 'files', tool: 'write_file', fingerprint: 'a'.repeat(64), effect: 'deny', createdAt: 'now' }] }));
    const before = reads.count;
    expect(mine.read().rules).toEqual([expect.objectContaining({ tool: 'write_file', effect: 'deny' })]);
    expect(reads.count).toBe(before + 1);
  });

  it('a rule saved by another process is seen by the next read', () => {
    const mine = new AirlockStore(dir);
    expect(mine.read().rules).toEqual([]);
    const result = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/save-rule.ts'), dir, 'from_another_process'], {
      encoding: 'utf8',
      cwd: join(import.meta.dirname, '../../..'),
    });
    expect(result.status, result.stderr).toBe(0);
    expect(mine.read().rules.map((rule) => rule.tool)).toEqual(['from_another_process']);
  });

  it('what read() returns cannot be changed by accident (it is the cached snapshot)', () => {
    const store = new AirlockStore(dir);
    store.update((data) => ({ ...data, servers: { files: record } }));
    const data = store.read();
    expect(() => (data.rules as unknown as unknown[]).push({})).toThrow(TypeError);
    expect(() => {
      (data.servers.files as { trusted: boolean }).trusted = true;
    }).toThrow(TypeError);
    expect(store.read().servers.files!.trusted).toBe(false);
  });
});

describe('AirlockStore: settings writes cut short (issue 16.2)', () => {
  it('killed at random points during saves (6 times here; 100 in `npm run soak`): always loads, nothing saved is lost, never reset', async () => {
    const report = await killDuringSaves(dir, 6);
    expect(report).toMatchObject({ kills: 6, lost: 0, corrupt: 0, unopenable: 0 });
    expect(report.acknowledged).toBeGreaterThanOrEqual(6);
  }, 120_000);

  it('temporary files a killed save left behind are removed once they are old', () => {
    new AirlockStore(dir);
    const stale = join(dir, 'airlock.json.tmp-1234567890abcdef');
    const fresh = join(dir, 'airlock.json.tmp-2234567890abcdef');
    writeFileSync(stale, '{"half');
    writeFileSync(fresh, '{"half');
    const old = (Date.now() - 10 * 60_000) / 1000;
    utimesSync(stale, old, old);
    new AirlockStore(dir);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });
});

describe('the settings file, as the command line and the app each keep it', () => {
  // The CLI keeps it with JsonFileStore (no conf loaded); the app with electron-store, which is conf.
  const confOf = () => new Conf(storeOptions(dir));

  it('a file the command line saved opens in conf with the same settings and the same bookkeeping', () => {
    const store = new AirlockStore(dir);
    store.update((data) => ({ ...data, servers: { files: record }, settings: { ...data.settings, policyMode: 'strict' } }));
    const conf = confOf();
    expect(conf.store).toMatchObject({ servers: { files: record }, settings: { policyMode: 'strict' } });
    expect(conf.get('__internal__')).toEqual({ migrations: { version: STORE_VERSION } });
    expect(readFileSync(join(dir, 'airlock.json'), 'utf8')).toBe(JSON.stringify(conf.store, undefined, '\t'));
    expect(statSync(join(dir, 'airlock.json')).mode & 0o777).toBe(0o600);
  });

  it('a file conf saved opens on the command line; its saves keep conf’s bookkeeping', () => {
    confOf().set({ servers: { files: record } });
    const store = new AirlockStore(dir);
    expect(store.read().servers.files).toEqual(record);
    store.update((data) => ({ ...data, rules: [] }));
    expect(JSON.parse(readFileSync(join(dir, 'airlock.json'), 'utf8')).__internal__).toEqual({ migrations: { version: STORE_VERSION } });
    expect(confOf().store).toMatchObject({ servers: { files: record } });
  });

  it('runs the migrations newer than the file’s version, once each, in order, as conf does', () => {
    writeFileSync(join(dir, 'airlock.json'), JSON.stringify({ servers: {}, rules: [], settings: { policyMode: 'default' }, __internal__: { migrations: { version: '1.0.0' } } }));
    const ran: string[] = [];
    const options = {
      ...storeOptions(dir),
      projectVersion: '1.2.0',
      migrations: { '1.0.0': () => ran.push('1.0.0'), '1.2.0': () => ran.push('1.2.0'), '1.1.0': (store: { set(o: Record<string, unknown>): void }) => (ran.push('1.1.0'), store.set({ rules: [] })), '2.0.0': () => ran.push('2.0.0') },
    };
    new JsonFileStore(options);
    expect(ran).toEqual(['1.1.0', '1.2.0']);
    new JsonFileStore(options);
    expect(ran).toEqual(['1.1.0', '1.2.0']);
    expect(JSON.parse(readFileSync(join(dir, 'airlock.json'), 'utf8')).__internal__.migrations.version).toBe('1.2.0');
  });
});
