/**
 * The chat in Chromium over a real core: a real AirlockHost (real servers in
 * the real sandbox), the scripted model server on loopback, and the built
 * renderer. Links the page asks to open are recorded instead of opened.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { AirlockHost, type HostOptions } from '../../electron/core/host';
import type { IpcHandlers } from '../../shared/ipc';
import { HARNESS_URL, lateEmitter, openHarness, SCREENSHOT_DIR, type Harness, type HarnessOptions } from '../support/browser-harness';
import { addLocalServer, type AddServerOptions } from '../support/add-server';
import { ModelServer } from '../fixtures/model-server/model-server';
import { openUrlHandler } from '../../electron/main/open-external';

export const MODEL_KEY = 'sk-ant-scripted-browser-key';

export interface ChatHost {
  host: AirlockHost;
  harness: Harness;
  page: Page;
  model: ModelServer;
  root: string;
  /** Links the page opened (in the app: the system browser). */
  opened: string[];
  /** Servers' web pages (URL-mode questions) handed to the system browser, through main's own `requests.openUrl` wrapper. */
  openedUrls: string[];
  consoleErrors: string[];
  folder(name: string): string;
  add(name: string, argv: string[], options?: AddServerOptions): Promise<void>;
  /** The scripted Anthropic provider as the default model. */
  useScriptedModel(model?: string): void;
  /** Opens the chat with a new conversation and returns its id. */
  newConversation(): Promise<string>;
  /** Types a message and sends it with Enter. */
  send(text: string): Promise<void>;
  viewShot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function openChatHost(options: { host?: Partial<HostOptions>; harness?: HarnessOptions; handlers?: (handlers: IpcHandlers) => IpcHandlers } = {}): Promise<ChatHost> {
  const root = mkdtempSync(join(tmpdir(), 'airlock-chat-ui-'));
  const dataDir = join(root, 'data');
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  const opened: string[] = [];
  const openedUrls: string[] = [];
  const emitter = lateEmitter();
  const host = new AirlockHost({
    dataDir,
    version: '0.0.0-test',
    homeDir: home,
    hooks: { emit: emitter.emit, canAsk: () => true, openExternal: async (url) => void opened.push(url) },
    confirmationTimeoutMs: 60_000,
    supervisor: { defaultCall: { timeoutMs: 10_000, maxTotalMs: 20_000 } },
    ...options.host,
  });
  const model = await ModelServer.start({ apiKey: MODEL_KEY, models: ['claude-sonnet-4-5', 'claude-haiku-4-5'] });
  const handlers = host.ipcHandlers();
  // As electron/main/index.ts wires it: the core checks and records the click, main hands the URL to the system browser.
  const wired: IpcHandlers = { ...handlers, 'requests.openUrl': openUrlHandler(handlers['requests.openUrl'], { openExternal: async (url) => void openedUrls.push(url) }) };
  const harness = await openHarness(options.handlers ? options.handlers(wired) : wired, options.harness);
  emitter.bind((event, payload) => void harness.emit(event, payload).catch(() => undefined));
  const consoleErrors: string[] = [];
  harness.page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().includes('Cross-Origin-Opener-Policy')) consoleErrors.push(message.text());
  });
  harness.page.on('pageerror', (error) => consoleErrors.push(String(error)));
  await harness.page.goto(HARNESS_URL);
  const { page } = harness;
  return {
    host,
    harness,
    page,
    model,
    root,
    opened,
    openedUrls,
    consoleErrors,
    folder(name) {
      const path = join(root, name);
      mkdirSync(path, { recursive: true });
      return path;
    },
    add: (name, argv, options) => addLocalServer(host, name, argv, options),
    useScriptedModel(name = 'claude-sonnet-4-5') {
      const existing = host.agent.models.providers().find((provider) => provider.label === 'Scripted Claude');
      const id = existing?.id ?? host.agent.addProvider({ kind: 'anthropic', label: 'Scripted Claude', baseUrl: model.baseUrl, apiKey: MODEL_KEY }).id;
      host.agent.setDefaultModel({ provider: id, model: name });
    },
    async newConversation() {
      await page.evaluate(() => {
        window.location.hash = '#/chat';
      });
      await page.getByTestId('new-conversation').click();
      await page.getByTestId('chat-input').waitFor();
      await page.waitForFunction(() => /^#\/chat\/[0-9a-f-]{36}$/.test(window.location.hash));
      return (await page.evaluate(() => window.location.hash)).replace('#/chat/', '');
    },
    async send(text) {
      const input = page.getByTestId('chat-input');
      await input.fill(text);
      await input.press('Enter');
    },
    async viewShot(name) {
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      mkdirSync(dirname(path), { recursive: true });
      await page.screenshot({ path });
      return path;
    },
    async close() {
      await harness.close().catch(() => undefined);
      await host.dispose();
      await model.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
