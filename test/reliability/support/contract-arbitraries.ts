/**
 * Payloads for fuzzing the IPC contract, built from the contract's own zod
 * schemas (zod 4's `_zod.def`): valid requests (so the fuzz reaches the real
 * handlers, not only the validator), requests broken in one known way (each
 * must be refused, whatever the validator), and arbitrary values of every
 * kind a renderer's structured clone can carry (Maps, Sets, Dates, BigInts,
 * typed arrays, null-prototype objects, cycles).
 */
import fc from 'fast-check';
import type { z } from 'zod';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  entries?: Record<string, string | number>;
  values?: unknown[];
  checks?: Array<{ _zod: { def: { check: string; format?: string; pattern?: RegExp; value?: number | bigint; inclusive?: boolean; minimum?: number; maximum?: number } } }>;
};

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

function bounds(def: Def): { min?: number; max?: number; pattern?: RegExp; int: boolean; gt?: number; lt?: number } {
  const out: { min?: number; max?: number; pattern?: RegExp; int: boolean; gt?: number; lt?: number } = { int: false };
  for (const check of def.checks ?? []) {
    const c = check._zod.def;
    if (c.check === 'min_length') out.min = c.minimum;
    if (c.check === 'max_length') out.max = c.maximum;
    if (c.check === 'string_format' && c.format === 'regex') out.pattern = c.pattern;
    if (c.check === 'number_format') out.int = true;
    if (c.check === 'greater_than') out.gt = Number(c.value);
    if (c.check === 'less_than') out.lt = Number(c.value);
  }
  return out;
}

/** Bounded text a person could type, with the characters that break naive code (quotes, controls, bidi, NUL). */
const nastyText = (maxLength: number) =>
  fc.oneof(
    fc.string({ maxLength: Math.min(maxLength, 40) }),
    fc.string({ maxLength: Math.min(maxLength, 40), unit: 'binary' }),
    fc.constantFrom('__proto__', 'constructor', 'toString', '../../etc/passwd', '\u202e\u0000\u001b[2J', ' ', '').filter((s) => s.length <= maxLength),
  );

/** Values the schema accepts (as far as this walk can tell: a custom or transformed part gets plausible data). */
export function validFor(schema: z.ZodType, depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      const shape = def.shape ?? {};
      const required = Object.keys(shape).filter((key) => !isOptional(shape[key]!));
      const members = Object.fromEntries(Object.entries(shape).map(([key, member]) => [key, validFor(member, depth + 1)]));
      return fc.record(members, { requiredKeys: required });
    }
    case 'string': {
      const b = bounds(def);
      const max = Math.min(b.max ?? 200, 200);
      const min = b.min ?? 0;
      // fast-check cannot generate for every flag; what matches without `i` matches with it.
      const pattern = b.pattern ? new RegExp(b.pattern.source, b.pattern.flags.replace(/[^dgmsu]/g, '')) : undefined;
      const base = pattern ? fc.stringMatching(pattern, { size: 'small' }) : nastyText(max);
      return base.filter((s) => s.length >= min && s.length <= (b.max ?? Infinity));
    }
    case 'number': {
      const b = bounds(def);
      const min = b.gt ?? -1e6;
      const max = b.lt ?? 1e6;
      return b.int ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'literal':
      return fc.constantFrom(...(def.values ?? []));
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries ?? {}));
    case 'array': {
      const b = bounds(def);
      return fc.array(validFor(def.element!, depth + 1), { minLength: b.min ?? 0, maxLength: Math.min(b.max ?? 4, 4) });
    }
    case 'optional':
      return fc.option(validFor(def.innerType!, depth + 1), { nil: undefined });
    case 'nullable':
      return fc.option(validFor(def.innerType!, depth + 1), { nil: null });
    case 'union':
      return fc.oneof(...(def.options ?? []).map((option) => validFor(option, depth + 1)));
    case 'record':
      return fc.dictionary(validFor(def.keyType!, depth + 1) as fc.Arbitrary<string>, validFor(def.valueType!, depth + 1), { maxKeys: 3 });
    case 'pipe':
    case 'custom':
      // nameKeyedRecord: a JSON object keyed by someone else's names.
      return fc.dictionary(nastyText(40), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function isOptional(schema: z.ZodType): boolean {
  return defOf(schema).type === 'optional';
}

/** A value of a JSON kind `schema` can never accept, or undefined when the schema takes several kinds. */
function wrongKindFor(schema: z.ZodType): fc.Arbitrary<unknown> | undefined {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
      return wrongKindFor(def.innerType!)?.filter((value) => value !== undefined);
    case 'nullable':
      return wrongKindFor(def.innerType!)?.filter((value) => value !== null);
    case 'string': {
      const b = bounds(def);
      // The wrong kind, or a string past its length limit.
      return fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}), ...(b.max !== undefined && b.max < 200_000 ? [fc.constant('x'.repeat(b.max + 1))] : []));
    }
    case 'number':
      return fc.oneof(fc.string({ maxLength: 5 }), fc.constant(Number.NaN), fc.constant(Number.POSITIVE_INFINITY), fc.constant(null), fc.constant([1]));
    case 'boolean':
      return fc.oneof(fc.constantFrom('true', 'false', 0, 1, null), fc.constant({}));
    case 'literal':
      return fc.constantFrom('not-the-literal', 0, null, []);
    case 'enum':
      return fc.constantFrom('not-in-the-enum', 42, null, {});
    case 'array':
      return fc.constantFrom({}, 'list', 7, null);
    case 'object':
      return fc.constantFrom([], 'object', 7, null);
    default:
      return undefined;
  }
}

/** How a valid request was broken; each must be refused. */
export type BreakKind = 'not-an-object' | 'extra-key' | 'proto-key' | 'missing-key' | 'wrong-kind' | 'too-large' | 'too-deep' | 'not-plain';

/** A request broken in one known way. */
export interface BrokenRequest {
  kind: BreakKind;
  /** Which key was broken (for the failure message). */
  key?: string;
  payload: unknown;
}

/** Requests broken in one way the contract forbids, for a channel whose request schema is `schema` (a strict object). */
export function brokenFor(schema: z.ZodType): fc.Arbitrary<BrokenRequest> {
  const def = defOf(schema);
  const shape = def.shape ?? {};
  const keys = Object.keys(shape);
  const required = keys.filter((key) => !isOptional(shape[key]!));
  const valid = validFor(schema) as fc.Arbitrary<Record<string, unknown>>;
  const breakable = keys.map((key) => [key, wrongKindFor(shape[key]!)] as const).filter((entry): entry is readonly [string, fc.Arbitrary<unknown>] => entry[1] !== undefined);
  // Oversized, deep or non-plain values go where one kind of value is expected (or under a key the request does not have).
  const target = breakable[0]?.[0] ?? 'x';
  const choices: Array<fc.Arbitrary<BrokenRequest>> = [
    fc.oneof(fc.constant(null), fc.constant(undefined), fc.integer(), fc.string({ maxLength: 20 }), fc.boolean(), fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 })).map((payload) => ({ kind: 'not-an-object' as const, payload })),
    fc
      .tuple(valid, fc.string({ minLength: 1, maxLength: 12 }).filter((key) => !keys.includes(key) && key !== '__proto__'), fc.jsonValue({ maxDepth: 1 }))
      .map(([payload, key, value]) => ({ kind: 'extra-key' as const, key, payload: { ...payload, [key]: value } })),
    valid.map((payload) => ({ kind: 'proto-key' as const, key: '__proto__', payload: Object.assign(JSON.parse('{"__proto__": {"polluted": "yes"}}') as object, payload) })),
    fc.tuple(valid, fc.nat()).map(([payload]) => ({ kind: 'too-large' as const, payload: { ...payload, [target]: 'x'.repeat(1_000_001) } })),
    fc.tuple(valid, fc.integer({ min: 5_000, max: 20_000 })).map(([payload, depth]) => {
      let deep: unknown = 'bottom';
      for (let i = 0; i < depth; i++) deep = { d: deep };
      return { kind: 'too-deep' as const, payload: { ...payload, [target]: deep } };
    }),
    fc.tuple(valid, fc.constantFrom('bigint', 'cycle')).map(([payload, how]) => {
      const broken: Record<string, unknown> = { ...payload };
      if (how === 'bigint') broken[target] = 10n ** 30n;
      else broken[target] = broken;
      return { kind: 'not-plain' as const, payload: broken };
    }),
  ];
  if (required.length > 0) {
    choices.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([payload, key]) => {
        const { [key]: _dropped, ...rest } = payload;
        return { kind: 'missing-key' as const, key, payload: rest };
      }),
    );
  }
  if (breakable.length > 0) {
    choices.push(
      fc.oneof(...breakable.map(([key, wrong]) => fc.tuple(valid, wrong).map(([payload, value]) => ({ kind: 'wrong-kind' as const, key, payload: { ...payload, [key]: value } })))),
    );
  }
  return fc.oneof(...choices);
}

/** Anything a renderer could send through a structured clone. */
export function anyPayload(): fc.Arbitrary<unknown> {
  return fc.anything({
    maxDepth: 4,
    maxKeys: 6,
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withTypedArray: true,
    withSparseArray: true,
    withUnicodeString: true,
  });
}

/** True when a channel's request schema is a strict object (unknown keys refused). */
export function isStrictObject(schema: z.ZodType): boolean {
  const def = defOf(schema);
  return def.type === 'object' && def.catchall !== undefined && defOf(def.catchall).type === 'never';
}
