/**
 * Hostile content (TESTING.md, behaviour 9) on every screen: a real server
 * whose names, instructions, descriptions, prompts, resources and output hold
 * HTML, `javascript:` links, markdown images to a remote host and bidi and
 * control characters — and so do the resource it reads, the prompt it fills
 * in and the questions it asks back. All of it must show as inert text with the hidden
 * characters made visible, and the page must make no request.
 */
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, HOSTILE_SERVER, openRendererHost, waitForText, type RendererHost } from './renderer-support';

/** What the page holds that hostile text could have produced if it were ever parsed as markup. */
async function markupCheck(t: RendererHost) {
  return t.page.evaluate(() => {
    const text = document.body.textContent ?? '';
    const hidden = /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;
    return {
      images: document.querySelectorAll('img, picture, svg image, iframe, object, embed, video, audio').length,
      inlineScripts: [...document.querySelectorAll('script')].filter((s) => !s.src).length,
      styles: document.querySelectorAll('style, link[rel="stylesheet"]:not([href^="./"]):not([href^="/"]):not([href^="http://airlock.test/"])').length,
      foreignLinks: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href') ?? '').filter((href) => !href.startsWith('#')),
      elementsFromServer: document.querySelectorAll('b, i, a[href*="javascript"]').length,
      pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
      rawHidden: hidden.test(text),
      rawHiddenInAttributes: [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((a) => hidden.test(a.value)).map((a) => `${el.tagName}[${a.name}]`)),
      markers: (text.match(/⟨U\+[0-9A-F]{4}⟩/g) ?? []).length,
      shown: text.includes('BEGIN-HOSTILE') && text.includes('<img src=') && text.includes('javascript:window.__pwned=3'),
    };
  });
}

/** Opens every folded text in `scope` (each button turns into "Show less" once clicked). */
async function expandAll(scope: Locator) {
  const more = scope.getByRole('button', { name: /^Show all/ });
  for (let i = 0; i < 100 && (await more.count()) > 0; i += 1) await more.first().click();
}

/** Every section of a tabbed screen, each opened in turn and expanded: the text of all of them, each checked inert while shown. */
async function everyTab(t: RendererHost, scope: Locator): Promise<string> {
  let text = '';
  for (const tab of await scope.getByRole('tab').all()) {
    await tab.click();
    await expandAll(scope);
    text += `${(await scope.textContent()) ?? ''}\n`;
    const found = await markupCheck(t);
    expect(found).toMatchObject({ images: 0, inlineScripts: 0, styles: 0, foreignLinks: [], elementsFromServer: 0, pwned: null, rawHidden: false, rawHiddenInAttributes: [] });
  }
  return text;
}

async function expectInert(t: RendererHost) {
  const found = await markupCheck(t);
  expect(found).toMatchObject({ images: 0, inlineScripts: 0, styles: 0, foreignLinks: [], elementsFromServer: 0, pwned: null, rawHidden: false, rawHiddenInAttributes: [], shown: true });
  expect(found.markers).toBeGreaterThan(0);
}

describe('hostile server content renders inert on every screen', () => {
  let t: RendererHost;

  beforeAll(async () => {
    t = await openRendererHost();
  });
  afterAll(() => t?.close());

  it('in the install flow: disclosure and inspection', async () => {
    const { page } = t;
    await t.open('#/install');
    await page.getByRole('radio', { name: 'Command on this computer' }).check();
    const fields = page.getByTestId('argv-editor').locator('input');
    await fields.nth(0).fill(process.execPath);
    await page.getByRole('button', { name: 'Add an argument' }).click();
    await fields.nth(1).fill(HOSTILE_SERVER);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('disclosure').waitFor();
    await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    const report = page.getByTestId('probe-report');
    await report.waitFor({ timeout: 60_000 });
    // Folded long text opens on request and stays inert, in every section of the inspection.
    const text = await everyTab(t, report);
    await report.getByRole('tab', { name: /^Tools/ }).click();
    await expandAll(report);
    expect(text).toContain('⟨U+202E⟩txt.exe⟨U+202C⟩');
    expect(text).toContain('⟨U+2066⟩hidden⟨U+2069⟩');
    expect(text).toContain('zero⟨U+200B⟩width');
    expect(text).toContain('bell:⟨U+0007⟩');
    expect(text).toContain('esc:⟨U+001B⟩[31m');
    expect(text).toContain('hostile <b>server</b> ⟨U+202E⟩');
    expect(text).toContain('<script>window.__pwned=2</script>');
    expect(text).toContain('![a markdown image](http://canary.invalid/md.png)');
    await expectInert(t);
    await t.harness.screenshot('hostile-inspect');
    await report.getByRole('tab', { name: /^Tools/ }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Name in Airlock').fill('hostile');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('server-detail').waitFor();
    await waitForText(page.getByTestId('server-badges'), 'Running');
  });

  it('on the detail page and in the tool console output', async () => {
    const { page } = t;
    // Every section of the server's page, then the console (on the Tools section).
    await everyTab(t, page.getByTestId('detail-tabs'));
    await page.getByRole('tab', { name: /^Tools/ }).click();
    await page.getByTestId('tools-table').waitFor();
    await expandAll(page.getByTestId('tools-table'));
    await expectInert(t);
    await page.getByRole('tab', { name: 'Try a tool' }).click();
    const console_ = page.getByTestId('tool-console');
    await console_.getByLabel('Tool').selectOption('show');
    await console_.getByLabel(/^note/).fill('<img src=x onerror=window.__pwned=9>');
    await console_.getByRole('button', { name: 'Call' }).click();
    const result = console_.getByTestId('call-result');
    await waitForText(result, 'END-HOSTILE');
    expect(await result.textContent()).toContain('Output for <img src=x onerror=window.__pwned=9>');
    await expectInert(t);
  });

  it('in the confirmation dialog', async () => {
    const { page } = t;
    const pending = t.host.calls.call({ server: 'hostile', tool: 'erase', arguments: { target: '\u202Eeverything <img src=x>' }, caller: agent });
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expandAll(dialog);
    const text = (await dialog.textContent()) ?? '';
    expect(text).toContain('Erases everything.');
    expect(text).toContain('⟨U+202E⟩everything <img src=x>');
    await expectInert(t);
    await t.viewShot('hostile-dialog');
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    expect((await pending).outcome).toBe('denied');
  });

  it('in a resource read and a prompt got on the server’s page', async () => {
    const { page } = t;
    await t.open('#/servers/hostile/resources');
    const resource = page.getByTestId('resource-item').filter({ hasText: 'hostile://text' });
    await resource.getByTestId('resource-read').click();
    await waitForText(resource.getByTestId('resource-reader'), 'END-HOSTILE');
    await expandAll(resource);
    expect(await resource.getByTestId('resource-reader').textContent()).toContain('bidi:⟨U+202E⟩txt.exe⟨U+202C⟩');
    await expectInert(t);
    await page.getByTestId('tab-prompts').click();
    const prompt = page.getByTestId('prompt-item').filter({ hasText: 'hostile-prompt' });
    await prompt.getByTestId('prompt-open').click();
    await prompt.getByTestId('prompt-get').click();
    await waitForText(prompt.getByTestId('prompt-result'), 'END-HOSTILE');
    await expandAll(prompt);
    expect(await prompt.getByTestId('prompt-message').textContent()).toContain('<a href="javascript:window.__pwned=3">click me</a>');
    await expectInert(t);
  });

  it('in a server’s questions: a form and a web page to open', async () => {
    const { page } = t;
    const asking = t.host.calls.call({ server: 'hostile', tool: 'ask', arguments: {}, caller: { kind: 'user' } });
    const form = page.locator('[data-testid="server-request"][data-kind="elicitation-form"]');
    await form.waitFor({ timeout: 30_000 });
    await expandAll(form);
    const text = (await form.textContent()) ?? '';
    expect(text).toContain('A question. BEGIN-HOSTILE');
    expect(text).toContain('Pick <b>one</b> ⟨U+202E⟩evil');
    expect(text).toContain('<script>window.__pwned=6</script>');
    expect(await form.locator('option').allTextContents()).toContain('<img src=x onerror=window.__pwned=5>');
    // The server's default is shown as its suggestion, never chosen for the person.
    expect(await form.locator('select').inputValue()).toBe('');
    // A field that asks for a secret is flagged, by the field and above the form.
    expect(await form.getByTestId('secret-warning').textContent()).toContain('This looks like it asks for a secret');
    expect(await form.locator('[data-testid="form-field"][data-key="api_key"]').getByTestId('secret-field').count()).toBe(1);
    expect(await form.locator('[data-testid="form-field"][data-key="pick"]').getByTestId('secret-field').count()).toBe(0);
    await expectInert(t);
    await t.viewShot('hostile-elicitation');
    await page.keyboard.press('Escape');
    expect(JSON.parse(((await asking).result?.content[0] as { text: string }).text)).toEqual({ action: 'decline' });

    const opening = t.host.calls.call({ server: 'hostile', tool: 'ask_url', arguments: {}, caller: { kind: 'user' } });
    const web = page.locator('[data-testid="server-request"][data-kind="elicitation-url"]');
    await web.waitFor({ timeout: 30_000 });
    await expandAll(web);
    expect(await web.getByTestId('request-message').textContent()).toContain('Open this. BEGIN-HOSTILE');
    expect(await web.getByTestId('request-url').textContent()).toBe('https://example.com/sign-in');
    await expectInert(t);
    await page.keyboard.press('Escape');
    expect(JSON.parse(((await opening).result?.content[0] as { text: string }).text)).toEqual({ action: 'decline' });
    expect(t.harness.foreignRequests).toEqual([]);
  });

  it('on the Servers list and Activity', async () => {
    const { page } = t;
    await t.open('#/activity');
    await waitForText(page.getByTestId('audit-table'), 'erase');
    await expandAll(page.getByTestId('audit-table'));
    for (const summary of await page.locator('details summary').all()) await summary.click();
    const found = await markupCheck(t);
    expect(found).toMatchObject({ images: 0, inlineScripts: 0, styles: 0, foreignLinks: [], elementsFromServer: 0, pwned: null, rawHidden: false, rawHiddenInAttributes: [] });
    expect(await page.getByTestId('audit-table').textContent()).toContain('⟨U+202E⟩everything <img src=x>');
    await t.open('#/servers');
    await page.getByTestId('server-hostile').waitFor();
    expect((await markupCheck(t)).rawHidden).toBe(false);
  });

  it('made no request outside the app, and logged no error (no CSP violation)', () => {
    expect(t.harness.foreignRequests).toEqual([]);
    expect(t.consoleErrors).toEqual([]);
  });
});
