/**
 * Settings › strict durability in Chromium over the real core (issue 15):
 * the screen says what the default keeps and what a power cut can lose, the
 * switch works from the keyboard, and the core's setting follows it. The
 * Activity page says when the log's end is confirmed, checks only what was
 * appended after each new entry (and says so), and offers the whole check,
 * which finds an edit made in place to an entry it had already checked.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRendererHost, waitForText, type RendererHost } from './renderer-support';

describe('strict durability on the Settings screen', () => {
  let t: RendererHost;

  beforeAll(async () => {
    t = await openRendererHost();
  });
  afterAll(() => t?.close());

  it('states the flush window, and turns strict durability on and off from the keyboard', async () => {
    const { page } = t;
    await t.open('#/settings');
    const section = page.getByTestId('durability');
    await waitForText(section, /within 50 ms: a power cut in that moment can lose them/);
    const box = section.getByRole('checkbox', { name: /Strict durability/ });
    expect(await box.isChecked()).toBe(false);
    await box.focus();
    await page.keyboard.press('Space');
    await page.waitForFunction(() => (document.querySelector('[data-testid="durability"] input[type="checkbox"]') as HTMLInputElement | null)?.checked === true);
    for (let i = 0; i < 100 && !t.host.app.settings().strictDurability; i++) await new Promise((r) => setTimeout(r, 20));
    expect(t.host.app.settings().strictDurability).toBe(true);
    await page.keyboard.press('Space');
    for (let i = 0; i < 100 && t.host.app.settings().strictDurability; i++) await new Promise((r) => setTimeout(r, 20));
    expect(t.host.app.settings().strictDurability).toBe(false);
    expect(t.consoleErrors).toEqual([]);
  });

  it('Activity says the end of the log is confirmed, and lists both switches as changes made in the window', async () => {
    await t.host.changes.settled();
    await t.host.audit.appendDecision({ caller: { kind: 'user' }, server: 'files', tool: 'read', fingerprint: null, arguments: {}, verdict: 'allow', final: 'allow', reasons: [] });
    await t.open('#/activity');
    // The two changes of strict durability above, and the decision.
    await waitForText(t.page.getByTestId('audit-verify'), /Chain verified: 3 entries in 1 file, none edited, removed or reordered, and none cut from the end\./);
    const changes = t.page.locator('[data-testid="audit-row"][data-kind="change"]');
    await waitForText(changes.first(), /Settings.*You \(window\).*strict durability changed.*strict durability: off \(was on\)/s);
    expect(await changes.count()).toBe(2);
  });

  it('Activity checks what was appended since, says so, and the whole check finds an older entry edited in place', async () => {
    const { page, host } = t;
    const verify = page.getByTestId('audit-verify');
    await waitForText(verify, /Chain verified: 3 entries/);
    const append = async (note: string) => {
      const entry = await host.audit.appendDecision({ caller: { kind: 'user' }, server: 'files', tool: 'read', fingerprint: null, arguments: { note }, verdict: 'allow', final: 'allow', reasons: [] });
      await t.harness.emit('audit.didAppend', { seq: entry.seq });
    };
    await append('abcdef');
    await waitForText(verify, /Chain verified: 4 entries in 1 file.*New entries checked as they came/);
    await append('ghijkl');
    await waitForText(verify, /Chain verified: 5 entries in 1 file.*New entries checked as they came/);
    // Entry 4, already checked and not the last one checked (that one is re-read each time), edited in place; then a new entry.
    const file = join(t.dataDir, 'audit', 'audit.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"note":"abcdef"', '"note":"ABCDEF"'));
    await append('mnopqr');
    await waitForText(verify, /Chain verified: 6 entries in 1 file.*New entries checked as they came/);
    await verify.getByRole('button', { name: 'Check the whole log' }).click();
    await waitForText(verify, /The activity log was changed outside Airlock\..*audit\.jsonl:4.*changed after it was written/);
    expect(t.consoleErrors).toEqual([]);
  });
});
