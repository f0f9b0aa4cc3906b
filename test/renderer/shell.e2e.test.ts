import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxSupport } from '../../shared/domain';
import { AirlockHost } from '../../electron/core/host';
import { checkSandboxSupport } from '../../electron/core/sandbox/capability';
import { HARNESS_URL, lateEmitter, openHarness, type Harness } from '../support/browser-harness';

describe('the app shell in Chromium, driven by the real core', () => {
  let dataDir: string;
  let host: AirlockHost;
  let harness: Harness;
  let sandboxCheck: () => SandboxSupport = () => checkSandboxSupport();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'airlock-e2e-'));
    const emitter = lateEmitter();
    host = new AirlockHost({ dataDir, version: '0.0.0-test', hooks: { emit: emitter.emit }, checkSandbox: () => sandboxCheck() });
    harness = await openHarness(host.ipcHandlers());
    emitter.bind((event, payload) => void harness.emit(event, payload));
    await harness.page.goto(HARNESS_URL);
  });

  afterAll(async () => {
    await harness?.close();
    await host?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows the frame with its screens and the version from the core', async () => {
    const { page } = harness;
    const nav = page.getByRole('navigation', { name: 'Airlock' });
    for (const name of ['Servers', 'Chat', 'Activity', 'Settings']) {
      await expect.poll(() => nav.getByRole('link', { name, exact: true }).isVisible()).toBe(true);
    }
    await expect.poll(() => page.getByText('v0.0.0-test').isVisible()).toBe(true);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Servers');
  });

  it('navigates by keyboard to Settings and reads the sandbox status from the core', async () => {
    const { page } = harness;
    await page.getByRole('link', { name: 'Settings' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Settings');
    const status = page.getByTestId('sandbox-status');
    await expect.poll(() => status.textContent()).toContain(host.app.sandbox.summary);
    expect(await page.getByText(dataDir).isVisible()).toBe(true);
    await harness.screenshot('shell-settings');
  });

  it('follows a sandbox change pushed by the core as an event', async () => {
    const { page } = harness;
    sandboxCheck = () => checkSandboxSupport({ platform: 'linux', pathEnv: '' });
    host.app.recheckSandbox();
    await expect.poll(() => page.getByTestId('sandbox-badge').textContent()).toBe('Sandbox unavailable');
    await expect.poll(() => page.getByTestId('sandbox-status').textContent()).toContain('sudo apt-get install -y bubblewrap socat ripgrep');
    await harness.screenshot('shell-settings-missing');
    sandboxCheck = () => checkSandboxSupport();
    await page.getByRole('button', { name: 'Check again' }).click();
    await expect.poll(() => page.getByTestId('sandbox-badge').textContent()).toBe('Sandbox ready');
  });

  it('exposes only the frozen contract bridge, which refuses what the contract does not name', async () => {
    const { page } = harness;
    const result = await page.evaluate(async () => {
      const bridge = (window as unknown as { airlock: Record<string, unknown> & { invoke: (c: string, r: unknown) => Promise<{ ok: boolean; code?: string }> } }).airlock;
      let replaced = true;
      try {
        (bridge as Record<string, unknown>).invoke = () => 'hijacked';
      } catch {
        replaced = false;
      }
      return {
        frozen: Object.isFrozen(bridge),
        replaced: replaced && (bridge.invoke as unknown) === 'hijacked',
        hasRequire: typeof (window as unknown as { require?: unknown }).require !== 'undefined',
        unknown: await bridge.invoke('fs.readFile', {}),
        extraKey: await bridge.invoke('app.info', { evil: true }),
        wrongType: await bridge.invoke('app.info', 'nope'),
      };
    });
    expect(result.frozen).toBe(true);
    expect(result.replaced).toBe(false);
    expect(result.hasRequire).toBe(false);
    expect(result.unknown).toMatchObject({ ok: false, code: 'unknown-channel' });
    expect(result.extraKey).toMatchObject({ ok: false, code: 'invalid-request' });
    expect(result.wrongType).toMatchObject({ ok: false, code: 'invalid-request' });
  });

  it('makes no request outside the app', () => {
    expect(harness.foreignRequests).toEqual([]);
  });
});
