/**
 * A confirmation as the terminal shows it, laid out from the one rendering of
 * the call (`renderCall`) for a terminal of a given width, and the answer the
 * person must type.
 *
 * SECURITY: invariant 1 — what the person answers must be what runs, and the
 * answer must come from them (issue 10, items 1 and 3):
 * - Airlock wraps every line itself, never wider than the terminal, so the
 *   terminal never wraps a value into something that looks like Airlock's
 *   own lines; every line of a value carries the `┆` gutter, and long values
 *   are folded to a few lines with their length said (`more` shows them all);
 * - the tool and its real target are restated on the last lines, right above
 *   the question;
 * - to allow, the person types a code drawn at random for this prompt (and,
 *   for a destructive call, the tool's name too): keystrokes meant for another
 *   program on the same terminal ("y⏎") deny, and a forged prompt inside an
 *   argument cannot know the code.
 * Pure apart from `newAnswerCode` (which draws the code).
 */
import { randomInt } from 'node:crypto';
import { loadTextWidth, textWidth as stringWidth } from './text-width';
import type { ConfirmationView } from '../../shared/views';
import { oneLine, renderCall, targetPhrase, type CallToRender } from '../core/approvals';
import { inertText } from '../core/inert';

// A prompt is laid out for a terminal: with the exact measure of wide and zero-width characters, always.
await loadTextWidth();

/** Letters and digits that cannot be mistaken for one another (no 0/O, 1/I/L, 2/Z, 5/S, 8/B). */
const CODE_ALPHABET = 'ACDEFGHJKMNPQRTUVWXY34679';
/** Characters in an answer code: 25^4 ≈ 390,000 codes, and a wrong answer denies (no second try). */
export const CODE_LENGTH = 4;

/** The margin every line of a value starts with: what is inside it is the caller's or the server's text. */
export const GUTTER = '    ┆ ';
/** Lines of a value shown before it is folded (a target gets fewer: it is restated below anyway). */
const VALUE_LINES = 6;
const TARGET_LINES = 3;
/** Lines of one value shown when the person asks for everything (`more`). */
const FULL_VALUE_LINES = 400;
/** The word that shows every argument in full. */
export const MORE = 'more';

/** A fresh, unpredictable code for one prompt. */
export function newAnswerCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i += 1) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/**
 * What the terminal shows of a confirmation: the call (for `renderCall`) and
 * Airlock's own facts about it. A core `ConfirmationRequest` is one; a view
 * routed from another Airlock process becomes one with `terminalCallFromView`.
 */
export interface TerminalCall extends CallToRender {
  confirmationKind: 'normal' | 'destructive';
  reasons: readonly string[];
  /** Epoch ms: no answer by then means deny. */
  deadline: number;
  sandbox: { line: string; unsandboxed: boolean };
  /** The organisation's policy forbids "always allow" here: the sentence that says so (then only once and this session are offered). */
  alwaysForbidden?: string;
}

/** A confirmation as it reached this shell (over the contract) as a `TerminalCall`. */
export function terminalCallFromView(view: ConfirmationView): TerminalCall {
  return {
    server: view.server,
    tool: view.tool,
    ...(view.toolTitle !== undefined ? { title: view.toolTitle } : {}),
    ...(view.toolDescription !== undefined ? { description: view.toolDescription } : {}),
    arguments: view.arguments,
    inputSchema: view.inputSchema,
    caller: view.caller,
    reading: { toolClass: view.reading.class },
    serverTrusted: view.serverTrusted,
    confirmationKind: view.destructive ? 'destructive' : 'normal',
    reasons: view.reasons,
    deadline: view.deadline,
    sandbox: { line: view.sandboxSummary, unsandboxed: !view.serverSandboxed },
    ...(view.alwaysForbidden !== undefined ? { alwaysForbidden: view.alwaysForbidden } : {}),
  };
}

/** A confirmation laid out for the terminal. */
export interface TerminalPrompt {
  /** Everything before the question, one terminal row per line, none wider than the terminal. */
  lines: string[];
  /** The question itself (the last row; readline prints the answer after it). */
  question: string;
  /** What the person must type to allow once ("… session" and "… always" allow for longer, see `judgeTerminalChoice`). */
  expected: string;
  /** Whether "always" is offered (not when the organisation's policy forbids it). */
  always: boolean;
}

/** Options for `layoutTerminalPrompt`. */
export interface TerminalPromptOptions {
  /** The terminal's width in columns (clamped to 40–160). */
  columns: number;
  /** The code drawn for this prompt (`newAnswerCode`). */
  code: string;
  /** Show every argument in full (the person typed `more`). */
  full?: boolean;
  /** Said above the question when another screen can answer too (the Airlock app). */
  note?: string;
  /** Now (epoch ms), to say how long is left before no answer means deny. */
  now?: number;
}

/** Lays a confirmation out for a terminal `columns` wide. */
export function layoutTerminalPrompt(request: TerminalCall, options: TerminalPromptOptions): TerminalPrompt {
  const width = Math.max(40, Math.min(160, Math.floor(options.columns) || 80)) - 1;
  const r = renderCall(request);
  const destructive = request.confirmationKind === 'destructive';
  const lines: string[] = [];
  const say = (text: string, indent = '', first = '') => lines.push(...wrap(text, width, indent, first));
  const rule = (title: string) => lines.push(`── ${title} `.padEnd(width, '─'));

  lines.push('');
  rule('Airlock: a call needs your answer');
  say(`${r.personIsCaller ? 'You are about' : `${r.who} wants`} to run ${r.server} › ${r.tool} — ${r.consequence}.`, '  ');
  say(
    `Server: ${r.server} · ${request.serverTrusted ? 'trusted' : 'not trusted'} · ${request.sandbox.unsandboxed ? 'NOT SANDBOXED' : `sandboxed: ${oneLine(request.sandbox.line)}`}`,
    '  ',
  );
  if (request.reasons.length > 0) {
    say('Why Airlock asks:');
    for (const reason of request.reasons) say(`· ${oneLine(reason)}`, '    ', '  ');
  }
  if (r.serverTitle !== undefined) say(`The server calls this tool “${oneLine(r.serverTitle, 120)}” (its words, not Airlock's).`, '  ');

  if (r.arguments.length === 0) {
    say('No arguments.');
  } else {
    say(`Arguments, in the order the tool declares them (${GUTTER.trim()} marks the caller's text):`);
    for (const argument of r.arguments) {
      // Control and bidi characters made visible; its lines stay lines, each behind the gutter below.
      const text = inertText(argument.text);
      const valueLines = text.split('\n');
      const size = [...argument.text].length;
      const tags = [
        argument.target ? 'target' : '',
        argument.declared ? '' : '! the tool does not declare this',
        valueLines.length > 1 || size > width ? `${size.toLocaleString('en')} characters${valueLines.length > 1 ? ` in ${valueLines.length.toLocaleString('en')} lines` : ''}` : '',
      ].filter(Boolean);
      say(`${oneLine(argument.key, 60)}${tags.length ? ` — ${tags.join(' · ')}` : ''}`, '    ', '  ');
      lines.push(...valueRows(valueLines, width, options.full ? FULL_VALUE_LINES : argument.target ? TARGET_LINES : VALUE_LINES, size));
    }
  }

  lines.push('─'.repeat(width));
  if (options.note) say(options.note);
  const left = options.now === undefined ? undefined : Math.max(0, Math.round((request.deadline - options.now) / 1000));
  say(`Anything but the answer below denies${left === undefined ? '' : `, and so does no answer within ${left} s`}; “${MORE}” shows every argument in full.`);
  // The tool's name as shown (inert): what the person reads is what they type.
  const expected = destructive ? `${r.tool} ${options.code}` : options.code;
  // How long, as the window offers it: once (the default), this session, always — "always" for a
  // destructive tool asks a second time (see terminal-confirmations.ts), and never where forbidden.
  const always = request.alwaysForbidden === undefined;
  say(
    `For longer, type “${expected} ${SESSION}” (until Airlock stops)${always ? ` or “${expected} ${ALWAYS}” (from now on, for this tool as it is defined now${destructive ? '; Airlock asks you to confirm' : ''})` : ` — not “always”: ${oneLine(request.alwaysForbidden ?? '')}`}.`,
  );
  // SECURITY: the real tool and target, in Airlock's words, on the last lines before the question.
  const targetWidth = Math.max(24, Math.floor(width * 0.8));
  say(`${destructive ? 'DESTRUCTIVE: ' : ''}${r.server} › ${r.tool}${targetPhrase(r.targets, targetWidth)}`, '  ');
  const questionRows = wrap(`To allow this once, type ${destructive ? "the tool's name and the code" : 'the code'} “${expected}”:`, width);
  lines.push(...questionRows.slice(0, -1));
  return { lines, question: `${questionRows[questionRows.length - 1] ?? ''} `, expected, always };
}

/** The word after the code that allows for the rest of the session. */
export const SESSION = 'session';
/** The word after the code that allows from now on (a rule for this definition). */
export const ALWAYS = 'always';

/** What a typed answer to a confirmation chooses. */
export type TerminalChoice = 'allow-once' | 'allow-session' | 'allow-always' | 'deny' | 'more';

/**
 * What a typed answer means: the expected text alone allows once; followed by
 * “session” or “always”, for longer (“always” only where `always` is offered).
 * Anything else denies.
 */
export function judgeTerminalChoice(answer: string, expected: string, always = true): TerminalChoice {
  const once = judgeTerminalAnswer(answer, expected);
  if (once !== 'deny') return once === 'allow' ? 'allow-once' : 'more';
  if (judgeTerminalAnswer(answer, `${expected} ${SESSION}`) === 'allow') return 'allow-session';
  if (always && judgeTerminalAnswer(answer, `${expected} ${ALWAYS}`) === 'allow') return 'allow-always';
  return 'deny';
}

/** The second question "always" for a destructive tool asks, as the window's second confirmation. */
export function alwaysDestructiveQuestion(request: Pick<TerminalCall, 'server' | 'tool'>, columns: number): string {
  const width = Math.max(40, Math.min(160, Math.floor(columns) || 80)) - 1;
  const rows = wrap(
    `Always allow ${oneLine(request.server)} › ${oneLine(request.tool)} from now on, without asking, even when it deletes or overwrites things? Type “${ALWAYS}” to confirm; anything else allows this call once only:`,
    width,
  );
  return `${rows.join('\n')} `;
}

/**
 * The short form shown when the Airlock app can answer too: Airlock's one-line
 * headline, wrapped by Airlock at the terminal's width, and how to answer here.
 */
export function layoutTerminalNotice(request: TerminalCall, columns: number): string {
  const width = Math.max(40, Math.min(160, Math.floor(columns) || 80)) - 1;
  return ['', ...wrap(`── Airlock: ${renderCall(request).headline}`, width, '   '), ...wrap('The Airlock app can answer it. Press Enter to answer on this terminal instead.', width, '   ', '   ')].join('\n') + ' ';
}

/** The whole prompt as one string for readline's `question()`. */
export function promptText(prompt: TerminalPrompt): string {
  return `${prompt.lines.join('\n')}\n${prompt.question}`;
}

/** What a typed answer means: `allow` only for exactly the expected text (spaces and case aside). */
export function judgeTerminalAnswer(answer: string, expected: string): 'allow' | 'deny' | 'more' {
  // Spaces, case and the quotes around the answer in the question do not matter.
  const normal = (text: string) => text.trim().replace(/^["'“”]+|["'“”]+$/g, '').trim().replace(/\s+/g, ' ').toUpperCase();
  if (normal(answer) === MORE.toUpperCase()) return 'more';
  return normal(answer) === normal(expected) && expected.trim().length > 0 ? 'allow' : 'deny';
}

/** A value's rows: every row behind the gutter, at most `maxRows`, then a line that says what is left out. */
function valueRows(valueLines: string[], width: number, maxRows: number, size: number): string[] {
  const room = width - stringWidth(GUTTER);
  const rows: string[] = [];
  let shownChars = 0;
  let truncated = false;
  for (const line of valueLines) {
    const pieces = line.length === 0 ? [''] : hardWrap(line.replace(/\t/g, '\\t'), room);
    for (const piece of pieces) {
      if (rows.length >= maxRows) {
        truncated = true;
        break;
      }
      rows.push(piece.length > 0 ? `${GUTTER}${piece}` : GUTTER.trimEnd());
      shownChars += [...piece].length;
    }
    if (truncated) break;
    shownChars += 1; // the line break
  }
  if (truncated) {
    const left = Math.max(0, size - shownChars);
    rows.push(...wrap(`[… ${left.toLocaleString('en')} more characters not shown — type “${MORE}” to see them all]`, width, GUTTER, GUTTER));
  }
  return rows;
}

/** Splits text into pieces of at most `columns` display columns, by grapheme (never splits a character). */
function hardWrap(text: string, columns: number): string[] {
  const pieces: string[] = [];
  let current = '';
  let used = 0;
  for (const { segment } of graphemes(text)) {
    const w = stringWidth(segment);
    if (used + w > columns && current.length > 0) {
      pieces.push(current);
      current = '';
      used = 0;
    }
    current += segment;
    used += w;
  }
  if (current.length > 0 || pieces.length === 0) pieces.push(current);
  return pieces;
}

/** Word-wraps Airlock's own text to `columns`, continuation rows indented by `indent` (the first row by `first`). */
function wrap(text: string, columns: number, indent = '', first = ''): string[] {
  const rows: string[] = [];
  let row = first;
  let rowWidth = stringWidth(first);
  let hasWord = false;
  const newRow = () => {
    rows.push(row);
    row = indent;
    rowWidth = stringWidth(indent);
    hasWord = false;
  };
  for (const word of text.split(' ')) {
    const w = stringWidth(word);
    const gap = hasWord ? 1 : 0;
    if (rowWidth + gap + w > columns && hasWord) newRow();
    if (rowWidth + (hasWord ? 1 : 0) + w <= columns) {
      row += `${hasWord ? ' ' : ''}${word}`;
      rowWidth += (hasWord ? 1 : 0) + w;
      hasWord = true;
      continue;
    }
    // A word longer than a row (a long path) is cut by column.
    const pieces = hardWrap(word, Math.max(1, columns - rowWidth));
    row += pieces[0] ?? '';
    hasWord = true;
    for (const piece of hardWrap(pieces.slice(1).join(''), Math.max(1, columns - stringWidth(indent)))) {
      if (piece.length === 0) continue;
      newRow();
      row += piece;
      rowWidth += stringWidth(piece);
      hasWord = true;
    }
    rowWidth = stringWidth(row);
  }
  rows.push(row);
  return rows;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
function graphemes(text: string): Iterable<{ segment: string }> {
  return segmenter.segment(text);
}
