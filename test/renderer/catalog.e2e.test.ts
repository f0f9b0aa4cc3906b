/**
 * The Resources and Prompts sections of a server's page (issue 12 §4), in
 * Chromium over the real core and real servers in the real sandbox:
 * server-everything (resources, templates, prompts with completion), a
 * fixture that lists 45 resources in cursor pages, and catalog-abuse (a
 * resource too large to pass on, binary passed off as text, HTML, a prompt
 * that changes after approval, a flood of questions; it records every read
 * into a granted folder).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRendererHost, REPO, waitForText, type RendererHost } from './renderer-support';

const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MANY = join(REPO, 'test/fixtures/renderer/many-resources.mjs');
const ABUSE = join(REPO, 'test/fixtures/servers/catalog-abuse.mjs');

describe('resources and prompts on a server’s page', () => {
  let t: RendererHost;
  let records: string;
  const reads = () => (existsSync(join(records, 'reads')) ? readFileSync(join(records, 'reads'), 'utf8').split('\n').filter(Boolean) : []);

  beforeAll(async () => {
    // The flood test's call lasts as long as the person takes with ten questions (each after the swap pause): more than the harness's 10 s default under load.
    t = await openRendererHost({ host: { supervisor: { defaultCall: { timeoutMs: 60_000, maxTotalMs: 120_000 } } } });
    records = t.folder('records');
    await t.add('everything', [process.execPath, EVERYTHING, 'stdio']);
    await t.add('pages', [process.execPath, MANY]);
    await t.add('abuse', [process.execPath, ABUSE, records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
  });
  afterAll(() => t?.close());

  it('lists resources a page at a time, finds one, and reads it as plain text', async () => {
    const { page } = t;
    await t.open('#/servers/pages/resources');
    const section = page.getByTestId('resources-section');
    await waitForText(page.getByTestId('pager-status'), '1–20 of 45');
    expect(await section.getByTestId('resource-item').count()).toBe(20);
    expect(await page.getByTestId('tab-resources').textContent()).toBe('Resources45');
    await section.getByRole('button', { name: 'Next' }).click();
    expect(await page.getByTestId('pager-status').textContent()).toBe('21–40 of 45');
    expect(await section.getByTestId('resource-item').first().textContent()).toContain('many://item-20');
    await section.getByRole('button', { name: 'Next' }).click();
    expect(await section.getByTestId('resource-item').count()).toBe(5);
    expect(await section.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await section.getByLabel('Find a resource').fill('item-07');
    expect(await section.getByTestId('resource-item').count()).toBe(1);
    await section.getByTestId('resource-read').click();
    await waitForText(section.getByTestId('resource-reader'), 'This is item-07.');
  });

  it('fills in a template’s variable with the server’s suggestion and reads the resource; binary is described, never shown', async () => {
    const { page } = t;
    await t.open('#/servers/everything/resources');
    const section = page.getByTestId('resources-section');
    await section.getByTestId('resource-item').first().waitFor();
    const text = section.getByTestId('template-item').filter({ hasText: 'Dynamic Text Resource' });
    expect(await text.getByTestId('pin-approved').count()).toBe(1);
    await text.getByTestId('template-open').click();
    const variable = text.getByTestId('argument-field').locator('input');
    await variable.fill('3');
    await text.getByTestId('suggestions').waitFor({ state: 'detached' }).catch(() => undefined);
    expect(await text.getByTestId('template-uri').textContent()).toBe('demo://resource/dynamic/text/3');
    await text.getByTestId('template-read').click();
    await waitForText(text.getByTestId('resource-reader'), 'Resource 3: This is a plaintext resource');

    const blob = section.getByTestId('template-item').filter({ hasText: 'Dynamic Blob Resource' });
    await blob.getByTestId('template-open').click();
    await blob.getByTestId('argument-field').locator('input').fill('4');
    await blob.getByTestId('template-read').click();
    const summary = blob.getByTestId('binary-summary');
    await summary.waitFor();
    // The template says application/octet-stream; the server sends it labelled text/plain, and the core says so.
    expect(await summary.textContent()).toMatch(/^\d+ bytes of binary data said to be text\/plain\. Not shown, not saved, and nothing to download/);
    expect(await blob.getByTestId('resource-reader').textContent()).toContain('The server says this is text/plain, but sent binary data');
    expect(await page.evaluate(() => document.querySelectorAll('img, a[download], object, embed, iframe').length)).toBe(0);
    await t.viewShot('server-detail-resources');
  });

  it('gets a prompt with arguments the server suggests as they are typed; its messages are the server’s words', async () => {
    const { page } = t;
    await page.getByTestId('tab-prompts').click();
    const item = page.getByTestId('prompt-item').filter({ hasText: 'completable-prompt' });
    await item.getByTestId('prompt-open').click();
    const department = item.locator('[data-testid="argument-field"][data-name="department"]');
    await department.locator('input').fill('E');
    await waitForText(department.getByTestId('suggestions'), 'Engineering');
    await department.getByRole('button', { name: 'Engineering' }).click();
    expect(await department.locator('input').inputValue()).toBe('Engineering');
    // The second argument's suggestions follow the first (completion context).
    const name = item.locator('[data-testid="argument-field"][data-name="name"]');
    await name.locator('input').focus();
    await waitForText(name.getByTestId('suggestions'), 'Alice');
    expect(await name.getByTestId('suggestions').textContent()).toBe('The server suggests: AliceBobCharlie');
    await name.getByRole('button', { name: 'Bob' }).click();
    await item.getByTestId('prompt-get').click();
    const result = item.getByTestId('prompt-result');
    await waitForText(result, 'Please promote Bob to the head of the Engineering team.');
    expect(await result.textContent()).toContain('The messages it wrote — everything, not Airlock');
    expect(await result.getByTestId('prompt-message').getAttribute('data-role')).toBe('user');
    await t.viewShot('server-detail-prompts');
    await page.emulateMedia({ colorScheme: 'dark' });
    await t.viewShot('server-detail-prompts-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('a resource too large, binary passed off as text and HTML: a clear error, flags, and inert text', async () => {
    const { page } = t;
    await t.open('#/servers/abuse/resources');
    const section = page.getByTestId('resources-section');
    const item = (name: string) => section.getByTestId('resource-item').filter({ hasText: name });
    await item('huge').getByTestId('resource-read').click();
    await waitForText(item('huge').getByRole('alert'), /more than the 4\.0 MiB Airlock passes on for one resource\. Nothing was kept\./);
    await item('fake text').getByTestId('resource-read').click();
    await waitForText(item('fake text').getByTestId('resource-reader'), 'The server says this is text/plain, but sent binary data');
    expect(await item('fake text').getByTestId('binary-summary').textContent()).toContain('4 bytes of binary data said to be text/plain');
    await item('nul text').getByTestId('resource-read').click();
    await waitForText(item('nul text').getByTestId('resource-reader'), 'ab⟨U+0000⟩⟨U+0001⟩cd');
    const hostile = section.getByTestId('resource-item').filter({ hasText: 'note://hostile' });
    expect(await hostile.textContent()).toContain('hostile ⟨U+202E⟩eulav');
    await hostile.getByTestId('resource-read').click();
    const reader = hostile.getByTestId('resource-reader');
    await waitForText(reader, '⟨U+001B⟩[2J<script>alert(1)</script>⟨U+202E⟩Airlock approved this');
    expect(await reader.textContent()).toContain('Airlock shows it as plain text, never as a page.');
    expect(await page.evaluate(() => document.querySelectorAll('script:not([src])').length)).toBe(0);
    // Each read reached the server once; none was made by itself.
    expect(reads().filter((uri) => uri === 'note://huge')).toHaveLength(1);
    expect(reads().filter((uri) => uri === 'note://one')).toHaveLength(0);
  });

  it('a prompt changed after approval: shown as a diff, not filled in until approved again', async () => {
    const { page } = t;
    await page.getByTestId('tab-prompts').click();
    const item = page.getByTestId('prompt-item').filter({ hasText: 'summarise' });
    expect(await item.getByTestId('pin-approved').count()).toBe(1);
    expect((await t.host.calls.call({ server: 'abuse', tool: 'change_prompt', arguments: {}, caller: { kind: 'user' } })).outcome).toBe('ok');
    const changed = item.getByTestId('pin-changed');
    await changed.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('tab-prompts').getAttribute('class')).toContain('tab-attention');
    expect(await changed.getByTestId('definition-diff').textContent()).toContain('evil.example');
    expect(await item.getByTestId('prompt-open').isDisabled()).toBe(true);
    await t.viewShot('server-detail-prompt-changed');
    await changed.getByRole('button', { name: 'Approve this definition' }).click();
    await item.getByTestId('pin-approved').waitFor();
    await item.getByTestId('prompt-open').click();
    await item.getByTestId('argument-field').locator('input').fill('tides');
    await item.getByTestId('prompt-get').click();
    await waitForText(item.getByTestId('prompt-result'), 'Summarise tides briefly.');
  });

  it('a prompt and a template the server lists after install: shown as added, not filled in or read, until approved', async () => {
    const { page } = t;
    expect((await t.host.calls.call({ server: 'abuse', tool: 'swap_prompt', arguments: {}, caller: { kind: 'user' } })).outcome).toBe('ok');
    await t.open('#/servers/abuse/prompts');
    const item = page.getByTestId('prompt-item').filter({ hasText: 'summarise-v2' });
    const added = item.getByTestId('pin-new');
    await added.waitFor({ timeout: 30_000 });
    expect(await added.textContent()).toContain('Added after install');
    expect(await item.getByTestId('prompt-open').isDisabled()).toBe(true);
    expect(await page.getByTestId('tab-prompts').getAttribute('class')).toContain('tab-attention');
    await page.getByTestId('tab-resources').click();
    const template = page.getByTestId('template-item').filter({ hasText: 'note://v2/{id}' });
    await template.getByTestId('pin-new').waitFor();
    // Nothing reached the server for it meanwhile.
    const prompts = () => (existsSync(join(records, 'prompts')) ? readFileSync(join(records, 'prompts'), 'utf8') : '');
    expect(prompts()).not.toContain('summarise-v2');
    expect(reads().some((uri) => uri.startsWith('note://v2/'))).toBe(false);
    await page.getByTestId('tab-prompts').click();
    await item.getByTestId('pin-new').getByRole('button', { name: 'Approve it' }).click();
    await item.getByTestId('pin-approved').waitFor();
    expect(await item.getByTestId('prompt-open').isDisabled()).toBe(false);
  });

  it('a flood of 30 questions: one dialog at a time, ten at most (the rate cap declines the rest), each Escape declines one', async () => {
    const { page } = t;
    const flood = t.host.calls.call({ server: 'abuse', tool: 'flood_elicitations', arguments: {}, caller: { kind: 'user' } });
    await waitForText(page.getByTestId('confirmation-queue'), '1 of 10 requests waiting');
    expect(await page.getByRole('dialog').count()).toBe(1);
    const declined: string[] = [];
    for (let left = 10; left > 0; left -= 1) {
      // The next question, never the one just declined: the core forgets a
      // question before the window hears its answer was taken, so the old
      // dialog can still be on screen here (an Escape on it would be lost).
      const shown = page.locator(`[data-testid="server-request"][open]${declined.map((id) => `:not([data-request-id="${id}"])`).join('')}`);
      await shown.waitFor();
      const id = (await shown.getAttribute('data-request-id')) ?? '';
      expect(await shown.getByTestId('request-message').textContent()).toMatch(/question \d+/);
      await page.keyboard.press('Escape');
      await expect.poll(() => t.host.serverRequests.pending().some((q) => q.id === id)).toBe(false);
      declined.push(id);
    }
    expect(new Set(declined).size).toBe(10);
    const result = await flood;
    expect(JSON.parse((result.result?.content[0] as { text: string }).text)).toEqual({ decline: 30 });
    await page.locator('[data-testid="server-request"]').waitFor({ state: 'detached' });
  });

  it('made no request outside the app, and logged no error', () => {
    expect(t.harness.foreignRequests).toEqual([]);
    expect(t.consoleErrors).toEqual([]);
  });
});
