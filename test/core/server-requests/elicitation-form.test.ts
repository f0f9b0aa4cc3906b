import { describe, expect, it } from 'vitest';
import { checkFormAnswer, enumOptions, isPrivateAddress, readElicitationUrl, secretLookingFields, type ElicitationForm } from '../../../electron/core/server-requests/elicitation-form';

const form = (properties: ElicitationForm['properties'], required?: string[]): ElicitationForm => ({ type: 'object', properties, ...(required ? { required } : {}) });

describe('secretLookingFields: a form that asks for something secret is flagged', () => {
  it.each([
    ['password', { type: 'string' }, true],
    ['apiKey', { type: 'string' }, true],
    ['api_key', { type: 'string' }, true],
    ['token', { type: 'string' }, true],
    ['githubAccessToken', { type: 'string' }, true],
    ['privateKey', { type: 'string' }, true],
    ['field1', { type: 'string', title: 'Your password' }, true],
    ['field2', { type: 'string', description: 'Paste your API key here' }, true],
    ['field3', { type: 'string', format: 'password' }, true],
    ['seed', { type: 'string', title: 'Seed phrase' }, true],
    ['name', { type: 'string', description: 'Your full, legal name' }, false],
    ['email', { type: 'string', format: 'email' }, false],
    ['integer', { type: 'integer', description: 'Your favourite integer (do not give us your phone number, pin, or other sensitive info)' }, false],
    ['tokenizer', { type: 'string', enum: ['bpe', 'wordpiece'] }, false],
  ] as const)('%s', (key, field, flagged) => {
    expect(secretLookingFields(form({ [key]: field as Record<string, unknown> }))).toEqual(flagged ? [key] : []);
  });
});

describe('readElicitationUrl: only https to a public name; Punycode flagged', () => {
  it.each([
    ['https://example.com/a?b=c', undefined, false],
    ['https://xn--pple-43d.com/', undefined, true],
    ['http://example.com/', 'it is not an https address (http)', false],
    ['javascript:alert(1)', 'it is not an https address (javascript)', false],
    ['https://user:pass@example.com/', 'it carries a user name or password', false],
    ['https://localhost:3000/', 'it points at this computer or the local network', false],
    ['https://printer.local/', 'it points at this computer or the local network', false],
    ['https://10.0.0.1/', 'it points at a private, loopback or link-local address', false],
    ['https://[::1]/', 'it points at a private, loopback or link-local address', false],
    ['https://169.254.169.254/latest/meta-data', 'it points at a private, loopback or link-local address', false],
    ['https://intranet/', 'it does not name a public host', false],
    ['not a url', 'it is not a valid web address', false],
  ] as const)('%s', (url, problem, punycode) => {
    const reading = readElicitationUrl(url);
    expect(reading.problem).toBe(problem);
    expect(reading.punycode).toBe(punycode);
  });

  it('shows a Punycode host in Unicode beside its DNS form', () => {
    expect(readElicitationUrl('https://xn--pple-43d.com/login')).toMatchObject({ host: 'аpple.com', asciiHost: 'xn--pple-43d.com' });
  });

  it.each([['127.0.0.1', true], ['192.168.1.1', true], ['172.20.0.1', true], ['100.64.0.1', true], ['8.8.8.8', false], ['fd00::1', true], ['fe80::1', true], ['::ffff:10.0.0.1', true], ['2606:4700::1111', false]] as const)(
    'isPrivateAddress(%s) = %s',
    (address, expected) => expect(isPrivateAddress(address)).toBe(expected),
  );
});

describe('checkFormAnswer: the person’s answer must fit the form', () => {
  const f = form(
    {
      name: { type: 'string', minLength: 1 },
      age: { type: 'integer', minimum: 0, maximum: 150 },
      status: { type: 'string', enum: ['active', 'inactive'] },
      hero: { type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }] },
      fish: { type: 'array', items: { anyOf: [{ const: 'f1', title: 'Tuna' }, { const: 'f2', title: 'Salmon' }] }, maxItems: 1 },
      ok: { type: 'boolean' },
      when: { type: 'string', format: 'date' },
    },
    ['name'],
  );
  it.each([
    ['a good answer', { name: 'Ada', age: 36, status: 'active', hero: 'h1', fish: ['f2'], ok: true, when: '2026-01-02' }, []],
    ['missing a required field', { age: 3 }, ['name']],
    ['a field the form did not ask for', { name: 'Ada', extra: 'x' }, ['extra']],
    ['an enum value not offered', { name: 'Ada', status: 'gone' }, ['status']],
    ['a titled enum value not offered', { name: 'Ada', hero: 'Superman' }, ['hero']],
    ['too many choices', { name: 'Ada', fish: ['f1', 'f2'] }, ['fish']],
    ['out of range', { name: 'Ada', age: 200 }, ['age']],
    ['not a whole number', { name: 'Ada', age: 1.5 }, ['age']],
    ['a bad date', { name: 'Ada', when: 'tomorrow' }, ['when']],
    ['a wrong type', { name: 'Ada', ok: 'yes' }, ['ok']],
  ] as const)('%s', (_name, answer, fields) => {
    expect(checkFormAnswer(f, answer).map((p) => p.field)).toEqual(fields);
  });

  it('reads SEP-1330 enums: untitled, titled, legacy enumNames, multi-select', () => {
    expect(enumOptions({ type: 'string', enum: ['a'] })).toEqual([{ value: 'a', title: 'a' }]);
    expect(enumOptions({ type: 'string', enum: ['a'], enumNames: ['A'] })).toEqual([{ value: 'a', title: 'A' }]);
    expect(enumOptions({ type: 'string', oneOf: [{ const: 'a', title: 'A' }] })).toEqual([{ value: 'a', title: 'A' }]);
    expect(enumOptions({ type: 'array', items: { type: 'string', enum: ['x'] } })).toEqual([{ value: 'x', title: 'x' }]);
    expect(enumOptions({ type: 'string' })).toBeUndefined();
  });
});
