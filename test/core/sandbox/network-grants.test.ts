import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import type { NetworkDecision } from '../../../electron/core/sandbox/network-proxy';
import { call, canaryListener, connect, ESCAPE_SERVER, makeWorld } from './sandbox-harness';

/** A local HTTP service standing in for a granted API; it records who reached it. */
async function recordingHttpServer(): Promise<{ port: number; paths: string[]; close: () => Promise<void> }> {
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.end(`hello ${req.url}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { port, paths, close: () => new Promise((r) => server.close(() => r())) };
}

// Two servers run at once under one launcher; only A holds a grant. The
// local service is granted by IP literal, as a loopback service must be.
describe('per-server network grants', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;
  let api: Awaited<ReturnType<typeof recordingHttpServer>>;
  let other: Awaited<ReturnType<typeof recordingHttpServer>>;
  let canary: Awaited<ReturnType<typeof canaryListener>>;
  let a: Awaited<ReturnType<typeof connect>>;
  let b: Awaited<ReturnType<typeof connect>>;
  const questions: Array<[string, string, number]> = [];
  const decisions: NetworkDecision[] = [];

  beforeAll(async () => {
    world = await makeWorld();
    api = await recordingHttpServer();
    other = await recordingHttpServer();
    canary = await canaryListener();
    launcher = createSandboxLauncher({
      homeDir: world.home,
      runtimeDir: world.runtimeDir,
      // The person says yes only to `other`, for server b.
      onNetworkRequest: async (serverName, host, port) => {
        questions.push([serverName, host, port]);
        return serverName === 'net-b' && port === other.port;
      },
      onNetworkDecision: (decision) => decisions.push(decision),
    });
    const granted: SandboxProfile = { ...defaultSandboxProfile(), network: { allowedDomains: [`127.0.0.1:${api.port}`] } };
    const spec = { command: 'node', args: [ESCAPE_SERVER], env: {} };
    const [planA, planB] = await Promise.all([
      launcher.plan(spec, granted, world.context('net-a')),
      launcher.plan(spec, defaultSandboxProfile(), world.context('net-b')),
    ]);
    [a, b] = await Promise.all([connect(planA), connect(planB)]);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await launcher?.close();
    await Promise.all([api?.close(), other?.close(), canary?.close()]);
    await rm(world.base, { recursive: true, force: true });
  });

  it('lets server A reach its granted host through its proxy (plain HTTP and CONNECT)', async () => {
    expect(await call(a.client, 'fetch_via_proxy', { url: `http://127.0.0.1:${api.port}/from-a` })).toMatchObject({ ok: true, body: 'hello /from-a' });
    expect(await call(a.client, 'tunnel_via_proxy', { host: '127.0.0.1', port: api.port, path: '/tunnel-a' })).toMatchObject({
      ok: true,
      body: 'hello /tunnel-a',
    });
  });

  it("does not open A's grant for server B; B's request is put to the person naming B", async () => {
    const denied = await call(b.client, 'fetch_via_proxy', { url: `http://127.0.0.1:${api.port}/from-b` });
    expect(denied).toMatchObject({ ok: false, status: 403 });
    expect((await call(b.client, 'tunnel_via_proxy', { host: '127.0.0.1', port: api.port, path: '/tunnel-b' })).ok).toBe(false);
    expect(questions).toContainEqual(['net-b', '127.0.0.1', api.port]);
    expect(api.paths).not.toContain('/from-b');
    expect(api.paths).not.toContain('/tunnel-b');
  });

  it('lets B through when the person says yes, and asks once per host', async () => {
    expect(await call(b.client, 'fetch_via_proxy', { url: `http://127.0.0.1:${other.port}/one` })).toMatchObject({ ok: true });
    expect(await call(b.client, 'fetch_via_proxy', { url: `http://127.0.0.1:${other.port}/two` })).toMatchObject({ ok: true });
    expect(questions.filter(([server, , port]) => server === 'net-b' && port === other.port)).toHaveLength(1);
    expect(other.paths).toEqual(['/one', '/two']);
  });

  it('gives A nothing beyond its grant: other hosts are asked about and denied, direct sockets fail', async () => {
    expect((await call(a.client, 'fetch_via_proxy', { url: `http://127.0.0.1:${canary.port}/` })).ok).toBe(false);
    expect((await call(a.client, 'connect_tcp', { host: '127.0.0.1', port: api.port })).ok).toBe(false);
    expect((await call(a.client, 'connect_tcp', { host: '127.0.0.1', port: canary.port })).ok).toBe(false);
    expect(questions).toContainEqual(['net-a', '127.0.0.1', canary.port]);
    expect(canary.connections()).toBe(0);
  });

  it('reports every decision with the server it belongs to', () => {
    expect(decisions).toContainEqual({ serverName: 'net-a', host: '127.0.0.1', port: api.port, allowed: true, reason: 'granted' });
    expect(decisions).toContainEqual({ serverName: 'net-b', host: '127.0.0.1', port: api.port, allowed: false, reason: 'user-denied' });
  });
});
