/**
 * Runs the built renderer in Debian Chromium, bridged to a real AirlockHost in
 * the test process. The stand-in for the preload exposes the same
 * `window.airlock` shape, and every request goes through the same
 * `dispatchIpc` (same schemas, same validation) as the Electron wiring.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { events, type EmitEvent, type EventName, type IpcHandlers, type PayloadOf } from '../../shared/ipc';
import { APP_RESPONSE_HEADERS, appResponseHeaders, resolveRendererFile } from '../../electron/main/app-protocol';
import { dispatchIpc } from '../../electron/main/ipc';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const RENDERER_DIR = join(REPO_ROOT, 'out/renderer');
/** Where tests leave screenshots (CI keeps test-results/ as artifacts). */
export const SCREENSHOT_DIR = join(REPO_ROOT, 'test-results/screenshots');

/** The harness's stand-in origin for `airlock://app`. */
export const HARNESS_ORIGIN = 'http://airlock.test';
export const HARNESS_URL = `${HARNESS_ORIGIN}/index.html`;

export const CHROMIUM_PATH = process.env.AIRLOCK_CHROMIUM ?? '/usr/bin/chromium';

/**
 * An emitter whose target is set once the page exists; hand `emit` to the
 * host before the harness opens.
 */
export function lateEmitter(): { emit: EmitEvent; bind(target: EmitEvent): void } {
  let target: EmitEvent | undefined;
  return {
    emit: (event, payload) => target?.(event, payload),
    bind: (next) => {
      target = next;
    },
  };
}

export interface Harness {
  browser: Browser;
  page: Page;
  /** Every request the page made to anything other than the app's own files. */
  foreignRequests: string[];
  /** Pushes a contract event into the page, validated like the Electron shell does. */
  emit<E extends EventName>(event: E, payload: PayloadOf<E>): Promise<void>;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  colorScheme?: 'light' | 'dark';
  /**
   * Where servers' screens load from (the app's `frame-src`): the app's
   * `airlock-screen:` cannot be served here, so screen tests serve that
   * origin from loopback (test/support/screen-origin.ts) and name it here.
   */
  frameSource?: string;
  /** Requests that go out for real instead of being refused: the screens' loopback origin, canary listeners. */
  passThrough?: (url: string) => boolean;
  /** More Chromium switches (screen tests: see screen-origin.ts). */
  browserArgs?: string[];
}

export async function openHarness(handlers: IpcHandlers, options: HarnessOptions = {}): Promise<Harness> {
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    throw new Error(`The renderer is not built (${RENDERER_DIR}); run \`npm run build\` first.`);
  }
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is missing at ${CHROMIUM_PATH}; install it with \`apt-get install -y chromium\`.`);
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...(options.browserArgs ?? []),
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 }, colorScheme: options.colorScheme ?? 'light' });
  const page = await context.newPage();
  const foreignRequests: string[] = [];
  page.on('request', (request: Request) => {
    if (!request.url().startsWith(`${HARNESS_ORIGIN}/`)) foreignRequests.push(request.url());
  });
  // Serve the built renderer as the app's scheme does, CSP header included (frames from the screens' origin the test names).
  const headers = options.frameSource ? appResponseHeaders(options.frameSource) : APP_RESPONSE_HEADERS;
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (options.passThrough?.(url)) return route.continue();
    if (!url.startsWith(`${HARNESS_ORIGIN}/`)) return route.abort('blockedbyclient');
    const file = resolveRendererFile(url.replace(HARNESS_ORIGIN, 'airlock://app'), RENDERER_DIR);
    if (!file) return route.fulfill({ status: 404, headers: { ...headers }, body: 'Not found' });
    // The page's own CSP (its meta tag) names the app's screens' scheme; here the screens come from the test's loopback origin.
    const body = await readFile(file.path);
    const page = options.frameSource && file.path.endsWith('index.html') ? Buffer.from(body.toString('utf8').replace('frame-src airlock-screen:', `frame-src ${options.frameSource}`)) : body;
    return route.fulfill({
      status: 200,
      headers: { ...headers, 'Content-Type': file.mimeType },
      body: page,
    });
  });
  // The preload's stand-in: the same contract checks as main, for the main frame only.
  await page.exposeBinding('__airlockInvoke', async (source, channel: unknown, request: unknown) => {
    if (source.frame !== page.mainFrame()) {
      return { ok: false, code: 'forbidden-sender', message: 'refused a message that did not come from the main frame' };
    }
    return dispatchIpc(handlers, channel, request, (name, error) => console.error(`[harness ipc] ${name}`, error));
  });
  await page.addInitScript(() => {
    // The preload runs in the main frame only (nodeIntegrationInSubFrames is off): frames — a server's screen — get no bridge.
    if (window !== window.top) return;
    type Listener = (payload: unknown) => void;
    const listeners = new Map<string, Set<Listener>>();
    const invokeBinding = (window as unknown as { __airlockInvoke: (c: unknown, r: unknown) => Promise<unknown> }).__airlockInvoke;
    const bridge = {
      invoke: (channel: unknown, request: unknown) => invokeBinding(channel, request),
      on: (event: string, listener: Listener) => {
        const set = listeners.get(event) ?? new Set<Listener>();
        set.add(listener);
        listeners.set(event, set);
        return () => {
          set.delete(listener);
        };
      },
    };
    Object.defineProperty(window, 'airlock', { value: Object.freeze(bridge), writable: false, configurable: false });
    Object.defineProperty(window, '__airlockEmit', {
      value: (event: string, payload: unknown) => listeners.get(event)?.forEach((listener) => listener(payload)),
    });
  });

  return {
    browser,
    page,
    foreignRequests,
    async emit(event, payload) {
      const checked = events[event].payload.parse(payload);
      await page.evaluate(([name, value]) => (window as unknown as { __airlockEmit: (e: string, p: unknown) => void }).__airlockEmit(name as string, value), [event, checked] as const);
    },
    async screenshot(name) {
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      mkdirSync(dirname(path), { recursive: true });
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await browser.close();
    },
  };
}
