/**
 * The HTTP gateway's own Streamable HTTP transport (http-session-transport.ts),
 * on a real loopback socket with a real server behind a real core: what a
 * client sees on the wire (one write for a quick answer, headers and
 * keep-alive for a slow one, progress before the answer, a batch answered on
 * one stream), the session surviving a client that went away mid-call, and
 * the same refusals as the SDK's transport, status, code and words.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateGatewayToken } from '../../../electron/core/gateway/gateway-token';
import { startHttpGateway, type HttpGateway } from '../../../electron/core/gateway/http-gateway';
import { DirectCore, everythingServer } from './support/direct-core';

let core: DirectCore;
let gateway: HttpGateway;
const logged: string[] = [];
const token = generateGatewayToken();
const KEEP_ALIVE_MS = 150;

beforeAll(async () => {
  core = new DirectCore();
  await core.addServer('everything', everythingServer());
  gateway = await startHttpGateway(core, { port: 0, token, log: (message) => logged.push(message), streams: { headersWithinMs: 50, keepAliveMs: KEEP_ALIVE_MS } });
});

afterAll(async () => {
  await gateway?.close();
  await core?.close();
});

const headers = (extra: Record<string, string> = {}) => ({
  Host: `127.0.0.1:${gateway.port}`,
  Authorization: `Bearer ${token}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  ...extra,
});

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** One raw request: `headers` settles when the response's headers arrive (the request is then under way), `answer` at its end. */
function open(options: { method?: string; headers?: Record<string, string>; body?: unknown }): { headers: Promise<void>; answer: Promise<Answer> } {
  let headersArrived!: () => void;
  const headersPromise = new Promise<void>((resolve) => (headersArrived = resolve));
  const answer = new Promise<Answer>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: gateway.port, method: options.method ?? 'POST', path: '/mcp', headers: options.headers ?? headers() }, (res) => {
      headersArrived();
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
  });
  return { headers: headersPromise, answer };
}

/** One raw request, read to its end. */
const send = (options: Parameters<typeof open>[0]): Promise<Answer> => open(options).answer;

/** A `tools/call` of the long-running tool (its headers come within the 50 ms the gateway was given, well before its answer). */
const longCall = (id: number, duration: number, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'everything__trigger-long-running-operation', arguments: { duration, steps: 1 }, ...extra },
});

/** The JSON-RPC messages of an SSE body, in order. */
const events = (body: string) =>
  body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { id?: number; result?: { content?: { text?: string }[] }; method?: string; error?: { code: number; message: string } });

/** A fresh session over raw HTTP: its id, after `initialize` and `notifications/initialized`. */
async function session(): Promise<string> {
  const init = await send({
    body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
  });
  expect(init.status).toBe(200);
  const id = init.headers['mcp-session-id'] as string;
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  const initialized = await send({ headers: headers({ 'Mcp-Session-Id': id }), body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  expect(initialized.status).toBe(202);
  expect(initialized.body).toBe('');
  expect(initialized.headers['content-length']).toBe('0');
  return id;
}

const echo = (id: number, message: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'everything__echo', arguments: { message } } });

describe('the HTTP gateway’s streams, on the wire', () => {
  it('answers a quick call in one response: its headers, one event, the end — with a length, not chunks', async () => {
    const id = await session();
    const answer = await send({ headers: headers({ 'Mcp-Session-Id': id }), body: echo(1, 'hello') });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(answer.headers['mcp-session-id']).toBe(id);
    expect(answer.headers['cache-control']).toBe('no-cache, no-transform');
    // Written whole, in one go: Node gives a length only to a body it had entire before the headers left.
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
    expect(answer.headers['transfer-encoding']).toBeUndefined();
    expect(answer.body).toMatch(/^event: message\ndata: .*\n\n$/);
    expect(events(answer.body)).toEqual([expect.objectContaining({ id: 1, result: expect.objectContaining({ content: [expect.objectContaining({ text: 'Echo: hello' })] }) })]);
  });

  it('sends a slow call’s headers at once, then a keep-alive comment while it runs, then the answer', async () => {
    const id = await session();
    const answer = await send({
      headers: headers({ 'Mcp-Session-Id': id }),
      body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'everything__trigger-long-running-operation', arguments: { duration: 1, steps: 1 } } },
    });
    expect(answer.status).toBe(200);
    // No client waits for headers as long as the call runs (some give up waiting for them): the
    // headers went before the answer (a chunked stream), and keep-alive comments came before it too.
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(answer.body.indexOf(': keepalive\n\n')).toBeGreaterThanOrEqual(0);
    expect(answer.body.indexOf(': keepalive\n\n')).toBeLessThan(answer.body.indexOf('data: '));
    const messages = events(answer.body);
    expect(messages.at(-1)).toMatchObject({ id: 2, result: expect.any(Object) });
  });

  it('carries progress before the answer on the call’s own stream (the SDK client)', async () => {
    const client = new Client({ name: 'progress-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const seen: string[] = [];
    const result = await client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } }, undefined, {
      onprogress: (progress) => seen.push(`progress ${progress.progress}/${progress.total}`),
    });
    seen.push('answer');
    expect(result.isError).toBeFalsy();
    expect(seen.slice(0, 2)).toEqual(['progress 1/3', 'progress 2/3']);
    expect(seen.at(-1)).toBe('answer');
    await client.close();
  });

  it('answers a batch of two calls on one stream, which ends after both', async () => {
    const id = await session();
    const answer = await send({ headers: headers({ 'Mcp-Session-Id': id }), body: [echo(3, 'one'), echo(4, 'two')] });
    expect(answer.status).toBe(200);
    const messages = events(answer.body);
    expect(messages.map((message) => message.id).sort()).toEqual([3, 4]);
    expect(messages.map((message) => message.result?.content?.[0]?.text).sort()).toEqual(['Echo: one', 'Echo: two']);
  });

  it('keeps the session when a client goes away mid-call: its progress and answer are let go, the next call is answered, nothing is logged', async () => {
    logged.length = 0;
    const id = await session();
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: gateway.port, method: 'POST', path: '/mcp', headers: headers({ 'Mcp-Session-Id': id }) }, (res) => {
        // Headers came (the call is under way): hang up before the answer.
        res.destroy();
        resolve();
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.4, steps: 4 }, _meta: { progressToken: 'p' } } }));
    });
    // Past the abandoned call's end: its answer came and had nowhere to go.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const next = await send({ headers: headers({ 'Mcp-Session-Id': id }), body: echo(6, 'still here') });
    expect(events(next.body)).toEqual([expect.objectContaining({ id: 6 })]);
    expect(logged).toEqual([]);
  });

  it('ends a cancelled call’s stream at once (MCP: a cancelled request gets no answer), and the session goes on', async () => {
    logged.length = 0;
    const id = await session();
    const slow = open({ headers: headers({ 'Mcp-Session-Id': id }), body: longCall(40, 3) });
    await slow.headers;
    const cancelled = await send({ headers: headers({ 'Mcp-Session-Id': id }), body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 40, reason: 'the client gave up' } } });
    expect(cancelled.status).toBe(202);
    // Ends at all: without the cancellation taken into account, the stream waits for good for an answer MCP never sends.
    const ended = await slow.answer;
    expect(events(ended.body)).toEqual([]);
    expect(events((await send({ headers: headers({ 'Mcp-Session-Id': id }), body: echo(41, 'after') })).body)).toEqual([expect.objectContaining({ id: 41 })]);
    // The client's own cancellation is not logged as a failure of Airlock's.
    expect(logged).toEqual([]);
  });

  it('refuses a request id already in use in the session, or twice in one batch — the first call is still answered', async () => {
    const id = await session();
    const first = open({ headers: headers({ 'Mcp-Session-Id': id }), body: longCall(50, 0.5) });
    await first.headers;
    const again = await send({ headers: headers({ 'Mcp-Session-Id': id }), body: echo(50, 'same id') });
    expect(again.status).toBe(400);
    expect(JSON.parse(again.body)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: the request id 50 is already in use in this session' }, id: null });
    const twice = await send({ headers: headers({ 'Mcp-Session-Id': id }), body: [echo(51, 'a'), echo(51, 'b')] });
    expect(twice.status).toBe(400);
    expect(events((await first.answer).body).at(-1)).toMatchObject({ id: 50, result: expect.any(Object) });
  });

  it('tells a call still running that its session closed (DELETE), rather than leaving it waiting', async () => {
    const id = await session();
    const running = open({ headers: headers({ 'Mcp-Session-Id': id }), body: longCall(60, 2) });
    await running.headers;
    expect((await send({ method: 'DELETE', headers: headers({ 'Mcp-Session-Id': id }) })).status).toBe(200);
    const answer = await running.answer;
    expect(events(answer.body)).toEqual([{ jsonrpc: '2.0', id: 60, error: { code: -32000, message: 'The session was closed before this request was answered.' } }]);
  });

  it('opens one GET stream per session: its headers at once, a second is refused with 409', async () => {
    const id = await session();
    const opened = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: gateway.port, method: 'GET', path: '/mcp', headers: { ...headers({ 'Mcp-Session-Id': id }), Accept: 'text/event-stream' } },
        resolve,
      );
      req.on('error', reject);
      req.end();
    });
    expect(opened.statusCode).toBe(200);
    expect(opened.headers['content-type']).toBe('text/event-stream');
    const second = await send({ method: 'GET', headers: { ...headers({ 'Mcp-Session-Id': id }), Accept: 'text/event-stream' } });
    expect(second.status).toBe(409);
    expect(JSON.parse(second.body)).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Conflict: Only one SSE stream is allowed per session' }, id: null });
    opened.destroy();
  });
});

describe('what the HTTP gateway’s transport refuses (as the SDK’s does: status, code, words)', () => {
  let id: string;
  beforeAll(async () => {
    id = await session();
  });

  const refusals: [string, () => Parameters<typeof send>[0], number, number, string | RegExp][] = [
    ['a POST that does not accept an event stream', () => ({ headers: headers({ 'Mcp-Session-Id': id, Accept: 'application/json' }), body: echo(10, 'x') }), 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream'],
    ['a body that is not JSON by its type', () => ({ headers: headers({ 'Mcp-Session-Id': id, 'Content-Type': 'text/plain' }), body: echo(11, 'x') }), 415, -32000, 'Unsupported Media Type: Content-Type must be application/json'],
    ['a batch of more than 100', () => ({ headers: headers({ 'Mcp-Session-Id': id }), body: Array.from({ length: 101 }, (_, i) => echo(100 + i, 'x')) }), 400, -32600, 'Invalid Request: Batch must not exceed 100 messages'],
    ['JSON that is not JSON-RPC', () => ({ headers: headers({ 'Mcp-Session-Id': id }), body: { jsonrpc: '1.0', id: 12, method: 'tools/list' } }), 400, -32700, 'Parse error: Invalid JSON-RPC message'],
    ['an unknown protocol version', () => ({ headers: headers({ 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': '1999-01-01' }), body: echo(13, 'x') }), 400, -32000, /^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: /],
    [
      'a second initialize on the session',
      () => ({
        headers: headers({ 'Mcp-Session-Id': id }),
        body: { jsonrpc: '2.0', id: 14, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
      }),
      400,
      -32600,
      'Invalid Request: Server already initialized',
    ],
    ['a GET that does not accept an event stream', () => ({ method: 'GET', headers: headers({ 'Mcp-Session-Id': id, Accept: 'application/json' }) }), 406, -32000, 'Not Acceptable: Client must accept text/event-stream'],
  ];

  it.each(refusals)('refuses %s', async (_what, request, status, code, message) => {
    const answer = await send(request());
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
    const body = JSON.parse(answer.body) as { error: { code: number; message: string }; id: null };
    expect(body.id).toBeNull();
    expect(body.error.code).toBe(code);
    expect(body.error.message).toMatch(message);
    // The session is unharmed by what it refused.
    expect(events((await send({ headers: headers({ 'Mcp-Session-Id': id }), body: echo(20, 'ok') })).body)).toEqual([expect.objectContaining({ id: 20 })]);
  });

  it('refuses a body past the limit with 413 as it streams in, with no length declared', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: gateway.port, method: 'POST', path: '/mcp', headers: headers({ 'Mcp-Session-Id': id, 'Transfer-Encoding': 'chunked' }) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', () => undefined);
      req.on('close', () => undefined);
      // 1 MiB is the limit: 18 chunks of 64 KiB pass it part-way.
      for (let i = 0; i < 18; i += 1) req.write(Buffer.alloc(64 * 1024, 0x20));
      req.end();
      setTimeout(() => reject(new Error('no answer')), 10_000).unref();
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.message).toBe('Request body larger than 1048576 bytes');
  });

  it('ends a session on DELETE: 200, then the session is gone (404)', async () => {
    const ending = await session();
    const before = gateway.sessionCount();
    const deleted = await send({ method: 'DELETE', headers: headers({ 'Mcp-Session-Id': ending }) });
    expect(deleted.status).toBe(200);
    expect(gateway.sessionCount()).toBe(before - 1);
    const after = await send({ headers: headers({ 'Mcp-Session-Id': ending }), body: echo(30, 'x') });
    expect(after.status).toBe(404);
    expect(JSON.parse(after.body)).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
  });
});
