import { spawnSync } from 'node:child_process';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { call, connect, makeWorld } from './sandbox-harness';

const PRIVILEGE_SERVER = resolve(__dirname, '../../fixtures/escape/privilege-server.mjs');

/** Every extended attribute on a file, read from outside the sandbox (python3: Node has no xattr API). */
function xattrsOf(path: string): string[] {
  const result = spawnSync('python3', ['-c', 'import os, sys; print("\\n".join(os.listxattr(sys.argv[1], follow_symlinks=False)))', path], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`python3 could not list xattrs of ${path}: ${result.stderr}`);
  return result.stdout.split('\n').filter(Boolean);
}

/** `getcap`'s view of a file: empty when it carries no file capability. */
function getcap(path: string): string {
  const result = spawnSync('getcap', [path], { encoding: 'utf8' });
  if (result.error) throw new Error(`getcap is missing (Debian: apt-get install -y libcap2-bin): ${result.error.message}`);
  return result.stdout.trim();
}

// Red-team finding 1 (issue 9): with Airlock running as root, a server with a
// write grant left a setuid-root copy of a program (or one with
// cap_setuid+ep) in its folder, and any local user ran it as root. Checked
// from outside: the bits and xattrs on disk, and what the server was told.
describe('a server cannot leave privilege behind in a granted folder', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let server: Awaited<ReturnType<typeof connect>>;
  let granted: string;

  beforeAll(async () => {
    world = await makeWorld();
    granted = join(world.base, 'granted');
    await mkdir(granted);
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
    const profile: SandboxProfile = { ...defaultSandboxProfile(), filesystem: { read: [], write: [granted], persistentData: false } };
    server = await connect(await launcher.plan({ command: process.execPath, args: [PRIVILEGE_SERVER], env: {} }, profile, world.context('privilege')));
  });

  afterAll(async () => {
    await server?.close();
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  it('runs with no capability and, when Airlock is root, not as root', async () => {
    const identity = await call(server.client, 'identity', {});
    expect(identity.capEff).toBe('0000000000000000');
    expect(identity.noNewPrivs).toBe('1');
    if (process.geteuid!() === 0) {
      expect(identity.uid).not.toBe(0);
      expect(identity.gid).not.toBe(0);
    }
  });

  it.each([
    ['chmod-setuid', 'suid-chmod'],
    ['chmod-setgid', 'sgid-chmod'],
    ['fchmod-setuid', 'suid-fchmod'],
  ])('%s: refused with EPERM; the program on disk has no setuid or setgid bit', async (variant, file) => {
    const result = await call(server.client, 'plant', { dir: granted, variant });
    expect(result).toMatchObject({ ok: false, code: 'EPERM' });
    const mode = (await stat(join(granted, file))).mode;
    expect(mode & 0o6000).toBe(0);
  });

  it.each([
    ['open-create-setuid', 'suid-open'],
    ['mknod-setuid', 'suid-mknod'],
  ])('%s: creating a file with the setuid bit is refused with EPERM; nothing is created', async (variant, file) => {
    const result = await call(server.client, 'plant', { dir: granted, variant });
    expect(result).toMatchObject({ ok: false, code: 'EPERM' });
    await expect(stat(join(granted, file))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('mkdir-setgid: a setgid folder is refused with EPERM', async () => {
    expect(await call(server.client, 'plant', { dir: granted, variant: 'mkdir-setgid' })).toMatchObject({ ok: false, code: 'EPERM' });
    await expect(stat(join(granted, 'sgid-dir'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a file capability (the raw security.capability xattr) is refused with EPERM; getcap and the xattr list are empty', async () => {
    expect(await call(server.client, 'plant', { dir: granted, variant: 'xattr-capability' })).toMatchObject({ ok: false, code: 'EPERM' });
    const file = join(granted, 'cap-xattr');
    expect(getcap(file)).toBe('');
    expect(xattrsOf(file)).toEqual([]);
  });

  it('setcap cap_setuid+ep fails; the program carries no capability', async () => {
    expect(await call(server.client, 'plant', { dir: granted, variant: 'setcap' })).toMatchObject({ ok: false, code: 'FAILED' });
    const file = join(granted, 'cap-setcap');
    expect(getcap(file)).toBe('');
    expect(xattrsOf(file)).toEqual([]);
  });

  it('the honest case still works: an ordinary executable file', async () => {
    expect(await call(server.client, 'plant', { dir: granted, variant: 'chmod-plain' })).toEqual({ ok: true });
    expect((await stat(join(granted, 'plain'))).mode & 0o777).toBe(0o755);
  });

  it('nothing in the folder carries a privilege bit', async () => {
    for (const name of await readdir(granted)) {
      expect({ name, bits: (await stat(join(granted, name))).mode & 0o6000 }).toEqual({ name, bits: 0 });
    }
  });
});
