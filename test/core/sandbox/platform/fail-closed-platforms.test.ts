/**
 * Fail closed on every platform: where a backend cannot run (here, on
 * Linux: macOS's sandbox-exec and Windows' srt-win are not there; an OS
 * Airlock has no backend for), no server starts — the refusal names what
 * is missing and the fix — and nothing is left behind. Consent to run one
 * server unsandboxed is the only way past it, and it says so.
 */
import { readdir, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../../shared/domain';
import { SandboxUnavailableError } from '../../../../electron/core/sandbox/errors';
import { createSandboxLauncher } from '../../../../electron/core/sandbox/sandbox-launcher';
import { ESCAPE_SERVER, makeWorld } from '../sandbox-harness';

const spec = { command: process.execPath, args: [ESCAPE_SERVER], env: {} };

describe('a platform whose sandbox cannot run here', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  beforeAll(async () => {
    world = await makeWorld();
  });
  afterAll(() => rm(world.base, { recursive: true, force: true }));

  // On its own platform (the CI runners) the backend can run: that case is the escape suite's.
  it.each(
    [
      ['darwin', /sandbox-exec/, /sandbox-exec ships with macOS/] as const,
      ['win32', /srt-win|sandbox user/, /windows-install|reinstall Airlock/] as const,
    ].filter(([platform]) => platform !== process.platform),
  )('%s: plan() refuses with what is missing and the fix, and makes nothing', async (platform, missing, fix) => {
    const launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir, capabilityProbe: { platform: platform as NodeJS.Platform, pathEnv: '' } });
    const support = launcher.support();
    expect(support.supported).toBe(false);
    expect(support.missing.join(' ')).toMatch(missing);
    expect(support.fix).toMatch(fix);
    const attempt = launcher.plan(spec, defaultSandboxProfile(), world.context());
    await expect(attempt).rejects.toBeInstanceOf(SandboxUnavailableError);
    expect(await readdir(world.runtimeDir).catch(() => [])).toEqual([]);
    // Its guarantees are still stated (the person reads what would hold), and where they are weaker than Linux.
    expect(launcher.guarantees()).toHaveLength(11);
    expect(launcher.weakerThanLinux().length).toBeGreaterThan(0);
    await launcher.close();
  });

  it('an OS Airlock has no backend for: refused, and nothing is said to hold', async () => {
    const launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir, capabilityProbe: { platform: 'freebsd', pathEnv: '' } });
    await expect(launcher.plan(spec, defaultSandboxProfile(), world.context())).rejects.toThrow(/cannot sandbox servers on freebsd/);
    expect(launcher.guarantees()).toEqual([]);
    await launcher.close();
  });

  it('only recorded consent starts the server, and then without a sandbox (said so)', async () => {
    const launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir, capabilityProbe: { platform: 'freebsd', pathEnv: '' } });
    const plan = await launcher.plan(spec, { ...defaultSandboxProfile(), unsandboxed: { consentedAt: '2026-12-04T10:00:00Z' } }, world.context());
    expect(plan.sandboxed).toBe(false);
    await plan.dispose();
    await launcher.close();
  });
});
