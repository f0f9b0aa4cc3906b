/**
 * The confirmation dialog in Chromium over the real core: an agent's call to
 * server-filesystem (in the real sandbox) raises it; what the person does in
 * the dialog decides what reaches the server, checked on disk from outside.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agent, FILESYSTEM_SERVER, nextConfirmation, openRendererHost, waitForText, type RendererHost } from './renderer-support';

describe('the confirmation dialog, driven by agent calls through the real core', () => {
  let t: RendererHost;
  let work: string;

  beforeAll(async () => {
    t = await openRendererHost();
    work = t.folder('work');
    await t.add('files', [process.execPath, FILESYSTEM_SERVER, work], {
      profile: { filesystem: { read: [work], write: [work], persistentData: false } },
    });
  });
  afterEach(() => t?.settled());
  afterAll(() => t?.close());

  /** Waits out the moment a newly shown request keeps its answer buttons asleep (SWAP_HOLD_MS), so what follows tests the rest. */
  const awake = (dialog: Locator) => expect.poll(() => dialog.getByTestId('confirmation-deny').getAttribute('aria-disabled')).toBe(null);

  const writeCall = (file: string, content = 'draft') =>
    t.host.calls.call({ server: 'files', tool: 'write_file', arguments: { path: join(work, file), content }, caller: agent });

  it('shows who asks, the arguments, claims beside the reading, and lets the person edit an argument before allowing', async () => {
    const { page } = t;
    const pending = writeCall('edited.txt');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await page.getByTestId('confirmation-headline').textContent()).toContain('Test Agent');
    const text = (await dialog.textContent()) ?? '';
    expect(text).toContain('Asked by app “Test Agent”');
    const claims = await dialog.getByTestId('claims').textContent();
    expect(claims).toMatch(/^The server says \(hints, not facts\):.*destructive/);
    expect(text).toContain('Airlock’s reading:');
    expect(text).toContain('Destructive');
    expect(text).toContain(join(work, 'edited.txt'));
    expect(await page.getByTestId('countdown').textContent()).toMatch(/Denied automatically in \d+ s/);
    expect(await page.getByTestId('confirmation-queue').textContent()).toBe('1 request waiting');
    await waitForText(page.getByTestId('confirmation-origin'), `From: ${t.host.servers.list()[0]!.source}`);
    // SECURITY: the destructive call focuses Deny, and Allow stays off until the person confirms the named object.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');
    await awake(dialog);
    expect(await dialog.getByRole('button', { name: 'Allow once' }).isDisabled()).toBe(true);
    await t.viewShot('confirmation-dialog-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await t.viewShot('confirmation-dialog-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await dialog.getByRole('button', { name: 'Edit, then allow…' }).click();
    const editor = page.getByTestId('confirmation-arguments-editor');
    await editor.fill('{"path": ');
    expect(await dialog.getByRole('alert').textContent()).toContain('not valid JSON');
    await dialog.getByTestId('confirm-object').getByRole('checkbox').check();
    expect(await dialog.getByRole('button', { name: 'Allow once, as edited' }).isDisabled()).toBe(true);
    await editor.fill('[1, 2]');
    expect(await dialog.getByRole('alert').textContent()).toContain('must be a JSON object');
    // Valid JSON that does not fit the tool's schema: the core refuses the answer and the request stays open.
    await editor.fill(JSON.stringify({ path: 5, content: 'x' }));
    await dialog.getByRole('button', { name: 'Allow once, as edited' }).click();
    await waitForText(dialog.getByRole('alert'), /schema/i);
    expect(t.host.approvals.pending()).toHaveLength(1);
    await editor.fill(JSON.stringify({ path: join(work, 'edited.txt'), content: 'edited by a person' }));
    const allow = dialog.getByRole('button', { name: 'Allow once, as edited' });
    expect(await allow.isDisabled()).toBe(false);
    await allow.click();

    const result = await pending;
    expect(result.outcome).toBe('ok');
    expect(readFileSync(join(work, 'edited.txt'), 'utf8')).toBe('edited by a person');
    await dialog.waitFor({ state: 'detached' });
  });

  it('Deny never reaches the server', async () => {
    const { page } = t;
    const pending = writeCall('denied.txt');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    const result = await pending;
    expect(result.outcome).toBe('denied');
    expect(existsSync(join(work, 'denied.txt'))).toBe(false);
    await dialog.waitFor({ state: 'detached' });
  });

  it('Escape denies', async () => {
    const { page } = t;
    const pending = writeCall('escaped.txt');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    const result = await pending;
    expect(result.outcome).toBe('denied');
    expect(existsSync(join(work, 'escaped.txt'))).toBe(false);
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  it('Enter never approves a destructive call, even with the object confirmed and Allow focused', async () => {
    const { page } = t;
    const pending = writeCall('entered.txt');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const box = dialog.getByTestId('confirm-object').getByRole('checkbox');
    await box.focus();
    await page.keyboard.press('Enter');
    expect(await box.isChecked()).toBe(false);
    await page.keyboard.press('Space');
    expect(await box.isChecked()).toBe(true);
    const allow = dialog.getByRole('button', { name: 'Allow once' });
    // (The buttons wake up a moment after the dialog opens: SWAP_HOLD_MS.)
    await expect.poll(() => allow.isDisabled()).toBe(false);
    await allow.focus();
    await page.keyboard.press('Enter');
    await page.waitForTimeout(500);
    expect(await dialog.isVisible()).toBe(true);
    expect(t.host.approvals.pending()).toHaveLength(1);
    expect(existsSync(join(work, 'entered.txt'))).toBe(false);
    await page.keyboard.press('Escape');
    expect((await pending).outcome).toBe('denied');
    expect(existsSync(join(work, 'entered.txt'))).toBe(false);
  });

  it('shows one request at a time with the queue, and "always" for a destructive tool needs a second confirmation', async () => {
    const { page } = t;
    const first = writeCall('q1.txt');
    const second = writeCall('q2.txt');
    const dialog = page.getByRole('dialog');
    await waitForText(page.getByTestId('confirmation-queue'), '1 of 2 requests waiting');
    await awake(dialog);
    await dialog.getByRole('radio', { name: /^Always, for/ }).check();
    expect(await dialog.getByTestId('rule-preview').textContent()).toContain('This saves a rule: always allow (or, with Deny, always deny) files › write_file');
    await dialog.getByTestId('confirm-object').getByRole('checkbox').check();
    const always = dialog.getByRole('button', { name: 'Always allow' });
    expect(await always.isDisabled()).toBe(true);
    await dialog.getByTestId('confirm-always').getByRole('checkbox').check();
    expect(await always.isDisabled()).toBe(false);
    // Not this time: deny both, one after the other.
    await dialog.getByRole('radio', { name: 'Only this time' }).check();
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    await waitForText(page.getByTestId('confirmation-queue'), '1 request waiting');
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    expect((await first).outcome).toBe('denied');
    expect((await second).outcome).toBe('denied');
    expect(existsSync(join(work, 'q1.txt')) || existsSync(join(work, 'q2.txt'))).toBe(false);
  });

  it('a call that changes things but is not destructive needs no object check, and "this session" covers the next call', async () => {
    const { page } = t;
    const mkdir = (name: string) => t.host.calls.call({ server: 'files', tool: 'create_directory', arguments: { path: join(work, name) }, caller: agent });
    const first = mkdir('made-1');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByTestId('confirm-object').count()).toBe(0);
    await expect.poll(() => dialog.getByRole('button', { name: 'Allow once' }).isDisabled()).toBe(false);
    await dialog.getByRole('radio', { name: /^For this session/ }).check();
    await dialog.getByRole('button', { name: 'Allow for this session' }).click();
    expect((await first).outcome).toBe('ok');
    expect(existsSync(join(work, 'made-1'))).toBe(true);
    await dialog.waitFor({ state: 'detached' });
    const second = await mkdir('made-2');
    expect(second.outcome).toBe('ok');
    expect(existsSync(join(work, 'made-2'))).toBe(true);
  });

  it('lists every decision on Activity, names the answers, verifies the chain and filters by decision', async () => {
    const { page } = t;
    await t.open('#/activity');
    await waitForText(page.getByTestId('audit-verify'), /Chain verified: \d+ entries/);
    const rows = page.getByTestId('audit-row');
    await waitForText(page.getByTestId('audit-table'), 'write_file');
    expect(await page.locator('[data-testid="audit-row"][data-verdict="denied after you answered in the window"]').count()).toBeGreaterThanOrEqual(5);
    expect(await page.locator('[data-testid="audit-row"][data-verdict="allowed after you answered in the window"]').count()).toBe(2);
    expect(await page.locator('[data-testid="audit-row"][data-outcome="ok"]').count()).toBe(3);
    expect(await page.getByTestId('audit-table').textContent()).toContain('arguments edited');
    const decisionsAre = (test: string, least: number) =>
      page.waitForFunction(
        ([pattern, min]) => {
          const decisions = [...document.querySelectorAll('[data-testid="audit-row"][data-kind="decision"]')];
          return decisions.length >= Number(min) && decisions.every((row) => new RegExp(String(pattern)).test(row.getAttribute('data-verdict') ?? ''));
        },
        [test, least] as const,
      );
    await page.getByLabel('Decision').selectOption('allow');
    await decisionsAre('^allowed', 3);
    expect(await page.locator('[data-testid="audit-row"][data-kind="decision"]').count()).toBe(3);
    await page.getByLabel('Decision').selectOption('deny');
    await decisionsAre('^denied', 5);
    await page.getByLabel('Decision').selectOption('ask');
    await decisionsAre('after you answered|nobody|own call|not sent|did not match', 7);
    expect(await rows.count()).toBeGreaterThanOrEqual(7);
    // At this window's width every tool name sits on one line (an inline element broken across lines has several boxes).
    const broken = await page.$$eval('[data-testid="audit-table"] td[data-label="Tool"] code', (codes) => codes.filter((code) => code.getClientRects().length !== 1).map((code) => code.textContent));
    expect(broken).toEqual([]);
    await t.harness.screenshot('activity');
  });

  it('does not take the focus while the person is typing: the request waits, announced, until they pause', async () => {
    const { page } = t;
    await t.open('#/activity');
    const field = page.getByLabel('Tool', { exact: true });
    await field.focus();
    await page.keyboard.type('wr', { delay: 100 });
    const pending = writeCall('while-typing.txt');
    await nextConfirmation(t.host);
    await page.keyboard.type('ite_fi', { delay: 150 });
    expect(await page.getByTestId('confirmation-waiting').isVisible()).toBe(true);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await field.inputValue()).toBe('write_fi');
    await page.getByRole('dialog').waitFor({ timeout: 5_000 });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');
    await page.keyboard.press('Escape');
    expect((await pending).outcome).toBe('denied');
    await field.fill('');
  });

  it('makes an "always allow" rule for the destructive tool only after a second confirmation, then lists and revokes it', async () => {
    const { page } = t;
    await t.open('#/servers/files/tools');
    const row = page.getByTestId('tool-row-write_file');
    await row.getByRole('button', { name: 'Always allow…' }).click();
    await row.getByRole('button', { name: 'Yes, always allow' }).click();
    await waitForText(row, 'Always allow');
    expect(t.host.policy.rules()).toMatchObject([{ server: 'files', tool: 'write_file', effect: 'allow', current: true }]);
    // The rule holds for the agent's next call: no dialog, the file is written.
    const result = await writeCall('by-rule.txt', 'allowed by the rule');
    expect(result.outcome).toBe('ok');
    expect(readFileSync(join(work, 'by-rule.txt'), 'utf8')).toBe('allowed by the rule');

    await t.open('#/settings');
    const rules = page.getByTestId('rules-table');
    await waitForText(rules, 'write_file');
    await rules.getByRole('button', { name: 'Revoke' }).click();
    await waitForText(page.locator('main'), 'No standing rules');
    expect(t.host.policy.rules()).toEqual([]);
    const asked = writeCall('after-revoke.txt');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    expect((await asked).outcome).toBe('denied');
  });

  it('sets the policy mode on Settings', async () => {
    const { page } = t;
    await t.open('#/settings');
    await page.getByRole('radio', { name: /^Strict\./ }).check();
    await expect.poll(() => t.host.policy.mode()).toBe('strict');
    await page.getByRole('radio', { name: /^Default\./ }).check();
    await expect.poll(() => t.host.policy.mode()).toBe('default');
  });

  it('made no request outside the app, and logged no error (no CSP violation)', () => {
    expect(t.harness.foreignRequests).toEqual([]);
    expect(t.consoleErrors).toEqual([]);
  });
});
