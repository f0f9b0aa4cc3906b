import { describe, expect, it } from 'vitest';
import { checkAgainstSchema, isJsonValue, MAX_VALIDATION_STEPS, TOO_COSTLY, validateAgainstSchema } from '../../../electron/core/approvals/argument-schema';

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

describe('every check has a cost limit (issue 10, item 6)', () => {
  /** 26 levels of allOf doubling through $ref: a naive check expands it into 2^26 steps. */
  const exponential = (levels: number, combinator: 'allOf' | 'anyOf' | 'oneOf' = 'allOf') => {
    const defs: Record<string, unknown> = { a0: { type: 'string' } };
    for (let i = 1; i <= levels; i += 1) defs[`a${i}`] = { [combinator]: [{ $ref: `#/$defs/a${i - 1}` }, { $ref: `#/$defs/a${i - 1}` }] };
    return { type: 'object', $defs: defs, properties: { x: { $ref: `#/$defs/a${levels}` } } };
  };

  it('the 26-level schema (about 1.3 KB) is refused within the step bound, saying why', () => {
    const schema = exponential(26);
    expect(JSON.stringify(schema).length).toBeLessThan(2_000);
    const result = checkAgainstSchema(schema, { x: 'hello' });
    expect(result.tooCostly).toBe(true);
    expect(result.steps).toBe(MAX_VALIDATION_STEPS);
    expect(result.problems).toEqual([{ path: '', message: `${TOO_COSTLY} (more than 100,000 steps)` }]);
    expect(validateAgainstSchema(schema, { x: 'hello' })).toEqual(result.problems);
  });

  it.each(['anyOf', 'oneOf'] as const)('doubling through %s (checked by trial) is bounded too', (combinator) => {
    // A value no branch accepts makes every branch be tried.
    expect(checkAgainstSchema(exponential(26, combinator), { x: 1 })).toMatchObject({ tooCostly: true, steps: MAX_VALIDATION_STEPS });
  });

  it('a value that multiplies the work is bounded: many array items, long strings, big enums', () => {
    const many = { type: 'object', properties: { rows: { type: 'array', items: { $ref: '#/$defs/r' } } }, $defs: { r: { allOf: [{ type: 'string', maxLength: 10 }, { type: 'string', minLength: 1 }] } } };
    expect(checkAgainstSchema(many, { rows: Array.from({ length: 100_000 }, () => 'x') }).tooCostly).toBe(true);
    const bigEnum = { type: 'object', properties: { v: { allOf: Array.from({ length: 64 }, () => ({ enum: Array.from({ length: 5_000 }, (_, i) => `value ${i}`) })) } } };
    expect(checkAgainstSchema(bigEnum, { v: 'not listed' }).tooCostly).toBe(true);
  });

  it('ordinary schemas take a few steps, and the step count is deterministic', () => {
    const ok = checkAgainstSchema(schema, { path: '/a', count: 2, ratio: 1.5, mode: 'a', tags: ['x'], nested: { x: 1 }, either: null, exactly: 3 });
    expect(ok).toMatchObject({ problems: [], tooCostly: false });
    expect(ok.steps).toBeLessThan(100);
    expect(checkAgainstSchema(schema, { path: '/a', count: 2, ratio: 1.5, mode: 'a', tags: ['x'], nested: { x: 1 }, either: null, exactly: 3 }).steps).toBe(ok.steps);
    // A large but honest edit (5,000 rows of five fields) fits the budget.
    const table = { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', properties: { a: { type: 'string', maxLength: 100 }, b: { type: 'integer' }, c: { enum: ['x', 'y'] } }, required: ['a', 'b'] } } } };
    expect(checkAgainstSchema(table, { rows: Array.from({ length: 5_000 }, (_, i) => ({ a: `row ${i}`, b: i, c: 'y' })) })).toMatchObject({ problems: [], tooCostly: false });
  });

  it('a smaller budget can be asked for; the same schema then stops sooner', () => {
    expect(checkAgainstSchema(exponential(12), { x: 'y' }, { maxSteps: 1_000 })).toMatchObject({ tooCostly: true, steps: 1_000 });
    expect(checkAgainstSchema(exponential(8), { x: 'y' }, { maxSteps: 10_000 })).toMatchObject({ tooCostly: false, problems: [] });
  });
});
