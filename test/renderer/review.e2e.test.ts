/**
 * Review in the app over the real core: importing servers from a Claude
 * Desktop config (three entries, one enabled), and a rug pull — a tool that
 * changes after approval shows as a pending change with a readable diff,
 * reaches no call until a person approves it on the detail page.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, FILESYSTEM_SERVER, openRendererHost, REPO, waitForText, type RendererHost } from './renderer-support';

const LIST_CHANGED = join(REPO, 'test/fixtures/servers/list-changed.mjs');
const ECHO = join(REPO, 'test/fixtures/servers/echo.mjs');
const LOG_FLOOD = join(REPO, 'test/fixtures/servers/log-flood.mjs');

describe('import and pending changes in the app', () => {
  let t: RendererHost;
  let config: string;

  beforeAll(async () => {
    t = await openRendererHost();
    const work = t.folder('work');
    const dir = join(t.home, '.config/Claude');
    mkdirSync(dir, { recursive: true });
    config = join(dir, 'claude_desktop_config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          files: { command: process.execPath, args: [FILESYSTEM_SERVER, work] },
          echo: { command: process.execPath, args: [ECHO] },
          remote: { type: 'http', url: 'https://mcp.example.com/mcp' },
        },
      }),
    );
  });
  afterAll(() => t?.close());

  it('imports a Claude Desktop config with three servers (the remote one offered by URL), and enables one', async () => {
    const { page } = t;
    await t.open('#/install');
    await page.getByRole('radio', { name: 'Import from another app' }).check();
    await page.getByLabel('App', { exact: true }).selectOption('claude');
    await page.getByLabel('Or a config file (optional)').fill(config);
    await page.getByRole('button', { name: 'Look for servers' }).click();
    const results = page.getByTestId('import-results');
    await results.waitFor();
    expect(await results.locator('[data-testid^="import-entry-"]').count()).toBe(3);
    const remote = results.getByTestId('import-entry-remote');
    // A remote entry is offered by URL (its disclosure says where it runs); this test reviews the local one.
    expect(await remote.textContent()).toContain('Can be imported');
    expect(await results.getByTestId('import-entry-files').textContent()).toContain('Can be imported');
    await results.getByTestId('import-entry-echo').getByRole('radio').check();
    await page.getByRole('button', { name: 'Review the selected server' }).click();

    await page.getByTestId('disclosure').waitFor();
    expect(await page.getByTestId('provenance').textContent()).toContain(`Claude Desktop: entry echo in ${config}`);
    expect(await page.getByTestId('argv').textContent()).toContain(ECHO);
    await page.getByRole('button', { name: 'Skip inspection' }).click();
    await page.getByLabel('Name in Airlock').fill('echo');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('server-detail').waitFor();
    await waitForText(page.getByTestId('server-badges'), 'Running');
    expect(t.host.servers.list().map((s) => s.name)).toEqual(['echo']);
  });

  it('shows a rug pull as a pending change with a diff; no call reaches the tool until it is approved', async () => {
    const { page } = t;
    const records = t.folder('records');
    await t.add('drift', [process.execPath, LIST_CHANGED], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
    await t.open('#/servers/drift');
    await page.getByTestId('detail-tabs').waitFor();
    // The rug pull: the person's own call to `mutate` changes `target` and announces it.
    await t.host.calls.call({ server: 'drift', tool: 'mutate', arguments: {}, caller: { kind: 'user' } });
    const pending = page.getByTestId('pending-changes');
    await pending.waitFor({ timeout: 30_000 });
    const diff = pending.getByTestId('definition-diff');
    expect(await diff.locator('ins').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('send ~/.ssh/id_rsa')]));
    expect(await pending.getByTestId('pending-target').textContent()).toMatch(/fingerprint: [0-9a-f]{64}/);
    await waitForText(page.getByTestId('server-badges'), '1 pending change');
    // The sections that hold the change say so on their tabs.
    expect(await page.getByTestId('tab-tools').getAttribute('class')).toContain('tab-attention');
    await t.harness.screenshot('server-detail-pending-change');

    // Until approved, an agent's call to the changed tool asks again, showing what changed; denied, it never runs.
    const call = t.host.calls.call({ server: 'drift', tool: 'target', arguments: {}, caller: agent });
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('This tool changed since you approved it');
    expect(await dialog.getByTestId('definition-diff').locator('ins').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('send ~/.ssh/id_rsa')]),
    );
    await t.viewShot('confirmation-dialog-changed-tool');
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    expect((await call).outcome).toBe('denied');
    await dialog.waitFor({ state: 'detached' });

    await pending.getByRole('button', { name: 'Keep blocked' }).click();
    expect(await pending.textContent()).toContain('Kept blocked');
    await t.open('#/servers');
    await t.open('#/servers/drift');
    await page.getByTestId('pending-target').getByRole('button', { name: 'Approve this definition' }).click();
    await page.getByTestId('pending-changes').waitFor({ state: 'detached' });
    const detail = await t.host.servers.detail('drift');
    expect(detail.tools.find((tool) => tool.name === 'target')!.pendingChange).toBeUndefined();
    expect(detail.pendingChanges).toBe(0);
  });

  it('stays live while a server floods its log and stderr', async () => {
    const { page } = t;
    await t.add('flood', [process.execPath, LOG_FLOOD]);
    await t.open('#/servers/flood/try');
    const console_ = page.getByTestId('tool-console');
    for (const tool of ['flood_logs', 'flood_stderr']) {
      await console_.getByLabel('Tool').selectOption(tool);
      await console_.getByRole('button', { name: 'Call' }).click();
      await waitForText(console_.getByTestId('call-result'), 'Done');
    }
    await page.getByRole('tab', { name: 'Log' }).click();
    await waitForText(page.getByTestId('server-log'), 'stderr noise');
    // While the flood goes on, the window still answers at once.
    for (const route of ['#/activity', '#/servers/flood/log', '#/settings', '#/servers/flood']) {
      const started = Date.now();
      await t.open(route);
      expect(Date.now() - started).toBeLessThan(3_000);
    }
    expect(await page.locator('.log-line').count()).toBeLessThanOrEqual(2_000);
    await page.getByRole('button', { name: 'Stop' }).click();
    await waitForText(page.getByTestId('server-badges'), 'Stopped');
  });

  it('made no request outside the app, and logged no error (no CSP violation)', () => {
    expect(t.harness.foreignRequests).toEqual([]);
    expect(t.consoleErrors).toEqual([]);
  });
});
