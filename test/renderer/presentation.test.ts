/** The renderer's pure parts: hidden-character markers, command-line splitting, profile sentences, the console form, routes. */
import { describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../shared/domain';
import { profileSentences, splitCommandLine } from '../../renderer/format';
import { hasHiddenCharacters, safeJson, visible } from '../../renderer/inert';
import { parseRoute } from '../../renderer/route';
import { argumentsFrom, fieldsOf } from '../../renderer/schema-form';

describe('visible()', () => {
  it.each([
    ['bidi override', 'a\u202Eb\u202Cc', 'a⟨U+202E⟩b⟨U+202C⟩c'],
    ['isolates', '\u2066x\u2069', '⟨U+2066⟩x⟨U+2069⟩'],
    ['zero width space and joiner', 'a\u200Bb\u200Dc', 'a⟨U+200B⟩b⟨U+200D⟩c'],
    ['left-to-right and right-to-left marks', '\u200E\u200F', '⟨U+200E⟩⟨U+200F⟩'],
    ['C0 controls', 'bell\u0007 esc\u001B nul\u0000', 'bell⟨U+0007⟩ esc⟨U+001B⟩ nul⟨U+0000⟩'],
    ['carriage return', 'a\rb', 'a⟨U+000D⟩b'],
    ['C1 controls and DEL', '\u0085\u009B\u007F', '⟨U+0085⟩⟨U+009B⟩⟨U+007F⟩'],
    ['byte order mark and word joiner', '\uFEFF\u2060', '⟨U+FEFF⟩⟨U+2060⟩'],
    ['Unicode tag characters', 'a\u{E0041}\u{E007F}', 'a⟨U+E0041⟩⟨U+E007F⟩'],
    ['soft hyphen and Arabic letter mark', '\u00AD\u061C', '⟨U+00AD⟩⟨U+061C⟩'],
  ])('marks %s', (_name, input, expected) => {
    expect(visible(input)).toBe(expected);
    expect(hasHiddenCharacters(input)).toBe(true);
  });

  it('leaves tabs, newlines, HTML-looking text and other scripts as they are', () => {
    const text = 'line one\n\tline <b>two</b> — עברית, 日本語, émoji 🙂';
    expect(visible(text)).toBe(text);
    expect(hasHiddenCharacters(text)).toBe(false);
  });

  it('is stable when called repeatedly (no regex state carried over)', () => {
    for (let i = 0; i < 3; i += 1) expect(hasHiddenCharacters('x\u202Ey')).toBe(true);
  });

  it('safeJson never throws', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(safeJson(cycle)).toBe('(a value that cannot be shown as JSON)');
    expect(safeJson(10n)).toBe('(a value that cannot be shown as JSON)');
    expect(safeJson({ a: 1 }, 0)).toBe('{"a":1}');
  });
});

describe('splitCommandLine()', () => {
  it.each([
    ['node server.js --root ~/notes', ['node', 'server.js', '--root', '~/notes']],
    [`node "/path with spaces/s.js" 'single $HOME'`, ['node', '/path with spaces/s.js', 'single $HOME']],
    ['a\\ b "c\\"d" e""f', ['a b', 'c"d', 'ef']],
    ['  spaced   out  ', ['spaced', 'out']],
    ['echo "" x', ['echo', '', 'x']],
    ['curl x | sh', ['curl', 'x', '|', 'sh']],
  ])('%s', (line, argv) => {
    expect(splitCommandLine(line)).toEqual({ argv });
  });

  it('refuses an unclosed quote', () => {
    expect(splitCommandLine('node "oops').error).toMatch(/double quote is not closed/);
    expect(splitCommandLine("node 'oops").error).toMatch(/single quote is not closed/);
  });
});

describe('profileSentences()', () => {
  it('says plainly what the default profile allows', () => {
    expect(profileSentences(defaultSandboxProfile())).toEqual([
      'Sees nothing of your home folder but its own files; outside it, only what any program may read (system files).',
      'Writes nowhere that lasts: only a temporary folder deleted when it stops.',
      'Has no internet or network access.',
      'Gets no secrets.',
    ]);
  });

  it('names every grant, and running unsandboxed first', () => {
    const sentences = profileSentences({
      filesystem: { read: ['/r'], write: ['/a', '/b'], persistentData: true },
      network: { allowedDomains: ['api.example.com'] },
      secrets: ['TOKEN'],
      unsandboxed: { consentedAt: '2026-01-01T00:00:00Z' },
    });
    expect(sentences[0]).toMatch(/WITHOUT a sandbox/);
    expect(sentences).toContain('Can change files in /a and /b and in a data folder of its own.');
    expect(sentences).toContain('Can reach api.example.com on the internet, nothing else.');
    expect(sentences).toContain('Gets the secrets TOKEN.');
    expect(sentences.join(' ')).toContain('Can read /r (credential files there stay hidden); the rest of your home folder stays hidden.');
  });

  it('warns, right after the write grants, when a server may change files other programs trust', () => {
    const sentences = profileSentences({ filesystem: { read: [], write: ['/repo'], persistentData: false, writeTrusted: ['/repo/.git'] }, network: { allowedDomains: [] }, secrets: [] });
    expect(sentences[1]).toBe('Can change files in /repo.');
    expect(sentences[2]).toBe('Can also change files other programs trust in /repo/.git — git, direnv or your editor may run what it writes there, outside the sandbox.');
  });
});

describe('the console form', () => {
  const schema = {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Where' },
      count: { type: 'integer' },
      ratio: { type: 'number' },
      force: { type: 'boolean' },
      mode: { enum: ['a', 'b', 3] },
    },
    required: ['path', 'count'],
  };

  it('reads simple schemas into fields with required marks', () => {
    expect(fieldsOf(schema)).toEqual([
      { name: 'path', kind: 'string', required: true, description: 'Where' },
      { name: 'count', kind: 'integer', required: true },
      { name: 'ratio', kind: 'number', required: false },
      { name: 'force', kind: 'boolean', required: false },
      { name: 'mode', kind: 'enum', required: false, options: ['a', 'b', 3] },
    ]);
    expect(fieldsOf({ type: 'object' })).toEqual([]);
  });

  it('falls back to raw JSON for what a form cannot say', () => {
    expect(fieldsOf({ type: 'object', properties: { list: { type: 'array' } } })).toBeUndefined();
    expect(fieldsOf({ type: 'object', properties: { nested: { type: 'object' } } })).toBeUndefined();
    expect(fieldsOf({ type: 'string' })).toBeUndefined();
  });

  it('builds typed arguments and says what is missing or wrong', () => {
    const fields = fieldsOf(schema)!;
    expect(argumentsFrom(fields, { path: '/x', count: '3', ratio: '0.5', force: 'true', mode: '3' })).toEqual({
      value: { path: '/x', count: 3, ratio: 0.5, force: true, mode: 3 },
    });
    expect(argumentsFrom(fields, { path: '/x', count: '' }).error).toBe('count is required.');
    expect(argumentsFrom(fields, { path: '/x', count: '1.5' }).error).toBe('count must be a whole number.');
    expect(argumentsFrom(fields, { path: '/x', count: '1', ratio: 'abc' }).error).toBe('ratio must be a number.');
    expect(argumentsFrom(fields, { path: '/x', count: '1' })).toEqual({ value: { path: '/x', count: 1 } });
  });
});

describe('parseRoute()', () => {
  it.each([
    ['', { screen: 'servers' }],
    ['#/servers', { screen: 'servers' }],
    ['#/servers/files', { screen: 'server', name: 'files' }],
    ['#/servers/a%2Fb', { screen: 'server', name: 'a/b' }],
    ['#/servers/files/tools', { screen: 'server', name: 'files', tab: 'tools' }],
    ['#/install', { screen: 'install' }],
    ['#/install?example=%2Fhome%2Fme', { screen: 'install', example: '/home/me' }],
    ['#/install?provided=team-notes', { screen: 'install', provided: 'team-notes' }],
    ['#/activity', { screen: 'activity' }],
    ['#/settings', { screen: 'settings' }],
    ['#/nowhere', { screen: 'servers' }],
    ['#/servers/%E0%A4%A', { screen: 'server', name: '%E0%A4%A' }],
  ])('%s', (hash, route) => {
    expect(parseRoute(hash)).toEqual(route);
  });
});
