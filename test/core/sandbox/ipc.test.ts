import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { call, connect, makeWorld } from './sandbox-harness';

const IPC_SERVER = resolve(__dirname, '../../fixtures/escape/ipc-server.mjs');
const IPC_SCRIPT = resolve(__dirname, '../../fixtures/escape/ipc.py');

/** Looks for (or removes) the test's IPC objects from outside any sandbox. */
function fromOutside(mode: 'find' | 'remove', key: number, name: string): { msgq: boolean; shm: boolean; mq: boolean } {
  const result = spawnSync('python3', [IPC_SCRIPT, mode, String(key), name], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`python3 ${IPC_SCRIPT} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const ipcsListing = () => spawnSync('ipcs', ['-q', '-m'], { encoding: 'utf8' }).stdout;

// Red-team finding 3a (issue 9): a contained server (no grants) left a System
// V message queue and a shared-memory segment that outlived it and that a
// networked server read. Each server now has its own IPC namespace and its
// own /dev/mqueue; checked with ipcs and direct lookups from outside and from
// a second sandboxed server.
describe('System V IPC and POSIX message queues stay inside the sandbox', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let contained: Awaited<ReturnType<typeof connect>> | undefined;
  let networked: Awaited<ReturnType<typeof connect>>;
  const key = randomInt(1, 2 ** 30);
  const name = `/airlock-test-${key}`;
  const keyHex = `0x${key.toString(16).padStart(8, '0')}`;
  const spec = { command: process.execPath, args: [IPC_SERVER], env: {} };

  beforeAll(async () => {
    world = await makeWorld();
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir, onNetworkRequest: async () => false });
    const withNetwork = { ...defaultSandboxProfile(), network: { allowedDomains: ['example.com'] } };
    [contained, networked] = await Promise.all([
      launcher.plan(spec, defaultSandboxProfile(), world.context('contained')).then(connect),
      launcher.plan(spec, withNetwork, world.context('networked')).then(connect),
    ]);
  });

  afterAll(async () => {
    await Promise.all([contained?.close(), networked?.close()]);
    await launcher?.close();
    fromOutside('remove', key, name); // whatever an unfixed sandbox let leak
    await rm(world.base, { recursive: true, force: true });
  });

  it('the contained server can make all three (inside its own namespace)', async () => {
    const left = await call(contained!.client, 'leave', { key, name });
    expect(left.error).toBeUndefined();
    expect(left.msgq).toBeGreaterThanOrEqual(0);
    expect(left.shm).toBeGreaterThanOrEqual(0);
    expect(left.mq).toBeGreaterThanOrEqual(0);
    expect(await call(contained!.client, 'find', { key, name })).toMatchObject({ msgq: true, shm: true, mq: true });
  });

  it('the host sees none of them (ipcs and direct lookups)', () => {
    expect(fromOutside('find', key, name)).toEqual({ msgq: false, shm: false, mq: false });
    expect(ipcsListing()).not.toContain(keyHex);
  });

  it('a networked server in another sandbox sees none of them', async () => {
    const seen = await call(networked.client, 'find', { key, name });
    expect(seen).toMatchObject({ msgq: false, shm: false, mq: false });
    expect(seen.ipcs).not.toContain(keyHex);
  });

  it('nothing outlives the contained server', async () => {
    await contained!.close();
    contained = undefined;
    expect(fromOutside('find', key, name)).toEqual({ msgq: false, shm: false, mq: false });
    expect(ipcsListing()).not.toContain(keyHex);
    expect(await call(networked.client, 'find', { key, name })).toMatchObject({ msgq: false, shm: false, mq: false });
  });
});
