/**
 * The HTTP gateway on a real loopback socket: the SDK's own Streamable HTTP
 * client with the bearer token, and raw requests for everything it refuses.
 */
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateGatewayToken } from '../../../electron/core/gateway/gateway-token';
import { startHttpGateway, type HttpGateway } from '../../../electron/core/gateway/http-gateway';
import { DirectCore, everythingServer } from './support/direct-core';

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
function raw(options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer }) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: gateway.port, method: options.method ?? 'POST', path: options.path ?? '/mcp', headers: options.headers },
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
  core = new DirectCore({ deny: new Set(['everything/get-env']) });
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

  it('serves the SDK client with the token: lists namespaced tools, calls one, refuses a denied one', async () => {
    const { client, transport } = sdkClient();
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('everything__echo');
    const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'over http' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: over http' }]);
    expect(core.requests.at(-1)!.caller).toEqual({ kind: 'client', name: 'HTTP Test Client' });
    const denied = await client.callTool({ name: 'everything__get-env', arguments: {} });
    expect(denied.isError).toBe(true);
    expect(core.forwarded.get('everything/get-env') ?? 0).toBe(0);
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
    const before = core.requests.length;
    const response = await raw({ headers, body: INITIALIZE });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(core.requests.length).toBe(before);
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
