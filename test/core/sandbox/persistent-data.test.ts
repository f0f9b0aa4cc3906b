import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { buildServerEnv, dataSettingsFor, SERVER_DATA_DIR_ENV } from '../../../electron/core/sandbox/profiles';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { connect, makeWorld } from './sandbox-harness';

const MEMORY_SERVER = resolve(__dirname, '../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const persistent: SandboxProfile = { ...defaultSandboxProfile(), filesystem: { read: [], write: [], persistentData: true } };

// Issue 11 item 2: server-memory could not save (it writes beside its own
// installed files, which are read-only) and `--persistent-data` made a folder
// nobody told the server about. The server is now told (AIRLOCK_SERVER_DATA_DIR,
// and MEMORY_FILE_PATH, its own documented setting).
describe('a persistent data folder is passed to the server', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;

  beforeAll(async () => {
    world = await makeWorld();
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
  });

  afterAll(async () => {
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  it('server-memory: an entity created survives a restart (a new process)', async () => {
    const spec = { command: process.execPath, args: [MEMORY_SERVER], env: {} };
    const first = await connect(await launcher.plan(spec, persistent, world.context('memory')));
    try {
      const created = await first.client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
      });
      expect(created.isError).toBeFalsy();
    } finally {
      await first.close();
    }
    const dataDir = world.context('memory').serverDataDir;
    expect(readFileSync(join(dataDir, 'memory.jsonl'), 'utf8')).toContain('Ada');

    const second = await connect(await launcher.plan(spec, persistent, world.context('memory')));
    try {
      const graph = await second.client.callTool({ name: 'read_graph', arguments: {} });
      expect(JSON.stringify(graph.content)).toContain('wrote the first program');
    } finally {
      await second.close();
    }
  });

  it('without the grant the server is told nothing and nothing is kept', async () => {
    const spec = { command: process.execPath, args: [MEMORY_SERVER], env: {} };
    const plan = await launcher.plan(spec, defaultSandboxProfile(), world.context('forgetful'));
    expect(plan.env[SERVER_DATA_DIR_ENV]).toBeUndefined();
    expect(plan.env.MEMORY_FILE_PATH).toBeUndefined();
    await plan.dispose();
    expect(existsSync(world.context('forgetful').serverDataDir)).toBe(false);
  });
});

describe('which settings a server is given', () => {
  const base = { hostEnv: {}, secrets: {}, home: '/h', tmp: '/t', dataDir: '/data/memory' };

  it.each([
    ['server-memory from npm', ['/x/servers/ab/node_modules/@modelcontextprotocol/server-memory/dist/index.js'], { MEMORY_FILE_PATH: 'memory.jsonl' }],
    ['another package', ['/x/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'], {}],
    ['a name that only starts alike', ['/x/node_modules/@modelcontextprotocol/server-memory-plus/dist/index.js'], {}],
  ])('%s', (_label, args, expected) => {
    expect(dataSettingsFor({ command: 'node', args, env: {} })).toEqual(expected);
  });

  it('points the setting into the data folder and names the folder', () => {
    const env = buildServerEnv({ ...base, specEnv: {}, dataSettings: { MEMORY_FILE_PATH: 'memory.jsonl' } });
    expect(env.MEMORY_FILE_PATH).toBe('/data/memory/memory.jsonl');
    expect(env[SERVER_DATA_DIR_ENV]).toBe('/data/memory');
  });

  it('a value the person set wins', () => {
    const env = buildServerEnv({ ...base, specEnv: { MEMORY_FILE_PATH: '/granted/mine.jsonl' }, dataSettings: { MEMORY_FILE_PATH: 'memory.jsonl' } });
    expect(env.MEMORY_FILE_PATH).toBe('/granted/mine.jsonl');
  });
});
