/**
 * The composer's `/` and `@` in Chromium over the real core: a fixture server
 * with a prompt and resources in the real sandbox, the scripted model server
 * recording what reached the model. Picked by keyboard only.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitForText } from './renderer-support';
import { openChatHost, type ChatHost } from './chat-support';

const CATALOG_ABUSE = join(import.meta.dirname, '../fixtures/servers/catalog-abuse.mjs');

describe('the chat composer: server prompts with / and resources with @', () => {
  let t: ChatHost;

  beforeAll(async () => {
    t = await openChatHost();
    const records = t.folder('records');
    await t.add('abuse', [process.execPath, CATALOG_ABUSE, records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
    t.useScriptedModel();
  });
  afterAll(() => t?.close());
  beforeEach(() => t.model.reset());

  it('/ picks a prompt, its argument is filled in, and the prompt’s text reaches the model', async () => {
    const { page } = t;
    t.model.push({ text: 'Zebras are striped.' });
    await t.newConversation();
    const input = page.getByTestId('chat-input');
    await input.fill('/');
    const menu = page.getByTestId('prompt-menu');
    await waitForText(menu, '/summarise');
    // Escape closes the menu; typing on opens it again.
    await input.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await input.fill('/sum');
    await waitForText(menu, 'abuse’s prompt');
    expect(await menu.textContent()).toContain('Summarises a topic.');
    await input.press('Enter');
    const chosen = page.getByTestId('chosen-prompt');
    await waitForText(chosen, '/summarise');
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await t.viewShot('chat-prompt-light');
    const argument = page.getByTestId('prompt-argument-0');
    await argument.fill('zebras-42');
    await argument.press('Enter');

    await waitForText(page.getByTestId('chat-messages'), 'Zebras are striped.');
    expect(await page.getByTestId('chat-messages').textContent()).toContain('Summarise zebras-42 briefly.');
    expect(JSON.stringify(t.model.requests[0]!.body)).toContain('Summarise zebras-42 briefly.');
    await chosen.waitFor({ state: 'detached' });
  });

  it('@ attaches resources as chips; a removed chip is not sent; the attached text reaches the model', async () => {
    const { page } = t;
    t.model.push({ text: 'I read your note.' });
    await t.newConversation();
    const input = page.getByTestId('chat-input');
    await input.fill('@');
    const menu = page.getByTestId('resource-menu');
    await waitForText(menu, 'abuse’s resource');
    // A hidden direction-changing character in a server's name is shown, not obeyed.
    expect(await menu.textContent()).toContain('⟨U+202E⟩');
    await input.fill('Please read @note://one');
    await waitForText(menu, 'note://one');
    await input.press('Enter');
    await input.fill('Please read @fake');
    await waitForText(menu, 'fake text');
    await t.viewShot('chat-attach-light');
    await input.press('ArrowDown');
    await input.press('Enter');
    const chips = page.getByTestId('attached-resource');
    await expect.poll(() => chips.count()).toBe(2);
    await page.getByRole('button', { name: 'Remove the attachment fake text' }).click();
    await expect.poll(() => chips.count()).toBe(1);
    expect(await input.inputValue()).toBe('Please read ');
    await input.press('Enter');

    await waitForText(page.getByTestId('chat-messages'), 'I read your note.');
    const body = JSON.stringify(t.model.requests[0]!.body);
    expect(body).toContain('the first note');
    expect(body).toContain('[Attached from abuse: note://one]');
    expect(body).not.toContain('note://fake-text');
  });
});
