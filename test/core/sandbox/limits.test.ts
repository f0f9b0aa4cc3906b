import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { DEFAULT_LIMITS } from '../../../electron/core/sandbox/launcher';
import { hostFacts, platformBackend } from '../../../electron/core/sandbox/platform';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { call, connect, makeWorld } from './sandbox-harness';

const LIMITS_SERVER = resolve(__dirname, '../../fixtures/escape/limits-server.mjs');
const spec = { command: process.execPath, args: [LIMITS_SERVER], env: {} };

// Issue 9 item 8: no CPU, memory or process limits on servers. Each server
// now runs under rlimits set inside its sandbox; small ones here so the
// effect shows quickly, checked by what the kernel did to the server's children.
describe('resource limits per server', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let server: Awaited<ReturnType<typeof connect>>;
  let plan: Awaited<ReturnType<AirlockSandboxLauncher['plan']>>;
  const limits = { processes: 48, openFiles: 256, memoryBytes: 512 * 1024 ** 2, cpuSeconds: 1 };

  beforeAll(async () => {
    world = await makeWorld();
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir, limits });
    plan = await launcher.plan(spec, defaultSandboxProfile(), world.context('limits'));
    server = await connect(plan);
  });

  afterAll(async () => {
    await server?.close();
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  it('the plan says which limits the server runs under, and which of them the backend says do not hold here', () => {
    const unenforced = platformBackend('linux')!.unenforcedLimits(hostFacts());
    expect(plan.limits).toEqual({ ...limits, ...(Object.keys(unenforced).length > 0 ? { unenforced } : {}) });
    // As root the process count does not hold (Linux does not count root's processes); as a normal user every limit does.
    expect(plan.limits?.unenforced?.processes !== undefined).toBe(process.geteuid?.() === 0);
  });

  it('the kernel holds the server to them (as /proc/self/limits shows inside)', async () => {
    expect(await call(server.client, 'limits', {})).toEqual({
      processes: { soft: '48', hard: '48' },
      openFiles: { soft: '256', hard: '256' },
      data: { soft: String(512 * 1024 ** 2), hard: String(512 * 1024 ** 2) },
      cpu: { soft: '1', hard: '11' },
    });
  });

  it('memory: a 700 MB allocation is refused; a small one works', async () => {
    expect((await call(server.client, 'allocate', { mb: 700 })).stdout).toMatch(/^refused/);
    expect((await call(server.client, 'allocate', { mb: 16 })).stdout).toBe('allocated');
  });

  it('open files: stops at the limit with EMFILE', async () => {
    const result = await call(server.client, 'open_files', { count: 1000 });
    expect(result.error).toBe('EMFILE');
    expect(result.opened).toBeLessThan(256);
  });

  it('CPU time: a spinning child is stopped by SIGXCPU', async () => {
    expect(await call(server.client, 'burn_cpu', {})).toMatchObject({ signal: 'SIGXCPU' });
  });

  // Linux does not apply RLIMIT_NPROC to processes whose real user is root,
  // and a root Airlock's servers are real root outside their namespace: the
  // limit is set (above) but only holds when Airlock runs as a normal user.
  it.skipIf(process.geteuid?.() === 0)('processes: a fork flood stops at the limit', async () => {
    const result = await call(server.client, 'spawn_many', { count: 200 });
    expect(result.started).toBeLessThan(48);
  });
});

describe('the default limits', () => {
  it('are generous enough for a real server (a browser it drives, a week of light use)', () => {
    expect(DEFAULT_LIMITS.processes).toBeGreaterThanOrEqual(512);
    expect(DEFAULT_LIMITS.openFiles).toBeGreaterThanOrEqual(4096);
    expect(DEFAULT_LIMITS.memoryBytes).toBeGreaterThanOrEqual(4 * 1024 ** 3);
    expect(DEFAULT_LIMITS.cpuSeconds).toBeGreaterThanOrEqual(3600);
  });
});
