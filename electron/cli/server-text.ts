/**
 * Text a server or a registry wrote, as the terminal shows it — and the one
 * rule for every row the CLI prints: it starts with Airlock's own text.
 *
 * SECURITY (SECURITY.md, "a prompt is an attack surface"; issue 25 item 4):
 * a server's description, instructions, prompt or error text is data. It may
 * never begin a row of the terminal, where it could pass for Airlock's own
 * lines ("Note: Publisher verified …"):
 * - inside one of Airlock's lines it is `inline`: control and bidi characters
 *   made visible, and every line break (LF, CR, VT, FF, NEL, U+2028/2029)
 *   and tab shown as an escape, so it stays on that line;
 * - on lines of its own it is a `quoteBlock`: each of its lines behind the
 *   `┆` gutter, tabs expanded, folded to a few rows with the rest counted;
 * - `fitToTerminal` wraps every printed row to the terminal's width itself,
 *   so the terminal never wraps a long value onto a row of its own: a
 *   continued row keeps its gutter, or is marked `↪` as a continuation.
 */
import { textWidth as stringWidth } from './text-width';
import { inertLine, inertText } from '../core/inert';

/** The gutter every row of a quoted text carries after its indent. */
export const QUOTE = '┆ ';
/** What a row Airlock had to wrap continues with (after the row's own indent). */
export const CONTINUED = '↪ ';
/** Every line break a terminal or a text layout may honour. */
const LINE_BREAKS = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/;
const LINE_BREAKS_ALL = new RegExp(LINE_BREAKS.source, 'g');
const TAB_STOP = 8;

/**
 * A server's text inside one of Airlock's lines: inert, and on one line —
 * a line break shows as `\n`, a tab as `\t`. `max` folds its middle.
 */
export function inline(text: string, max?: number): string {
  const flat = inertLine(String(text));
  if (max === undefined) return flat;
  const chars = [...flat];
  if (chars.length <= max) return flat;
  const head = Math.ceil((max - 1) * 0.6);
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - (max - 1 - head)).join('')}`;
}

/** What `quoteBlock` is told. */
export interface QuoteOptions {
  /** What comes before the gutter on every row (default two spaces). */
  indent?: string;
  /** Most rows of the text shown; the rest is counted in Airlock's words. */
  maxRows?: number;
  /** Most characters of the text shown; the rest is counted in Airlock's words. */
  maxChars?: number;
}

/**
 * A server's text on rows of its own, each behind the gutter: its lines
 * split at every kind of line break, tabs expanded to spaces, control and
 * bidi characters made visible. Empty text gives no rows.
 */
export function quoteBlock(text: string, options: QuoteOptions = {}): string[] {
  const indent = options.indent ?? '  ';
  const prefix = `${indent}${QUOTE}`;
  const all = [...String(text)];
  if (all.length === 0) return [];
  const maxChars = options.maxChars ?? Infinity;
  const shown = all.length > maxChars ? all.slice(0, maxChars).join('') : String(text);
  const maxRows = options.maxRows ?? Infinity;
  const rows: string[] = [];
  // Each line with where it ends in `shown` (UTF-16), to count what is left out.
  let start = 0;
  let end = 0;
  let lines = 0;
  for (const match of `${shown}\n`.matchAll(LINE_BREAKS_ALL)) {
    if (lines >= maxRows) break;
    const line = shown.slice(start, match.index);
    const body = expandTabs(inertText(line));
    rows.push(body.length > 0 ? `${prefix}${body}` : prefix.trimEnd());
    end = Math.min(match.index + match[0].length, shown.length);
    start = match.index + match[0].length;
    lines += 1;
  }
  const hidden = all.length - [...shown.slice(0, end)].length;
  if (hidden > 0) {
    const hiddenLines = lines >= maxRows ? shown.slice(end).split(LINE_BREAKS).length : 0;
    rows.push(`${indent}[… ${hiddenLines > 0 ? `${hiddenLines.toLocaleString('en')} more line${hiddenLines === 1 ? '' : 's'}, ` : ''}${hidden.toLocaleString('en')} more characters not shown]`);
  }
  return rows;
}

/** Tabs as spaces to the next tab stop, counted in display columns. */
function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  let column = 0;
  for (const { segment } of graphemes(line)) {
    if (segment === '\t') {
      const pad = TAB_STOP - (column % TAB_STOP);
      out += ' '.repeat(pad);
      column += pad;
    } else {
      out += segment;
      column += stringWidth(segment);
    }
  }
  return out;
}

// SGR colour codes (what Airlock's palette writes): no width, never split.
const SGR = /(\u001b\[[0-9;]*m)/;
const SGR_ALL = /\u001b\[[0-9;]*m/g;

/**
 * Airlock's output for a terminal `columns` wide: every row wider than the
 * terminal is wrapped here, its continuation behind the row's own gutter
 * (a quoted row) or marked `↪` — so no text of a server's can begin a row.
 * Without `columns` (a pipe, a file), the text is returned as it is.
 */
export function fitToTerminal(text: string, columns: number | undefined): string {
  if (!columns || columns < 20) return text;
  const width = columns - 1;
  return text
    .split('\n')
    .flatMap((row) => wrapRow(row, width))
    .join('\n');
}

function wrapRow(row: string, width: number): string[] {
  if (stringWidth(row) <= width) return [row];
  const plain = row.replace(SGR_ALL, '');
  const indent = /^ */.exec(plain)![0];
  const gutter = new RegExp(`^ *${QUOTE}`).exec(plain)?.[0];
  // A continued row: behind the same gutter when it was quoted text, else marked as continued.
  const next = gutter ?? `${indent.length > 0 && indent.length < width / 2 ? indent : '  '}${CONTINUED}`;
  const nextWidth = stringWidth(next);
  type Token = { text: string; width: number; code: boolean };
  const rows: string[] = [];
  let current: Token[] = [];
  let used = 0;
  let start = 0; // tokens of `current` that are the continuation prefix
  const flush = (tokens: Token[]) => rows.push(tokens.map((token) => token.text).join(''));
  for (const part of row.split(SGR)) {
    if (part.length === 0) continue;
    if (part.startsWith('\u001b')) {
      current.push({ text: part, width: 0, code: true });
      continue;
    }
    for (const { segment } of graphemes(part)) {
      const w = stringWidth(segment);
      if (used + w > width && current.length > start) {
        // Break after the last space in the row's second half, else where it is full.
        let cut = current.length;
        for (let i = current.length - 1, seen = used; i > start; i -= 1) {
          seen -= current[i]!.width;
          if (seen < width / 2) break;
          if (current[i]!.text === ' ' && segment !== ' ') {
            cut = i + 1;
            break;
          }
        }
        flush(current.slice(0, cut));
        const carried = current.slice(cut);
        current = [{ text: next, width: nextWidth, code: false }, ...carried];
        start = 1;
        used = nextWidth + carried.reduce((sum, token) => sum + token.width, 0);
      }
      current.push({ text: segment, width: w, code: false });
      used += w;
    }
  }
  flush(current);
  return rows;
}

// Made at first use (see text-width.ts).
let segmenter: Intl.Segmenter | undefined;
function graphemes(text: string): Iterable<{ segment: string }> {
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  return segmenter.segment(text);
}
