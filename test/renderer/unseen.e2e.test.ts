/**
 * The window over the real core, for what the person never saw and for
 * names that are data: a server whose tools, arguments and prompts are all
 * inherited property names (`constructor`, `__proto__`, …) shows every tool
 * and sends every argument typed in the console; a server that lists a tool
 * after install shows it as "New since you added it" until approved; a
 * local server whose script was edited shows the old and new hash until its
 * new code is approved.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRendererHost, REPO, waitForText, type RendererHost } from './renderer-support';

const HOSTILE = join(REPO, 'test/fixtures/names/hostile-names.mjs');
const LATE = join(REPO, 'test/fixtures/unseen/late-tools.mjs');
const NOTES = join(REPO, 'test/fixtures/unseen/notes.mjs');
const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__lookupGetter__'];

describe('names are data, and new tools are new, in the window', () => {
  let t: RendererHost;
  let records: string;

  beforeAll(async () => {
    t = await openRendererHost();
    records = t.folder('records');
    await t.add('names', [process.execPath, HOSTILE, records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
    await t.add('late', [process.execPath, LATE, records], { trusted: true, profile: { filesystem: { read: [], write: [records], persistentData: false } } });
  });
  afterAll(() => t?.close());

  it('the server page lists every tool by its own name, none new, with no error in the page', async () => {
    const { page } = t;
    await t.open('#/servers/names');
    await page.getByTestId('server-detail').waitFor();
    expect(await page.getByTestId('new-tools').count()).toBe(0);
    expect(await page.getByTestId('pending-changes').count()).toBe(0);
    await t.open('#/servers/names/tools');
    const table = page.getByTestId('tools-table');
    await table.waitFor();
    for (const name of NAMES) expect(await table.getByTestId(`tool-row-${name}`).count(), name).toBe(1);
    expect(t.consoleErrors).toEqual([]);
  });

  it('the console sends every argument typed into the form under its own name', async () => {
    const { page } = t;
    await t.open('#/servers/names/try');
    const console_ = page.getByTestId('tool-console');
    await console_.getByLabel('Tool').selectOption('constructor');
    const rows = console_.locator('.field-row:has(label code)');
    const count = await rows.count();
    expect(count).toBe(NAMES.length - 1); // the SDK's schema drops an own `__proto__` argument name on the wire
    for (let i = 0; i < count; i += 1) {
      const name = (await rows.nth(i).locator('label code').textContent())!;
      await rows.nth(i).locator('input').fill(`v:${name}`);
    }
    await console_.getByRole('button', { name: 'Call' }).click();
    await waitForText(console_.getByTestId('call-result'), 'Done');
    const calls = readFileSync(join(records, 'calls'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { tool: string; arguments: Record<string, string> });
    const last = calls.at(-1)!;
    expect(last.tool).toBe('constructor');
    expect(Object.entries(last.arguments).sort()).toEqual(NAMES.filter((name) => name !== '__proto__').map((name) => [name, `v:${name}`]).sort());
    expect(t.consoleErrors).toEqual([]);
  });

  it('a tool listed after install is "New since you added it", with a badge, until the person approves it', async () => {
    const { page } = t;
    await t.open('#/servers/late');
    const added = page.getByTestId('new-tools');
    await added.waitFor();
    expect(await added.locator('[data-testid^="new-"]').count()).toBe(1);
    const peek = added.getByTestId('new-peek');
    expect(await peek.textContent()).toMatch(/Added after install.*read-only.*Fingerprint: [0-9a-f]{64}/s);
    await waitForText(page.getByTestId('server-badges'), '1 new tool to review');
    await t.harness.screenshot('server-detail-new-tool');
    await t.open('#/servers/late/tools');
    expect(await page.getByTestId('tool-row-peek').textContent()).toMatch(/New: added after install.*Asks/s);
    await t.open('#/servers/late');
    await page.getByTestId('new-peek').getByRole('button', { name: 'Approve this tool' }).click();
    await page.getByTestId('new-tools').waitFor({ state: 'detached' });
    await t.open('#/servers/late/tools');
    await waitForText(page.getByTestId('tool-row-peek'), 'Runs without asking');
    expect(existsSync(join(records, 'calls')) ? readFileSync(join(records, 'calls'), 'utf8') : '').not.toMatch(/^peek$/m);
    expect(t.consoleErrors).toEqual([]);
  });

  it('a local server whose script changed shows old and new hash, and approving pins the new code', async () => {
    const { page } = t;
    const script = join(t.folder('code'), 'notes-server.mjs');
    writeFileSync(script, `import ${JSON.stringify(NOTES)};\n`);
    await t.add('notes', [process.execPath, script, records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
    writeFileSync(script, `import ${JSON.stringify(NOTES)};\n// edited\n`);
    await t.host.servers.restart('notes');
    await t.open('#/servers/notes');
    const panel = page.getByTestId('code-changed');
    await panel.waitFor();
    const pinned = (t.host.servers.record('notes').provenance as { script: { sha256: string } }).script.sha256;
    expect(await panel.textContent()).toMatch(new RegExp(`Script ${script.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*approved sha256 ${pinned}.*now sha256 [0-9a-f]{64}`, 's'));
    await waitForText(page.getByTestId('server-badges'), 'Code changed since approved');
    await t.harness.screenshot('server-detail-code-changed');
    await panel.getByRole('button', { name: 'Approve the new code' }).click();
    await panel.waitFor({ state: 'detached' });
    expect((t.host.servers.record('notes').provenance as { script: { sha256: string } }).script.sha256).not.toBe(pinned);
    expect(t.consoleErrors).toEqual([]);
  });
});
