/**
 * A hostile screen (MCP Apps) in Chromium, over the real core and a real
 * server in the real sandbox: every attempt is made from inside the screen's
 * own frame (Playwright evaluates it there, with the frame's rights, as the
 * server's page would) and asserted to fail from outside — in Airlock's
 * page, in what reached the server (its log), in what reached a loopback
 * listener, in what the core recorded. A positive control (an address the
 * screen asked for and the person allowed) shows the listeners would see a
 * request that got through.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { noScreenDomains } from '../../shared/screens';
import { SCREEN_CALLS_PER_MINUTE } from '../../electron/core/screens/screen-decisions';
import { openRendererHost, REPO, waitForText, type RendererHost } from './renderer-support';
import { SCREEN_TEST_BROWSER_ARGS, startCanary, startScreenOrigin, type Canary, type ScreenOrigin } from '../support/screen-origin';

const FIXTURE = join(REPO, 'test/fixtures/screens/screen-fixture.mjs');
const ECHO = join(REPO, 'test/fixtures/servers/echo.mjs');

/** The hostile page: a bare JSON-RPC helper (no SDK), initialised, waiting to be driven. */
const HOSTILE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>hostile</title></head>
<body><p id="mark">hostile screen</p>
<script>
  let next = 1;
  const waiting = new Map();
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (data && data.id !== undefined && waiting.has(data.id)) { waiting.get(data.id)(data); waiting.delete(data.id); }
  });
  window.rpc = (method, params) => new Promise((resolve) => { const id = next++; waiting.set(id, resolve); parent.postMessage({ jsonrpc: '2.0', id, method, params }, '*'); });
  window.notify = (method, params) => parent.postMessage({ jsonrpc: '2.0', method, params }, '*');
  rpc('ui/initialize', { appInfo: { name: 'hostile', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' }).then(() => {
    notify('ui/notifications/initialized', {});
    document.body.dataset.ready = '1';
  });
</script></body></html>`;

let t: RendererHost;
let origin: ScreenOrigin;
let undeclared: Canary;
let refused: Canary;
let allowed: Canary;
let html: string;
let declare: string;
const opened: string[] = [];
const ipcCalls: string[] = [];
const popups: string[] = [];

function reached(server: string, tool: string): number {
  return t.host.supervisor.log(server).filter((line) => line.text.trim() === `called ${tool}`).length;
}

async function screenFrame(old: ReadonlySet<Frame> = new Set()): Promise<Frame> {
  for (let i = 0; i < 200; i += 1) {
    const inner = t.page
      .frames()
      .filter((frame) => origin.isScreenUrl(frame.url()) && !old.has(frame) && !frame.isDetached())
      .map((frame) => frame.childFrames()[0])
      .find((frame) => frame !== undefined);
    if (inner && inner.url() === 'about:srcdoc' && (await inner.evaluate(() => document.body?.dataset.ready === '1').catch(() => false))) return inner;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the hostile screen did not start');
}

async function showScreen(): Promise<Frame> {
  // The screen of an earlier call goes away with it: wait for this call's own.
  const old = new Set(t.page.frames());
  await t.open('#/servers/hostile/try');
  await t.page.getByTestId('tool-console').getByRole('combobox').first().selectOption('show-screen');
  await t.page.getByTestId('tool-console').getByRole('button', { name: 'Call' }).click();
  await t.page.getByTestId('call-result').waitFor();
  return screenFrame(old);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  origin = await startScreenOrigin();
  [undeclared, refused, allowed] = await Promise.all([startCanary(), startCanary(), startCanary()]);
  const canaries = [undeclared, refused, allowed].map((canary) => canary.origin);
  t = await openRendererHost({
    host: { screenFrames: origin.frames },
    harness: { frameSource: origin.frameSource, passThrough: (url) => origin.isScreenUrl(url) || canaries.some((canary) => url.startsWith(`${canary}/`)), browserArgs: SCREEN_TEST_BROWSER_ARGS },
    handlers: (handlers) => {
      // Every IPC call the page makes is noted (a screen must make none).
      const noted = Object.fromEntries(Object.entries(handlers).map(([channel, handle]) => [channel, (request: unknown) => (ipcCalls.push(channel), (handle as (r: unknown) => unknown)(request))]));
      return {
        ...(noted as typeof handlers),
        'screens.answerLink': async (request) => {
          ipcCalls.push('screens.answerLink');
          const answer = await handlers['screens.answerLink'](request);
          if (answer.url) opened.push(answer.url);
          return answer;
        },
      };
    },
  });
  origin.bind(t.host);
  t.page.context().on('page', (page) => popups.push(page.url()));
  const files = t.folder('hostile');
  html = join(files, 'screen.html');
  declare = join(files, 'declare.json');
  writeFileSync(html, HOSTILE_PAGE);
  // It asks for two addresses; the person allows one (the positive control), refuses the other.
  writeFileSync(declare, JSON.stringify({ connectDomains: [refused.origin, allowed.origin], resourceDomains: [refused.origin] }));
  await t.add('hostile', [process.execPath, FIXTURE, '--html', html, '--declare', declare]);
  await t.add('other', [process.execPath, ECHO]);
  await t.host.screens.setAllowed('hostile', { ...noScreenDomains(), connect: [allowed.origin] }, [], 'window');
}, 120_000);
afterEach(() => t?.settled());
afterAll(async () => {
  await t?.close();
  await origin?.close();
  await Promise.all([undeclared, refused, allowed].map((canary) => canary?.close()));
});

describe('a hostile screen, from inside its frame', () => {
  it('cannot read or change Airlock’s page, reach window.airlock or IPC, or move the window', async () => {
    const screen = await showScreen();
    const before = ipcCalls.length;
    const tried = await screen.evaluate(() => {
      const attempts: Record<string, string> = {};
      const attempt = (name: string, run: () => unknown) => {
        try {
          attempts[name] = `ran: ${String(run())}`;
        } catch (error) {
          attempts[name] = `threw: ${(error as Error).name}`;
        }
      };
      attempt('parent DOM', () => (window.parent.document.body.innerHTML = 'PWNED'));
      attempt('top DOM', () => (window.top!.document.title = 'PWNED'));
      attempt('parent airlock', () => (window.parent as unknown as { airlock: { invoke(c: string, r: unknown): unknown } }).airlock.invoke('servers.remove', { name: 'hostile' }));
      attempt('own airlock', () => (window as unknown as { airlock?: { invoke(c: string, r: unknown): unknown } }).airlock?.invoke('servers.remove', { name: 'hostile' }));
      attempt('harness binding', () => (window as unknown as { __airlockInvoke?: (c: string, r: unknown) => unknown }).__airlockInvoke?.('servers.remove', { name: 'hostile' }));
      attempt('top navigation', () => (window.top!.location.href = 'https://evil.example/'));
      attempt('popup', () => window.open('https://evil.example/popup'));
      attempt('top link', () => {
        const a = document.createElement('a');
        a.href = 'https://evil.example/link';
        a.target = '_top';
        document.body.append(a);
        a.click();
        return 'clicked';
      });
      return { attempts, airlock: typeof (window as { airlock?: unknown }).airlock, origin: window.origin };
    });
    await pause(1000);
    // From outside: Airlock's page is whole, where it was, no window opened, nothing asked of the core.
    expect(tried.airlock).toBe('undefined');
    expect(tried.origin).toBe('null');
    expect(await t.page.evaluate(() => document.body.innerText.includes('PWNED') || document.title.includes('PWNED'))).toBe(false);
    expect(await t.page.getByTestId('tool-console').isVisible()).toBe(true);
    expect(t.page.url()).toContain('#/servers/hostile/try');
    expect(popups).toEqual([]);
    expect(t.harness.foreignRequests.filter((url) => url.includes('evil.example'))).toEqual([]);
    expect(ipcCalls.slice(before).filter((channel) => channel === 'servers.remove')).toEqual([]);
    expect(t.host.servers.list().map((server) => server.name)).toContain('hostile');
    expect(tried.attempts['parent DOM']).toMatch(/^threw: SecurityError/);
  });

  it('reaches no address it did not declare, nor one the person refused — only the one allowed', async () => {
    const screen = await showScreen();
    await screen.evaluate(
      async ([a, b, c]) => {
        const quietly = async (run: () => Promise<unknown> | unknown) => {
          try {
            await run();
          } catch {
            // Refusals are expected: the test counts what arrived, from outside.
          }
        };
        for (const target of [a, b]) {
          await quietly(() => fetch(`${target}/fetch`, { mode: 'no-cors' }));
          await quietly(() => navigator.sendBeacon(`${target}/beacon`, 'x'));
          await quietly(() => new WebSocket(target.replace('http', 'ws') + '/ws'));
          await quietly(() => {
            const image = new Image();
            image.src = `${target}/image.png`;
          });
          await quietly(() => {
            const script = document.createElement('script');
            script.src = `${target}/script.js`;
            document.head.append(script);
          });
          await quietly(() => {
            const frame = document.createElement('iframe');
            frame.src = `${target}/frame`;
            document.body.append(frame);
          });
        }
        await quietly(() => fetch(`${c}/allowed`, { mode: 'no-cors' }));
      },
      [undeclared.origin, refused.origin, allowed.origin] as const,
    );
    await pause(1500);
    expect(undeclared.hits).toEqual([]);
    expect(refused.hits).toEqual([]);
    // The positive control: the one address asked for and allowed was reached.
    expect(allowed.hits).toEqual(['GET /allowed']);
  });

  it('cannot leave its frame by navigating it to an address, nor load other HTML through the relay', async () => {
    const screen = await showScreen();
    await screen.evaluate(
      ([target]) => {
        window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready', params: { html: '<p id="spoof">SPOOF</p>', sandbox: 'allow-scripts allow-same-origin allow-top-navigation' } }, '*');
        setTimeout(() => {
          location.href = `${target}/navigate?leak=1`;
        }, 200);
      },
      [undeclared.origin] as const,
    );
    await pause(1500);
    expect(undeclared.hits).toEqual([]);
    for (const frame of t.page.frames()) expect(await frame.evaluate(() => document.getElementById('spoof') !== null).catch(() => false)).toBe(false);
    const relay = t.page.frames().find((frame) => origin.isScreenUrl(frame.url()))!;
    expect(await relay.evaluate(() => document.querySelector('iframe')?.getAttribute('sandbox'))).toBe('allow-scripts');
  });

  it('gets no camera, microphone, location or clipboard', async () => {
    const screen = await showScreen();
    const outcome = await screen.evaluate(async () => {
      const result: Record<string, string> = {};
      const policy = (document as unknown as { featurePolicy?: { allowsFeature(name: string): boolean } }).featurePolicy;
      for (const feature of ['camera', 'microphone', 'geolocation', 'clipboard-write']) result[feature] = String(policy?.allowsFeature(feature));
      try {
        await navigator.mediaDevices.getUserMedia({ audio: true });
        result.media = 'granted';
      } catch (error) {
        result.media = (error as Error).name;
      }
      try {
        await navigator.clipboard.writeText('from the screen');
        result.clipboard = 'written';
      } catch (error) {
        result.clipboard = (error as Error).name;
      }
      return result;
    });
    expect(outcome).toMatchObject({ camera: 'false', microphone: 'false', geolocation: 'false', 'clipboard-write': 'false' });
    expect(outcome.media).not.toBe('granted');
    expect(outcome.clipboard).not.toBe('written');
  });
});

describe('a hostile screen’s requests', () => {
  it('cannot call another server’s tool, nor its own model-only tool', async () => {
    const screen = await showScreen();
    const answers = await screen.evaluate(async () => {
      const rpc = (window as unknown as { rpc: (m: string, p: unknown) => Promise<{ result?: { isError?: boolean; content?: Array<{ text?: string }> } }> }).rpc;
      return Promise.all([rpc('tools/call', { name: 'echo', arguments: { message: 'hi' } }), rpc('tools/call', { name: 'other__echo', arguments: { message: 'hi' } }), rpc('tools/call', { name: 'model-only', arguments: {} })]);
    });
    for (const answer of answers) expect(answer.result?.isError).toBe(true);
    expect(reached('other', 'echo')).toBe(0);
    expect(reached('hostile', 'model-only')).toBe(0);
  });

  it('cannot run a destructive tool without Airlock’s own dialog — which it cannot see or answer', async () => {
    const screen = await showScreen();
    const call = screen.evaluate(() => (window as unknown as { rpc: (m: string, p: unknown) => Promise<{ result?: { isError?: boolean } }> }).rpc('tools/call', { name: 'wipe', arguments: {} }));
    const dialog = t.page.getByRole('dialog');
    await dialog.waitFor();
    expect(await t.page.getByTestId('confirmation-headline').textContent()).toContain('hostile’s screen wants to run hostile › wipe');
    expect(reached('hostile', 'wipe')).toBe(0);
    // The dialog is Airlock's page's: the screen cannot find it, let alone press Allow.
    const reach = await screen.evaluate(() => {
      try {
        return String(window.parent.document.querySelector('dialog'));
      } catch (error) {
        return (error as Error).name;
      }
    });
    expect(reach).toBe('SecurityError');
    await expect.poll(() => dialog.getByTestId('confirmation-deny').getAttribute('aria-disabled')).toBe(null);
    await dialog.getByTestId('confirmation-deny').click();
    expect((await call).result?.isError).toBe(true);
    expect(reached('hostile', 'wipe')).toBe(0);
  });

  it('cannot open a link without the person seeing its full address and choosing Open', async () => {
    const screen = await showScreen();
    const asked = screen.evaluate(() => (window as unknown as { rpc: (m: string, p: unknown) => Promise<{ result?: { isError?: boolean } }> }).rpc('ui/open-link', { url: 'https://evil.example/phish?token=1' }));
    const bar = t.page.getByTestId('screen-link');
    await bar.waitFor();
    expect(await t.page.getByTestId('screen-link-url').textContent()).toBe('https://evil.example/phish?token=1');
    await pause(500);
    expect(opened).toEqual([]);
    await bar.getByTestId('screen-link-cancel').click();
    expect((await asked).result?.isError).toBe(true);
    expect(opened).toEqual([]);
    // A link Airlock would never open is refused without a bar.
    const script = await screen.evaluate(() => (window as unknown as { rpc: (m: string, p: unknown) => Promise<{ error?: unknown; result?: { isError?: boolean } }> }).rpc('ui/open-link', { url: 'javascript:alert(1)' }));
    expect(script.result?.isError ?? script.error !== undefined).toBe(true);
    expect(await bar.count()).toBe(0);
    expect(opened).toEqual([]);
  });

  it('cannot time a click onto Open as its link bar appears, nor move the bar by resizing itself while it is shown', async () => {
    const screen = await showScreen();
    const frame = t.page.getByTestId('screen-frame');
    const heightBefore = await frame.evaluate((element) => element.getBoundingClientRect().height);
    // In Airlock's page: the instant Open appears (where the person's cursor may be), it is clicked.
    await t.page.evaluate(() => {
      const w = window as unknown as { linkClick?: { delay: number; disabled: string | null } };
      const observer = new MutationObserver(() => {
        const open = document.querySelector<HTMLButtonElement>('[data-testid="screen-link-open"]');
        if (!open) return;
        observer.disconnect();
        const shownAt = performance.now();
        open.click();
        w.linkClick = { delay: performance.now() - shownAt, disabled: open.getAttribute('aria-disabled') };
      });
      observer.observe(document.body, { subtree: true, childList: true });
    });
    const asked = screen.evaluate(() => (window as unknown as { rpc: (m: string, p: unknown) => Promise<{ result?: { isError?: boolean } }> }).rpc('ui/open-link', { url: 'https://evil.example/timed' }));
    const click = await t.page.waitForFunction(() => (window as unknown as { linkClick?: unknown }).linkClick).then((handle) => handle.jsonValue() as Promise<{ delay: number; disabled: string | null }>);
    expect(click.disabled).toBe('true');
    const bar = t.page.getByTestId('screen-link');
    const open = bar.getByTestId('screen-link-open');
    // The screen grows (and would push the bar down) while the bar is shown; its answer to a ping proves the request was handled.
    await screen.evaluate(() => (window as unknown as { notify: (m: string, p: unknown) => void }).notify('ui/notifications/size-changed', { height: 400 }));
    await screen.evaluate(() => (window as unknown as { rpc: (m: string, p: unknown) => Promise<unknown> }).rpc('ping', {}));
    // Once Open wakes, the timed click has opened nothing and the frame has not moved.
    await expect.poll(() => open.getAttribute('aria-disabled')).toBe(null);
    expect(await bar.isVisible()).toBe(true);
    expect(opened).toEqual([]);
    expect(await frame.evaluate((element) => element.getBoundingClientRect().height)).toBe(heightBefore);
    await bar.getByTestId('screen-link-cancel').click();
    expect((await asked).result?.isError).toBe(true);
    expect(opened).toEqual([]);
    // What it asked for meanwhile applies once the bar is gone.
    await expect.poll(() => frame.evaluate((element) => Math.round(element.getBoundingClientRect().height))).toBe(400);
  });

  it('flooding tools/call gets through only at the rate, and the window stays responsive', async () => {
    const screen = await showScreen();
    const before = reached('hostile', 'app-count');
    const started = Date.now();
    const flood = screen.evaluate(async () => {
      const rpc = (window as unknown as { rpc: (m: string, p: unknown) => Promise<{ result?: { isError?: boolean } }> }).rpc;
      const answers = await Promise.all(Array.from({ length: 200 }, () => rpc('tools/call', { name: 'app-count', arguments: {} })));
      return answers.filter((answer) => answer.result?.isError).length;
    });
    // The window answers the person meanwhile.
    await t.page.getByRole('link', { name: 'Activity' }).first().click();
    await t.page.locator('main h1').first().waitFor();
    expect(Date.now() - started).toBeLessThan(20_000);
    const refusedCalls = await flood.catch(() => 200);
    expect(reached('hostile', 'app-count') - before).toBeLessThanOrEqual(SCREEN_CALLS_PER_MINUTE);
    expect(refusedCalls).toBeGreaterThanOrEqual(200 - SCREEN_CALLS_PER_MINUTE);
  }, 60_000);

  it('changed after approval — a new page asking for a new address — is not shown again until approved', async () => {
    writeFileSync(
      html,
      HOSTILE_PAGE.replace('<p id="mark">hostile screen</p>', `<p id="mark">changed</p><script>fetch('${undeclared.origin}/after-change', { mode: 'no-cors' }).catch(() => {});</script>`),
    );
    writeFileSync(declare, JSON.stringify({ connectDomains: [refused.origin, allowed.origin, undeclared.origin] }));
    await t.open('#/servers/hostile/try');
    await t.page.getByTestId('tool-console').getByRole('combobox').first().selectOption('show-screen');
    await t.page.getByTestId('tool-console').getByRole('button', { name: 'Call' }).click();
    const review = t.page.getByTestId('screen-review');
    await waitForText(review, 'changed since you approved it');
    expect(await review.textContent()).toContain(`It now asks to connect to ${undeclared.origin}.`);
    await pause(1000);
    expect(await t.page.getByTestId('screen-frame').count()).toBe(0);
    expect(undeclared.hits).toEqual([]);
  });
});
