import { describe, expect, it } from 'vitest';
import { isJsonValue, validateAgainstSchema } from '../../../electron/core/approvals/argument-schema';

const schema = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1, maxLength: 10 },
    count: { type: 'integer', minimum: 1, maximum: 5 },
    ratio: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.5 },
    mode: { enum: ['a', 'b'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    nested: { $ref: '#/$defs/point' },
    either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    exactly: { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 10 }] },
  },
  required: ['path'],
  additionalProperties: false,
  $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
};

describe('validateAgainstSchema (compact JSON Schema)', () => {
  it('accepts a valid value', () => {
    expect(validateAgainstSchema(schema, { path: '/a', count: 2, ratio: 1.5, mode: 'a', tags: ['x'], nested: { x: 1 }, either: null, exactly: 3 })).toEqual([]);
  });

  it.each([
    [{}, '/path', 'is required'],
    [{ path: '' }, '/path', 'must be at least 1 characters'],
    [{ path: 'x'.repeat(11) }, '/path', 'must be at most 10 characters'],
    [{ path: '/a', count: 1.5 }, '/count', 'must be integer'],
    [{ path: '/a', count: 9 }, '/count', 'must be ≤ 5'],
    [{ path: '/a', ratio: 0 }, '/ratio', 'must be > 0'],
    [{ path: '/a', ratio: 0.3 }, '/ratio', 'must be a multiple of 0.5'],
    [{ path: '/a', mode: 'c' }, '/mode', 'must be one of the allowed values'],
    [{ path: '/a', tags: [1] }, '/tags/0', 'must be string'],
    [{ path: '/a', tags: ['a', 'b', 'c'] }, '/tags', 'takes at most 2 items'],
    [{ path: '/a', nested: {} }, '/nested/x', 'is required'],
    [{ path: '/a', either: 3 }, '/either', 'matches none of the allowed shapes'],
    [{ path: '/a', exactly: 12 }, '/exactly', 'matches more than one shape'],
    [{ path: '/a', other: 1 }, '/other', 'is not a parameter of this tool'],
  ])('%j → %s %s', (value, path, message) => {
    expect(validateAgainstSchema(schema, value)).toContainEqual({ path, message });
  });

  it('boolean schemas and no schema', () => {
    expect(validateAgainstSchema(true, { a: 1 })).toEqual([]);
    expect(validateAgainstSchema({}, { a: 1 })).toEqual([]);
    expect(validateAgainstSchema(false, { a: 1 })).toHaveLength(1);
  });

  it('fails closed on a reference it cannot resolve', () => {
    expect(validateAgainstSchema({ $ref: 'https://example.com/schema.json' }, {})).toHaveLength(1);
    expect(validateAgainstSchema({ $ref: '#/$defs/missing' }, {})).toHaveLength(1);
  });

  it('a self-referencing schema does not loop forever', () => {
    expect(validateAgainstSchema({ $ref: '#' }, {})).toHaveLength(1);
  });

  it('does not run server-supplied patterns (left to the server)', () => {
    expect(validateAgainstSchema({ type: 'string', pattern: '^(a+)+$' }, 'a'.repeat(40) + 'b')).toEqual([]);
  });

  it('isJsonValue rejects what is not plain JSON', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(isJsonValue({ a: [1, 'x', null, true, { b: 2 }] })).toBe(true);
    expect(isJsonValue(JSON.parse('{"__proto__": {"x": 1}}'))).toBe(true);
    for (const bad of [undefined, () => 1, Number.NaN, Infinity, new Date(), new Map(), cyclic, { a: undefined }, 1n]) {
      expect(isJsonValue(bad)).toBe(false);
    }
  });
});
