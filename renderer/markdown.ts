/**
 * The model's Markdown, read into a tree of plain objects that
 * components/chat/markdown.tsx draws as React elements. SECURITY: nothing
 * here makes HTML. Raw HTML tags in the text are dropped (the words between
 * them stay, as text), an image is only an address to name (never a request),
 * a link only an address and its words — what may be opened, and how, is the
 * component's decision. Nesting is capped (MAX_DEPTH) and every search is
 * bounded, so no text can exhaust the stack or hang the window.
 *
 * It reads what models write: CommonMark's paragraphs, headings (# and
 * underlined), fenced and indented code, quotes, lists, rules, emphasis, code
 * spans, links (inline and by reference), images, autolinks, escapes,
 * entities and line breaks, and GitHub's tables, strikethrough, task lists
 * and bare links. Left out: footnotes and HTML blocks (shown as their text).
 */

/** Inline nodes, each named for the element it is drawn as (`a`: a link the person must confirm, `img`: an image never fetched). */
export type Inline =
  | string
  | { type: 'code'; text: string }
  | { type: 'em' | 'strong' | 'del'; children: Inline[] }
  | { type: 'a'; href: string; children: Inline[] }
  | { type: 'img'; src: string; alt: string }
  | { type: 'br' };

export type Align = 'left' | 'center' | 'right' | undefined;

/** Block nodes, each named for the element it is drawn as (`pre`: code). */
export type Block =
  | { type: 'p' | Heading; children: Inline[] }
  | { type: 'pre'; text: string }
  | { type: 'blockquote'; children: Block[] }
  | { type: 'ul' | 'ol'; start?: number; tight: boolean; items: ListItem[] }
  | { type: 'hr' }
  | { type: 'table'; align: Align[]; head: Inline[][]; rows: Inline[][][] };

export type Heading = 'h1' | 'h2' | 'h3' | 'h4' | 'h5' | 'h6';

/** A list item; `checked` is set for a task (`- [ ]`, `- [x]`). */
export interface ListItem {
  checked?: boolean;
  children: Block[];
}

/** Quotes, lists and images in link text nested deeper than this are read as plain text. */
const MAX_DEPTH = 12;
/** Emphasis (and links) nested deeper than this stays text, so drawing the tree cannot exhaust the stack. */
const MAX_NESTING = 24;
/** How deep each emphasis or link node's tree goes. */
const NESTING = new WeakMap<object, number>();

/** The deepest nesting among `nodes` (0 for text alone). */
function deepest(nodes: Inline[]): number {
  let depth = 0;
  for (const node of nodes) depth = Math.max(depth, typeof node === 'object' ? (NESTING.get(node) ?? 1) : 0);
  return depth;
}

const BLANK = /^[ \t]*$/;
const FENCE = /^( {0,3})(`{3,}(?=[^`]*$)|~{3,})/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t](.*))?$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^ {0,3}(?:([-+*])|(\d{1,9})([.)]))( +|$)/;
const TASK = /^\[([ xX])\][ \t]/;
const TABLE_DELIMITER = /^ {0,3}\|?(?:[ \t]*:?-+:?[ \t]*\|)*[ \t]*:?-+:?[ \t]*(?:\|[ \t]*)?$/;
const DEFINITION = /^ {0,3}\[((?:[^\\[\]]|\\.){1,999})\]:[ \t]*(?:<([^<>\n]*)>|(\S+))[ \t]*(?:(?:"[^"]*"|'[^']*'|\([^()]*\))[ \t]*)?$/;

interface Context {
  /** Link reference definitions, by normalised label. */
  definitions: Map<string, string>;
  /** Inline text waiting for the definitions (one may come after its use): read at the end. */
  pending: [Inline[], string][];
}

/** Reads the model's text into blocks. */
export function parseMarkdown(text: string): Block[] {
  const context: Context = { definitions: new Map(), pending: [] };
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks = readBlocks(lines, context, 0);
  for (const [target, raw] of context.pending) target.push(...parseInline(raw, context.definitions));
  return blocks;
}

/** The columns of space `line` starts with (a tab reaches the next multiple of four, CommonMark's tab stops). */
function indentOf(line: string): number {
  let column = 0;
  for (let i = 0; line[i] === ' ' || line[i] === '\t'; i++) column += line[i] === '\t' ? 4 - (column % 4) : 1;
  return column;
}

/** `line` without its first `columns` columns of space; a tab the cut splits leaves its other columns as spaces, any other stays a tab (code keeps its tabs). */
function dedent(line: string, columns: number): string {
  let column = 0;
  let i = 0;
  for (; column < columns && (line[i] === ' ' || line[i] === '\t'); i++) column += line[i] === '\t' ? 4 - (column % 4) : 1;
  return ' '.repeat(Math.max(0, column - columns)) + line.slice(i);
}

const normaliseLabel = (label: string) => label.trim().replace(/\s+/g, ' ').toLowerCase();

/** Inline text to read once every definition is known. */
function later(raw: string, context: Context): Inline[] {
  const target: Inline[] = [];
  context.pending.push([target, raw.trim()]);
  return target;
}

/** The cells of a table row (a pipe escaped with `\` stays in its cell). */
function cells(line: string): string[] {
  const row = line.trim().replace(/^\|/, '').replace(/(^|[^\\])\|$/, '$1');
  return row.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** A table starts at `line`: a header row, then a delimiter row (`|---|:-:|`) with as many cells. */
function isTableStart(line: string, next: string | undefined): boolean {
  return next !== undefined && next.includes('|') && TABLE_DELIMITER.test(next) && cells(line).length === cells(next).length;
}

/** `line` starts a block that ends a paragraph (`next`: the line after it). */
function interrupts(line: string, next: string | undefined, depth: number): boolean {
  const item = ITEM.exec(line);
  return (
    BLANK.test(line) ||
    FENCE.test(line) ||
    HEADING.test(line) ||
    RULE.test(line) ||
    (depth < MAX_DEPTH && (QUOTE.test(line) || (!!item && (!item[2] || item[2] === '1') && !BLANK.test(line.slice(item[0].length))))) ||
    isTableStart(line, next)
  );
}

function readBlocks(lines: string[], context: Context, depth: number): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    let match: RegExpExecArray | null;
    if (BLANK.test(line)) {
      i++;
    } else if ((match = FENCE.exec(line))) {
      // Fenced code runs to a fence of the same kind, at least as long (or to the end of the text).
      const [, indent, fence] = match;
      const body: string[] = [];
      for (i++; i < lines.length; i++) {
        const close = FENCE_CLOSE.exec(lines[i]!);
        if (close && close[1]![0] === fence![0] && close[1]!.length >= fence!.length) {
          i++;
          break;
        }
        body.push(dedent(lines[i]!, indent!.length));
      }
      blocks.push({ type: 'pre', text: body.join('\n') });
    } else if ((match = HEADING.exec(line))) {
      const title = (match[2] ?? '').trimEnd().replace(/(^|[ \t])#+$/, '');
      blocks.push({ type: `h${match[1]!.length}` as Heading, children: later(title, context) });
      i++;
    } else if (RULE.test(line)) {
      blocks.push({ type: 'hr' });
      i++;
    } else if (indentOf(line) >= 4) {
      const body: string[] = [];
      for (; i < lines.length && (BLANK.test(lines[i]!) || indentOf(lines[i]!) >= 4); i++) body.push(dedent(lines[i]!, 4));
      while (BLANK.test(body.at(-1)!)) body.pop();
      blocks.push({ type: 'pre', text: body.join('\n') });
    } else if (depth < MAX_DEPTH && QUOTE.test(line)) {
      // A quote runs while its lines start with `>`, and over lines that carry on its last paragraph.
      const body: string[] = [];
      for (; i < lines.length; i++) {
        const current = lines[i]!;
        if (QUOTE.test(current)) body.push(current.replace(QUOTE, ''));
        else if (!BLANK.test(body.at(-1)!) && !interrupts(current, lines[i + 1], depth)) body.push(current);
        else break;
      }
      blocks.push({ type: 'blockquote', children: readBlocks(body, context, depth + 1) });
    } else if (depth < MAX_DEPTH && ITEM.test(line)) {
      i = readList(lines, i, context, depth, blocks);
    } else if (isTableStart(line, lines[i + 1])) {
      const head = cells(line);
      const align = cells(lines[i + 1]!).map((cell): Align => (cell.endsWith(':') ? (cell.startsWith(':') ? 'center' : 'right') : cell.startsWith(':') ? 'left' : undefined));
      const rows: Inline[][][] = [];
      for (i += 2; i < lines.length && !interrupts(lines[i]!, lines[i + 1], depth); i++) {
        const row = cells(lines[i]!);
        rows.push(head.map((_, column) => later(row[column] ?? '', context)));
      }
      blocks.push({ type: 'table', align, head: head.map((cell) => later(cell, context)), rows });
    } else if ((match = DEFINITION.exec(line))) {
      const label = normaliseLabel(match[1]!);
      if (!context.definitions.has(label)) context.definitions.set(label, unescape(match[2] ?? match[3]!));
      i++;
    } else {
      // A paragraph, or a heading when its last line is underlined with `===` or `---`.
      const body = [line.trimStart()];
      let heading: Heading | undefined;
      for (i++; i < lines.length; i++) {
        const current = lines[i]!;
        const underline = SETEXT.exec(current);
        if (underline) {
          heading = underline[1]![0] === '=' ? 'h1' : 'h2';
          i++;
          break;
        }
        if (interrupts(current, lines[i + 1], depth)) break;
        body.push(current.trimStart());
      }
      blocks.push({ type: heading ?? 'p', children: later(body.join('\n'), context) });
    }
  }
  return blocks;
}

/** Reads the list that starts at `lines[start]` into `blocks`; returns the index of the line after it. */
function readList(lines: string[], start: number, context: Context, depth: number, blocks: Block[]): number {
  const first = ITEM.exec(lines[start]!)!;
  const items: ListItem[] = [];
  let tight = true;
  let i = start;
  for (;;) {
    const marker = ITEM.exec(lines[i]!)!;
    // The item's content starts after the marker and its spaces (one space when there are five or more, or none).
    const width = BLANK.test(lines[i]!.slice(marker[0].length)) || marker[4]!.length > 4 ? marker[0].length - marker[4]!.length + 1 : marker[0].length;
    const body = [lines[i]!.slice(width)];
    for (i++; i < lines.length; i++) {
      const current = lines[i]!;
      if (BLANK.test(current)) body.push('');
      else if (indentOf(current) >= width) body.push(dedent(current, width));
      else if (!BLANK.test(body.at(-1)!) && !interrupts(current, lines[i + 1], depth) && !ITEM.test(current)) body.push(current.trimStart());
      else break;
    }
    let blankAfter = false;
    while (body.length > 1 && BLANK.test(body.at(-1)!)) {
      body.pop();
      blankAfter = true;
    }
    const task = TASK.exec(body[0]!);
    if (task) body[0] = body[0]!.slice(4);
    const children = readBlocks(body, context, depth + 1);
    if (children.length > 1 && body.some((bodyLine) => BLANK.test(bodyLine))) tight = false;
    items.push(task ? { checked: task[1] !== ' ', children } : { children });
    const next = i < lines.length && !RULE.test(lines[i]!) ? ITEM.exec(lines[i]!) : null;
    if (!next || next[1] !== first[1] || next[3] !== first[3]) break;
    if (blankAfter) tight = false;
  }
  blocks.push(first[2] === undefined ? { type: 'ul', tight, items } : { type: 'ol', start: Number(first[2]), tight, items });
  return i;
}

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const ENTITY = /&(?:#[xX]([0-9a-fA-F]{1,6})|#(\d{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));/y;
/**
 * The named entities of HTML-escaped text (what a tool's output passed through
 * a model carries); any other name stays as written, and every character can
 * be written by number (`&#8212;`).
 */
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00A0' };

/** The character an entity at `at` stands for, and the entity's length; undefined when there is none. */
function entityAt(text: string, at: number): [string, number] | undefined {
  ENTITY.lastIndex = at;
  const match = ENTITY.exec(text);
  if (!match) return undefined;
  if (match[3]) return Object.hasOwn(NAMED, match[3]) ? [NAMED[match[3]]!, match[0].length] : undefined;
  const code = parseInt(match[1] ?? match[2]!, match[1] ? 16 : 10);
  return [String.fromCodePoint(code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? code : 0xfffd), match[0].length];
}

/** A link destination as written: escapes and entities resolved. */
function unescape(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const entity = text[i] === '&' ? entityAt(text, i) : undefined;
    if (entity) {
      out += entity[0];
      i += entity[1] - 1;
    } else if (text[i] === '\\' && ASCII_PUNCTUATION.test(text[i + 1] ?? '')) out += text[++i];
    else out += text[i];
  }
  return out;
}

/** A run of `*`, `_` or `~` that may open or close emphasis (CommonMark's delimiter runs); `left`: not yet used. */
interface Delimiter {
  char: string;
  length: number;
  left: number;
  opens: boolean;
  closes: boolean;
}

const isDelimiter = (token: Inline | Delimiter): token is Delimiter => typeof token === 'object' && 'char' in token;
const SPACE = /\s/;
const PUNCTUATION = /[\p{P}\p{S}]/u;
/** An HTML tag or comment (CommonMark's raw HTML), with bounded attribute values so a stray quote costs little. */
const HTML_TAG = /<(?:[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^'<>]{0,999}'|"[^"<>]{0,999}"))?)*\s*\/?|\/[A-Za-z][A-Za-z0-9-]*\s*|!--[^]{0,999}?--)>/y;
const AUTOLINK = /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>/y;
const BARE_LINK = /(?:https?:\/\/|www\.)[\w-]+(?:\.[\w-]+)*[^\s<]*/y;
const LINK_DESTINATION = /<([^<>\n]*)>|((?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)/y;
const LINK_TITLE = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)/y;
const LINK_LABEL = /\[((?:[^\\[\]]|\\.){0,999})\]/y;

/** The match of a sticky pattern at `at`, or null. */
function matchAt(pattern: RegExp, source: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(source);
}

/**
 * Reads inline text: emphasis, code, links, images, breaks. `depth`: how many
 * links or images this text is inside (a link holds no link; images nest only
 * so deep).
 */
export function parseInline(source: string, definitions = new Map<string, string>(), depth = 0): Inline[] {
  const tokens: (Inline | Delimiter)[] = [];
  // Text since the last token, and the spaces after it: held apart so a line end can drop them
  // without reading the text back (which would copy it at every line of a long paragraph).
  let text = '';
  let spaces = 0;
  const add = (more: string) => {
    text += ' '.repeat(spaces) + more;
    spaces = 0;
  };
  const push = (token: Inline | Delimiter) => {
    add('');
    if (text) tokens.push(text);
    text = '';
    tokens.push(token);
  };
  const code = codeSpans(source);
  const brackets = matchBrackets(source, code);
  let i = 0;
  while (i < source.length) {
    const char = source[i]!;
    const next = source[i + 1] ?? '';
    let match: RegExpExecArray | null;
    let entity: [string, number] | undefined;
    if (char === '\\' && next === '\n') {
      push({ type: 'br' });
      i += 2;
    } else if (char === '\\' && ASCII_PUNCTUATION.test(next)) {
      add(next);
      i += 2;
    } else if (char === '`') {
      // A run after an escaped backtick is not one the spans were found for: it is text.
      const span = code.get(i);
      const close = span?.[0] ?? -1;
      let length = span?.[1] ?? 0;
      while (source[i + length] === '`') length++;
      if (close < 0) {
        add(source.slice(i, i + length));
        i += length;
      } else {
        // Line ends are spaces; one space each side is dropped when both are there and it is not all spaces.
        let content = source.slice(i + length, close).replace(/\n/g, ' ');
        if (content.length > 2 && content.startsWith(' ') && content.endsWith(' ') && content.trim()) content = content.slice(1, -1);
        push({ type: 'code', text: content });
        i = close + length;
      }
    } else if (char === '<' && !depth && (match = matchAt(AUTOLINK, source, i))) {
      push({ type: 'a', href: match[1]!, children: [match[1]!] });
      i += match[0].length;
    } else if (char === '<' && (match = matchAt(HTML_TAG, source, i))) {
      // SECURITY: raw HTML is never drawn, not even as an element of its own name; the words around it stay.
      i += match[0].length;
    } else if (char === '&' && (entity = entityAt(source, i))) {
      add(entity[0]);
      i += entity[1];
    } else if ((char === '[' && !depth) || (char === '!' && next === '[' && depth < MAX_DEPTH)) {
      const image = char === '!';
      const link = readLink(source, image ? i + 1 : i, brackets, definitions);
      if (link) {
        const children = parseInline(link.text, definitions, depth + 1);
        const node: Inline = image ? { type: 'img', src: link.href, alt: plainText(children) } : { type: 'a', href: link.href, children };
        NESTING.set(node, deepest(children) + 1);
        push(node);
        i = link.end;
      } else {
        add(image ? '![' : '[');
        i += image ? 2 : 1;
      }
    } else if (char === '*' || char === '_' || char === '~') {
      let length = 1;
      while (source[i + length] === char) length++;
      const before = source[i - 1] ?? '\n';
      const after = source[i + length] ?? '\n';
      const left = !SPACE.test(after) && (!PUNCTUATION.test(after) || SPACE.test(before) || PUNCTUATION.test(before));
      const right = !SPACE.test(before) && (!PUNCTUATION.test(before) || SPACE.test(after) || PUNCTUATION.test(after));
      if (char === '~' && length > 2) add('~'.repeat(length));
      else
        push({
          char,
          length,
          left: length,
          opens: left && (char !== '_' || !right || PUNCTUATION.test(before)),
          closes: right && (char !== '_' || !left || PUNCTUATION.test(after)),
        });
      i += length;
    } else if (char === '\n') {
      // Two spaces or more before a line end break the line; any other line end is a space.
      const hard = spaces > 1;
      spaces = 0;
      if (hard) push({ type: 'br' });
      else add('\n');
      i++;
      while (source[i] === ' ') i++;
    } else if ((char === 'h' || char === 'w') && !depth && /^$|[\s*_~(]/.test(source[i - 1] ?? '') && (match = matchAt(BARE_LINK, source, i))) {
      const address = trimBareLink(match[0]);
      push({ type: 'a', href: address.startsWith('www.') ? `http://${address}` : address, children: [address] });
      i += address.length;
    } else {
      if (char === ' ') spaces++;
      else add(char);
      i++;
    }
  }
  add('');
  if (text) tokens.push(text);
  return resolveEmphasis(tokens);
}

/**
 * The code spans of `source`, by where they open: the closing run (one of
 * the same length; -1 when there is none, and the run is text) and the run's
 * length. One pass, remembering which lengths have no closing run left.
 */
function codeSpans(source: string): Map<number, [close: number, length: number]> {
  const spans = new Map<number, [number, number]>();
  const runs = [...source.matchAll(/`+/g)].map((run) => [run.index, run[0].length] as const);
  const unclosed = new Set<number>();
  for (let r = 0; r < runs.length; r++) {
    const [open, length] = runs[r]!;
    let close = -1;
    if (!unclosed.has(length)) {
      let found = r + 1;
      while (found < runs.length && runs[found]![1] !== length) found++;
      if (found === runs.length) unclosed.add(length);
      else {
        close = runs[found]![0];
        r = found;
      }
    }
    spans.set(open, [close, length]);
  }
  return spans;
}

/** For each `[` of `source`, the `]` that closes it (brackets balanced, outside code spans, not escaped). */
function matchBrackets(source: string, code: Map<number, [number, number]>): Map<number, number> {
  const pairs = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    const span = code.get(i);
    if (char === '\\') i++;
    else if (span) i = (span[0] < 0 ? i : span[0]) + span[1] - 1;
    else if (char === '[') open.push(i);
    else if (char === ']' && open.length) pairs.set(open.pop()!, i);
  }
  return pairs;
}

/** A link or image whose text opens at `open` (`[`): its text, destination and end, or undefined when it is plain text. */
function readLink(source: string, open: number, brackets: Map<number, number>, definitions: Map<string, string>): { text: string; href: string; end: number } | undefined {
  const close = brackets.get(open);
  if (close === undefined) return undefined;
  const text = source.slice(open + 1, close);
  // Inline: [text](destination "title"), read piece by piece (one pattern would backtrack over long spaces).
  if (source[close + 1] === '(') {
    let at = close + 2;
    const skipSpace = () => {
      while (SPACE.test(source[at] ?? '')) at++;
    };
    skipSpace();
    const destination = matchAt(LINK_DESTINATION, source, at)!;
    at += destination[0].length;
    const spaced = SPACE.test(source[at] ?? '');
    skipSpace();
    const title = spaced ? matchAt(LINK_TITLE, source, at) : null;
    if (title) at += title[0].length;
    skipSpace();
    if (source[at] === ')') return { text, href: unescape(destination[1] ?? destination[2]!), end: at + 1 };
  }
  // By reference: [text][label], [label][] or [label].
  const label = matchAt(LINK_LABEL, source, close + 1);
  const key = label?.[1] || text;
  // A label is at most 999 characters (CommonMark's limit), so looking one up never reads a long text.
  const href = definitions.size && key.length < 1000 ? definitions.get(normaliseLabel(key)) : undefined;
  return href === undefined ? undefined : { text, href, end: label ? close + 1 + label[0].length : close + 1 };
}

/** A bare link without the punctuation that ends its sentence (GitHub's rules: `.`, `,`, an unopened `)`, an entity…). */
function trimBareLink(address: string): string {
  for (;;) {
    let next = address.replace(/[?!.,:*_~'"]+$/, '').replace(/&[A-Za-z0-9]+;$/, '');
    if (next.endsWith(')') && next.split('(').length < next.split(')').length) next = next.slice(0, -1);
    if (next === address) return address;
    address = next;
  }
}

/** The text of inline nodes without their marks (an image's alternative text). */
export function plainText(nodes: Inline[]): string {
  return nodes.map((node) => (typeof node === 'string' ? node : 'children' in node ? plainText(node.children) : 'text' in node ? node.text : 'alt' in node ? node.alt : '\n')).join('');
}

/**
 * Pairs delimiter runs into emphasis, strong emphasis and strikethrough
 * (CommonMark's "process emphasis", on a stack); the runs left over are text.
 * A search for an opener that failed is not repeated below where it stopped
 * (`floor`), so a text of many lone closers stays linear.
 */
function resolveEmphasis(tokens: (Inline | Delimiter)[]): Inline[] {
  const stack: (Inline | Delimiter)[] = [];
  const floor = new Map<string, number>();
  for (const closer of tokens) {
    if (!isDelimiter(closer) || !closer.closes) {
      stack.push(closer);
      continue;
    }
    const strike = closer.char === '~';
    const kind = strike ? `~${closer.length}` : `${closer.char}${closer.length % 3}${closer.opens}`;
    while (closer.left) {
      const bottom = floor.get(kind) ?? 0;
      let j = stack.length - 1;
      for (; j >= bottom; j--) {
        const opener = stack[j]!;
        if (!isDelimiter(opener) || opener.char !== closer.char || !opener.opens) continue;
        // Strikethrough pairs runs of the same length; emphasis follows the rule of three.
        if (strike ? opener.length === closer.length : !((opener.closes || closer.opens) && (opener.length + closer.length) % 3 === 0 && (opener.length % 3 || closer.length % 3))) break;
      }
      if (j < bottom) {
        floor.set(kind, stack.length);
        break;
      }
      const opener = stack[j] as Delimiter;
      const use = strike ? closer.left : opener.left > 1 && closer.left > 1 ? 2 : 1;
      opener.left -= use;
      closer.left -= use;
      const children = asText(stack.splice(j + 1));
      if (!opener.left) stack.pop();
      const nesting = deepest(children) + 1;
      if (nesting > MAX_NESTING) {
        const mark = closer.char.repeat(use);
        stack.push(mark);
        for (const child of children) stack.push(child);
        stack.push(mark);
      } else {
        const node: Inline = { type: strike ? 'del' : use === 2 ? 'strong' : 'em', children };
        NESTING.set(node, nesting);
        stack.push(node);
      }
      for (const [key, value] of floor) if (value > j) floor.set(key, j);
    }
    if (closer.left) stack.push(closer);
  }
  return asText(stack);
}

/** Tokens with the delimiter runs left unpaired as their characters, and neighbouring text joined. */
function asText(tokens: (Inline | Delimiter)[]): Inline[] {
  const out: Inline[] = [];
  for (const token of tokens) {
    const value = isDelimiter(token) ? token.char.repeat(token.left) : token;
    if (typeof value === 'string' && typeof out.at(-1) === 'string') out[out.length - 1] += value;
    else if (value !== '') out.push(value);
  }
  return out;
}
