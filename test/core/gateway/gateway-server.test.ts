/**
 * The gateway's MCP facade, reached by the SDK's own Client through the
 * SDK's in-memory transport pair: the protocol logic, without sockets.
 * Relaying (names, progress, cancellation, list_changed) is checked against
 * a direct core (real SDK clients to a real server-everything process);
 * what must never reach a server is checked against the real core — the
 * host's pipeline, policy and confirmations — and counted at a real
 * fixture server in the sandbox, not in a test double.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientLabel, createGatewayServer, type GatewayServerOptions } from '../../../electron/core/gateway/gateway-server';
import { buildGatewayListing, gatewayToolName, parseGatewayToolName, screenToolAddress } from '../../../electron/core/gateway/tool-names';
import { gatewayResourceUri, parseGatewayResourceUri } from '../../../electron/core/gateway/catalog-names';
import type { GatewayCore } from '../../../electron/core/gateway/gateway-core';
import { DirectCore, everythingServer, memoryServer } from './support/direct-core';
import { createWitnessCore, type WitnessCore } from './support/witness-core';
import { loadMcpTypes } from '../../../electron/core/mcp-types';

// The gateway's listing checks definitions with the SDK's schema, loaded first (as the gateway does).
await loadMcpTypes();

const logs: string[] = [];
let core: DirectCore;

async function connect(options: GatewayServerOptions = {}, clientInfo = { name: 'test-client', title: 'Test Client', version: '1.0.0' }, over: GatewayCore = core) {
  const server = createGatewayServer(over, { log: (m) => logs.push(m), ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(clientInfo);
  await client.connect(clientSide);
  return { server, client };
}

beforeAll(async () => {
  core = new DirectCore();
  await core.addServer('everything', everythingServer());
});

afterAll(async () => {
  await core?.close();
});

describe('tools/list', () => {
  it('offers every tool as server__tool with its title, annotations and schemas unchanged', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const direct = core.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(direct.map((t) => `everything__${t.definition.name}`).sort());
    const echo = tools.find((t) => t.name === 'everything__echo') as Tool;
    const original = direct.find((t) => t.definition.name === 'echo')!.definition;
    expect(echo.title).toBe(original.title);
    expect(echo.description).toBe(original.description);
    expect(echo.inputSchema).toEqual(original.inputSchema);
    expect(echo.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(tools.some((t) => t.name === 'everything__trigger-long-running-operation')).toBe(true);
    await client.close();
  });
});

describe('what must never reach a server, counted at a real server behind the real core', () => {
  let w: WitnessCore;
  beforeAll(async () => {
    w = await createWitnessCore();
  });
  afterAll(() => w?.close());

  it('offers only the servers it was started for, and refuses the others’ tools as unknown: nothing reaches them', async () => {
    const { client } = await connect({ servers: ['elsewhere'] }, undefined, w.core);
    expect((await client.listTools()).tools).toEqual([]);
    const error = await client.callTool({ name: 'witness__read', arguments: { n: 1 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect(w.arrivals()).toEqual([]);
    // Control: the same call on a session for that server is offered (and asks, as the policy says).
    const { client: all } = await connect({}, undefined, w.core);
    expect((await all.listTools()).tools.map((tool) => tool.name)).toContain('witness__read');
    await client.close();
    await all.close();
  });

  it('returns a call the policy denies (a deny rule) as an error result with the reason; the server is never called', async () => {
    const { client } = await connect({}, undefined, w.core);
    const result = await client.callTool({ name: 'witness__wipe', arguments: { n: 1 } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/Airlock denied this call/);
    expect(w.arrivals()).toEqual([]);
    const [record] = await w.t.host.audit.read({ server: 'witness', tool: 'wipe', limit: 1 });
    expect(record!.decision).toMatchObject({ final: 'deny', decidedBy: 'rule', caller: { kind: 'client', name: 'Test Client' } });
    await client.close();
  });

  it('returns “a confirmation was needed” as an error result when nobody can answer, denied ones likewise; runs once when a person approves', async () => {
    const { client } = await connect({}, undefined, w.core);
    w.t.ask.available = false;
    const refused = await client.callTool({ name: 'witness__write', arguments: { n: 1 } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("needs a person's confirmation");
    w.t.ask.available = true;
    const denied = client.callTool({ name: 'witness__write', arguments: { n: 2 } });
    await w.answerNext('deny');
    expect((await denied).isError).toBe(true);
    expect(w.arrivals()).toEqual([]);
    const allowed = client.callTool({ name: 'witness__write', arguments: { n: 3 } });
    await w.answerNext('allow-once');
    const result = await allowed;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'write done' }]);
    expect(w.arrivals().map((arrival) => arrival.arguments)).toEqual([{ n: 3 }]);
    await client.close();
  });
});

describe('tools/call', () => {
  it('calls through the core as the client, named from its clientInfo', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'hello gateway' } });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: hello gateway' }]);
    const request = core.requests.at(-1)!;
    expect(request).toMatchObject({ server: 'everything', tool: 'echo', arguments: { message: 'hello gateway' } });
    expect(request.caller).toEqual({ kind: 'client', name: 'Test Client' });
    await client.close();
  });

  it('names the caller from the configured label first', async () => {
    const { client } = await connect({ clientName: 'Claude Desktop' }, { name: 'claude-ai', title: '', version: '0.1.0' } as never);
    await client.callTool({ name: 'everything__echo', arguments: { message: 'label' } });
    expect(core.requests.at(-1)!.caller).toEqual({ kind: 'client', name: 'Claude Desktop' });
    await client.close();
  });

  it('keeps internal faults out of the agent’s context', async () => {
    const broken = { listTools: () => core.listTools(), onDidChangeTools: () => ({ dispose() {} }), callTool: async () => { throw new Error('secret path /home/x/.ssh'); } };
    const server = createGatewayServer(broken, { log: (m) => logs.push(m) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(clientSide);
    const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'x' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).not.toContain('.ssh');
    expect(logs.some((line) => line.includes('secret path'))).toBe(true);
    await client.close();
  });

  it('relays progress from the server to the client', async () => {
    const { client } = await connect();
    const progress: { progress: number; total?: number }[] = [];
    const result = await client.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 1.5, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(result.isError).toBeFalsy();
    // Progress is best-effort: the last notification may race the response.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]).toMatchObject({ progress: 1, total: 3 });
    expect(core.requests.at(-1)!.onProgress).toBeTypeOf('function');
    await client.close();
  });

  it('relays cancellation: the client aborts, the core’s signal aborts', async () => {
    const { client } = await connect();
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 5, steps: 50 } },
      undefined,
      { signal: controller.signal, onprogress: () => controller.abort('user cancelled') },
    );
    await expect(call).rejects.toThrow();
    const request = core.requests.at(-1)!;
    expect(request.tool).toBe('trigger-long-running-operation');
    await expect.poll(() => request.signal?.aborted).toBe(true);
    await client.close();
  });
});

describe('tools/list_changed', () => {
  it('tells the client when the core’s tools change, and lists the new ones', async () => {
    const { client, server } = await connect();
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      notified += 1;
    });
    const before = core.listenerCount();
    await core.addServer('memory', memoryServer());
    await expect.poll(() => notified).toBeGreaterThanOrEqual(1);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('memory__create_entities');
    expect(names).toContain('everything__echo');
    await client.close();
    await server.close();
    // The closed session stopped listening.
    expect(core.listenerCount()).toBe(before - 1);
  });
});

describe('tool names', () => {
  it.each([
    ['everything', 'echo', 'everything__echo'],
    ['fs', 'read_text_file', 'fs__read_text_file'],
    ['my-server', '_private', 'my-server___private'],
    ['a.b', 'x.y-z', 'a.b__x.y-z'],
  ])('%s + %s → %s and back', (server, tool, name) => {
    expect(gatewayToolName(server, tool)).toEqual({ ok: true, name });
    expect(parseGatewayToolName(name)).toEqual({ server, tool });
  });

  it.each([
    ['my_server', 'echo', 'server name'],
    ['srv', 'has space', 'not a valid MCP tool name'],
    ['srv', 'ünïcode', 'not a valid MCP tool name'],
    ['srv', '', 'not a valid MCP tool name'],
    ['s'.repeat(60), 't'.repeat(70), 'longer than the 128'],
  ])('refuses %s + %s (%s)', (server, tool, reason) => {
    const result = gatewayToolName(server, tool);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(reason);
  });

  it('is reversible and collision-free for every name it accepts', () => {
    const serverName = fc.stringMatching(/^[A-Za-z0-9.-]{1,20}$/);
    const toolName = fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/);
    fc.assert(
      fc.property(serverName, toolName, serverName, toolName, (s1, t1, s2, t2) => {
        const a = gatewayToolName(s1, t1);
        const b = gatewayToolName(s2, t2);
        if (!a.ok || !b.ok) return;
        expect(parseGatewayToolName(a.name)).toEqual({ server: s1, tool: t1 });
        if (s1 !== s2 || t1 !== t2) expect(a.name).not.toBe(b.name);
      }),
    );
  });

  it('skips and reports what it cannot offer, never renames', () => {
    const schema = { type: 'object' };
    const listing = buildGatewayListing([
      { server: 'ok', definition: { name: 'a', inputSchema: schema } },
      { server: 'ok', definition: { name: 'a', inputSchema: schema } },
      { server: 'bad_name', definition: { name: 'a', inputSchema: schema } },
      { server: 'ok', definition: { name: 'no schema type', inputSchema: {} } },
      { server: 'ok', definition: { name: 'b', inputSchema: { type: 'string' } } },
      { server: 'ok', definition: { name: 'c', inputSchema: schema, _meta: { x: 1 }, icons: [{ src: 'https://evil.example/i.png' }] } },
    ]);
    expect(listing.tools.map((t) => t.name)).toEqual(['ok__a', 'ok__c']);
    // Its _meta goes along (a screen, another extension's data); its icons (remote URLs) stay behind.
    expect(listing.tools[1]).toEqual({ name: 'ok__c', inputSchema: schema, _meta: { x: 1 } });
    expect(listing.skipped.map((s) => `${s.server}/${s.tool}`)).toEqual(['ok/a', 'bad_name/a', 'ok/no schema type', 'ok/b']);
  });

  it('names a server’s screens ui://airlock/SERVER/… (a host takes only ui:// screens), reversibly', () => {
    expect(gatewayResourceUri('apps', 'ui://get-time/mcp-app.html')).toBe('ui://airlock/apps/get-time/mcp-app.html');
    expect(parseGatewayResourceUri('ui://airlock/apps/get-time/mcp-app.html')).toEqual({ server: 'apps', uri: 'ui://get-time/mcp-app.html' });
    expect(parseGatewayResourceUri(gatewayResourceUri('apps', 'demo://x')!)).toEqual({ server: 'apps', uri: 'demo://x' });
    expect(parseGatewayResourceUri('ui://airlock/')).toBeUndefined();
    expect(parseGatewayResourceUri('ui://airlock/bad_name/x')).toBeUndefined();
    expect(parseGatewayResourceUri('ui://other/x')).toBeUndefined();
  });

  it('renames the screen a tool names (MCP Apps) as the session names resources, and nothing else in _meta', () => {
    const schema = { type: 'object' };
    const meta = { ui: { resourceUri: 'ui://app/screen.html', visibility: ['app'], csp: { connectDomains: ['https://a.example'] } }, 'ui/resourceUri': 'ui://app/screen.html', other: { kept: true } };
    const namespaced = buildGatewayListing([{ server: 'apps', definition: { name: 'show', inputSchema: schema, _meta: meta } }], undefined, (server, uri) => `airlock://${server}/${uri}`);
    expect(namespaced.tools[0]!._meta).toEqual({
      ui: { resourceUri: 'airlock://apps/ui://app/screen.html', visibility: ['app'], csp: { connectDomains: ['https://a.example'] } },
      'ui/resourceUri': 'airlock://apps/ui://app/screen.html',
      other: { kept: true },
    });
    // The server's own object is not changed (the core's copy stays as the server sent it).
    expect(meta.ui.resourceUri).toBe('ui://app/screen.html');
    const transparent = buildGatewayListing([{ server: 'apps', definition: { name: 'show', inputSchema: schema, _meta: meta } }], (_server, tool) => ({ ok: true, name: tool }));
    expect(transparent.tools[0]!._meta).toEqual(meta);
  });

  it('offers a client that shows no screens no screen-only tool, and names no screen in the rest', () => {
    const schema = { type: 'object' };
    const tools = [
      { server: 'apps', definition: { name: 'show', inputSchema: schema, _meta: { ui: { resourceUri: 'ui://app/s.html' }, other: 1 } } },
      { server: 'apps', definition: { name: 'app-only', inputSchema: schema, _meta: { ui: { resourceUri: 'ui://app/s.html', visibility: ['app'] } } } },
      { server: 'apps', definition: { name: 'flat', inputSchema: schema, _meta: { 'ui/resourceUri': 'ui://app/s.html' } } },
      { server: 'apps', definition: { name: 'both', inputSchema: schema, _meta: { ui: { visibility: ['model', 'app'] } } } },
    ];
    const plain = buildGatewayListing(tools, undefined, undefined, { screens: false });
    expect(plain.tools).toEqual([
      { name: 'apps__show', inputSchema: schema, _meta: { other: 1 } },
      { name: 'apps__flat', inputSchema: schema },
      { name: 'apps__both', inputSchema: schema },
    ]);
    expect(plain.addresses.has('apps__app-only')).toBe(false);
    expect(buildGatewayListing(tools).tools.map((tool) => tool.name)).toEqual(['apps__show', 'apps__app-only', 'apps__flat', 'apps__both']);
  });

  it.each([
    ['a tool of the one server whose screen was read', 'count', ['a'], { address: { server: 'a', tool: 'count' } }],
    ['a tool only a server whose screen was not read offers', 'only-c', ['a', 'b'], { unknown: true }],
    ['no screen read at all', 'count', [], { unknown: true }],
    ['a model-only tool', 'model-only', ['a'], { unknown: true }],
    ['an app-only tool', 'app-only', ['a'], { address: { server: 'a', tool: 'app-only' } }],
    ['two servers whose screens were read offer it', 'count', ['a', 'b'], { ambiguous: ['a', 'b'] }],
    ['only one of the read servers offers it', 'only-b', ['a', 'b'], { address: { server: 'b', tool: 'only-b' } }],
    ['a gateway name is not a bare name', 'a__count', ['a'], { unknown: true }],
  ] as const)('a screen’s bare tool name: %s', (_case, name, read, expected) => {
    const schema = { type: 'object' };
    const tool = (server: string, toolName: string, visibility?: string[]) => ({ server, definition: { name: toolName, inputSchema: schema, ...(visibility ? { _meta: { ui: { visibility } } } : {}) } });
    const listing = buildGatewayListing([
      tool('a', 'count'),
      tool('a', 'model-only', ['model']),
      tool('a', 'app-only', ['app']),
      tool('b', 'count', ['app']),
      tool('b', 'only-b'),
      tool('c', 'only-c'),
    ]);
    expect(screenToolAddress(listing, name, new Set(read))).toEqual(expected);
  });

  it('cleans client labels shown in confirmations', () => {
    expect(clientLabel(undefined, { name: 'cursor', version: '1' })).toBe('cursor');
    expect(clientLabel(undefined, { name: 'x', title: 'Good\u202Egnp.exe\u0000 App', version: '1' })).toBe('Goodgnp.exe App');
    expect(clientLabel('  ', { name: '\u200B', version: '1' })).toBe('An MCP client');
    expect(clientLabel('a'.repeat(300), undefined)).toHaveLength(100);
  });
});

describe('malformed params of a known request', () => {
  /** Sends raw JSON-RPC (what a careless app writes) and returns the answer to `id`. */
  async function raw(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    const server = createGatewayServer(core, { log: (m) => logs.push(m) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const answer = new Promise<Record<string, unknown>>((resolve) => {
      clientSide.onmessage = (reply) => {
        if ('id' in reply && reply.id === message.id) resolve(reply as unknown as Record<string, unknown>);
      };
    });
    await clientSide.start();
    await clientSide.send({ jsonrpc: '2.0', ...message } as never);
    const reply = await answer;
    await server.close();
    return reply;
  }

  it('are answered as Invalid params naming the field — not as an internal error — and reach nothing', async () => {
    const before = core.requests.length;
    const call = await raw({ id: 1, method: 'tools/call', params: { name: 'everything__echo', arguments: null } });
    expect(call.error).toEqual({ code: ErrorCode.InvalidParams, message: 'Invalid params for tools/call: params.arguments: Invalid input: expected record, received null' });
    expect(core.requests.length).toBe(before);

    const list = await raw({ id: 2, method: 'tools/list', params: { cursor: [1] } });
    expect(list.error).toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringMatching(/^Invalid params for tools\/list: params\.cursor: /) });
    const init = await raw({ id: 3, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: [], clientInfo: null } });
    expect(init.error).toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('params.capabilities') });
  });

  it('refuses a call asked to run as a task (the gateway offers none), naming why, and reaches nothing', async () => {
    const before = core.requests.length;
    const call = await raw({ id: 6, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'hi' }, task: { ttl: 1000 } } });
    expect(call.error).toMatchObject({ message: expect.stringMatching(/does not support task creation/) });
    expect(core.requests.length).toBe(before);
    // Control: the same call without `task` is relayed, its result as the server gave it.
    const plain = await raw({ id: 7, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'hi' } } });
    expect(plain.result).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });
    expect(core.requests.length).toBe(before + 1);
  });

  it('leaves well-formed requests and unknown methods as they were', async () => {
    expect((await raw({ id: 4, method: 'ping' })).result).toEqual({});
    expect((await raw({ id: 5, method: 'tools/delete', params: {} })).error).toMatchObject({ code: ErrorCode.MethodNotFound });
  });
});
