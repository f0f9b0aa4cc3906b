import { chmod, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { findExecutable } from '../../../electron/core/sandbox/capability';
import { SandboxInitError, SandboxUnavailableError } from '../../../electron/core/sandbox/errors';
import { createSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { call, connect, ESCAPE_SERVER, makeWorld } from './sandbox-harness';

const spec = { command: process.execPath, args: [ESCAPE_SERVER], env: {} };

describe('when the sandbox cannot run', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let binWithoutBwrap: string;

  beforeAll(async () => {
    world = await makeWorld();
    // A PATH holding socat and rg but no bwrap.
    binWithoutBwrap = await mkdtemp(join(tmpdir(), 'airlock-nobwrap-'));
    for (const tool of ['socat', 'rg']) await symlink(findExecutable(tool, process.env.PATH)!, join(binWithoutBwrap, tool));
  });

  afterAll(async () => {
    await rm(world.base, { recursive: true, force: true });
    await rm(binWithoutBwrap, { recursive: true, force: true });
  });

  it('plan() throws SandboxUnavailableError naming bwrap and the fix, and leaves nothing behind', async () => {
    const launcher = createSandboxLauncher({
      homeDir: world.home,
      runtimeDir: world.runtimeDir,
      capabilityProbe: { platform: 'linux', pathEnv: binWithoutBwrap },
    });
    const attempt = launcher.plan(spec, defaultSandboxProfile(), world.context());
    await expect(attempt).rejects.toBeInstanceOf(SandboxUnavailableError);
    await expect(attempt).rejects.toMatchObject({ missing: ['bwrap'], code: 'unavailable' });
    await expect(attempt).rejects.toThrow(/bwrap.*apt-get install -y bubblewrap/s);
    expect(await readdir(world.runtimeDir).catch(() => [])).toEqual([]);
  });

  it('the probe also refuses, unless the server has recorded consent', async () => {
    const launcher = createSandboxLauncher({
      homeDir: world.home,
      runtimeDir: world.runtimeDir,
      capabilityProbe: { platform: 'linux', pathEnv: binWithoutBwrap },
    });
    await expect(launcher.planProbe(spec, defaultSandboxProfile(), world.context())).rejects.toBeInstanceOf(SandboxUnavailableError);
    const consented = { ...defaultSandboxProfile(), unsandboxed: { consentedAt: '2026-12-02T16:00:00Z' } };
    const plan = await launcher.planProbe(spec, consented, world.context());
    expect(plan.sandboxed).toBe(false);
    await plan.dispose();
    await launcher.close();
  });

  it('refuses an OS it cannot sandbox on yet', async () => {
    const launcher = createSandboxLauncher({ homeDir: world.home, capabilityProbe: { platform: 'win32', pathEnv: '' } });
    await expect(launcher.plan(spec, defaultSandboxProfile(), world.context())).rejects.toBeInstanceOf(SandboxUnavailableError);
  });

  it('throws SandboxInitError when bubblewrap is present but broken, even with consent: never a fallback', async () => {
    const brokenBin = await mkdtemp(join(tmpdir(), 'airlock-brokenbwrap-'));
    try {
      for (const tool of ['socat', 'rg']) await symlink(findExecutable(tool, process.env.PATH)!, join(brokenBin, tool));
      await writeFile(join(brokenBin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
      await chmod(join(brokenBin, 'bwrap'), 0o755);
      const launcher = createSandboxLauncher({
        homeDir: world.home,
        runtimeDir: world.runtimeDir,
        capabilityProbe: { platform: 'linux', pathEnv: brokenBin },
      });
      const consented: SandboxProfile = { ...defaultSandboxProfile(), unsandboxed: { consentedAt: '2026-12-02T16:00:00Z' } };
      for (const profile of [defaultSandboxProfile(), consented]) {
        const attempt = launcher.plan(spec, profile, world.context());
        await expect(attempt).rejects.toBeInstanceOf(SandboxInitError);
        await expect(attempt).rejects.toThrow(/No permissions to create new namespace/);
      }
      expect(await readdir(world.runtimeDir).catch(() => [])).toEqual([]);
    } finally {
      await rm(brokenBin, { recursive: true, force: true });
    }
  });

  it("refuses to plan beside sandbox-runtime's shared proxy (someone called initialize())", async () => {
    const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
    const launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
    await SandboxManager.initialize({ network: { allowedDomains: [], deniedDomains: [] }, filesystem: { denyRead: [], allowWrite: [], denyWrite: [] } });
    try {
      await expect(launcher.plan(spec, defaultSandboxProfile(), world.context())).rejects.toThrow(/shared network proxy/);
    } finally {
      await SandboxManager.reset();
      await launcher.close();
    }
    expect(await readdir(world.runtimeDir)).toEqual([]);
  });

  it('with recorded consent, runs unsandboxed (sandboxed: false) with the same scrubbed environment', async () => {
    process.env.AIRLOCK_TEST_CANARY_SECRET = 'canary-must-not-leak';
    const launcher = createSandboxLauncher({
      homeDir: world.home,
      runtimeDir: world.runtimeDir,
      capabilityProbe: { platform: 'linux', pathEnv: binWithoutBwrap },
    });
    const consented: SandboxProfile = { ...defaultSandboxProfile(), unsandboxed: { consentedAt: '2026-12-02T16:00:00Z' }, secrets: ['API_KEY'] };
    const plan = await launcher.plan(spec, consented, world.context('consented', { secrets: { API_KEY: 'granted', OTHER: 'not granted' } }));
    expect(plan.sandboxed).toBe(false);
    expect(plan.command).toBe(process.execPath);
    expect(plan.env).not.toHaveProperty('AIRLOCK_TEST_CANARY_SECRET');
    expect(plan.env).not.toHaveProperty('OTHER');
    const server = await connect(plan);
    try {
      expect((await call(server.client, 'read_env', { name: 'AIRLOCK_TEST_CANARY_SECRET' })).value).toBeNull();
      expect((await call(server.client, 'read_env', { name: 'API_KEY' })).value).toBe('granted');
    } finally {
      delete process.env.AIRLOCK_TEST_CANARY_SECRET;
      await server.close();
      await launcher.close();
    }
  });
});
