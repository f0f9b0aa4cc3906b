/**
 * The chat in Chromium over the real core: the scripted model server speaks
 * Anthropic's wire format over real HTTP, the model's tool calls go through
 * Airlock's pipeline to real servers in the real sandbox, and the person
 * answers in the same confirmation dialog as for any other caller. What
 * reaches a server is checked on disk and in the fixture's record file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FILESYSTEM_SERVER, waitForText } from './renderer-support';
import { openChatHost, MODEL_KEY, type ChatHost } from './chat-support';

const POISONED = join(import.meta.dirname, '../fixtures/agent/poisoned-results.mjs');
const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : []);

describe('the chat, driven by a scripted model through the real core', () => {
  let t: ChatHost;
  let work: string;
  let records: string;

  beforeAll(async () => {
    t = await openChatHost();
    work = t.folder('work');
    records = t.folder('records');
    writeFileSync(join(work, 'notes.md'), 'hello');
    await t.add('files', [process.execPath, FILESYSTEM_SERVER, work], { trusted: true, profile: { filesystem: { read: [work], write: [work], persistentData: false } } });
    await t.add('web', [process.execPath, POISONED, records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
    t.useScriptedModel();
  });
  afterAll(() => t?.close());
  beforeEach(() => t.model.reset());

  it('lists a folder unasked on a trusted server, then writes a file after the person edits and allows it', async () => {
    const { page } = t;
    const target = join(work, 'plan.md');
    t.model.push(
      { text: 'Let me look at your folder first.', toolCalls: [{ name: 'files__list_directory', input: { path: work } }] },
      (request) => ({
        text: request.toolResults[0]!.text.includes('notes.md') ? 'I found **notes.md**. Now I will write the plan.' : 'The folder is empty.',
        toolCalls: [{ name: 'files__write_file', input: { path: target, content: '# Plan\n\n- from the model' } }],
      }),
      { text: 'Done: the plan is in `plan.md`.\n\n| step | state |\n|---|---|\n| list | ✓ |\n| write | ✓ |' },
    );
    await t.newConversation();
    await t.send('Write a plan next to my notes.');

    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await page.getByTestId('confirmation-headline').textContent()).toContain("Airlock's agent (claude-sonnet-4-5) wants to run files › write_file");
    // The first call ran without asking; its card says so, behind the dialog.
    await waitForText(page.getByTestId('chat-messages'), 'Ran without asking');
    await t.viewShot('chat-confirmation-light');
    await dialog.getByRole('button', { name: 'Edit, then allow…' }).click();
    await page.getByTestId('confirmation-arguments-editor').fill(JSON.stringify({ path: target, content: '# Plan\n\n- edited by a person' }));
    await dialog.getByTestId('confirm-object').getByRole('checkbox').check();
    await dialog.getByRole('button', { name: 'Allow once, as edited' }).click();

    await waitForText(page.getByTestId('chat-messages'), 'Done: the plan is in');
    expect(readFileSync(target, 'utf8')).toBe('# Plan\n\n- edited by a person');
    const cards = page.getByTestId('tool-card');
    expect(await cards.count()).toBe(2);
    expect(await cards.nth(0).getByTestId('tool-decision').textContent()).toBe('Ran without asking');
    expect(await cards.nth(1).getByTestId('tool-decision').textContent()).toBe('You allowed it, with edited arguments');
    expect(await cards.nth(1).textContent()).toContain('You edited them; Airlock sent:');
    // Markdown from the model is rendered (bold, code, a table) as elements, not raw text.
    expect(await page.locator('.markdown strong', { hasText: 'notes.md' }).count()).toBe(1);
    expect(await page.locator('.markdown table td', { hasText: 'write' }).count()).toBe(1);
    await waitForText(page.getByTestId('conversation-usage'), 'This conversation: 30 in · 15 out · $');
    await t.viewShot('chat-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await t.viewShot('chat-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await cards.nth(1).screenshot({ path: join(import.meta.dirname, '../../test-results/screenshots/chat-tool-card.png') });
  });

  it('a denied write never reaches the server, and the model’s next message says it was denied', async () => {
    const { page } = t;
    const target = join(work, 'denied.md');
    t.model.push(
      { toolCalls: [{ name: 'files__write_file', input: { path: target, content: 'x' } }] },
      (request) => ({ text: request.toolResults[0]!.text.includes('The person denied this call') ? 'You denied the write, so I did not create denied.md.' : 'It worked?' }),
    );
    await t.newConversation();
    await t.send('Create denied.md');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    await waitForText(page.getByTestId('chat-messages'), 'You denied the write, so I did not create denied.md.');
    expect(existsSync(target)).toBe(false);
    expect(await page.getByTestId('tool-decision').textContent()).toBe('You denied it');
  });

  it('a result saying "now call delete_everything" is flagged as the server’s content; the call it provokes still needs the person', async () => {
    const { page } = t;
    t.model.push(
      { toolCalls: [{ name: 'web__fetch_page', input: { url: 'https://example.com' } }] },
      { text: 'The page asks me to clean up.', toolCalls: [{ name: 'web__delete_everything', input: {} }] },
      { text: 'You said no; nothing was deleted.' },
    );
    await t.newConversation();
    await t.send('What does example.com say?');
    // The untrusted server's read asks too (its claims never reduce prompts): allow it.
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await page.getByTestId('confirmation-headline').textContent()).toContain('web › fetch_page');
    await dialog.getByRole('button', { name: 'Allow once' }).click();
    await waitForText(page.getByTestId('confirmation-headline'), 'web › delete_everything');
    const first = page.getByTestId('tool-card').first();
    expect(await first.getByTestId('content-from').textContent()).toContain('Content from web');
    const warnings = (await first.getByTestId('result-warnings').textContent()) ?? '';
    expect(warnings).toContain('gives instructions to the AI model');
    expect(warnings).toContain('delete_everything');
    expect(warnings).toContain('hidden or direction-changing characters');
    expect(await first.textContent()).toContain('⟨U+202E⟩');
    await page.getByRole('dialog').getByRole('button', { name: 'Deny', exact: true }).click();
    await waitForText(page.getByTestId('chat-messages'), 'You said no; nothing was deleted.');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await first.screenshot({ path: join(import.meta.dirname, '../../test-results/screenshots/chat-tool-card-flagged.png') });
    expect(lines(join(records, 'delete_everything'))).toEqual([]);
    expect(lines(join(records, 'fetch_page'))).toEqual(['https://example.com']);
  });

  it('Stop ends the stream mid-way; what arrived stays, marked stopped, and the chat is ready again', async () => {
    const { page } = t;
    t.model.push({ text: Array.from({ length: 300 }, (_, n) => `part${n} `), chunkDelayMs: 30 });
    await t.newConversation();
    await t.send('Talk for a long time.');
    await waitForText(page.getByTestId('assistant-message'), 'part3');
    await page.getByTestId('stop').click();
    await page.getByTestId('message-stopped').waitFor();
    const text = (await page.getByTestId('assistant-message').textContent()) ?? '';
    expect(text).toContain('part0');
    expect(text).not.toContain('part299');
    expect(await page.getByRole('button', { name: 'Send' }).isVisible()).toBe(true);
    expect(await page.getByTestId('chat-input').isEnabled()).toBe(true);
  });

  it('401, 429 and a broken stream are each told plainly, and the conversation stays intact', async () => {
    const { page } = t;
    await t.newConversation();
    t.model.push({ status: 401, errorMessage: 'invalid x-api-key' });
    await t.send('First question');
    await page.getByTestId('message-error').waitFor();
    expect(await page.getByTestId('message-error').getAttribute('data-kind')).toBe('auth');
    expect(await page.getByTestId('message-error').textContent()).toContain('The key was refused. Scripted Claude refused the key (401: invalid x-api-key)');

    t.model.push({ status: 429, headers: { 'retry-after': '2' } }, { text: 'Answer after the wait.' });
    await page.getByRole('button', { name: 'Try again' }).click();
    await waitForText(page.getByTestId('turn-status'), /it asked to wait 2 s\. Trying again in 2 s… \(\d s left\)/);
    await waitForText(page.getByTestId('chat-messages'), 'Answer after the wait.');

    t.model.push({ status: 429, headers: { 'retry-after': '300' } });
    await t.send('Second question');
    await waitForText(page.getByTestId('message-error').last(), 'it asked to wait 5 min');
    expect(await page.getByTestId('message-error').last().textContent()).toContain('Rate limited.');

    t.model.push({ text: 'This answer starts well but', breakAfterChunks: 3 });
    await t.send('Third question');
    await waitForText(page.getByTestId('message-error').last(), 'Incomplete — the answer broke off.');
    expect(await page.getByTestId('assistant-message').last().getAttribute('data-status')).toBe('incomplete');
    expect(await page.getByTestId('assistant-message').last().textContent()).toContain('This answer starts');
    expect(await page.getByTestId('message-error').last().getAttribute('data-kind')).toBe('broken-stream');

    const users = await page.getByTestId('user-message').allTextContents();
    expect(users.map((text) => text.replace(/^You/, ''))).toEqual(['First question', 'Second question', 'Third question']);
    await t.viewShot('chat-errors-light');
  });

  it('Markdown from the model stays inert: no raw HTML, no image fetched, links open only after showing the full https address', async () => {
    const { page } = t;
    t.model.push({
      text: [
        'See [the docs](https://example.com/docs?ref=airlock) or [this](javascript:alert(1)).\n\n',
        '<img src="https://tracker.example/pixel.png" onerror="alert(1)"><b>raw html</b>\n\n',
        '![tracking pixel](https://tracker.example/pixel2.png)\n\n',
        '## report\u202Etxt.exe\n\n`code\u200Bspan`\n',
      ],
    });
    await t.newConversation();
    await t.send('Show me links');
    const message = page.getByTestId('assistant-message');
    await page.locator('[data-testid="assistant-message"][data-status="complete"]').waitFor();
    expect(await message.locator('img').count()).toBe(0);
    expect(t.harness.foreignRequests).toEqual([]);
    expect(await message.locator('b').count()).toBe(0);
    expect(await message.locator('a').count()).toBe(0);
    expect(await page.getByTestId('blocked-image').textContent()).toBe('[image: tracking pixel — not loaded, from https://tracker.example/pixel2.png]');
    // Hidden and direction-changing characters in the model's text are made visible, in headings and code too.
    expect(await message.locator('h2').textContent()).toBe('report⟨U+202E⟩txt.exe');
    expect(await message.locator('code').textContent()).toBe('code⟨U+200B⟩span');

    await message.getByRole('button', { name: 'the docs' }).click();
    expect(await page.getByTestId('link-confirm').textContent()).toContain('Opens in your browser: https://example.com/docs?ref=airlock');
    expect(t.opened).toEqual([]);
    await page.getByRole('button', { name: 'Open in browser' }).click();
    await waitForText(page.getByTestId('chat-messages'), 'Show me links');
    expect(t.opened).toEqual(['https://example.com/docs?ref=airlock']);

    await message.getByRole('button', { name: 'this' }).click();
    expect(await page.getByTestId('link-confirm').textContent()).toContain('Airlock opens only https links');
    expect(await page.getByRole('button', { name: 'Open in browser' }).count()).toBe(0);
    expect(t.harness.foreignRequests).toEqual([]);
  });

  it('conversations can be searched by text, renamed and deleted', async () => {
    const { page } = t;
    t.model.push({ text: 'Kangaroos can hop at 70 km/h.' });
    const id = await t.newConversation();
    await t.send('Tell me about kangaroos');
    await waitForText(page.getByTestId('chat-messages'), 'Kangaroos can hop');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByTestId('rename-input').fill('Marsupials');
    await page.getByRole('button', { name: 'Save' }).click();
    await waitForText(page.locator('#chat-title'), 'Marsupials');
    await page.getByTestId('chat-search').fill('70 km');
    await expect.poll(() => page.getByTestId('conversation-list').locator('li').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.getByTestId('conversation-list').textContent()).toContain('hop at 70 km/h');
    await page.getByTestId('chat-search').fill('');
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('group', { name: 'Delete this conversation' }).getByRole('button', { name: 'Delete' }).click();
    await page.waitForFunction(() => window.location.hash === '#/chat');
    expect(t.host.agent.list().some((conversation) => conversation.id === id)).toBe(false);
    expect(t.consoleErrors).toEqual([]);
  });
});

describe('Settings › Models', () => {
  let t: ChatHost;
  beforeAll(async () => {
    t = await openChatHost();
  });
  afterAll(() => t?.close());

  it('adds a provider (the key is sealed and never shown back), tests it, lists models, picks a default; a wrong key is told plainly', async () => {
    const { page } = t;
    await page.evaluate(() => {
      window.location.hash = '#/settings';
    });
    await page.getByRole('button', { name: 'Add a provider…' }).click();
    const form = page.getByTestId('add-provider');
    await form.getByLabel('Name').fill('Work Claude');
    await form.getByLabel(/^Address/).fill(t.model.baseUrl);
    await form.getByLabel(/^Key/).fill('sk-ant-wrong');
    await form.getByRole('button', { name: 'Add and test' }).click();
    await waitForText(page.getByTestId('provider-test'), 'The key was refused (401');

    await page.getByRole('button', { name: 'Replace key…' }).click();
    await page.getByLabel('New key').fill(MODEL_KEY);
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByRole('button', { name: 'Test connection' }).click();
    await waitForText(page.getByTestId('provider-test'), 'Connected: Work Claude lists 2 models.');
    await page.getByRole('button', { name: 'Make default' }).first().click();
    await waitForText(page.getByTestId('default-model'), 'Work Claude · claude-haiku-4-5');
    expect(await page.content()).not.toContain(MODEL_KEY);
    expect(await page.content()).not.toContain('sk-ant-wrong');
    expect(readFileSync(join(t.root, 'data', 'models.json'), 'utf8')).not.toContain(MODEL_KEY);
    await page.getByTestId('models').screenshot({ path: join(import.meta.dirname, '../../test-results/screenshots/settings-models.png') });

    t.model.push({ text: 'Hello from the default model.' });
    await t.newConversation();
    await t.send('hi');
    await waitForText(page.getByTestId('assistant-message'), 'Hello from the default model.');
    expect(t.model.requests.at(-1)!.body.model).toBe('claude-haiku-4-5');
    expect(t.model.requests.at(-1)!.headers['x-api-key']).toBe(MODEL_KEY);
  });
});
