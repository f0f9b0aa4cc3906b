/**
 * A real AirlockHost in a temporary folder (fake home, real sandbox, real
 * servers) with the built renderer open on it in Chromium. One per test file.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { ConfirmationView } from '../../shared/views';
import { addLocalServer, type AddServerOptions } from '../support/add-server';
import { AirlockHost, type HostOptions } from '../../electron/core/host';
import type { IpcHandlers } from '../../shared/ipc';
import { HARNESS_URL, lateEmitter, openHarness, SCREENSHOT_DIR, type Harness, type HarnessOptions } from '../support/browser-harness';

export const REPO = resolve(import.meta.dirname, '../..');
export const FILESYSTEM_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const HOSTILE_SERVER = join(REPO, 'test/fixtures/renderer/hostile-content.mjs');
export const agent = { kind: 'client', name: 'Test Agent' } as const;

/**
 * AIRLOCK_SLOW_WINDOW_MS=N: every answer and event reaches the page N ms late,
 * in order — a loaded machine on demand, to flush out a test that races the
 * window (a CI failure was one: an Escape sent to a dialog already answered).
 */
const SLOW_WINDOW_MS = Number(process.env.AIRLOCK_SLOW_WINDOW_MS ?? 0);
const late = (): Promise<void> => (SLOW_WINDOW_MS > 0 ? new Promise((resolve) => setTimeout(resolve, SLOW_WINDOW_MS)) : Promise.resolve());

function slowed(handlers: IpcHandlers): IpcHandlers {
  if (SLOW_WINDOW_MS <= 0) return handlers;
  const entries = Object.entries(handlers).map(([channel, handle]) => [
    channel,
    async (...args: unknown[]) => {
      const answer = await (handle as (...a: unknown[]) => unknown)(...args);
      await late();
      return answer;
    },
  ]);
  return Object.fromEntries(entries) as unknown as IpcHandlers;
}

export interface RendererHost {
  host: AirlockHost;
  harness: Harness;
  page: Page;
  root: string;
  dataDir: string;
  home: string;
  folder(name: string): string;
  /** Adds a local command through the real install flow, without the UI. */
  add(name: string, argv: string[], options?: AddServerOptions): Promise<void>;
  /** Errors the page logged (CSP violations, React errors), minus the harness's own http-origin note. */
  consoleErrors: string[];
  /** Saves what the window shows right now (not the whole page): for dialogs. */
  viewShot(name: string): Promise<string>;
  /** Navigates inside the app (a hash route) and waits for the screen's heading. */
  open(route: string): Promise<void>;
  /**
   * Waits until nothing is asked any more: no question held by the core (a tool
   * call, a server's request, a network request) and no dialog or network
   * prompt left on screen. Run after each test that answers dialogs, so
   * the next one never finds the last one's dialog still closing (the core
   * forgets a question before the window hears it was answered).
   */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export async function openRendererHost(
  options: {
    confirmationTimeoutMs?: number;
    host?: Partial<HostOptions>;
    signInPage?: (url: string, server: string) => void;
    harness?: HarnessOptions;
    handlers?: (handlers: IpcHandlers, host: AirlockHost) => IpcHandlers;
    /** A stand-in for the system's file picker (the Electron shell's `dialog.showOpenDialog`): the window then offers "Browse…". */
    pickFile?: NonNullable<HostOptions['hooks']['pickFile']>;
  } = {},
): Promise<RendererHost> {
  const root = mkdtempSync(join(tmpdir(), 'airlock-ui-'));
  const dataDir = join(root, 'data');
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  const emitter = lateEmitter();
  const host = new AirlockHost({
    dataDir,
    version: '0.0.0-test',
    homeDir: home,
    hooks: { emit: emitter.emit, canAsk: () => true, ...(options.pickFile ? { pickFile: options.pickFile } : {}) },
    confirmationTimeoutMs: options.confirmationTimeoutMs ?? 60_000,
    supervisor: { defaultCall: { timeoutMs: 10_000, maxTotalMs: 20_000 } },
    ...options.host,
    ...(options.signInPage ? { signInPage: options.signInPage } : {}),
  });
  const handlers = host.ipcHandlers();
  const harness = await openHarness(slowed(options.handlers ? options.handlers(handlers, host) : handlers), options.harness);
  emitter.bind((event, payload) => void late().then(() => harness.emit(event, payload)).catch(() => undefined));
  const consoleErrors: string[] = [];
  harness.page.on('console', (message) => {
    // The harness serves over http://, where the browser ignores (and notes) the COOP header; the app's scheme is trustworthy.
    if (message.type() === 'error' && !message.text().includes('Cross-Origin-Opener-Policy')) consoleErrors.push(message.text());
  });
  harness.page.on('pageerror', (error) => consoleErrors.push(String(error)));
  await harness.page.goto(HARNESS_URL);
  const { page } = harness;
  return {
    host,
    harness,
    page,
    root,
    dataDir,
    home,
    consoleErrors,
    folder(name) {
      const path = join(root, name);
      mkdirSync(path, { recursive: true });
      return path;
    },
    add: (name, argv, addOptions) => addLocalServer(host, name, argv, addOptions),
    async viewShot(name) {
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      mkdirSync(dirname(path), { recursive: true });
      await page.screenshot({ path });
      return path;
    },
    async open(route) {
      await page.evaluate((hash) => {
        window.location.hash = hash;
      }, route);
      await page.locator('main h1').first().waitFor();
    },
    async settled() {
      const quiet = () => host.approvals.pending().length === 0 && host.serverRequests.pending().length === 0 && host.approvals.network.list().length === 0;
      for (let i = 0; i < 400 && !quiet(); i += 1) await new Promise((r) => setTimeout(r, 25));
      if (!quiet()) throw new Error('a question is still waiting for an answer after the test');
      await page.locator('dialog[open], [data-testid="network-prompt"]').first().waitFor({ state: 'detached', timeout: 30_000 });
    },
    async close() {
      await harness.close().catch(() => undefined);
      await host.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Waits until the core holds a confirmation, and returns it. */
export async function nextConfirmation(host: AirlockHost): Promise<ConfirmationView> {
  for (let i = 0; i < 400; i += 1) {
    const pending = host.approvals.pending();
    if (pending.length) return pending[0]!;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no confirmation opened');
}

/** Polls a locator's text until it contains `text`. */
export async function waitForText(locator: Locator, text: string | RegExp, timeout = 30_000): Promise<string> {
  const started = Date.now();
  let last = '';
  while (Date.now() - started < timeout) {
    last = (await locator.textContent().catch(() => null)) ?? '';
    if (typeof text === 'string' ? last.includes(text) : text.test(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Timed out waiting for ${String(text)}; last text: ${last.slice(0, 500)}`);
}

/** On the install screen: a command on this computer, pasted as one line, split into arguments, and on to its disclosure. */
export async function pasteCommand(page: Page, line: string): Promise<void> {
  await page.getByRole('radio', { name: 'Command on this computer' }).check();
  await page.getByLabel('Paste a command line (optional)').fill(line);
  await page.getByRole('button', { name: 'Split into arguments' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}
