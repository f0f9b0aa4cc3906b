/**
 * What a server asks back, answered in the window (issue 12 §4), in Chromium
 * over the real core: server-everything in the real sandbox asks; Airlock's
 * own model is the scripted model server speaking Anthropic's wire format
 * over real HTTP; main's own `requests.openUrl` wrapper hands URLs to a
 * recording "system browser". What reaches the model, the server and the
 * browser is read from them, not from the page:
 * - sampling: request → edit → allow → the model's answer → edit → send; the
 *   model got exactly the edited request, the server exactly the sent answer;
 * - sampling denied with Escape never reaches the model;
 * - a form with enums and defaults: nothing filled in for the person; the
 *   server gets exactly the fields the person chose; decline comes back as decline;
 * - a web page: nothing opens and no request leaves the page until the click;
 * - one queue with tool confirmations; a web page that takes another
 *   question's place ignores a click on "Open in browser" at +80 ms;
 *   Activity lists each answer;
 * - the server's "Asks back" section: its folders as roots, and a choice made
 *   there ("never") is what the core then does, without a dialog.
 */
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO, waitForText } from './renderer-support';
import { openChatHost, type ChatHost } from './chat-support';

const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** The text of a tool result's content. */
const textOf = (result: { result?: { content?: unknown[] } }) => (result.result?.content ?? []).map((part) => (part as { text?: string }).text ?? '').join('\n');

/** The JSON server-everything prints after a marker in its tool output ("Raw result: {…}"). */
function jsonAfter(text: string, marker: string): unknown {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`no "${marker}" in ${text.slice(0, 300)}`);
  return JSON.parse(text.slice(at + marker.length).trim());
}

describe('servers’ questions in the window, answered through the real core', () => {
  let t: ChatHost;

  beforeAll(async () => {
    t = await openChatHost();
    const notes = t.folder('notes');
    await t.add('everything', [process.execPath, EVERYTHING, 'stdio'], { profile: { filesystem: { read: [], write: [notes], persistentData: false } } });
    t.useScriptedModel();
  });
  afterAll(() => t?.close());
  beforeEach(() => t.model.reset());

  const dialog = () => t.page.getByTestId('server-request');
  /** Waits for the dialog of a question of this kind, and out the moment its buttons sleep (dialog-guard). */
  async function question(kind: string): Promise<Locator> {
    const shown = t.page.locator(`[data-testid="server-request"][data-kind="${kind}"]`);
    await shown.waitFor({ timeout: 30_000 });
    await expect.poll(() => shown.locator('.confirm-buttons button').first().getAttribute('aria-disabled')).toBe(null);
    return shown;
  }
  const call = (tool: string, args: Record<string, unknown>) => t.host.calls.call({ server: 'everything', tool, arguments: args, caller: { kind: 'user' } });

  it('sampling: the person edits the request, the model gets exactly that, and the server gets exactly the answer the person sent', async () => {
    const { page } = t;
    t.model.push({ text: 'The scripted model’s first draft.' });
    const pending = call('trigger-sampling-request', { prompt: 'original words', maxTokens: 50 });
    const ask = await question('sampling-request');
    expect(await ask.getByTestId('request-headline').textContent()).toBe('everything wants a model to write a reply');
    expect(await ask.getByTestId('request-meta').textContent()).toContain('Answered by Airlock’s own model');
    const words = (await ask.getByTestId('sampling-messages').textContent()) ?? '';
    expect(words).toContain('In the server’s words — everything, not Airlock');
    expect(words).toContain('You are a helpful test server.');
    expect(words).toContain('Resource trigger-sampling-request context: original words');
    expect(await ask.getByTestId('sampling-facts').textContent()).toContain('50 tokens (your limit for this server: 4096)');
    expect(await page.getByTestId('countdown').textContent()).toMatch(/Refused automatically in \d+ s/);
    // Nothing reached a model while the person reads.
    expect(t.model.requests).toHaveLength(0);
    await t.viewShot('sampling-request-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await t.viewShot('sampling-request-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await ask.getByRole('button', { name: 'Edit, then allow…' }).click();
    await ask.getByTestId('sampling-edit-text').fill('edited by the person');
    const tokens = ask.getByTestId('sampling-edit-max-tokens');
    await tokens.fill('99999');
    expect(await ask.getByRole('alert').textContent()).toContain('at most 4096 tokens');
    expect(await ask.getByRole('button', { name: 'Allow once, as edited' }).isDisabled()).toBe(true);
    await tokens.fill('20');
    await ask.getByRole('button', { name: 'Allow once, as edited' }).click();

    const review = await question('sampling-response');
    // The model got the person's words and limit, not the server's.
    expect(t.model.requests).toHaveLength(1);
    const sent = t.model.requests[0]!;
    expect(sent.lastUserText).toBe('edited by the person');
    expect(JSON.stringify(sent.body)).not.toContain('original words');
    expect(sent.system).toBe('You are a helpful test server.');
    expect(sent.body.max_tokens).toBe(20);
    expect(await review.getByTestId('sampling-answer').textContent()).toContain('The scripted model’s first draft.');
    expect(await review.getByTestId('sampling-answer').textContent()).toContain('In the model’s words, not Airlock’s');
    await t.viewShot('sampling-response-light');
    const asked = t.host.serverRequests.pending().find((q) => q.kind === 'sampling-response');
    if (asked?.kind !== 'sampling-response') throw new Error('no answer to review');

    await review.getByRole('button', { name: 'Edit, then send…' }).click();
    await review.getByTestId('sampling-edit-answer').fill('reviewed by the person');
    await review.getByRole('button', { name: 'Send as edited' }).click();
    const result = await pending;
    expect(result.outcome).toBe('ok');
    // Exactly the answer the person sent: the model's answer with the person's text, nothing else changed.
    expect(jsonAfter(textOf(result), 'LLM sampling result:')).toEqual({ ...asked.result, content: { type: 'text', text: 'reviewed by the person' } });
    await review.waitFor({ state: 'detached' });
  });

  it('sampling denied with Escape never reaches the model', async () => {
    const { page } = t;
    const pending = call('trigger-sampling-request', { prompt: 'deny me', maxTokens: 50 });
    await question('sampling-request');
    await page.keyboard.press('Escape');
    const result = await pending;
    expect(textOf(result)).toMatch(/A person denied this sampling request/);
    expect(t.model.requests).toHaveLength(0);
    await dialog().waitFor({ state: 'detached' });
  });

  it('a form with enums and defaults: nothing is filled in, and the server gets exactly what the person chose', async () => {
    const { page } = t;
    const pending = call('trigger-elicitation-request', {});
    const form = await question('elicitation-form');
    expect(await form.getByTestId('request-headline').textContent()).toBe('everything asks you');
    expect(await form.getByTestId('request-message').textContent()).toContain('Please provide inputs for the following fields:');
    expect(await page.getByTestId('countdown').textContent()).toMatch(/Cancelled automatically in \d+ s/);
    // Defaults are shown as the server's suggestions; every field starts empty.
    const field = (key: string) => form.locator(`[data-testid="form-field"][data-key="${key}"]`);
    expect(await field('untitledSingleSelectEnum').getByTestId('field-suggestion').textContent()).toContain('The server suggests: Monica');
    expect(await field('titledSingleSelectEnum').getByTestId('field-suggestion').textContent()).toContain('The server suggests: Superman');
    expect(await field('legacyTitledEnum').getByTestId('field-suggestion').textContent()).toContain('The server suggests: Cats');
    expect(await field('untitledSingleSelectEnum').locator('select').inputValue()).toBe('');
    expect(await field('firstLine').locator('input').inputValue()).toBe('');
    expect(await field('titledMultipleSelectEnum').getByRole('checkbox', { checked: true }).count()).toBe(0);
    // At 1200×800 the answers are in view with the form's fields scrolling above them.
    expect(page.viewportSize()).toEqual({ width: 1200, height: 800 });
    for (const name of ['Decline', 'Cancel', 'Send my answers']) {
      const box = (await form.getByRole('button', { name }).boundingBox())!;
      expect(box.y >= 0 && box.y + box.height <= 800, `${name} at ${box.y}`).toBe(true);
    }
    await t.viewShot('elicitation-form-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await t.viewShot('elicitation-form-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // The required name is missing: nothing is sent, the form says what is wrong.
    await form.getByRole('button', { name: 'Send my answers' }).click();
    expect(await field('name').textContent()).toContain('“String” is required.');
    expect(t.host.serverRequests.pending().map((q) => q.kind)).toEqual(['elicitation-form']);

    await field('name').locator('input').fill('Ada');
    await field('untitledSingleSelectEnum').locator('select').selectOption('Joey');
    await field('titledMultipleSelectEnum').getByRole('checkbox', { name: 'Salmon' }).check();
    await field('titledMultipleSelectEnum').getByRole('checkbox', { name: 'Trout' }).check();
    // A suggestion is taken only by the person's click.
    await field('integer').getByRole('button', { name: 'Use it' }).click();
    expect(await field('integer').locator('input').inputValue()).toBe('42');
    await form.getByRole('button', { name: 'Send my answers' }).click();
    const result = await pending;
    expect(jsonAfter(textOf(result), 'Raw result:')).toEqual({
      action: 'accept',
      content: { name: 'Ada', integer: 42, untitledSingleSelectEnum: 'Joey', titledMultipleSelectEnum: ['fish-2', 'fish-3'] },
    });
    await form.waitFor({ state: 'detached' });
  });

  it('a form declined comes back as decline', async () => {
    const pending = call('trigger-elicitation-request', {});
    const form = await question('elicitation-form');
    await form.getByRole('button', { name: 'Decline' }).click();
    const result = await pending;
    expect(textOf(result)).toContain('User declined');
    expect(jsonAfter(textOf(result), 'Raw result:')).toEqual({ action: 'decline' });
  });

  it('a web page: the full address with its host marked and Punycode warned; nothing opens or loads until the click', async () => {
    const { page } = t;
    const url = 'https://xn--pple-43d.example/sign-in?session=42';
    const pending = call('trigger-url-elicitation', { url, message: 'Sign in to finish.' });
    const ask = await question('elicitation-url');
    expect(await ask.getByTestId('request-url').textContent()).toBe(url);
    expect(await ask.getByTestId('request-url-host').textContent()).toBe('xn--pple-43d.example');
    expect(await ask.getByTestId('punycode-warning').textContent()).toContain('“аpple.example”');
    // Airlock's own sentences name the host as DNS sees it; the look-alike only inside the warning.
    expect(await ask.getByTestId('request-headline').textContent()).toBe('everything asks you to open a web page on xn--pple-43d.example');
    expect(await ask.getByTestId('request-restatement').textContent()).toBe('Open xn--pple-43d.example in your browser?');
    expect(((await ask.textContent()) ?? '').split('аpple.example').length - 1).toBe(1);
    expect(await ask.getByTestId('request-message').textContent()).toContain('Sign in to finish.');
    // Text, never a link or an embed: there is nothing the browser could follow or prefetch.
    const found = await page.evaluate(() => ({
      links: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')).filter((href) => !href?.startsWith('#')),
      embeds: document.querySelectorAll('img, iframe, object, embed, link[rel="prefetch"], link[rel="preconnect"], link[rel="dns-prefetch"]').length,
    }));
    expect(found).toEqual({ links: [], embeds: 0 });
    await t.viewShot('elicitation-url-light');
    // A while later: still nothing opened, nothing requested, the core recorded no click.
    await page.waitForTimeout(1000);
    expect(t.openedUrls).toEqual([]);
    expect(t.harness.foreignRequests).toEqual([]);
    expect(t.host.serverRequests.pending()).toMatchObject([{ kind: 'elicitation-url', opened: false }]);

    await ask.getByRole('button', { name: 'Open in browser' }).click();
    const result = await pending;
    expect(t.openedUrls).toEqual([new URL(url).href]);
    expect(textOf(result)).toContain('User completed the URL elicitation flow.');
    // The window itself never loaded it.
    expect(t.harness.foreignRequests).toEqual([]);
  });

  it('one queue with tool confirmations: one dialog at a time, oldest first, the next one’s buttons asleep when it takes the place', async () => {
    const { page } = t;
    const asking = call('trigger-elicitation-request', {});
    await question('elicitation-form');
    const tool = t.host.calls.call({ server: 'everything', tool: 'echo', arguments: { message: 'queued' }, caller: { kind: 'client', name: 'Queue App' } });
    await waitForText(page.getByTestId('confirmation-queue'), '1 of 2 requests waiting');
    // Still the question, the older one.
    expect(await page.getByRole('dialog').count()).toBe(1);
    await dialog().getByRole('button', { name: 'Decline' }).click();
    const confirm = page.getByTestId('confirmation');
    await confirm.waitFor();
    expect(await page.getByTestId('confirmation-headline').textContent()).toBe('app “Queue App” wants to run everything › echo');
    expect(await confirm.getByTestId('confirmation-allow').getAttribute('aria-disabled')).toBe('true');
    expect(await confirm.getByTestId('confirmation-swapped').count()).toBe(1);
    expect(await page.getByTestId('confirmation-announcement').textContent()).toContain('A different request is now shown: everything › echo');
    await page.keyboard.press('Escape');
    expect((await tool).outcome).toBe('denied');
    expect(jsonAfter(textOf(await asking), 'Raw result:')).toEqual({ action: 'decline' });
  });

  it('a web page that takes another question’s place: a click on “Open in browser” at +80 ms opens nothing; after the pause it does', async () => {
    const { page } = t;
    const url = 'https://example.com/after-the-pause';
    const asking = call('trigger-elicitation-request', {});
    await question('elicitation-form');
    const opening = call('trigger-url-elicitation', { url, message: 'Open me.' });
    await waitForText(page.getByTestId('confirmation-queue'), '1 of 2 requests waiting');
    const [form, web] = t.host.serverRequests.pending();
    expect([form?.kind, web?.kind]).toEqual(['elicitation-form', 'elicitation-url']);
    const opened = t.openedUrls.length;

    // In the page: when the web page takes the form's place, click "Open in browser" 80 ms later, where it now is.
    await page.evaluate(
      ({ from }) => {
        const w = window as unknown as { swapClick?: { delay: number; hitOpen: boolean; id: string | null } };
        const observer = new MutationObserver(() => {
          const id = document.querySelector('dialog[data-testid="server-request"]')?.getAttribute('data-request-id') ?? null;
          if (!id || id === from) return;
          observer.disconnect();
          const swappedAt = performance.now();
          window.setTimeout(() => {
            const rect = document.querySelector('[data-testid="request-open"]')!.getBoundingClientRect();
            const [x, y] = [rect.x + rect.width / 2, rect.y + rect.height / 2];
            const target = document.elementFromPoint(x, y) as HTMLElement | null;
            const button = target?.closest('button');
            const init = { bubbles: true, cancelable: true, clientX: x, clientY: y, button: 0 };
            target?.dispatchEvent(new PointerEvent('pointerdown', init));
            target?.dispatchEvent(new MouseEvent('mousedown', init));
            target?.dispatchEvent(new PointerEvent('pointerup', init));
            target?.dispatchEvent(new MouseEvent('mouseup', init));
            target?.dispatchEvent(new MouseEvent('click', init));
            w.swapClick = { delay: performance.now() - swappedAt, hitOpen: button?.dataset.testid === 'request-open', id: button?.closest('dialog')?.getAttribute('data-request-id') ?? null };
          }, 80);
        });
        observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-request-id'] });
      },
      { from: form!.id },
    );
    // The form is answered elsewhere (outside this page); the web page takes its place.
    expect(t.host.serverRequests.answer(form!.id, { action: 'decline' }, { shell: 'test' })).toMatchObject({ accepted: true });
    expect(jsonAfter(textOf(await asking), 'Raw result:')).toEqual({ action: 'decline' });

    const click = await page.waitForFunction(() => (window as unknown as { swapClick?: unknown }).swapClick).then((handle) => handle.jsonValue() as Promise<{ delay: number; hitOpen: boolean; id: string | null }>);
    expect(click).toMatchObject({ hitOpen: true, id: web!.id });
    expect(click.delay).toBeLessThan(400);
    await page.waitForTimeout(300);
    // Nothing opened, the core recorded no click, the question still waits.
    expect(t.openedUrls).toHaveLength(opened);
    expect(t.host.serverRequests.pending()).toMatchObject([{ id: web!.id, kind: 'elicitation-url', opened: false }]);

    const open = dialog().getByTestId('request-open');
    await expect.poll(() => open.getAttribute('aria-disabled')).toBe(null);
    await open.click();
    expect(textOf(await opening)).toContain('User completed the URL elicitation flow.');
    expect(t.openedUrls.slice(opened)).toEqual([url]);
    expect(t.harness.foreignRequests).toEqual([]);
  });

  it('Activity lists each sampling, question and roots answer with its decision', async () => {
    const { page } = t;
    await call('get-roots-list', {});
    await page.evaluate(() => {
      window.location.hash = '#/activity';
    });
    const table = page.getByTestId('requests-table');
    await waitForText(table, 'Its folders (roots)');
    const rows = await table.getByTestId('request-row').evaluateAll((list) =>
      list.map((row) => ({ kind: row.getAttribute('data-kind'), outcome: row.getAttribute('data-outcome'), text: row.textContent ?? '' })),
    );
    const sampled = rows.find((row) => row.kind === 'sampling' && row.outcome === 'answered')?.text;
    expect(sampled).toContain('allowed after asking');
    expect(sampled).toContain('Request: allowed once in the window, edited');
    expect(sampled).toContain('Model’s answer: answer sent in the window, edited');
    expect(rows.find((row) => row.kind === 'sampling' && row.outcome === 'refused')?.text).toContain('denied after asking');
    // Two declined in the window, one on a terminal (the swap test).
    expect(rows.filter((row) => row.kind === 'elicitation' && row.outcome === 'decline')).toHaveLength(3);
    expect(rows.find((row) => row.kind === 'elicitation' && row.outcome === 'accept' && row.text.includes('A question for you'))?.text).toContain('answered in the window');
    expect(rows.find((row) => row.kind === 'elicitation' && row.text.includes('A web page to open'))?.outcome).toBe('accept');
    expect(rows.find((row) => row.kind === 'roots')?.text).toContain('allowed');
    await page.evaluate(() => document.getElementById('requests-activity-title')?.scrollIntoView({ block: 'start' }));
    await t.viewShot('activity-requests');
  });

  it('Asks back: its folders are its roots, a bad limit is refused, and “never” declines its questions without a dialog', async () => {
    const { page } = t;
    await page.evaluate(() => {
      window.location.hash = '#/servers/everything/asks';
    });
    const section = page.getByTestId('asks-back');
    await section.getByTestId('request-settings').waitFor();
    expect(await section.getByTestId('roots-summary').textContent()).toContain(t.folder('notes'));
    const form = section.getByTestId('request-settings');
    expect(await form.getByRole('radio', { name: /Ask me each time/ }).isChecked()).toBe(true);
    expect(await form.getByRole('radio', { name: /In Airlock/ }).isChecked()).toBe(true);
    // What it asked so far is listed on its own page too.
    await waitForText(section.getByTestId('requests-table'), 'Its folders (roots)');
    const save = form.getByTestId('request-settings-save');
    expect(await save.isDisabled()).toBe(true);
    await form.getByLabel('Longest reply it may ask for, in tokens').fill('0');
    expect(await form.textContent()).toContain('Each limit must be a whole number');
    expect(await save.isDisabled()).toBe(true);
    await form.getByLabel('Longest reply it may ask for, in tokens').fill('2000');
    await form.getByRole('radio', { name: /^Never.*declined without asking/ }).check();
    await t.viewShot('server-detail-asks-back');
    await save.click();
    await expect.poll(() => t.host.serverRequests.settings('everything')).toMatchObject({ sampling: { rule: 'ask', maxTokens: 2000 }, elicitation: { answer: 'never' } });
    expect(await save.isDisabled()).toBe(true);

    const result = await call('trigger-elicitation-request', {});
    expect(jsonAfter(textOf(result), 'Raw result:')).toEqual({ action: 'decline' });
    expect(await dialog().count()).toBe(0);
    expect(t.host.serverRequests.pending()).toEqual([]);
  });

  it('made no request outside the app, and logged no error', () => {
    expect(t.harness.foreignRequests).toEqual([]);
    expect(t.consoleErrors).toEqual([]);
  });
});
