/**
 * A compact JSON-Schema check for arguments a person edited in a
 * confirmation. It covers what tool input schemas use in practice: `type`
 * (including `integer` and type lists), `enum`, `const`, `properties`,
 * `required`, `additionalProperties`, `items` / `prefixItems`,
 * `minItems`/`maxItems`, `minLength`/`maxLength`, `minimum`/`maximum` and
 * their exclusive forms, `multipleOf`, `allOf`/`anyOf`/`oneOf`/`not`,
 * boolean schemas and local `$ref` (`#/...`). Everything else (`format`,
 * `pattern`, …) is left to the server, which validates again: `pattern` is a
 * regular expression written by the server, and running it on the main
 * process invites catastrophic backtracking. An unresolvable `$ref` fails
 * closed.
 *
 * Every check has a cost limit: a schema is the server's, and a few hundred
 * bytes of `allOf`/`$ref` doubling make a naive check exponential (26 levels
 * blocked Airlock's owner process for minutes, issue 10 item 6). The work is
 * counted in steps — one per schema node visited, plus the size of strings
 * measured and values compared — and a check that needs more than
 * `MAX_VALIDATION_STEPS` stops there and is refused with a clear message.
 * The bound keeps a check to tens of milliseconds on this kind of machine,
 * so the event loop it runs on (the owner's) stays responsive.
 *
 * SECURITY: every validator is a CPU budget (SECURITY.md) — fails closed:
 * arguments that cannot be checked within the budget are not accepted.
 */

const MAX_DEPTH = 64;

/** Most steps one check may take (a typical tool's schema needs tens to hundreds). */
export const MAX_VALIDATION_STEPS = 100_000;

/** The message for a check stopped at its cost limit. */
export const TOO_COSTLY = 'could not be checked: the tool’s schema is too complex to check within Airlock’s limit';

class BudgetExceeded extends Error {}

/** The work left for one check, and what it has resolved and measured so far. */
interface Budget {
  left: number;
  refs: Map<string, unknown>;
  canonical: WeakMap<object, string>;
}

function spend(budget: Budget, steps: number): void {
  budget.left -= steps;
  if (budget.left < 0) throw new BudgetExceeded();
}

/** A check's result, with the work it took. */
export interface SchemaCheck {
  problems: SchemaProblem[];
  /** Steps used (at most `maxSteps`). */
  steps: number;
  /** The check stopped at its cost limit: `problems` holds that one refusal. */
  tooCostly: boolean;
}

/** One problem with a value, with a JSON-pointer-like path. */
export interface SchemaProblem {
  path: string;
  message: string;
}

/**
 * True when `value` is plain JSON: null, booleans, finite numbers, strings,
 * arrays and plain objects, with no cycles and bounded depth.
 */
export function isJsonValue(value: unknown, depth = 0, seen: Set<object> = new Set()): boolean {
  if (depth > MAX_DEPTH) return false;
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object') return false;
  if (seen.has(value)) return false;
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.every((v) => isJsonValue(v, depth + 1, seen));
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(value).every((v) => isJsonValue(v, depth + 1, seen));
  } finally {
    seen.delete(value);
  }
}

/**
 * Checks `value` against a tool's `inputSchema`; returns the problems found
 * (empty: valid). Never throws; a check past its cost limit is one problem.
 */
export function validateAgainstSchema(schema: unknown, value: unknown, options: { maxSteps?: number } = {}): SchemaProblem[] {
  return checkAgainstSchema(schema, value, options).problems;
}

/** `validateAgainstSchema`, saying how much work it took and whether it stopped at its limit. */
export function checkAgainstSchema(schema: unknown, value: unknown, options: { maxSteps?: number } = {}): SchemaCheck {
  const maxSteps = options.maxSteps ?? MAX_VALIDATION_STEPS;
  const budget: Budget = { left: maxSteps, refs: new Map(), canonical: new WeakMap() };
  const problems: SchemaProblem[] = [];
  if (!isJsonValue(value)) return { problems: [{ path: '', message: 'is not plain JSON' }], steps: 0, tooCostly: false };
  try {
    check(schema, value, '', schema, problems, 0, budget);
  } catch (error) {
    if (error instanceof BudgetExceeded) {
      return { problems: [{ path: '', message: `${TOO_COSTLY} (more than ${maxSteps.toLocaleString('en')} steps)` }], steps: maxSteps, tooCostly: true };
    }
    return { problems: [{ path: '', message: 'could not be checked against the tool’s schema' }], steps: maxSteps - Math.max(budget.left, 0), tooCostly: false };
  }
  return { problems, steps: maxSteps - budget.left, tooCostly: false };
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function resolveRef(root: unknown, ref: string, budget: Budget): unknown {
  if (budget.refs.has(ref)) return budget.refs.get(ref);
  spend(budget, 1 + (ref.length >> 6));
  const node = resolveRefUncached(root, ref);
  budget.refs.set(ref, node);
  return node;
}

function resolveRefUncached(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) throw new Error('non-local $ref');
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(node) && !Array.isArray(node)) throw new Error('bad $ref');
    if (!Object.prototype.hasOwnProperty.call(node, key)) throw new Error('bad $ref');
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Equal as JSON; each side's canonical text is computed once per check and paid for by its size. */
function same(a: unknown, b: unknown, budget: Budget): boolean {
  return canonicalOf(a, budget) === canonicalOf(b, budget);
}

function canonicalOf(v: unknown, budget: Budget): string {
  if (v !== null && typeof v === 'object') {
    const known = budget.canonical.get(v);
    if (known !== undefined) return known;
    const text = JSON.stringify(sortDeep(v)) ?? 'undefined';
    spend(budget, 1 + (text.length >> 8));
    budget.canonical.set(v, text);
    return text;
  }
  const text = JSON.stringify(v) ?? 'undefined';
  spend(budget, 1 + (text.length >> 8));
  return text;
}

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (isRecord(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortDeep(v[k]);
    return out;
  }
  return v;
}

function check(schema: unknown, value: unknown, path: string, root: unknown, out: SchemaProblem[], depth: number, budget: Budget): void {
  if (depth > MAX_DEPTH) throw new Error('schema too deep');
  spend(budget, 1);
  if (schema === true || schema === undefined) return;
  if (schema === false) {
    out.push({ path, message: 'is not allowed here' });
    return;
  }
  if (!isRecord(schema)) return;
  const s = schema;
  const at = path || '(arguments)';

  if (typeof s.$ref === 'string') {
    check(resolveRef(root, s.$ref, budget), value, path, root, out, depth + 1, budget);
  }

  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((t) => typeof t === 'string' && matchesType(value, t))) {
      out.push({ path: at, message: `must be ${types.join(' or ')}` });
      return;
    }
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => same(e, value, budget))) {
    out.push({ path: at, message: 'must be one of the allowed values' });
  }
  if ('const' in s && !same(s.const, value, budget)) out.push({ path: at, message: 'must be the fixed value' });

  if (typeof value === 'string' && (typeof s.minLength === 'number' || typeof s.maxLength === 'number')) {
    spend(budget, value.length >> 8);
    const length = codePoints(value);
    if (typeof s.minLength === 'number' && length < s.minLength) out.push({ path: at, message: `must be at least ${s.minLength} characters` });
    if (typeof s.maxLength === 'number' && length > s.maxLength) out.push({ path: at, message: `must be at most ${s.maxLength} characters` });
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) out.push({ path: at, message: `must be ≥ ${s.minimum}` });
    if (typeof s.maximum === 'number' && value > s.maximum) out.push({ path: at, message: `must be ≤ ${s.maximum}` });
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) out.push({ path: at, message: `must be > ${s.exclusiveMinimum}` });
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) out.push({ path: at, message: `must be < ${s.exclusiveMaximum}` });
    if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
      const q = value / s.multipleOf;
      if (Math.abs(q - Math.round(q)) > 1e-9) out.push({ path: at, message: `must be a multiple of ${s.multipleOf}` });
    }
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) out.push({ path: at, message: `needs at least ${s.minItems} items` });
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) out.push({ path: at, message: `takes at most ${s.maxItems} items` });
    const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
    const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
    value.forEach((item, i) => {
      const sub = tuple && i < tuple.length ? tuple[i] : rest;
      check(sub, item, `${path}/${i}`, root, out, depth + 1, budget);
    });
  }
  if (isRecord(value)) {
    const props = isRecord(s.properties) ? s.properties : {};
    if (Array.isArray(s.required)) {
      spend(budget, s.required.length);
      for (const name of s.required) {
        if (typeof name === 'string' && !Object.prototype.hasOwnProperty.call(value, name)) {
          out.push({ path: `${path}/${name}`, message: 'is required' });
        }
      }
    }
    const members = Object.entries(value);
    spend(budget, members.length);
    for (const [key, member] of members) {
      if (Object.prototype.hasOwnProperty.call(props, key)) {
        check(props[key], member, `${path}/${key}`, root, out, depth + 1, budget);
      } else if (s.additionalProperties === false) {
        out.push({ path: `${path}/${key}`, message: 'is not a parameter of this tool' });
      } else if (isRecord(s.additionalProperties)) {
        check(s.additionalProperties, member, `${path}/${key}`, root, out, depth + 1, budget);
      }
    }
  }
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) check(sub, value, path, root, out, depth + 1, budget);
  if (Array.isArray(s.anyOf)) {
    const ok = s.anyOf.some((sub) => probe(sub, value, path, root, depth, budget));
    if (!ok) out.push({ path: at, message: 'matches none of the allowed shapes' });
  }
  if (Array.isArray(s.oneOf)) {
    const n = s.oneOf.filter((sub) => probe(sub, value, path, root, depth, budget)).length;
    if (n !== 1) out.push({ path: at, message: n === 0 ? 'matches none of the allowed shapes' : 'matches more than one shape' });
  }
  if (s.not !== undefined && probe(s.not, value, path, root, depth, budget)) out.push({ path: at, message: 'matches a shape that is not allowed' });
}

function probe(schema: unknown, value: unknown, path: string, root: unknown, depth: number, budget: Budget): boolean {
  const sub: SchemaProblem[] = [];
  check(schema, value, path, root, sub, depth + 1, budget);
  return sub.length === 0;
}

/** Length in code points (what `minLength`/`maxLength` count), without building an array. */
function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= text.length) n += 1;
    else {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i += 1;
      n += 1;
    }
  }
  return n;
}
