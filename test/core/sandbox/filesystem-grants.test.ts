import { cp, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { call, connect, ESCAPE_SERVER, makeWorld } from './sandbox-harness';

const spec = { command: 'node', args: [ESCAPE_SERVER], env: {} };
const withWrite = (...write: string[]): SandboxProfile => ({
  ...defaultSandboxProfile(),
  filesystem: { read: [], write, persistentData: false },
});

describe('filesystem grants, two servers at once', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let a: Awaited<ReturnType<typeof connect>>;
  let b: Awaited<ReturnType<typeof connect>>;
  let dirA: string;
  let dirB: string;

  beforeAll(async () => {
    world = await makeWorld();
    dirA = join(world.base, 'granted-a');
    dirB = join(world.base, 'granted-b');
    await mkdir(join(dirA, '.git', 'hooks'), { recursive: true });
    await writeFile(join(dirA, '.git', 'config'), '[core]\n');
    await mkdir(dirB);
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
    const persistentA: SandboxProfile = { ...withWrite(dirA), filesystem: { read: [], write: [dirA], persistentData: true } };
    const [planA, planB] = await Promise.all([
      launcher.plan(spec, persistentA, world.context('fs-a')),
      launcher.plan(spec, withWrite(dirB), world.context('fs-b')),
    ]);
    [a, b] = await Promise.all([connect(planA), connect(planB)]);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  it('each server writes its own granted folder, and the write lands on the host', async () => {
    expect(await call(a.client, 'write_file', { path: join(dirA, 'a.txt'), text: 'from a' })).toMatchObject({ ok: true });
    expect(await call(b.client, 'write_file', { path: join(dirB, 'b.txt'), text: 'from b' })).toMatchObject({ ok: true });
    expect(await readFile(join(dirA, 'a.txt'), 'utf8')).toBe('from a');
    expect(await readFile(join(dirB, 'b.txt'), 'utf8')).toBe('from b');
  });

  it('cannot plant code that runs outside the sandbox in a granted repository (git hooks, git config)', async () => {
    const hook = await call(a.client, 'write_file', { path: join(dirA, '.git', 'hooks', 'pre-commit'), text: '#!/bin/sh\ncurl evil\n' });
    expect(hook).toMatchObject({ ok: false });
    expect(['EROFS', 'EACCES', 'EPERM']).toContain(hook.code);
    expect(await call(a.client, 'write_file', { path: join(dirA, '.git', 'config'), text: '[core]\nfsmonitor = evil\n' })).toMatchObject({ ok: false });
    expect(await readFile(join(dirA, '.git', 'config'), 'utf8')).toBe('[core]\n');
    await expect(stat(join(dirA, '.git', 'hooks', 'pre-commit'))).rejects.toThrow();
  });

  it("neither can write the other's folder or anywhere else (EROFS)", async () => {
    expect(await call(a.client, 'write_file', { path: join(dirB, 'x.txt'), text: 'a was here' })).toMatchObject({ ok: false, code: 'EROFS' });
    expect(await call(b.client, 'write_file', { path: join(dirA, 'x.txt'), text: 'b was here' })).toMatchObject({ ok: false, code: 'EROFS' });
    expect(await call(b.client, 'write_file', { path: join(world.base, 'x.txt'), text: 'b was here' })).toMatchObject({ ok: false, code: 'EROFS' });
    await expect(stat(join(dirB, 'x.txt'))).rejects.toThrow();
    await expect(stat(join(dirA, 'x.txt'))).rejects.toThrow();
    await expect(stat(join(world.base, 'x.txt'))).rejects.toThrow();
  });

  it('the persistent-data grant opens only that server’s own data folder', async () => {
    const ownData = world.context('fs-a').serverDataDir;
    expect(await call(a.client, 'write_file', { path: join(ownData, 'memory.json'), text: '{}' })).toMatchObject({ ok: true });
    expect(await readFile(join(ownData, 'memory.json'), 'utf8')).toBe('{}');
    // the rest of Airlock's data stays hidden from it
    expect(await call(a.client, 'read_file', { path: join(world.airlockDataDir, 'store.json') })).toMatchObject({ ok: false });
    // and B, without the grant, can neither read nor write A's data nor its own
    expect(await call(b.client, 'read_file', { path: join(ownData, 'memory.json') })).toMatchObject({ ok: false });
    const bData = world.context('fs-b').serverDataDir;
    expect((await call(b.client, 'write_file', { path: join(bData, 'memory.json'), text: '{}' })).ok).toBe(false);
  });

  it("cannot see the other server's temp folder", async () => {
    const homeA = (await call(a.client, 'read_env', { name: 'HOME' })).value as string;
    expect(await call(a.client, 'write_file', { path: join(homeA, 'private.txt'), text: 'a only' })).toMatchObject({ ok: true });
    expect(await call(b.client, 'read_file', { path: join(homeA, 'private.txt') })).toMatchObject({ ok: false });
    expect(await call(b.client, 'write_file', { path: join(homeA, 'private.txt'), text: 'b' })).toMatchObject({ ok: false });
  });
});

describe('probe mode and installed code', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;

  beforeAll(async () => {
    world = await makeWorld();
    launcher = createSandboxLauncher({
      homeDir: world.home,
      runtimeDir: world.runtimeDir,
      onNetworkRequest: async () => true,
    });
  });

  afterAll(async () => {
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  it('runs an installed server from inside Airlock data (its folder readable, the rest hidden), and the probe hides home and the network', async () => {
    // An "installed" server: its code in Airlock's data folder, run from there.
    const installDir = join(world.airlockDataDir, 'servers', 'probe', 'install');
    await mkdir(installDir, { recursive: true });
    await cp(ESCAPE_SERVER, join(installDir, 'server.mjs'));
    await symlink(resolve(dirname(ESCAPE_SERVER), '../../../node_modules'), join(installDir, 'node_modules'));
    const plan = await launcher.planProbe({ command: 'node', args: [join(installDir, 'server.mjs')], cwd: installDir, env: {} }, defaultSandboxProfile(), world.context('probe'));
    const probe = await connect(plan);
    try {
      expect(await call(probe.client, 'read_file', { path: join(installDir, 'server.mjs') })).toMatchObject({ ok: true });
      expect(await call(probe.client, 'read_file', { path: join(world.airlockDataDir, 'store.json') })).toMatchObject({ ok: false });
      expect(await call(probe.client, 'read_file', { path: join(world.home, 'notes.txt') })).toMatchObject({ ok: false });
      expect(await call(probe.client, 'write_file', { path: join(installDir, 'server.mjs'), text: '' })).toMatchObject({ ok: false, code: 'EROFS' });
      const env = await call(probe.client, 'read_env', { name: 'HTTP_PROXY' });
      expect(env.value).toBeNull();
      expect(await call(probe.client, 'fetch_via_proxy', { url: 'http://127.0.0.1:1/' })).toMatchObject({ ok: false, code: 'NO_PROXY' });
    } finally {
      await probe.close();
    }
    expect((await stat(join(installDir, 'server.mjs'))).size).toBeGreaterThan(0);
  });

  it('probes a local server kept under home: its folder readable, the rest of home hidden', async () => {
    const project = join(world.home, 'projects', 'my-server');
    await mkdir(project, { recursive: true });
    await cp(ESCAPE_SERVER, join(project, 'server.mjs'));
    await symlink(resolve(dirname(ESCAPE_SERVER), '../../../node_modules'), join(project, 'node_modules'));
    const plan = await launcher.planProbe({ command: 'node', args: [join(project, 'server.mjs')], env: {} }, defaultSandboxProfile(), world.context('local'));
    const probe = await connect(plan);
    try {
      expect(await call(probe.client, 'read_file', { path: join(project, 'server.mjs') })).toMatchObject({ ok: true });
      expect(await call(probe.client, 'read_file', { path: join(world.home, 'notes.txt') })).toMatchObject({ ok: false });
      expect(await call(probe.client, 'read_file', { path: join(world.home, '.ssh', 'id_rsa') })).toMatchObject({ ok: false });
    } finally {
      await probe.close();
    }
  });

  it('refuses a grant that reaches Airlock data through a symlink', async () => {
    const link = join(world.base, 'innocent-looking');
    await symlink(world.airlockDataDir, link);
    const profile: SandboxProfile = { ...defaultSandboxProfile(), filesystem: { read: [link], write: [], persistentData: false } };
    await expect(launcher.plan(spec, profile, world.context('bad'))).rejects.toMatchObject({ name: 'SandboxProfileError' });
  });

  it('refuses to run an installed server from a folder that holds its data folder', async () => {
    const serverDir = join(world.airlockDataDir, 'servers', 'holder');
    await mkdir(serverDir, { recursive: true });
    await expect(launcher.plan({ ...spec, cwd: serverDir }, defaultSandboxProfile(), world.context('holder'))).rejects.toMatchObject({
      name: 'SandboxProfileError',
    });
  });

  it.each([
    ['a grant that does not exist', { read: ['BASE/missing'], write: [] }],
    ['a read grant of the data folder', { read: ['AIRLOCK'], write: [] }],
    ['a write grant of its parent', { read: [], write: ['BASE'] }],
    ['a read grant inside it', { read: ['AIRLOCK/store.json'], write: [] }],
    ['a relative path', { read: ['relative/path'], write: [] }],
  ])('refuses %s before starting anything', async (_label, grants) => {
    const fix = (paths: string[]) => paths.map((p) => p.replace('AIRLOCK', world.airlockDataDir).replace('BASE', world.base));
    const profile: SandboxProfile = {
      ...defaultSandboxProfile(),
      filesystem: { read: fix(grants.read), write: fix(grants.write), persistentData: false },
    };
    await expect(launcher.plan(spec, profile, world.context('bad'))).rejects.toMatchObject({ name: 'SandboxProfileError' });
  });
});

describe('two Airlock processes at once (e.g. the app and the CLI)', () => {
  it("keep each other's servers out of their temp folders", async () => {
    const world = await makeWorld();
    // default runtime folders: both under the one per-user parent every sandbox hides
    const app = createSandboxLauncher({ homeDir: world.home });
    const cli = createSandboxLauncher({ homeDir: world.home });
    const [planApp, planCli] = await Promise.all([
      app.plan(spec, defaultSandboxProfile(), world.context('in-app')),
      cli.plan(spec, defaultSandboxProfile(), world.context('in-cli')),
    ]);
    expect(planApp.env.HOME).toMatch(new RegExp(`/airlock-sandbox-${process.getuid!()}/run-`));
    const [inApp, inCli] = await Promise.all([connect(planApp), connect(planCli)]);
    try {
      expect(await call(inCli.client, 'write_file', { path: join(planCli.env.HOME!, 'token'), text: 'cli secret' })).toMatchObject({ ok: true });
      expect(await call(inApp.client, 'read_file', { path: join(planCli.env.HOME!, 'token') })).toMatchObject({ ok: false });
    } finally {
      await Promise.all([inApp.close(), inCli.close()]);
      await Promise.all([app.close(), cli.close()]);
      await rm(world.base, { recursive: true, force: true });
    }
    await expect(stat(dirname(dirname(dirname(planApp.env.HOME!))))).rejects.toThrow();
  });
});
