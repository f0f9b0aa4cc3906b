// A server whose certificate the system does not accept (self-signed): refused at the TLS handshake
// with a plain message, before any request reaches it; with its certificate made trusted, the same
// server is reached — so the refusal was the certificate. Certificate: test/fixtures/remote (test only).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelError } from '../../../electron/core/servers/connection-channel';
import { createRemoteConnector } from '../../../electron/core/remote/remote-connector';
import { MemoryVault } from '../../../electron/core/remote/oauth-vault';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/remote');
const cert = readFileSync(join(FIXTURES, 'self-signed-cert.pem'), 'utf8');
const key = readFileSync(join(FIXTURES, 'self-signed-key.pem'), 'utf8');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function httpsServer() {
  let requests = 0;
  const server = createServer({ cert, key }, (_req, res) => {
    requests += 1;
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>not MCP</p>');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  cleanups.push(() => new Promise<void>((done) => server.close(() => done())));
  return { url: `https://127.0.0.1:${(server.address() as { port: number }).port}/mcp`, requests: () => requests };
}

async function openError(url: string, ca?: string): Promise<unknown> {
  const link = createRemoteConnector({ label: 'tls', spec: { url, transport: 'streamable-http', headers: [] }, secrets: () => ({}), vault: new MemoryVault(), ...(ca ? { ca } : {}) });
  cleanups.push(() => link.close());
  return link.open({ initializeTimeoutMs: 5000 }, new AbortController().signal).then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

describe('TLS', () => {
  it('refuses a certificate the system does not accept, plainly, before any request reaches the server', async () => {
    const server = await httpsServer();
    const error = await openError(server.url);
    expect(error).toBeInstanceOf(ChannelError);
    expect(error).toMatchObject({ kind: 'tls', serverMayHaveActed: false });
    expect((error as Error).message).toMatch(/127\.0\.0\.1:\d+’s secure connection \(TLS\) was not accepted: .*Airlock did not send anything/);
    expect(server.requests()).toBe(0);

    // The same server with its certificate trusted is reached (and then refused for answering a web page).
    const trusted = await openError(server.url, cert);
    expect(trusted).toMatchObject({ kind: 'protocol' });
    expect(server.requests()).toBeGreaterThan(0);
  });
});
