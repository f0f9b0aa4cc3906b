/**
 * The HTTP gateway on a real loopback socket: the SDK's own Streamable HTTP
 * client with the bearer token, and raw requests for everything it refuses.
 * What must never reach a server is checked with the real core behind the
 * host's own gateway, counted at a real fixture server in the sandbox.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN_FILE, generateGatewayToken } from '../../../electron/core/gateway/gateway-token';
import { startHttpGateway, type HttpGateway } from '../../../electron/core/gateway/http-gateway';
import { DirectCore, everythingServer } from './support/direct-core';
import { kernelSockets, loopbackHex } from './support/kernel-sockets';
import { createWitnessCore, type WitnessCore } from './support/witness-core';

let core: DirectCore;
let gateway: HttpGateway;
const token = generateGatewayToken();

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw request, with whatever headers the test wants (fetch cannot set Host). */
function raw(options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer; port?: number }) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: options.port ?? gateway.port, method: options.method ?? 'POST', path: options.path ?? '/mcp', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const good = () => ({
  Host: `127.0.0.1:${gateway.port}`,
  Authorization: `Bearer ${token}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
});

function sdkClient(name = 'HTTP Test Client') {
  const client = new Client({ name: 'http-test', title: name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  return { client, transport };
}

beforeAll(async () => {
  core = new DirectCore();
  await core.addServer('everything', everythingServer());
  gateway = await startHttpGateway(core, { port: 0, token, log: () => undefined, maxBodyBytes: 64 * 1024 });
});

afterAll(async () => {
  await gateway?.close();
  await core?.close();
});

describe('the HTTP gateway', () => {
  it('listens on loopback only and refuses any other address', async () => {
    expect(gateway.url).toBe(`http://127.0.0.1:${gateway.port}/mcp`);
    await expect(startHttpGateway(core, { port: 0, token, host: '0.0.0.0' as never })).rejects.toThrow(/loopback only/);
    await expect(startHttpGateway(core, { port: 0, token: 'short' })).rejects.toThrow(/at least 32/);
  });

  it('serves the SDK client with the token: lists namespaced tools, calls one', async () => {
    const { client, transport } = sdkClient();
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('everything__echo');
    const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'over http' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: over http' }]);
    expect(core.requests.at(-1)!.caller).toEqual({ kind: 'client', name: 'HTTP Test Client' });
    expect(gateway.sessionCount()).toBe(1);
    await transport.terminateSession();
    await client.close();
    await expect.poll(() => gateway.sessionCount()).toBe(0);
  });

  it('sends tools/list_changed on the session’s stream when the core’s tools change', async () => {
    const { client, transport } = sdkClient();
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      notified += 1;
    });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('everything__get-tiny-image');
    // Give the client's standalone GET stream a moment to open.
    await new Promise((r) => setTimeout(r, 200));
    core.hideTool('everything', 'get-tiny-image');
    await expect.poll(() => notified, { timeout: 5000 }).toBeGreaterThanOrEqual(1);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('everything__get-tiny-image');
    await transport.terminateSession();
    await client.close();
  });

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', `Bearer ${generateGatewayToken()}`],
    ['the token in another scheme', `Basic ${token}`],
    ['an empty bearer', 'Bearer '],
  ])('refuses %s with 401 and WWW-Authenticate', async (_label, authorization) => {
    const headers: Record<string, string> = { ...good() };
    if (authorization === undefined) delete headers.Authorization;
    else headers.Authorization = authorization;
    const response = await raw({ headers, body: INITIALIZE });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(gateway.sessionCount()).toBe(0);
  });

  it('refuses the SDK client without the token', async () => {
    const client = new Client({ name: 'no-token', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)))).rejects.toThrow();
  });

  it.each([
    ['another name (DNS rebinding)', 'evil.example'],
    ['another name on the right port', 'evil.example:PORT'],
    ['another port', '127.0.0.1:1'],
    ['no port', '127.0.0.1'],
  ])('refuses a Host of %s, even with the token', async (_label, host) => {
    const response = await raw({ headers: { ...good(), Host: host.replace('PORT', String(gateway.port)) }, body: INITIALIZE });
    expect(response.status).toBe(403);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(gateway.sessionCount()).toBe(0);
  });

  // The Host check comes first, before anything that answers differently: a
  // rebound page (its own name in Host) is told only that its Host is not
  // allowed — not that a token is wanted (which names Airlock and its
  // realm), nor which paths or methods exist. (The SDK's own Host check
  // behind it sees only requests that reach a session's transport.)
  it.each<[string, { path: string; auth: boolean; method?: string }]>([
    ['without a token', { path: '/mcp', auth: false }],
    ['on another path', { path: '/.well-known/oauth-protected-resource', auth: false }],
    ['with the token, by a method the gateway does not serve', { path: '/mcp', auth: true, method: 'PUT' }],
  ])('a rebound page (Host of another name) %s is refused for its Host, and learns nothing else', async (_label, { path, auth, method }) => {
    const headers: Record<string, string> = { ...good(), Host: `evil.example:${gateway.port}` };
    if (!auth) delete headers.Authorization;
    const response = await raw({ method, path, headers, body: INITIALIZE });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body).error.message).toMatch(/this Host is not allowed/);
    expect(response.headers['www-authenticate']).toBeUndefined();
    expect(response.headers.allow).toBeUndefined();
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(gateway.sessionCount()).toBe(0);
  });

  it('accepts localhost:PORT as the Host', async () => {
    const response = await raw({ headers: { ...good(), Host: `localhost:${gateway.port}` }, body: INITIALIZE });
    expect(response.status).toBe(200);
    const session = response.headers['mcp-session-id'] as string;
    expect(session).toBeTruthy();
    const closed = await raw({ method: 'DELETE', headers: { ...good(), 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': LATEST_PROTOCOL_VERSION } });
    expect(closed.status).toBe(200);
    await expect.poll(() => gateway.sessionCount()).toBe(0);
  });

  it('refuses a request from another site’s page and never sends CORS headers', async () => {
    const post = await raw({ headers: { ...good(), Origin: 'https://evil.example' }, body: INITIALIZE });
    expect(post.status).toBe(403);
    expect(post.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await raw({
      method: 'OPTIONS',
      headers: { Host: good().Host, Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect(preflight.status).toBeGreaterThanOrEqual(400);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(gateway.sessionCount()).toBe(0);
  });

  it('refuses a body over the limit with 413, other paths with 404, a request without a session with 400', async () => {
    const big = await raw({ headers: good(), body: Buffer.alloc(65 * 1024, 0x20) });
    expect(big.status).toBe(413);
    expect((await raw({ path: '/other', headers: good(), body: INITIALIZE })).status).toBe(404);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    expect((await raw({ headers: good(), body: list })).status).toBe(400);
    expect((await raw({ headers: { ...good(), 'Mcp-Session-Id': 'not-a-session' }, body: list })).status).toBe(404);
    expect(gateway.sessionCount()).toBe(0);
  });
});

describe('the host’s HTTP gateway, with the real core behind it', () => {
  let w: WitnessCore;
  let port: number;
  let hostToken: string;
  const headers = () => ({
    Host: `127.0.0.1:${port}`,
    Authorization: `Bearer ${hostToken}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'Mcp-Protocol-Version': LATEST_PROTOCOL_VERSION,
  });
  const toolsCall = (id: number, n: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'witness__write', arguments: { n } } });

  beforeAll(async () => {
    w = await createWitnessCore();
    const status = await w.t.host.gateway.startHttp(0);
    port = Number(new URL(status.http.url!).port);
    hostToken = readFileSync(join(w.t.dataDir, GATEWAY_TOKEN_FILE), 'utf8').trim();
  });
  afterAll(async () => {
    await w?.t.host.gateway.stopHttp();
    await w?.close();
  });

  it('listens on 127.0.0.1 only, as the kernel sees it', () => {
    const listening = kernelSockets(port).filter((row) => row.side === 'server' && row.state === '0A');
    expect(listening.map((row) => row.local)).toEqual([loopbackHex(port)]);
  });

  it('returns a call the policy denies as an error result; nothing reaches the server', async () => {
    const client = new Client({ name: 'http-real-core', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hostToken}` } } });
    await client.connect(transport);
    const denied = await client.callTool({ name: 'witness__wipe', arguments: { n: 1 } });
    expect(denied.isError).toBe(true);
    expect(JSON.stringify(denied.content)).toMatch(/Airlock denied this call/);
    expect(w.arrivals()).toEqual([]);
    await transport.terminateSession();
    await client.close();
  });

  it('a tools/call on a live session without the right token is refused with 401 and reaches nothing; with it, it runs once approved', async () => {
    const opened = await raw({ port, headers: headers(), body: INITIALIZE });
    expect(opened.status).toBe(200);
    const session = opened.headers['mcp-session-id'] as string;
    const initialized = await raw({ port, headers: { ...headers(), 'Mcp-Session-Id': session }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    expect(initialized.status).toBe(202);
    w.t.ask.available = true;
    for (const authorization of [undefined, `Bearer ${generateGatewayToken()}`, `Basic ${hostToken}`, 'Bearer ']) {
      const bad: Record<string, string> = { ...headers(), 'Mcp-Session-Id': session };
      if (authorization === undefined) delete bad.Authorization;
      else bad.Authorization = authorization;
      const refused = await raw({ port, headers: bad, body: toolsCall(2, 1) });
      expect(refused.status).toBe(401);
    }
    expect(w.t.host.approvals.pending()).toEqual([]);
    expect(w.arrivals()).toEqual([]);
    // Control: the same request with the token runs (once a person approves it).
    const good = raw({ port, headers: { ...headers(), 'Mcp-Session-Id': session }, body: toolsCall(3, 2) });
    await w.answerNext('allow-once');
    const response = await good;
    expect(response.status).toBe(200);
    expect(response.body).toContain('write done');
    expect(w.arrivals().map((arrival) => arrival.arguments)).toEqual([{ n: 2 }]);
  });
});
