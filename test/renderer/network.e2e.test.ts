/**
 * A running server that is not contained asks to reach a host it has no
 * grant for: the question names the server, a person answers in the window,
 * and the request goes through only if allowed (counted by the listener).
 * A contained server is never asked about: it has no network at all.
 * When one question takes another's place, a click aimed at the one before
 * answers nothing (the same swap pause as every dialog, dialog-guard).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../core/host/host-support';
import { openRendererHost, waitForText, type RendererHost } from './renderer-support';

const ESCAPE = fixture('escape/escape-server.mjs');

/** A listener that counts the requests reaching it. */
async function canaryAt(): Promise<{ server: Server; url: string; hits: () => number }> {
  let count = 0;
  const server = createServer((_req, res) => {
    count += 1;
    res.end('reached');
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, hits: () => count };
}

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
  afterEach(() => t?.settled());
  afterAll(async () => {
    await t?.close();
    canary?.close();
  });

  const fetchVia = (server: string) =>
    t.host.calls.call({ server, tool: 'fetch_via_proxy', arguments: { url }, caller: { kind: 'user' } }).then((result) => JSON.parse((result.result?.content[0] as { text: string }).text));

  it('denied in the window: the request never reaches the host', async () => {
    const pending = fetchVia('net');
    const prompt = t.page.getByTestId('network-prompt');
    await waitForText(prompt, new RegExp(`net wants to reach 127\\.0\\.0\\.1:\\d+`));
    await prompt.getByRole('button', { name: 'Deny' }).click();
    expect((await pending).ok).toBe(false);
    expect(hits).toBe(0);
  });

  it('always allowed in the window: the request goes through and the grant is saved', async () => {
    await t.host.servers.restart('net'); // a new run: its earlier "no" is forgotten
    const pending = fetchVia('net');
    const prompt = t.page.getByTestId('network-prompt');
    await prompt.waitFor();
    await prompt.getByRole('button', { name: /Always allow for net/ }).click();
    expect(await pending).toMatchObject({ ok: true, body: 'reached' });
    expect(hits).toBe(1);
    expect(t.host.servers.record('net').profile.network.allowedDomains).toEqual([`127.0.0.1:${new URL(url).port}`]);
  });

  it('a contained server is never asked: it has no network path at all', async () => {
    const result = await fetchVia('contained');
    expect(result).toMatchObject({ ok: false, code: 'NO_PROXY' });
    expect(t.host.approvals.network.list()).toEqual([]);
    expect(hits).toBe(1);
  });

  it('a question that takes another’s place ignores a click at +80 ms, says so, and answers after the pause', async () => {
    const { page } = t;
    const first = await canaryAt();
    const second = await canaryAt();
    try {
      const fetchUrl = (target: string) =>
        t.host.calls.call({ server: 'net', tool: 'fetch_via_proxy', arguments: { url: target }, caller: { kind: 'user' } }).then((result) => JSON.parse((result.result?.content[0] as { text: string }).text));
      const a = fetchUrl(first.url);
      await expect.poll(() => t.host.approvals.network.list().length, { timeout: 30_000 }).toBe(1);
      const b = fetchUrl(second.url);
      await expect.poll(() => t.host.approvals.network.list().length, { timeout: 30_000 }).toBe(2);
      const [questionA, questionB] = t.host.approvals.network.list();
      const prompt = page.getByTestId('network-prompt');
      await expect.poll(() => prompt.getAttribute('data-question-id')).toBe(questionA!.id);
      const allow = prompt.getByTestId('network-allow');
      await expect.poll(() => allow.getAttribute('aria-disabled')).toBe(null);

      // In the page: when B takes A's place, click "Allow this time" 80 ms later, as a hand already on its way would.
      // (B's note that it took the place moves the buttons down, so the click goes where the button now is.)
      await page.evaluate(
        ({ from }) => {
          const w = window as unknown as { swapClick?: { delay: number; hitAllow: boolean; id: string | null } };
          const observer = new MutationObserver(() => {
            const id = document.querySelector('[data-testid="network-prompt"]')?.getAttribute('data-question-id') ?? null;
            if (!id || id === from) return;
            observer.disconnect();
            const swappedAt = performance.now();
            window.setTimeout(() => {
              const rect = document.querySelector('[data-testid="network-allow"]')!.getBoundingClientRect();
              const [x, y] = [rect.x + rect.width / 2, rect.y + rect.height / 2];
              const target = document.elementFromPoint(x, y) as HTMLElement | null;
              const button = target?.closest('button');
              const init = { bubbles: true, cancelable: true, clientX: x, clientY: y, button: 0 };
              target?.dispatchEvent(new PointerEvent('pointerdown', init));
              target?.dispatchEvent(new MouseEvent('mousedown', init));
              target?.dispatchEvent(new PointerEvent('pointerup', init));
              target?.dispatchEvent(new MouseEvent('mouseup', init));
              target?.dispatchEvent(new MouseEvent('click', init));
              w.swapClick = {
                delay: performance.now() - swappedAt,
                hitAllow: button?.dataset.testid === 'network-allow',
                id: button?.closest('[data-testid="network-prompt"]')?.getAttribute('data-question-id') ?? null,
              };
            }, 80);
          });
          observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-question-id'] });
        },
        { from: questionA!.id },
      );
      // A is answered elsewhere (a terminal); B takes its place in the window.
      expect(t.host.approvals.answerNetwork(questionA!.id, false, false, 'terminal')).toEqual({ accepted: true });
      expect((await a).ok).toBe(false);

      const click = await page.waitForFunction(() => (window as unknown as { swapClick?: unknown }).swapClick).then((handle) => handle.jsonValue() as Promise<{ delay: number; hitAllow: boolean; id: string | null }>);
      // The click really landed on B's "Allow this time", well inside the pause — and answered nothing.
      expect(click).toMatchObject({ hitAllow: true, id: questionB!.id });
      expect(click.delay).toBeLessThan(400);
      await page.waitForTimeout(300);
      expect(t.host.approvals.network.list().map((q) => q.id)).toEqual([questionB!.id]);
      expect(second.hits()).toBe(0);
      expect(await page.getByTestId('network-announcement').textContent()).toBe(`A different request is now shown: net wants to reach 127.0.0.1:${new URL(second.url).port}. Read it before answering.`);

      // After the pause, the same button answers B.
      await expect.poll(() => allow.getAttribute('aria-disabled')).toBe(null);
      await allow.click();
      expect(await b).toMatchObject({ ok: true, body: 'reached' });
      expect(second.hits()).toBe(1);
      expect(first.hits()).toBe(0);
      await prompt.waitFor({ state: 'detached' });
    } finally {
      first.server.close();
      second.server.close();
    }
  });

  it('made no request outside the app, and logged no error', () => {
    expect(t.harness.foreignRequests).toEqual([]);
    expect(t.consoleErrors).toEqual([]);
  });
});
