/**
 * The pure half of the window's dialogs for servers' requests and of the
 * catalog sections: a form's answer is exactly what the person filled in
 * (never a default), edits land where they were made, a URL splits around its
 * real host, template variables expand the way the SDK's servers match them.
 */
import { describe, expect, it } from 'vitest';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  answerWords,
  base64Bytes,
  defaultText,
  editedSamplingParams,
  editedSamplingResult,
  formAnswer,
  inputFromDefault,
  samplingEditsOf,
  splitUrl,
  textsOf,
  withTexts,
  type FieldInput,
  type FormField,
} from '../../renderer/server-requests';
import { expandTemplate, templateVariables } from '../../renderer/uri-template';

const field = (key: string, type: FormField['type'], extra: Partial<FormField> = {}): FormField => ({ key, type, required: false, secretLooking: false, ...extra });
const text = (value: string): FieldInput => ({ kind: 'text', text: value });

describe('formAnswer(): exactly what the person filled in', () => {
  const fields = [
    field('name', 'string', { required: true, title: 'Name' }),
    field('motto', 'string', { default: 'It was a dark and stormy night.' }),
    field('age', 'integer', { minimum: 1, maximum: 120, default: 42 }),
    field('ratio', 'number'),
    field('agree', 'boolean', { default: true }),
    field('colour', 'choice', { options: [{ value: 'r', title: 'Red' }, { value: 'g', title: 'Green' }], default: 'r' }),
    field('tags', 'choices', { options: [{ value: 'a', title: 'A' }, { value: 'b', title: 'B' }, { value: 'c', title: 'C' }], minItems: 1, maxItems: 2, default: ['a'] }),
  ];

  it('leaves out every field the person did not touch, whatever its default', () => {
    const { content, problems } = formAnswer(fields, new Map([['name', text('Ada')]]));
    expect({ ...content }).toEqual({ name: 'Ada' });
    expect([...problems]).toEqual([]);
  });

  it('types each value: numbers, yes/no, a choice, a list of choices', () => {
    const inputs = new Map<string, FieldInput>([
      ['name', text('Ada')],
      ['age', text('36')],
      ['ratio', text('0.5')],
      ['agree', { kind: 'boolean', value: false }],
      ['colour', text('g')],
      ['tags', { kind: 'choices', values: ['b', 'c'] }],
    ]);
    expect({ ...formAnswer(fields, inputs).content }).toEqual({ name: 'Ada', age: 36, ratio: 0.5, agree: false, colour: 'g', tags: ['b', 'c'] });
  });

  it.each([
    ['a missing required field', new Map<string, FieldInput>(), 'name', '“Name” is required.'],
    ['a number out of range', new Map([['name', text('x')], ['age', text('121')]]), 'age', 'at most 120'],
    ['a fraction for a whole number', new Map([['name', text('x')], ['age', text('1.5')]]), 'age', 'whole number'],
    ['not a number', new Map([['name', text('x')], ['ratio', text('many')]]), 'ratio', 'must be a number'],
    ['a choice that is not offered', new Map([['name', text('x')], ['colour', text('blue')]]), 'colour', 'from its options'],
    ['too many choices', new Map<string, FieldInput>([['name', text('x')], ['tags', { kind: 'choices', values: ['a', 'b', 'c'] }]]), 'tags', 'at most 2'],
  ])('says what is wrong with %s, and sends nothing for it', (_name, inputs, key, message) => {
    const { content, problems } = formAnswer(fields, inputs);
    expect(problems.get(key)).toContain(message);
    expect(Object.hasOwn(content, key)).toBe(false);
  });

  it('checks formats as the core does', () => {
    const formats = [field('mail', 'string', { format: 'email' }), field('site', 'string', { format: 'uri' }), field('day', 'string', { format: 'date' })];
    const bad = formAnswer(formats, new Map([['mail', text('nope')], ['site', text('not a url')], ['day', text('3 May')]]));
    expect([...bad.problems.keys()]).toEqual(['mail', 'site', 'day']);
    const good = formAnswer(formats, new Map([['mail', text('a@b.example')], ['site', text('https://b.example')], ['day', text('2026-05-03')]]));
    expect([...good.problems]).toEqual([]);
  });

  it('keeps a field named __proto__ as a plain entry', () => {
    const { content } = formAnswer([field('__proto__', 'string')], new Map([['__proto__', text('x')]]));
    expect(Object.getPrototypeOf(content)).toBe(null);
    expect(Object.keys(content)).toEqual(['__proto__']);
    expect(JSON.parse(JSON.stringify(content))).toEqual(JSON.parse('{"__proto__":"x"}'));
  });

  it('offers a default only as a suggestion, worded with the options’ titles', () => {
    expect(defaultText(fields[5]!)).toBe('Red');
    expect(defaultText(fields[6]!)).toBe('A');
    expect(defaultText(fields[4]!)).toBe('Yes');
    expect(inputFromDefault(fields[2]!)).toEqual(text('42'));
    expect(inputFromDefault(fields[6]!)).toEqual({ kind: 'choices', values: ['a'] });
    expect(inputFromDefault(field('x', 'string', { default: { nested: true } }))).toBeUndefined();
  });
});

describe('sampling edits', () => {
  const params = {
    messages: [
      { role: 'user', content: { type: 'text', text: 'first' } },
      { role: 'assistant', content: [{ type: 'text', text: 'second' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }, { type: 'text', text: 'third' }] },
    ],
    systemPrompt: 'be brief',
    maxTokens: 100,
    temperature: 0.7,
  };

  it('start as exactly what the server sent, and change only what was edited', () => {
    const edits = samplingEditsOf(params);
    expect(edits).toEqual({ systemPrompt: 'be brief', texts: [['first'], ['second', 'third']], maxTokens: '100' });
    expect(editedSamplingParams(params, edits, 4096).value).toEqual(params);
    const changed = editedSamplingParams(params, { ...edits, texts: [['first'], ['second', 'THIRD']], maxTokens: '20' }, 4096).value!;
    expect(changed.maxTokens).toBe(20);
    expect(changed.temperature).toBe(0.7);
    expect((changed.messages as Array<{ content: unknown }>)[1]!.content).toEqual([{ type: 'text', text: 'second' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }, { type: 'text', text: 'THIRD' }]);
  });

  it.each([['0'], ['-5'], ['1.5'], ['lots'], ['5000']])('refuses %s tokens (the person’s cap is 4096)', (maxTokens) => {
    const result = editedSamplingParams(params, { ...samplingEditsOf(params), maxTokens }, 4096);
    expect(result.value).toBeUndefined();
    expect(result.error).toMatch(/tokens/);
  });

  it('edits the model’s answer in place', () => {
    const result = { model: 'm', role: 'assistant', content: { type: 'text', text: 'draft' }, stopReason: 'endTurn' };
    expect(textsOf(result.content)).toEqual(['draft']);
    expect(editedSamplingResult(result, ['final'])).toEqual({ ...result, content: { type: 'text', text: 'final' } });
    expect(withTexts({ type: 'image', data: 'x' }, ['ignored'])).toEqual({ type: 'image', data: 'x' });
  });

  it('measures base64 without decoding it', () => {
    expect(base64Bytes(Buffer.from('hello').toString('base64'))).toBe(5);
    expect(base64Bytes(Buffer.alloc(1024).toString('base64'))).toBe(1024);
    expect(base64Bytes(undefined)).toBe(0);
  });
});

describe('splitUrl(): the host to highlight is the one after the scheme', () => {
  it.each([
    ['https://example.com/a?b=c', 'example.com', { before: 'https://', host: 'example.com', after: '/a?b=c' }],
    ['https://xn--pple-43d.example:8443/x', 'xn--pple-43d.example', { before: 'https://', host: 'xn--pple-43d.example', after: ':8443/x' }],
    // A path that repeats a trusted name is not the host.
    ['https://evil.example/example.com', 'example.com', { before: 'https://evil.example/example.com', host: '', after: '' }],
  ])('%s', (url, host, expected) => {
    expect(splitUrl(url, host)).toEqual(expected);
  });
});

describe('answerWords(): the log’s record of an answer, in words', () => {
  it.each([
    ['allow-once (window), edited', 'allowed once in the window, edited'],
    ['decline (terminal)', 'declined on a terminal'],
    ['expired', 'nobody answered in time'],
    ['accept (client)', 'answered in the app'],
    ['something new (window)', 'something new (window)'],
  ])('%s', (raw, words) => {
    expect(answerWords(raw)).toBe(words);
  });
});

describe('resource templates', () => {
  it('lists variables, the query ones optional', () => {
    const { names, optional } = templateVariables('demo://items/{kind}/{id}{?page,limit}');
    expect(names).toEqual(['kind', 'id', 'page', 'limit']);
    expect([...optional]).toEqual(['page', 'limit']);
  });

  it('expands to a URI the SDK matches back to the same values', () => {
    const template = 'demo://resource/dynamic/text/{resourceId}';
    const { uri } = expandTemplate(template, new Map([['resourceId', '3']]));
    expect(uri).toBe('demo://resource/dynamic/text/3');
    expect(new UriTemplate(template).match(uri!)).toEqual({ resourceId: '3' });
    // A value cannot reach another path: reserved characters are percent-encoded (as SDK servers receive them).
    expect(expandTemplate('notes://{name}', new Map([['name', 'a b/../c']])).uri).toBe('notes://a%20b%2F..%2Fc');
  });

  it('a variable named __proto__ is a plain variable', () => {
    expect(expandTemplate('x://{__proto__}', new Map([['__proto__', 'v']])).uri).toBe('x://v');
  });
});
