/**
 * Strict JSON with positions: the managed policy's file format. Every value
 * and every object key is remembered with its line and column, so a
 * problem the schema finds ("allowedServers[2]: unknown key npmm") can name
 * the line the administrator has to fix. Duplicate keys are an error (two
 * values for one setting is a policy nobody can read one way). Objects are
 * null-prototype: a key named `__proto__` is a key like any other.
 */

/** A place in the text (1-based). */
export interface TextPosition {
  line: number;
  column: number;
}

/** A policy text that is not JSON, with where. */
export class PolicySyntaxError extends Error {
  constructor(
    message: string,
    readonly position: TextPosition,
  ) {
    super(`line ${position.line}, column ${position.column}: ${message}`);
    this.name = 'PolicySyntaxError';
  }
}

/** A parsed text and where each of its parts is. */
export interface PositionedJson {
  value: unknown;
  /** Where the value (or, for an object member, its key) at `path` starts; the nearest enclosing one when `path` is not in the text. */
  positionOf(path: ReadonlyArray<PropertyKey>): TextPosition;
}

const MAX_DEPTH = 64;

/** Parses strict JSON (a byte-order mark is allowed), remembering positions. Throws `PolicySyntaxError`. */
export function parsePolicyJson(text: string): PositionedJson {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const positions = new Map<string, TextPosition>();
  // Line starts, for turning an index into a line and column.
  const lineStarts = [0];
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 10) lineStarts.push(k + 1);
  const at = (index: number): TextPosition => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: index - lineStarts[lo]! + 1 };
  };
  const fail = (message: string, index = i): never => {
    throw new PolicySyntaxError(message, at(index));
  };
  const key = (path: ReadonlyArray<PropertyKey>) => path.map((part) => String(part)).join('\u0000');
  const space = () => {
    while (i < text.length) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
      else break;
    }
  };
  const string = (): string => {
    const start = i;
    i++;
    let out = '';
    for (;;) {
      if (i >= text.length) fail('a text value is not closed (a missing ")', start);
      const c = text[i]!;
      if (c === '"') {
        i++;
        return out;
      }
      if (c.charCodeAt(0) < 0x20) fail('a line break or control character inside a text value (write it as \\n)');
      if (c === '\\') {
        const e = text[i + 1];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else fail('an unknown escape after \\');
      } else {
        out += c;
        i++;
      }
    }
  };
  /** Passes `ch` when it is next. */
  const eat = (ch: string): boolean => {
    if (text[i] !== ch) return false;
    i++;
    return true;
  };
  /** After a member of an object or an item of an array: false past a comma (another follows), true past the closing bracket. */
  const closes = (close: '}' | ']'): boolean => {
    space();
    if (eat(',')) return false;
    if (eat(close)) return true;
    return fail(`expected , or ${close} (a missing comma?)`);
  };
  const value = (path: PropertyKey[], depth: number): unknown => {
    space();
    if (depth > MAX_DEPTH) fail('nested too deeply');
    if (!positions.has(key(path))) positions.set(key(path), at(i));
    const c = text[i];
    if (c === '{') {
      i++;
      const out = Object.create(null) as Record<string, unknown>;
      space();
      if (eat('}')) return out;
      for (;;) {
        space();
        if (text[i] !== '"') fail('expected a key in quotes');
        const keyStart = i;
        const name = string();
        if (Object.prototype.hasOwnProperty.call(out, name)) fail(`the key "${name}" appears twice`, keyStart);
        positions.set(key([...path, name]), at(keyStart));
        space();
        if (text[i] !== ':') fail(`expected : after "${name}"`);
        i++;
        Object.defineProperty(out, name, { value: value([...path, name], depth + 1), enumerable: true, writable: true, configurable: true });
        if (closes('}')) return out;
      }
    }
    if (c === '[') {
      i++;
      const out: unknown[] = [];
      space();
      if (eat(']')) return out;
      for (;;) {
        out.push(value([...path, out.length], depth + 1));
        if (closes(']')) return out;
      }
    }
    if (c === '"') return string();
    const literal = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!literal) fail(i >= text.length ? 'the text ends too early' : `unexpected ${JSON.stringify(text[i])}`);
    i += literal![0].length;
    const word = literal![0];
    return word === 'true' ? true : word === 'false' ? false : word === 'null' ? null : Number(word);
  };
  const parsed = value([], 0);
  space();
  if (i < text.length) fail('more text after the end of the policy');
  return {
    value: parsed,
    positionOf(path) {
      for (let n = path.length; n >= 0; n--) {
        const found = positions.get(key(path.slice(0, n)));
        if (found) return found;
      }
      return { line: 1, column: 1 };
    },
  };
}
