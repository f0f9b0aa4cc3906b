import { parseJsonc } from '../install/jsonc';

/** A value in a JSON(C) text, with where it sits. */
export interface JsoncNode {
  kind: 'object' | 'array' | 'string' | 'scalar';
  /** Index of its first character. */
  start: number;
  /** Index just after its last character. */
  end: number;
  /** For objects: the members in file order (duplicates included). */
  members: JsoncMember[];
}

/** One `"key": value` of an object. */
export interface JsoncMember {
  key: string;
  keyStart: number;
  value: JsoncNode;
  /** Index of the comma after the value, when there is one. */
  comma?: number;
}

/** One change to a text: replace `[start, end)` with `text`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * The structure of a JSON(C) text with positions, so a change can touch
 * only the bytes it must. The text is first parsed with `parseJsonc`, which
 * throws `JsoncSyntaxError` (line and column) when it is not JSON(C); the
 * scan then only has valid input to walk.
 */
export function scanJsonc(text: string): JsoncNode {
  parseJsonc(text);
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;

  const skipTrivia = () => {
    for (;;) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i += 1;
      else if (c === '/' && text[i + 1] === '/') {
        while (i < text.length && text[i] !== '\n') i += 1;
      } else if (c === '/' && text[i + 1] === '*') {
        const close = text.indexOf('*/', i + 2);
        i = close < 0 ? text.length : close + 2;
      } else return;
    }
  };

  const readString = (): number => {
    const start = i;
    i += 1;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i += 1;
    return start;
  };

  const value = (): JsoncNode => {
    skipTrivia();
    const start = i;
    const c = text[i];
    if (c === '"') {
      readString();
      return { kind: 'string', start, end: i, members: [] };
    }
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      const members: JsoncMember[] = [];
      i += 1;
      for (;;) {
        skipTrivia();
        if (text[i] === close) {
          i += 1;
          return { kind: c === '{' ? 'object' : 'array', start, end: i, members };
        }
        if (c === '{') {
          const keyStart = readString();
          const key = JSON.parse(text.slice(keyStart, i)) as string;
          skipTrivia();
          i += 1; // ':'
          const member: JsoncMember = { key, keyStart, value: value() };
          members.push(member);
          skipTrivia();
          if (text[i] === ',') member.comma = i++;
        } else {
          value();
          skipTrivia();
          if (text[i] === ',') i += 1;
        }
      }
    }
    while (i < text.length && !/[\s,}\]/]/.test(text[i]!)) i += 1;
    return { kind: 'scalar', start, end: i, members: [] };
  };

  return value();
}

/** Applies edits that do not overlap (in any order given). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/** The file's line ending. */
export function lineEnding(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** The file's indentation step (its first indented line), two spaces when it has none. */
export function indentUnit(text: string): string {
  return /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
}

/** The whitespace before `at` on its line, when only whitespace precedes it there. */
export function indentAt(text: string, at: number): string | undefined {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const before = text.slice(lineStart, at);
  return /^[ \t]*$/.test(before) ? before : undefined;
}

/** `"key": value`, the value laid out with `unit` and its later lines indented by `indent`. */
export function formatMember(key: string, value: unknown, indent: string, unit: string, eol: string): string {
  return `${JSON.stringify(key)}: ${formatValue(value, indent, unit, eol)}`;
}

/** A value laid out with `unit`, its later lines indented by `indent`. */
export function formatValue(value: unknown, indent: string, unit: string, eol: string): string {
  return JSON.stringify(value, null, unit).split('\n').join(`${eol}${indent}`);
}

/**
 * The edits that add a member at the end of `object`, in the style around
 * it: after the last member (on its own line when the object spans lines,
 * keeping a comment that ends the last member's line where it was), or as
 * the only member of an empty object.
 */
export function insertMemberEdits(text: string, object: JsoncNode, key: string, value: unknown, objectIndent: string): TextEdit[] {
  const eol = lineEnding(text);
  const unit = indentUnit(text);
  const closeAt = object.end - 1;
  const multiline = text.slice(object.start, object.end).includes('\n');
  const last = object.members.at(-1);
  if (!last) {
    const inner = text.slice(object.start + 1, closeAt);
    if (!multiline && inner.trim() === '') {
      return [{ start: object.start + 1, end: closeAt, text: ` ${JSON.stringify(key)}: ${JSON.stringify(value)} ` }];
    }
    const indent = objectIndent + unit;
    const member = formatMember(key, value, indent, unit, eol);
    if (inner.trim() === '') return [{ start: object.start + 1, end: closeAt, text: `${eol}${indent}${member}${eol}${objectIndent}` }];
    // Only comments inside: the member goes first, the comments stay.
    return [{ start: object.start + 1, end: object.start + 1, text: `${eol}${indent}${member}` }];
  }
  if (!multiline) {
    const at = last.comma !== undefined ? last.comma + 1 : last.value.end;
    return [{ start: at, end: at, text: `${last.comma !== undefined ? '' : ','} ${JSON.stringify(key)}: ${JSON.stringify(value)}` }];
  }
  const indent = indentAt(text, last.keyStart) ?? objectIndent + unit;
  const member = formatMember(key, value, indent, unit, eol);
  const after = last.comma !== undefined ? last.comma + 1 : last.value.end;
  let lineEnd = text.indexOf('\n', after);
  if (lineEnd < 0 || lineEnd > closeAt) lineEnd = -1;
  else if (text[lineEnd - 1] === '\r') lineEnd -= 1;
  const rest = lineEnd < 0 ? '' : text.slice(after, lineEnd);
  const comma = last.comma === undefined ? ',' : '';
  // A trailing comma (JSONC) stays a trailing comma, after the new member.
  const trailing = last.comma !== undefined ? ',' : '';
  if (lineEnd >= 0 && /^[ \t]*(\/\/.*)?$/.test(rest)) {
    // The rest of the last member's line (a comment about it) stays on that line.
    const edits: TextEdit[] = [{ start: lineEnd, end: lineEnd, text: `${eol}${indent}${member}${trailing}` }];
    if (comma) edits.push({ start: last.value.end, end: last.value.end, text: comma });
    return edits;
  }
  return [{ start: after, end: after, text: `${comma}${eol}${indent}${member}${trailing}` }];
}
