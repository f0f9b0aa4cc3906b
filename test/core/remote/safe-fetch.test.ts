/**
 * The fetch every remote connection uses, against a real HTTP server on
 * 127.0.0.1: the SDK's transport hands the same signal (one for the whole
 * connection) to every request, and nothing may pile up on it request after
 * request — while aborting it still stops a request in flight.
 */
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createSafeFetch } from '../../../electron/core/remote/safe-fetch';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(handler);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  closers.push(() => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
}

describe('the remote connections’ fetch', () => {
  it('leaves nothing attached to a connection-wide signal, however many requests use it', async () => {
    const url = await serve((req, res) => {
      req.resume();
      req.on('end', () => res.end('{"ok":true}'));
    });
    const safe = createSafeFetch({ zone: 'loopback' });
    closers.push(() => safe.close());
    const connection = new AbortController();
    for (let i = 0; i < 300; i++) expect(await (await safe.fetch(url, { method: 'POST', body: '{}', signal: connection.signal })).json()).toEqual({ ok: true });
    expect(getEventListeners(connection.signal, 'abort').length).toBe(0);
  });

  it('still stops a request in flight when the connection’s signal is aborted', async () => {
    const url = await serve(() => {
      // never answers
    });
    const safe = createSafeFetch({ zone: 'loopback' });
    closers.push(() => safe.close());
    const connection = new AbortController();
    const pending = safe.fetch(url, { method: 'POST', body: '{}', signal: connection.signal });
    setTimeout(() => connection.abort(new Error('closed by the test')), 50);
    await expect(pending).rejects.toThrow();
  });
});
