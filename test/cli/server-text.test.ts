// How a server's text is laid out for the terminal (electron/cli/server-text.ts), as tables: inside Airlock's
// lines it stays on one line; on lines of its own every row is behind the gutter; and every row Airlock prints
// is wrapped by Airlock, so the terminal never wraps a server's text onto a row of its own.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { fitToTerminal, inline, quoteBlock } from '../../electron/cli/server-text';
import { loadTextWidth, textWidth, textWidthIsExact } from '../../electron/cli/text-width';

// The command loads the exact measure whenever it has a terminal (cli/index.ts): these are a terminal's layouts.
await loadTextWidth();

const BREAKS: Array<[string, string]> = [
  ['LF', '\n'],
  ['CRLF', '\r\n'],
  ['CR', '\r'],
  ['VT', '\u000b'],
  ['FF', '\u000c'],
  ['NEL', '\u0085'],
  ['LS (U+2028)', '\u2028'],
  ['PS (U+2029)', '\u2029'],
];

describe('the measure of a terminal column', () => {
  it('is string-width’s once loaded (wide characters take two columns, zero-width ones none); printable ASCII is its length', () => {
    expect(textWidthIsExact()).toBe(true);
    for (const text of ['plain', '漢字', 'e\u0301', '👩‍👩‍👧', '\u200b']) expect(textWidth(text)).toBe(stringWidth(text));
  });
});

describe('inline: a server’s text inside one of Airlock’s lines stays on that line', () => {
  it.each([...BREAKS, ['TAB', '\t']])('%s never breaks the line', (_name, mark) => {
    const shown = inline(`Deletes files.${mark}Note: Airlock verified this tool.`);
    expect(shown).not.toMatch(/[\n\r\t\u000b\u000c\u0085\u2028\u2029]/);
    expect(shown).toMatch(/^Deletes files\.\\(?:n|t|u\{[0-9a-f]+\})(?:\\n)?Note: Airlock verified this tool\.$/);
  });

  it('escapes, bidi overrides and zero-width characters are made visible', () => {
    expect(inline('a\u001b[2Jb\u202ec\u200bd')).toBe('a\\u{1b}[2Jb\\u{202e}c\\u{200b}d');
  });

  it('folds the middle of a long value to `max` characters', () => {
    const shown = inline('x'.repeat(50) + 'TAIL', 20);
    expect([...shown]).toHaveLength(20);
    expect(shown).toContain('…');
    expect(shown.endsWith('TAIL')).toBe(true);
  });
});

describe('quoteBlock: a server’s text on lines of its own, every row behind the gutter', () => {
  it.each(BREAKS)('%s starts a new quoted row, never a row of its own', (_name, mark) => {
    expect(quoteBlock(`Deletes files.${mark}Note: Airlock verified this tool.`)).toEqual(['  ┆ Deletes files.', '  ┆ Note: Airlock verified this tool.']);
  });

  it('expands tabs to the next tab stop (8 columns), counted after the gutter', () => {
    expect(quoteBlock('a\tb\tc\n\tNote: x', { indent: '' })).toEqual(['┆ a       b       c', '┆         Note: x']);
    expect(quoteBlock('漢字\tx', { indent: '' })).toEqual(['┆ 漢字    x']);
  });

  it('control and bidi characters are made visible; an empty line keeps its gutter', () => {
    expect(quoteBlock('one\u001b[31m\n\nthree\u202e', { indent: '    ' })).toEqual(['    ┆ one\\u{1b}[31m', '    ┆', '    ┆ three\\u{202e}']);
  });

  it('folds to a few rows or characters, and says in Airlock’s words how much is left out', () => {
    const text = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n');
    expect(quoteBlock(text, { maxRows: 3 })).toEqual(['  ┆ line 0', '  ┆ line 1', '  ┆ line 2', '  [… 7 more lines, 48 more characters not shown]']);
    expect(quoteBlock('abcdefghij', { maxChars: 4 })).toEqual(['  ┆ abcd', '  [… 6 more characters not shown]']);
    expect(quoteBlock('a\r\nb', {})).toEqual(['  ┆ a', '  ┆ b']);
  });

  it('gives no rows for no text', () => {
    expect(quoteBlock('')).toEqual([]);
  });
});

describe('fitToTerminal: Airlock wraps every row itself', () => {
  it('leaves rows that fit, and everything when there is no terminal (a pipe)', () => {
    expect(fitToTerminal('short\n  also short', 80)).toBe('short\n  also short');
    const long = `x ${'y'.repeat(200)}`;
    expect(fitToTerminal(long, undefined)).toBe(long);
  });

  it('a quoted row continues behind its own gutter; nothing of it starts a row', () => {
    const row = `    ┆ ${' '.repeat(90)}Note: Publisher verified (MCP Registry, signed).`;
    const rows = fitToTerminal(row, 80).split('\n');
    expect(rows.length).toBeGreaterThan(1);
    for (const line of rows) {
      expect(line.startsWith('    ┆ ')).toBe(true);
      expect(stringWidth(line)).toBeLessThanOrEqual(79);
    }
    expect(rows.map((line) => line.slice('    ┆ '.length)).join('')).toBe(row.slice('    ┆ '.length));
  });

  it('any other row continues marked ↪, after its indent, broken at a space when it can be', () => {
    const row = `  publisher’s title: ${'word '.repeat(20)}Note: Airlock verified.`;
    const rows = fitToTerminal(row, 60).split('\n');
    expect(rows[0]).toMatch(/^ {2}publisher’s title: (?:word )+$/);
    for (const line of rows.slice(1)) expect(line).toMatch(/^ {2}↪ /);
    for (const line of rows) expect(stringWidth(line)).toBeLessThanOrEqual(59);
    expect(rows.some((line) => /^Note/.test(line))).toBe(false);
  });

  it('never splits a colour code, nor counts it as width', () => {
    const red = (text: string) => `\u001b[31m${text}\u001b[39m`;
    const row = `${red('!!')} ${'a'.repeat(100)}`;
    const rows = fitToTerminal(row, 40).split('\n');
    for (const line of rows) {
      expect(line.replace(/\u001b\[[0-9;]*m/g, '')).not.toContain('\u001b');
      expect(stringWidth(line)).toBeLessThanOrEqual(39);
    }
    expect(rows[0]!.startsWith('\u001b[31m!!\u001b[39m ')).toBe(true);
  });

  it('wide characters are counted by their columns', () => {
    const rows = fitToTerminal(`  ${'漢'.repeat(60)}`, 40).split('\n');
    for (const line of rows) expect(stringWidth(line)).toBeLessThanOrEqual(39);
  });
});
