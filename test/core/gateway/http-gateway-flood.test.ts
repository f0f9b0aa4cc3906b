/**
 * The HTTP gateway's listener against strangers (issue 9.7): connections
 * that never show the token — idle, or dribbling half a request — must not
 * keep a real client out, nor pile up. And the address it listens on, read
 * from the kernel's own table, is loopback only. Everything is checked from
 * outside: a real SDK client, raw TCP sockets, /proc/net/tcp.
 */
import { connect, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateGatewayToken } from '../../../electron/core/gateway/gateway-token';
import { startHttpGateway, type HttpGateway } from '../../../electron/core/gateway/http-gateway';
import { DirectCore, everythingServer } from './support/direct-core';
import { kernelSockets, loopbackHex } from './support/kernel-sockets';

let core: DirectCore;
let gateway: HttpGateway;
const token = generateGatewayToken();
let held: Socket[] = [];

/** Opens `count` raw TCP connections to the gateway and keeps them; `send` is written on each (nothing: idle). */
async function hold(count: number, send = ''): Promise<void> {
  const opened = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve) => {
          const socket = connect({ host: '127.0.0.1', port: gateway.port });
          socket.on('error', () => {});
          socket.once('connect', () => {
            if (send) socket.write(send);
            resolve(socket);
          });
          socket.once('close', () => resolve(socket));
        }),
    ),
  );
  held.push(...opened);
}

async function servedClient(): Promise<string> {
  const client = new Client({ name: 'flood-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  try {
    const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'through the flood' } });
    return JSON.stringify(result.content);
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  core = new DirectCore();
  await core.addServer('everything', everythingServer());
  gateway = await startHttpGateway(core, { port: 0, token, log: () => undefined });
});

afterEach(() => {
  for (const socket of held) socket.destroy();
  held = [];
});

afterAll(async () => {
  await gateway?.close();
  await core?.close();
});

describe('the HTTP gateway’s listener', () => {
  it('is bound to 127.0.0.1 only, as the kernel sees it (not 0.0.0.0, not ::)', () => {
    const listening = kernelSockets(gateway.port).filter((row) => row.side === 'server' && row.state === '0A');
    expect(listening.length).toBe(1);
    expect(listening[0]!.local).toBe(loopbackHex(gateway.port));
  });

  it('serves a real client while 200 idle connections without the token are held, and keeps at most its limit of them', async () => {
    await hold(200);
    expect(await servedClient()).toContain('Echo: through the flood');
    expect(gateway.unauthenticatedCount()).toBeLessThanOrEqual(32);
    // From outside: the server side of the held connections is bounded, the rest were closed.
    await expect
      .poll(() => kernelSockets(gateway.port).filter((row) => row.side === 'server' && row.state === '01').length, { timeout: 10_000 })
      .toBeLessThanOrEqual(40);
    // And it goes on serving while they are still held.
    expect(await servedClient()).toContain('Echo: through the flood');
  });

  it('serves a real client while 200 connections dribble half a request (slowloris)', async () => {
    await hold(200, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${gateway.port}\r\nX-Slow: `);
    expect(await servedClient()).toContain('Echo: through the flood');
    expect(gateway.unauthenticatedCount()).toBeLessThanOrEqual(32);
  });

  it('closes a connection that shows no token and stays silent (within a generous bound)', async () => {
    await hold(1);
    const [socket] = held;
    await expect.poll(() => socket!.destroyed || socket!.readableEnded, { timeout: 30_000, interval: 200 }).toBe(true);
  });
});
