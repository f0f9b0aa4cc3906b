/**
 * Servers' screens (MCP Apps) in Chromium with the published example
 * servers (`server-basic-vanillajs`, `server-basic-react`, run in the real
 * sandbox): after its tool's call in the console, the screen renders in the
 * spec's double frame on its server's own origin, with the call's result; its
 * button calls a tool through Airlock — asked in Airlock's own dialog, as
 * “NAME's screen” — and the result comes back into the screen; its link
 * opens only after the person saw the address and chose Open.
 *
 * The screens' origin is a loopback server using the app's own response code
 * (test/support/screen-origin.ts); the published servers' pages are the
 * servers' own HTML, unchanged.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openRendererHost, REPO, waitForText, type RendererHost, pasteCommand } from './renderer-support';
import { SCREEN_TEST_BROWSER_ARGS, startScreenOrigin, type ScreenOrigin } from '../support/screen-origin';
import { ask, initialContext, ready, RECORDER_PAGE, seen } from '../support/screen-recorder';

const VANILLA = join(REPO, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
const REACT = join(REPO, 'node_modules/@modelcontextprotocol/server-basic-react/dist/index.js');
const FIXTURE = join(REPO, 'test/fixtures/screens/screen-fixture.mjs');

let t: RendererHost;
let origin: ScreenOrigin;
const opened: string[] = [];

/** The screen's own document: the inner frame (srcdoc) of the relay frame on the screens' origin. */
async function screenFrame(page: Page): Promise<Frame> {
  for (let i = 0; i < 200; i += 1) {
    const relay = page.frames().find((frame) => origin.isScreenUrl(frame.url()));
    const inner = relay?.childFrames()[0];
    if (inner && inner.url() === 'about:srcdoc') return inner;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no screen frame; frames: ${page.frames().map((frame) => frame.url()).join(', ')}; served: ${JSON.stringify(origin.served)}; errors: ${t.consoleErrors.join(' | ')}`);
}

async function callInConsole(server: string, tool: string): Promise<void> {
  await t.open(`#/servers/${server}/try`);
  const console = t.page.getByTestId('tool-console');
  await console.getByRole('combobox').first().selectOption(tool);
  await console.getByRole('button', { name: 'Call' }).click();
  await t.page.getByTestId('call-result').waitFor();
}

beforeAll(async () => {
  origin = await startScreenOrigin();
  t = await openRendererHost({
    host: { screenFrames: origin.frames },
    harness: { frameSource: origin.frameSource, passThrough: origin.isScreenUrl, browserArgs: SCREEN_TEST_BROWSER_ARGS },
    // The shell opens an approved link in the system browser; here it is noted.
    handlers: (handlers) => ({
      ...handlers,
      'screens.answerLink': async (request) => {
        const answer = await handlers['screens.answerLink'](request);
        if (answer.url) opened.push(answer.url);
        return answer;
      },
    }),
  });
  origin.bind(t.host);
  await t.add('vanilla', [process.execPath, VANILLA, '--stdio']);
  await t.add('react', [process.execPath, REACT, '--stdio']);
  const recorder = join(t.folder('recorder'), 'screen.html');
  writeFileSync(recorder, RECORDER_PAGE);
  await t.add('recorder', [process.execPath, FIXTURE, '--html', recorder]);
}, 120_000);
afterEach(() => t?.settled());
afterAll(async () => {
  await t?.close();
  await origin?.close();
});

describe('server-basic-vanillajs’s screen', () => {
  it('renders after its tool’s call, on its own origin in the double frame, with the call’s result', async () => {
    await callInConsole('vanilla', 'get-time');
    const result = (await t.page.getByTestId('call-result').textContent()) ?? '';
    const time = /\d{4}-\d\d-\d\dT[\d:.]+Z/.exec(result)?.[0];
    expect(time).toBeDefined();
    const screen = await screenFrame(t.page);
    await waitForText(screen.locator('#server-time'), time!);
    // The double frame, checked from outside: the relay on the server's origin, the page sandboxed with scripts only.
    const outer = t.page.getByTestId('screen-frame');
    expect(await outer.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin');
    expect(origin.isScreenUrl((await outer.getAttribute('src')) ?? '')).toBe(true);
    expect(new URL((await outer.getAttribute('src'))!).origin).not.toBe(new URL(t.page.url()).origin);
    const relay = t.page.frames().find((frame) => origin.isScreenUrl(frame.url()))!;
    expect(await relay.evaluate(() => document.querySelector('iframe')?.getAttribute('sandbox'))).toBe('allow-scripts');
    expect(await screen.evaluate(() => ({ origin: window.origin, bridge: typeof (window as { airlock?: unknown }).airlock }))).toEqual({ origin: 'null', bridge: 'undefined' });
    expect(await t.page.getByTestId('screen-label').textContent()).toContain('vanilla’s screen');
    await t.page.getByTestId('tool-screen').scrollIntoViewIfNeeded();
    await t.viewShot('screen-console-light');
    // Host context: the screen was told the window's theme, and is told when it changes.
    expect(await screen.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBe('light');
    await t.page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => screen.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBe('dark');
    await t.viewShot('screen-console-dark');
    await t.page.emulateMedia({ colorScheme: 'light' });
  });

  it('calls its tool through Airlock from its button: asked in Airlock’s dialog as “vanilla’s screen”, the result back in the screen', async () => {
    const screen = await screenFrame(t.page);
    const before = (await screen.locator('#server-time').textContent()) ?? '';
    await screen.locator('#get-time-btn').click();
    // The tool states no annotations: treated as destructive, so Airlock asks — in its own window, not in the frame.
    const dialog = t.page.getByRole('dialog');
    await dialog.waitFor();
    expect(await t.page.getByTestId('confirmation-headline').textContent()).toContain('vanilla’s screen wants to run vanilla › get-time');
    await t.viewShot('screen-confirmation-light');
    await expect.poll(() => dialog.getByTestId('confirmation-deny').getAttribute('aria-disabled')).toBe(null);
    await dialog.getByTestId('confirm-object').getByRole('checkbox').check();
    await dialog.getByRole('button', { name: 'Allow once' }).click();
    await dialog.waitFor({ state: 'detached' });
    // The call's own result, back in the screen: a later time than the one it showed.
    await expect.poll(async () => (await screen.locator('#server-time').textContent()) ?? '', { timeout: 15_000 }).not.toBe(before);
    expect((await screen.locator('#server-time').textContent()) ?? '').toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    const calls = await t.host.activity.entries({ server: 'vanilla', tool: 'get-time', limit: 10 });
    expect(calls.some((entry) => entry.kind === 'decision' && entry.callerKind === 'screen' && entry.caller === "vanilla's screen")).toBe(true);
  });

  it('opens a link only after the person saw its full address outside the screen and chose Open', async () => {
    const screen = await screenFrame(t.page);
    await screen.locator('#open-link-btn').click();
    const bar = t.page.getByTestId('screen-link');
    await bar.waitFor();
    expect(await t.page.getByTestId('screen-link-url').textContent()).toBe('https://modelcontextprotocol.io/');
    expect(opened).toEqual([]);
    await t.viewShot('screen-link-light');
    await bar.getByTestId('screen-link-open').click();
    await bar.waitFor({ state: 'detached' });
    await expect.poll(() => opened).toEqual(['https://modelcontextprotocol.io/']);
  });

  it('cannot put words into a chat from the console: its message is refused, and said so outside the screen', async () => {
    const screen = await screenFrame(t.page);
    await screen.locator('#send-message-btn').click();
    await waitForText(t.page.getByTestId('screen-notes'), 'screens here have no conversation');
  });
});

describe('what the window tells a screen about where it is shown', () => {
  /** The recording screen after a call of its tool in the console (this call's own screen, handshake done). */
  async function recorderScreen(): Promise<Frame> {
    const old = new Set(t.page.frames());
    await callInConsole('recorder', 'show-screen');
    for (let i = 0; i < 300; i += 1) {
      const inner = t.page
        .frames()
        .filter((frame) => origin.isScreenUrl(frame.url()) && !old.has(frame) && !frame.isDetached())
        .map((frame) => frame.childFrames()[0])
        .find((frame) => frame !== undefined);
      if (inner && inner.url() === 'about:srcdoc' && (await ready(inner))) return inner;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('no recording screen');
  }
  const frameWidth = () => t.page.getByTestId('screen-frame').evaluate((element) => Math.round(element.clientWidth));
  const contextChanges = async (screen: Frame) => (await seen(screen)).filter((told) => told.method === 'ui/notifications/host-context-changed').map((told) => told.params);

  afterEach(() => t.page.setViewportSize({ width: 1200, height: 800 }));

  it('its width and the tallest it may grow, and its new width when the window is resized', async () => {
    const screen = await recorderScreen();
    const context = await initialContext(screen);
    expect(context.containerDimensions).toEqual({ width: await frameWidth(), maxHeight: 720 });
    expect(context.availableDisplayModes).toEqual(['inline', 'fullscreen']);
    expect(context.displayMode).toBe('inline');
    const before = await frameWidth();
    await t.page.setViewportSize({ width: 900, height: 800 });
    await expect.poll(frameWidth).toBeLessThan(before);
    const after = await frameWidth();
    await expect.poll(async () => (await contextChanges(screen)).at(-1)?.containerDimensions).toEqual({ width: after, maxHeight: 720 });
  });

  it('fills the window when it asks to — under Airlock’s bar, below Airlock’s dialogs — and leaves it with Escape', async () => {
    const screen = await recorderScreen();
    expect((await ask(screen, 'ui/request-display-mode', { mode: 'pip' })).result).toMatchObject({ mode: 'inline' });
    expect((await ask(screen, 'ui/request-display-mode', { mode: 'fullscreen' })).result).toMatchObject({ mode: 'fullscreen' });
    const section = t.page.getByTestId('tool-screen');
    await expect.poll(() => section.getAttribute('data-mode')).toBe('fullscreen');
    const viewport = t.page.viewportSize()!;
    expect(await section.boundingBox()).toMatchObject({ x: 0, y: 0, width: viewport.width, height: viewport.height });
    // Airlock's own bar stays on top of the server's page, naming it, with the way back.
    expect(await t.page.getByTestId('screen-label').isVisible()).toBe(true);
    const back = t.page.getByTestId('screen-leave-fullscreen');
    expect(await back.textContent()).toBe('Back to Airlock (Esc)');
    const frameBox = (await t.page.getByTestId('screen-frame').boundingBox())!;
    expect(frameBox.height).toBeGreaterThan(viewport.height * 0.8);
    const inside = await t.page.getByTestId('screen-frame').evaluate((element) => ({ width: Math.round(element.clientWidth), height: Math.round(element.clientHeight) }));
    await expect.poll(async () => (await contextChanges(screen)).at(-1)).toMatchObject({ displayMode: 'fullscreen', containerDimensions: inside });
    // A call it makes from there is asked in Airlock's dialog, drawn above the screen.
    const call = ask(screen, 'tools/call', { name: 'wipe', arguments: {} });
    const dialog = t.page.getByRole('dialog');
    await dialog.waitFor();
    const box = (await dialog.boundingBox())!;
    expect(await t.page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.closest('dialog') !== null, [box.x + box.width / 2, box.y + box.height / 2])).toBe(true);
    // Escape there answers the dialog (denies the call), and leaves the screen as it was.
    await t.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await call).result?.isError).toBe(true);
    expect(await section.getAttribute('data-mode')).toBe('fullscreen');
    // Escape (in Airlock's part of the window) puts it back in place, and the screen is told.
    await t.page.getByTestId('screen-label').click();
    await t.page.keyboard.press('Escape');
    await expect.poll(() => section.getAttribute('data-mode')).toBe('inline');
    await expect.poll(async () => (await contextChanges(screen)).at(-1)).toMatchObject({ displayMode: 'inline', containerDimensions: { maxHeight: 720 } });
    // And the button does the same.
    await ask(screen, 'ui/request-display-mode', { mode: 'fullscreen' });
    await expect.poll(() => section.getAttribute('data-mode')).toBe('fullscreen');
    await back.click();
    await expect.poll(() => section.getAttribute('data-mode')).toBe('inline');
  });
});

describe('server-basic-react’s screen', () => {
  it('renders with its result, and its button calls the tool through Airlock', async () => {
    await callInConsole('react', 'get-time');
    const screen = await screenFrame(t.page);
    const button = screen.getByRole('button', { name: /get server time/i });
    await button.waitFor();
    await button.click();
    const dialog = t.page.getByRole('dialog');
    await dialog.waitFor();
    expect(await t.page.getByTestId('confirmation-headline').textContent()).toContain('react’s screen wants to run react › get-time');
    await expect.poll(() => dialog.getByTestId('confirmation-deny').getAttribute('aria-disabled')).toBe(null);
    await dialog.getByTestId('confirmation-deny').click();
    await dialog.waitFor({ state: 'detached' });
    expect(t.consoleErrors.filter((error) => !/screen|get-time|tool/i.test(error))).toEqual([]);
  });
});

describe('the person’s review of a server’s screens', () => {
  it('shows at install what a screen asks for, refused unless ticked; allowed there, it is saved as the person chose', async () => {
    const { page } = t;
    const files = t.folder('review');
    const html = join(files, 'screen.html');
    const declare = join(files, 'declare.json');
    writeFileSync(html, '<!doctype html><p>review</p>');
    writeFileSync(declare, JSON.stringify({ connectDomains: ['https://api.example.com', 'https://tracker.example.net'], permissions: { microphone: {} } }));
    await t.open('#/install');
    await pasteCommand(page, `${process.execPath} ${FIXTURE} --html ${html} --declare ${declare}`);
    await page.getByTestId('disclosure').waitFor();
    await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    const report = page.getByTestId('probe-report');
    await report.waitFor({ timeout: 60_000 });
    await report.getByRole('tab', { name: /Screens/ }).click();
    const listed = await page.getByTestId('probe-screens').textContent();
    expect(listed).toContain('ui://fixture/screen.html');
    expect(listed).toContain('It asks to connect to https://api.example.com');
    expect(listed).toContain('It asks for the microphone');
    await t.harness.screenshot('install-screens');
    await page.getByRole('button', { name: 'Continue' }).click();
    const asks = page.getByTestId('install-screens');
    await asks.waitFor();
    expect(await asks.getByTestId('screen-domain').count()).toBe(2);
    for (const box of await asks.getByRole('checkbox').all()) expect(await box.isChecked()).toBe(false);
    await asks.getByRole('checkbox', { name: /https:\/\/api\.example\.com/ }).check();
    await page.getByLabel('Name in Airlock').fill('review');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('server-detail').waitFor();
    expect(t.host.servers.record('review').screens?.allowed.connect).toEqual(['https://api.example.com']);
    expect(t.host.servers.record('review').screens?.permissions).toEqual([]);
  }, 120_000);

  it('its page’s Screens section shows a changed screen with what changed, and approves it', async () => {
    const { page } = t;
    writeFileSync(join(t.folder('review'), 'declare.json'), JSON.stringify({ connectDomains: ['https://api.example.com', 'https://tracker.example.net', 'https://new.example.org'], permissions: { microphone: {} } }));
    await t.open('#/servers/review/screens');
    const entry = page.getByTestId('screen-entry');
    await entry.waitFor();
    expect(await entry.getAttribute('data-state')).toBe('changed');
    expect(await page.getByTestId('screen-changes').textContent()).toContain('It now asks to connect to https://new.example.org.');
    expect(await entry.textContent()).toContain('It asks to connect to https://api.example.com — allowed');
    expect(await entry.textContent()).toContain('It asks to connect to https://new.example.org — refused');
    await t.harness.screenshot('server-detail-screens');
    await page.getByTestId('screen-approve').click();
    await expect.poll(() => entry.getAttribute('data-state')).toBe('approved');
    expect(await page.getByTestId('screen-state').textContent()).toBe('Approved');
    // Approving grants nothing new: the new address stays refused until ticked and saved.
    expect(t.host.servers.record('review').screens?.allowed.connect).toEqual(['https://api.example.com']);
    await entry.getByRole('checkbox', { name: /the microphone/ }).check();
    await page.getByTestId('screens-save').click();
    await expect.poll(() => t.host.servers.record('review').screens?.permissions).toEqual(['microphone']);
  });
});
