/**
 * A running server that is not contained asks to reach a host it has no
 * grant for: the question names the server, a person answers in the window,
 * and the request goes through only if allowed (counted by the listener).
 * A contained server is never asked about: it has no network at all.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../core/host/host-support';
import { openRendererHost, waitForText, type RendererHost } from './renderer-support';

const ESCAPE = fixture('escape/escape-server.mjs');

describe('network questions', () => {
  let t: RendererHost;
  let canary: Server;
  let hits = 0;
  let url: string;

  beforeAll(async () => {
    canary = createServer((_req, res) => {
      hits += 1;
      res.end('reached');
    });
    await new Promise<void>((ready) => canary.listen(0, '127.0.0.1', ready));
    url = `http://127.0.0.1:${(canary.address() as { port: number }).port}/`;
    t = await openRendererHost();
    const scratch = t.folder('scratch');
    // A write grant: not contained, so it may be asked about.
    await t.add('net', [process.execPath, ESCAPE], { profile: { filesystem: { read: [], write: [scratch], persistentData: false } }, probe: false });
    await t.add('contained', [process.execPath, ESCAPE], { probe: false });
  });
  afterAll(async () => {
    await t?.close();
    canary?.close();
  });

  const fetchVia = (server: string) =>
    t.host.callTool({ server, tool: 'fetch_via_proxy', arguments: { url }, caller: { kind: 'user' } }).then((result) => JSON.parse((result.result?.content[0] as { text: string }).text));

  it('denied in the window: the request never reaches the host', async () => {
    const pending = fetchVia('net');
    const prompt = t.page.getByTestId('network-prompt');
    await waitForText(prompt, new RegExp(`net wants to reach 127\\.0\\.0\\.1:\\d+`));
    await prompt.getByRole('button', { name: 'Deny' }).click();
    expect((await pending).ok).toBe(false);
    expect(hits).toBe(0);
  });

  it('always allowed in the window: the request goes through and the grant is saved', async () => {
    await t.host.restartServer('net'); // a new run: its earlier "no" is forgotten
    const pending = fetchVia('net');
    const prompt = t.page.getByTestId('network-prompt');
    await prompt.waitFor();
    await prompt.getByRole('button', { name: /Always allow for net/ }).click();
    expect(await pending).toMatchObject({ ok: true, body: 'reached' });
    expect(hits).toBe(1);
    expect(t.host.record('net').profile.network.allowedDomains).toEqual([`127.0.0.1:${new URL(url).port}`]);
  });

  it('a contained server is never asked: it has no network path at all', async () => {
    const result = await fetchVia('contained');
    expect(result).toMatchObject({ ok: false, code: 'NO_PROXY' });
    expect(t.host.network.list()).toEqual([]);
    expect(hits).toBe(1);
  });
});
