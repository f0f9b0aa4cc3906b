/**
 * The install flow and the review pages in Chromium over the real core:
 * server-filesystem from npm (the one-click example) and as a local command,
 * through disclosure → inspect in the locked sandbox → grant → enable; the
 * Servers list and detail page show its claims, readings and decisions; a
 * revoked grant makes the next write fail in the sandbox; cancel leaves
 * nothing behind.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILESYSTEM_SERVER, openRendererHost, waitForText, type RendererHost, pasteCommand } from './renderer-support';

describe('installing and reviewing server-filesystem in the app', () => {
  let t: RendererHost;
  let work: string;
  let demo: string;

  beforeAll(async () => {
    t = await openRendererHost();
    work = t.folder('work');
    demo = t.folder('demo');
    writeFileSync(join(work, 'notes.md'), 'hello');
  });
  afterAll(() => t?.close());

  it('first run teaches, and the one-click example installs server-filesystem from npm confined to the chosen folder', async () => {
    const { page } = t;
    const empty = page.getByTestId('servers-empty');
    await empty.waitFor();
    expect(await empty.textContent()).toContain('No servers yet.');
    await t.harness.screenshot('servers-empty');
    await page.getByLabel('Folder it may use').fill(demo);
    await page.getByRole('button', { name: 'Set up the example' }).click();

    const disclosure = page.getByTestId('disclosure');
    await disclosure.waitFor({ timeout: 60_000 });
    const provenance = await page.getByTestId('provenance').textContent();
    expect(provenance).toMatch(/npm package @modelcontextprotocol\/server-filesystem@\d+\.\d+\.\d+/);
    expect(provenance).toMatch(/sha512-/);
    const summary = await page.getByTestId('profile-summary').textContent();
    expect(summary).toContain(`Can change files in ${demo}`);
    expect(summary).toContain('Has no internet or network access.');
    expect(await page.getByTestId('argv').textContent()).toContain(demo);

    await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    const report = page.getByTestId('probe-report');
    await report.waitFor({ timeout: 150_000 });
    expect(await report.getByTestId('tool-write_file').textContent()).toContain('Destructive');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('grant-step').waitFor();
    await page.getByRole('button', { name: 'Enable' }).click();

    await page.getByTestId('server-detail').waitFor({ timeout: 60_000 });
    await waitForText(page.getByTestId('server-badges'), 'Running');
    expect(await page.getByTestId('provenance').textContent()).toContain('@modelcontextprotocol/server-filesystem@');
    // Remove it again through the page: type the name, then remove.
    const name = (await page.locator('main h1').textContent())!.trim();
    await page.getByLabel(/Type .* to confirm/).fill(name);
    await page.getByRole('button', { name: `Remove ${name}` }).click();
    await page.getByTestId('servers-empty').waitFor();
    expect(t.host.servers.list()).toEqual([]);
  }, 300_000);

  it('walks a local command through disclosure, inspection, a folder grant and enabling', async () => {
    const { page } = t;
    await t.open('#/install');
    await page.getByRole('radio', { name: 'Command on this computer' }).check();
    await page.getByLabel('Paste a command line (optional)').fill(`${process.execPath} ${FILESYSTEM_SERVER} '${work}'`);
    await page.getByRole('button', { name: 'Split into arguments' }).click();
    const argFields = page.getByTestId('argv-editor').locator('input');
    expect(await argFields.count()).toBe(3);
    expect(await argFields.nth(2).inputValue()).toBe(work);
    await page.getByRole('button', { name: 'Continue' }).click();

    const disclosure = page.getByTestId('disclosure');
    await disclosure.waitFor();
    const argv = page.getByTestId('argv').locator('li');
    expect(await argv.allTextContents()).toEqual([`run${process.execPath}`, `1${FILESYSTEM_SERVER}`, `2${work}`]);
    expect(await page.getByTestId('provenance').textContent()).toMatch(/A command on this computer.*sha256/s);
    expect(await page.getByTestId('profile-summary').textContent()).toContain('Writes nowhere that lasts');
    // Grant the folder it will work in.
    const writes = page.getByTestId('grants-write');
    await writes.getByLabel('Add a folder to change').fill(work);
    await writes.getByRole('button', { name: 'Add a folder to change' }).click();
    await waitForText(page.getByTestId('profile-summary'), `Can change files in ${work}`);
    await t.harness.screenshot('install-disclosure');
    // The inspection runs with the grants being given, read-only — not "with nothing granted" (task L, item 4).
    const note = await page.getByTestId('inspect-note').textContent();
    expect(note).toContain(`Inspecting starts the server once with the grants you are giving it, read-only: it can read ${work} but change nothing`);
    expect(note).toMatch(/with no network and no secrets, the rest of your home folder hidden/);
    expect(note).not.toMatch(/nothing granted/);

    await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    const report = page.getByTestId('probe-report');
    await report.waitFor({ timeout: 60_000 });
    const write = report.getByTestId('tool-write_file');
    const writeText = await write.textContent();
    expect(await write.getByTestId('claims').textContent()).toMatch(/^The server says \(hints, not facts\):.*destructive/);
    expect(writeText).toContain('Airlock’s reading:');
    expect(await write.getByTestId('policy-preview').textContent()).toBe('Always asks');
    expect(await report.getByTestId('tool-read_text_file').getByTestId('reading').textContent()).toContain('Read-only');
    await t.harness.screenshot('install-inspect');
    // The inspection was one 4,400 px scroll; its tools are now one section of it.
    const inspection = await page.evaluate(() => document.documentElement.scrollHeight);
    console.log(`inspection, tools: ${inspection} px`);
    expect(inspection).toBeLessThan(4_000);

    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('grant-step').waitFor();
    await page.getByLabel('Name in Airlock').fill('notes');
    expect(await page.getByTestId('trust-checkbox').isChecked()).toBe(false);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('server-detail').waitFor();
    expect(await page.locator('main h1').textContent()).toBe('notes');
    await waitForText(page.getByTestId('server-badges'), 'Running');
  });

  it('shows the server on the list with its summary and badges', async () => {
    const { page } = t;
    await t.open('#/servers');
    const row = page.getByTestId('server-notes');
    await row.waitFor();
    await waitForText(row.getByTestId('server-badges'), 'Running');
    const badges = await row.getByTestId('server-badges').textContent();
    expect(badges).toContain('Not trusted');
    expect(badges).toContain('Sandboxed');
    expect(badges).toContain('Network: no');
    expect(await row.getByTestId('server-summary').textContent()).toBe(t.host.servers.list()[0]!.summary);
    await t.harness.screenshot('servers-list');
  });

  it('shows claims, readings and decisions on the detail page, in sections', async () => {
    const { page } = t;
    await t.open('#/servers/notes');
    await t.harness.screenshot('server-detail');
    // Keyboard: the tabs are one stop; the arrow keys move between sections.
    await page.getByTestId('tab-overview').focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tab-tools');
    expect(await page.getByTestId('tab-tools').getAttribute('aria-selected')).toBe('true');
    expect(await page.evaluate(() => window.location.hash)).toBe('#/servers/notes/tools');
    const table = page.getByTestId('tools-table');
    await table.waitFor();
    const writeRow = await table.getByTestId('tool-row-write_file').textContent();
    expect(await table.getByTestId('tool-row-write_file').getByTestId('claims').textContent()).toContain('destructive');
    expect(writeRow).toContain('Destructive');
    expect(writeRow).toContain('Always asks');
    const readRow = table.getByTestId('tool-row-read_text_file');
    expect(await readRow.getByTestId('claims').textContent()).toContain('read-only');
    expect(await readRow.getByTestId('reading').textContent()).toContain('Read-only');
    // Untrusted and able to write (not contained): its claim of read-only does not spare a prompt.
    const core = (await t.host.servers.detail('notes')).tools.find((x) => x.name === 'read_text_file')!;
    expect(core.preview.verdict).toBe('ask');
    expect(await readRow.getByTestId('policy-preview').textContent()).toBe(core.preview.label);
    await t.harness.screenshot('server-detail-tools');
    await page.getByRole('tab', { name: 'Permissions' }).click();
    expect(await page.getByTestId('detail-summary').textContent()).toContain(`Can change files in ${work}`);
    await t.harness.screenshot('server-detail-permissions');
    // The page is no longer one long scroll (it was 5,400 px): every section fits a few screens.
    for (const tab of ['overview', 'tools', 'try', 'permissions', 'activity', 'log']) {
      await page.getByTestId(`tab-${tab}`).click();
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      console.log(`server page, ${tab}: ${height} px`);
      expect(height, tab).toBeLessThan(3_500);
    }
    await page.getByTestId('tab-try').click();
  });

  it('a call from the console writes while granted; after the grant is revoked the next write fails in the sandbox', async () => {
    const { page } = t;
    const console_ = page.getByTestId('tool-console');
    await console_.getByLabel('Tool').selectOption('write_file');
    await console_.getByLabel(/^path/).fill(join(work, 'from-console.txt'));
    await console_.getByLabel(/^content/).fill('written by hand');
    await console_.getByRole('button', { name: 'Call' }).click();
    await waitForText(console_.getByTestId('call-result'), 'Done');
    expect(readFileSync(join(work, 'from-console.txt'), 'utf8')).toBe('written by hand');

    await page.getByRole('tab', { name: 'Permissions' }).click();
    const writes = page.getByTestId('grants-write');
    await writes.getByRole('button', { name: `Remove write grant for ${work}` }).click();
    await waitForText(page.getByTestId('detail-summary'), 'Writes nowhere that lasts');
    expect((await t.host.servers.detail('notes')).profile.filesystem.write).toEqual([]);
    await waitForText(page.getByTestId('server-badges'), 'Running');

    await page.getByRole('tab', { name: 'Try a tool' }).click();
    await console_.getByLabel('Tool').selectOption('write_file');
    await console_.getByLabel(/^path/).fill(join(work, 'from-console.txt'));
    await console_.getByLabel(/^content/).fill('after the revoke');
    await console_.getByRole('button', { name: 'Call' }).click();
    await waitForText(console_.getByTestId('call-result'), 'The tool reported an error');
    expect(await console_.getByTestId('call-result').textContent()).toMatch(/EROFS|EACCES|read-only file system|permission denied/i);
    expect(readFileSync(join(work, 'from-console.txt'), 'utf8')).toBe('written by hand');
  });

  it('cancel after inspecting leaves nothing behind', async () => {
    const { page } = t;
    const before = existsSync(join(t.dataDir, 'servers')) ? readdirSync(join(t.dataDir, 'servers')) : [];
    await t.open('#/install');
    await pasteCommand(page, `${process.execPath} ${FILESYSTEM_SERVER} ${demo}`);
    await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    await page.getByTestId('probe-report').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('server-list').waitFor();
    expect(t.host.servers.list().map((s) => s.name)).toEqual(['notes']);
    await expect.poll(() => (existsSync(join(t.dataDir, 'servers')) ? readdirSync(join(t.dataDir, 'servers')) : [])).toEqual(before);
    const probes = existsSync(join(t.dataDir, 'server-data')) ? readdirSync(join(t.dataDir, 'server-data')).filter((x) => x.startsWith('probe-')) : [];
    expect(probes).toEqual([]);
  });

  it('a plain setting is added and removed on the server page (a secret-looking name is sent to Secrets)', async () => {
    const { page } = t;
    await t.open('#/servers/notes/permissions');
    const editor = page.getByTestId('env-editor');
    await editor.getByLabel('Setting name').fill('GITHUB_TOKEN');
    expect(await editor.textContent()).toContain('This looks like a secret: add it under Secrets');
    expect(await editor.getByRole('button', { name: 'Add setting' }).isDisabled()).toBe(true);
    await editor.getByLabel('Setting name').fill('LOG_LEVEL');
    await editor.getByLabel('Setting value').fill('debug');
    await editor.getByRole('button', { name: 'Add setting' }).click();
    await expect.poll(async () => (await t.host.servers.detail('notes')).spec.env).toEqual({ LOG_LEVEL: 'debug' });
    await waitForText(editor, 'LOG_LEVEL=debug');
    await editor.getByRole('button', { name: 'Remove the setting LOG_LEVEL' }).click();
    await expect.poll(async () => (await t.host.servers.detail('notes')).spec.env).toEqual({});
  });

  it('Settings shows which node servers run with, and where it was found', async () => {
    const { page } = t;
    await t.open('#/settings');
    const node = page.getByTestId('runtime-node');
    await node.waitFor();
    expect(await node.textContent()).toMatch(/Node\.js \(JavaScript servers\).*\/node.*v\d+\.\d+\.\d+.*— from /);
    await t.harness.screenshot('settings');
  });

  it('stays readable at 200% zoom: no screen scrolls sideways', async () => {
    const { page } = t;
    // 200% zoom of the 1200×800 window is a 600×400 CSS-pixel viewport.
    await page.setViewportSize({ width: 600, height: 400 });
    for (const route of ['#/servers', '#/servers/notes', '#/install', '#/activity', '#/settings']) {
      await t.open(route);
      await page.waitForTimeout(200);
      const overflow = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth - window.innerWidth,
        // Tables turn into labelled cards rather than scrolling sideways.
        tables: [...document.querySelectorAll('.table-wrap')].map((wrap) => wrap.scrollWidth - wrap.clientWidth).filter((x) => x > 0),
      }));
      expect({ route, overflow }).toEqual({ route, overflow: { page: 0, tables: [] } });
    }
    await t.open('#/servers/notes');
    await t.harness.screenshot('server-detail-zoom-200');
    await page.setViewportSize({ width: 1200, height: 800 });
  });

  it('made no request outside the app, and logged no error (no CSP violation)', () => {
    expect(t.harness.foreignRequests).toEqual([]);
    expect(t.consoleErrors).toEqual([]);
  });
});
