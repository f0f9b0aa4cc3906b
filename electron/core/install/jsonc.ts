/** A JSON(C) text that does not parse, with the line and column of the problem. */
export class JsoncSyntaxError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line !== undefined ? `line ${line}, column ${column}: ${message}` : message);
    this.name = 'JsoncSyntaxError';
  }
}

/**
 * Parses JSON with comments (`//`, `/* *\/`) and trailing commas, as VS Code
 * writes its settings and mcp.json. Comments and trailing commas are
 * blanked (not removed) so error positions still match the file. A leading
 * byte-order mark is ignored.
 */
export function parseJsonc(text: string): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const chars = source.split('');
  const pending: number[] = [];
  let inString = false;
  for (let i = 0; i < chars.length; i += 1) {
    const c = chars[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '/' && chars[i + 1] === '/') {
      while (i < chars.length && chars[i] !== '\n') chars[i++] = ' ';
    } else if (c === '/' && chars[i + 1] === '*') {
      const start = i;
      chars[i++] = ' ';
      chars[i++] = ' ';
      while (i < chars.length && !(chars[i] === '*' && chars[i + 1] === '/')) {
        if (chars[i] !== '\n') chars[i] = ' ';
        i += 1;
      }
      if (i >= chars.length) throw new JsoncSyntaxError('a /* comment is never closed', ...lineColumn(source, start));
      chars[i++] = ' ';
      chars[i] = ' ';
    } else if (c === ',') {
      let j = i + 1;
      while (j < chars.length && /\s/.test(chars[j]!)) j += 1;
      // A comma followed by a comment is checked again once the comment is blanked.
      if (chars[j] === '}' || chars[j] === ']') chars[i] = ' ';
      else if (chars[j] === '/' && (chars[j + 1] === '/' || chars[j + 1] === '*')) pending.push(i);
    }
  }
  // Commas followed by a comment, then a closing bracket.
  for (const at of pending) {
    let j = at + 1;
    while (j < chars.length && /\s/.test(chars[j]!)) j += 1;
    if (chars[j] === '}' || chars[j] === ']') chars[at] = ' ';
  }
  const cleaned = chars.join('');
  try {
    return JSON.parse(cleaned);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    const clean = message.replace(/\s*in JSON at position \d+.*$/, '').replace(/, ".*" is not valid JSON$/, '');
    if (position) throw new JsoncSyntaxError(clean, ...lineColumn(source, Number(position[1])));
    throw new JsoncSyntaxError(clean);
  }
}

function lineColumn(text: string, offset: number): [number, number] {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return [line, column];
}
