// The `/` and `@` of a line typed to `airlock chat`, read against what the servers offer: only offered
// prompts and resources count; anything else is text, or — when it names a server — a typo said as one.
import { describe, expect, it } from 'vitest';
import { listOffers, readChatLine, usesCommands } from '../../electron/cli/chat-line';
import type { ChatCommandsView } from '../../shared/chat';

const offered: ChatCommandsView = {
  available: true,
  prompts: [
    { server: 'notes', name: 'summarise', description: 'Summarises a topic.', arguments: [{ name: 'topic', required: true }, { name: 'style', required: false }] },
    { server: 'notes', name: 'review', arguments: [] },
    { server: 'docs', name: 'review' },
  ],
  resources: [
    { server: 'notes', uri: 'note://one', name: 'one' },
    { server: 'docs', uri: 'file:///srv/readme.md' },
  ],
};

describe('a chat line with / and @', () => {
  it('plain text, an e-mail address and a handle stay text, and nothing is fetched for them', () => {
    for (const line of ['hello there', 'mail bob@example.com today', 'ask @alice:please', 'a / in the middle']) {
      expect(readChatLine(line, offered)).toEqual({ kind: 'text', text: line });
    }
    expect(usesCommands('mail bob@example.com')).toBe(false);
    expect(usesCommands('/summarise')).toBe(true);
    expect(usesCommands('read @notes:note://one')).toBe(true);
  });

  it('/ and @ alone list what is offered, with each prompt’s arguments', () => {
    expect(readChatLine(' / ', offered)).toEqual({ kind: 'list', what: 'prompts' });
    expect(readChatLine('@', offered)).toEqual({ kind: 'list', what: 'resources' });
    expect(listOffers('prompts', offered)).toEqual([
      '/summarise topic=… style=… (optional) — notes’s prompt: Summarises a topic.',
      '/notes:review — notes’s prompt',
      '/docs:review — docs’s prompt',
    ]);
    expect(listOffers('resources', offered)).toEqual(['@notes:note://one — one', '@docs:file:///srv/readme.md']);
  });

  it('a prompt with quoted and bare arguments, then the message after --', () => {
    expect(readChatLine('/summarise topic="zebras and horses" style=short -- and keep it kind', offered)).toEqual({
      kind: 'send',
      text: 'and keep it kind',
      prompt: { server: 'notes', name: 'summarise', arguments: { topic: 'zebras and horses', style: 'short' } },
      resources: [],
      missing: [],
    });
    expect(readChatLine("/summarise topic='it\\'s'", offered)).toMatchObject({ kind: 'error' });
    expect(readChatLine('/summarise topic="say \\"hi\\""', offered)).toMatchObject({ prompt: { arguments: { topic: 'say "hi"' } } });
  });

  it('a required argument left out is named for the terminal to ask', () => {
    expect(readChatLine('/summarise', offered)).toMatchObject({ kind: 'send', missing: [{ name: 'topic' }], prompt: { arguments: {} } });
  });

  it('two servers offering a name: the line must say which; an unknown prompt or argument is said, with what there is', () => {
    expect(readChatLine('/review', offered)).toEqual({ kind: 'error', message: 'Two servers offer /review (notes, docs): say which, e.g. /notes:review.' });
    expect(readChatLine('/docs:review', offered)).toMatchObject({ kind: 'send', prompt: { server: 'docs', name: 'review', arguments: {} } });
    expect(readChatLine('/nothing', offered)).toEqual({ kind: 'error', message: 'No prompt /nothing among this conversation’s servers. Type / alone to list them.' });
    expect(readChatLine('/summarise colour=red', offered)).toEqual({ kind: 'error', message: '/summarise takes no argument colour; it takes topic, style.' });
    expect(readChatLine('/summarise zebras', offered)).toMatchObject({ kind: 'error', message: expect.stringContaining('“zebras” is neither') });
  });

  it('@SERVER:URI attaches an offered resource (once), keeps the rest as the message; a server’s unknown URI is a typo', () => {
    expect(readChatLine('compare @notes:note://one with @docs:file:///srv/readme.md and @notes:note://one', offered)).toEqual({
      kind: 'send',
      text: 'compare with and',
      resources: [
        { server: 'notes', uri: 'note://one' },
        { server: 'docs', uri: 'file:///srv/readme.md' },
      ],
      missing: [],
    });
    expect(readChatLine('read @notes:note://two', offered)).toEqual({ kind: 'error', message: 'notes offers no resource note://two. Type @ alone to list what can be attached.' });
    expect(readChatLine('/summarise topic=x -- see @notes:note://one', offered)).toMatchObject({ text: 'see', resources: [{ server: 'notes', uri: 'note://one' }] });
  });

  it('where the servers’ prompts and resources are not available, a / line is refused plainly; an @ word stays text', () => {
    const none = { available: false, prompts: [], resources: [] };
    expect(readChatLine('/summarise', none)).toEqual({ kind: 'error', message: 'Prompts and resources from servers are not available here.' });
    expect(readChatLine('ping @alice:now', none)).toEqual({ kind: 'text', text: 'ping @alice:now' });
  });

  it('// starts a message with a slash (a path), and only @server:… words make the servers be asked', () => {
    expect(readChatLine('//usr/bin is where it lives', offered)).toEqual({ kind: 'text', text: '/usr/bin is where it lives' });
    expect(usesCommands('//usr/bin')).toBe(false);
    expect(usesCommands('ping @alice')).toBe(false);
  });

  it('argument names are data: one named __proto__ or constructor is read and asked for like any other', () => {
    const odd: ChatCommandsView = { available: true, resources: [], prompts: [{ server: 'odd', name: 'p', arguments: [{ name: 'constructor', required: true }, { name: '__proto__', required: false }] }] };
    expect(readChatLine('/p', odd)).toMatchObject({ kind: 'send', missing: [{ name: 'constructor' }] });
    const given = readChatLine('/p constructor=a __proto__=b', odd);
    expect(given).toMatchObject({ kind: 'send', missing: [] });
    if (given.kind !== 'send') throw new Error('not sent');
    expect(Object.entries(given.prompt!.arguments)).toEqual([
      ['constructor', 'a'],
      ['__proto__', 'b'],
    ]);
  });
});
