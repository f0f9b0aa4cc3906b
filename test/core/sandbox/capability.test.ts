/**
 * What the sandbox needs on Linux, as `airlock doctor`, Settings and the
 * launcher see it: bubblewrap, socat, ripgrep — and prlimit (util-linux),
 * without which no server gets its resource limits, so none starts.
 */
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { checkSandboxSupport, findExecutable, findSandboxTool } from '../../../electron/core/sandbox/capability';
import { SandboxUnavailableError } from '../../../electron/core/sandbox/errors';
import { createSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { ESCAPE_SERVER, makeWorld } from './sandbox-harness';

describe('the sandbox capability check on Linux', () => {
  let bin: string;
  let world: Awaited<ReturnType<typeof makeWorld>>;

  beforeAll(async () => {
    world = await makeWorld();
    // bwrap, socat and rg, but no prlimit on this PATH
    bin = await mkdtemp(join(tmpdir(), 'airlock-noprlimit-'));
    for (const tool of ['bwrap', 'socat', 'rg']) await symlink(findExecutable(tool, process.env.PATH)!, join(bin, tool));
  });
  afterAll(async () => {
    await rm(bin, { recursive: true, force: true });
    await rm(world.base, { recursive: true, force: true });
  });

  it('requires prlimit and names it among what it found', () => {
    const ready = checkSandboxSupport();
    expect(ready.supported).toBe(true);
    expect(ready.summary).toBe('The sandbox is ready (bwrap, socat, rg, prlimit found).');
  });

  it('without prlimit, the sandbox cannot run, and the fix names its package', () => {
    const missing = checkSandboxSupport({ platform: 'linux', pathEnv: bin, systemDirs: [] });
    expect(missing).toMatchObject({ supported: false, missing: ['prlimit'], fix: 'sudo apt-get install -y util-linux' });
    expect(missing.summary).toContain('prlimit is missing');
  });

  it('looks for prlimit in the system folders too, where an app started from the desktop may not look (as the launcher does)', () => {
    expect(findSandboxTool('prlimit', { pathEnv: bin })).toMatch(/^\/(usr\/)?bin\/prlimit$/);
    expect(checkSandboxSupport({ platform: 'linux', pathEnv: bin }).supported).toBe(true);
    // bwrap is never looked for outside PATH (pinned where PATH has it)
    expect(findSandboxTool('bwrap', { pathEnv: '' })).toBeUndefined();
  });

  it('the launcher refuses to start a server without prlimit, saying what to install', async () => {
    const launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir, capabilityProbe: { platform: 'linux', pathEnv: bin, systemDirs: [] } });
    const attempt = launcher.plan({ command: process.execPath, args: [ESCAPE_SERVER], env: {} }, defaultSandboxProfile(), world.context());
    await expect(attempt).rejects.toBeInstanceOf(SandboxUnavailableError);
    await expect(attempt).rejects.toThrow(/prlimit.*util-linux/s);
    await launcher.close();
  });
});
