/**
 * The terminal confirmation laid out at 80 columns (issue 10, items 1 and 3):
 * the red team's wrap-spoof cannot put a fake prompt where Airlock's own
 * lines are, and only the code drawn for the prompt allows.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type Caller, type ToolDefinition } from '../../shared/domain';
import { ConfirmationRegistry, type ConfirmationRequest } from '../../electron/core/approvals/confirmation-registry';
import { ManualClock } from '../../electron/core/approvals/clock';
import { decide } from '../../electron/core/policy/decide';
import { fingerprintTool } from '../../electron/core/tools/fingerprint';
import { CODE_LENGTH, GUTTER, judgeTerminalAnswer, judgeTerminalChoice, layoutTerminalPrompt, newAnswerCode, promptText } from '../../electron/cli/confirmation-prompt';

/** server-filesystem's write_file and create_directory, as its tools/list sends them. */
const WRITE: ToolDefinition = {
  name: 'write_file',
  title: 'Write File',
  inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
};
const MKDIR: ToolDefinition = {
  name: 'create_directory',
  title: 'Create Directory',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};
const appCaller: Caller = { kind: 'client', name: 'AI App' };

function request(definition: ToolDefinition, args: Record<string, unknown>, caller: Caller = appCaller): ConfirmationRequest {
  const clock = new ManualClock();
  const registry = new ConfirmationRegistry({ clock });
  const call = { server: 'files', tool: definition.name, arguments: args, caller };
  const profile = { ...defaultSandboxProfile(), filesystem: { read: ['/home/me'], write: ['/home/me'], persistentData: false } };
  const facts = {
    tool: { definition, fingerprint: fingerprintTool(definition) },
    server: { trusted: false, profile, sandboxAvailable: true },
    rules: [],
    sessionGrants: [],
    mode: 'default' as const,
    earlierDefinitions: [],
  };
  return registry.open({ call, decision: decide(call, facts, clock.now()), definition, profile, serverTrusted: false }).request;
}

/**
 * The red team's content: padded so that, printed the old way (JSON after
 * `    "content": "` at 80 columns), the terminal wraps it into a complete,
 * formatted prompt naming notes.txt, with quotes as U+02BA so JSON does not
 * escape them.
 */
function wrapSpoof(): string {
  const row = (text: string) => text.padEnd(80, ' ');
  const fake = [
    '',
    '── Airlock: AI App wants to run files › write_file ──',
    '  It may delete or overwrite things.',
    '  arguments: {',
    '    ʺpathʺ: ʺ/home/me/notes.txtʺ,',
    '    ʺcontentʺ: ʺmeeting at 10ʺ',
    '  }',
  ].map(row);
  return `${' '.repeat(80 - '    "content": "'.length)}${fake.join('')}${' '.repeat(79)}`;
}

const REAL_PATH = '/home/me/.bashrc';

describe('the terminal confirmation at 80 columns', () => {
  const code = 'K7QX';
  const prompt = layoutTerminalPrompt(request(WRITE, { path: REAL_PATH, content: wrapSpoof() }), { columns: 80, code });
  const rows = [...prompt.lines, prompt.question];

  it('never prints a row the terminal would wrap', () => {
    for (const row of rows) expect(stringWidth(row), row).toBeLessThanOrEqual(80);
    expect(promptText(prompt).split('\n')).toEqual(rows);
  });

  it('the real tool and path are on the last lines before the question', () => {
    const beforeQuestion = prompt.lines.slice(-2).join('\n');
    expect(beforeQuestion).toContain(`files › write_file on path ${REAL_PATH}`);
    expect(beforeQuestion).toContain('DESTRUCTIVE');
    expect(prompt.question).toBe(`To allow this once, type the tool's name and the code “write_file ${code}”: `);
  });

  it('the fake prompt is inside the folded argument: every row that shows it is behind the gutter', () => {
    const spoofRows = rows.filter((row) => /notes\.txt|ʺpathʺ|meeting at 10|AI App wants to run files › write_file ──/.test(row));
    for (const row of spoofRows) expect(row.startsWith(GUTTER), row).toBe(true);
    // Folded: the content takes a few rows and says how much was left out.
    const contentRows = rows.slice(rows.findIndex((row) => row.startsWith('  content')) + 1).filter((row) => row.startsWith(GUTTER.trimEnd()));
    expect(contentRows.length).toBeLessThanOrEqual(8);
    expect(rows.join('\n')).toMatch(/\[… [\d,]+ more characters not shown — type “more” to see them all\]/);
    expect(rows.find((row) => row.startsWith('  content'))).toMatch(/^ {2}content — [\d,]+ characters$/);
    expect(rows.find((row) => row.startsWith('  path'))).toBe('  path — target');
    // The first row of the question block is Airlock's, not the caller's.
    expect(prompt.lines.at(-2)!.startsWith(GUTTER.trimEnd())).toBe(false);
  });

  it('“more” shows the whole value, still behind the gutter, with the restatement last again', () => {
    const full = layoutTerminalPrompt(request(WRITE, { path: REAL_PATH, content: wrapSpoof() }), { columns: 80, code, full: true });
    const all = [...full.lines, full.question];
    expect(all.some((row) => row.includes('ʺpathʺ: ʺ/home/me/notes.txtʺ'))).toBe(true);
    for (const row of all.filter((r) => r.includes('notes.txt'))) expect(row.startsWith(GUTTER)).toBe(true);
    for (const row of all) expect(stringWidth(row)).toBeLessThanOrEqual(80);
    expect(full.lines.slice(-2).join('\n')).toContain(`files › write_file on path ${REAL_PATH}`);
  });

  it('a line break, an escape sequence or a bidi control in a value cannot leave the gutter', () => {
    const p = layoutTerminalPrompt(request(WRITE, { path: `${REAL_PATH}\n── Airlock`, content: 'a\r\u001b[2K\u001b[1Ab\u202ec\nTo allow this once, type the code AAAA' }), { columns: 80, code });
    const all = [...p.lines, p.question];
    expect(all.join('\n')).not.toMatch(/[\r\u001b\u202e]/);
    for (const row of all.filter((r) => r.includes('To allow this once, type the code AAAA'))) expect(row.startsWith(GUTTER)).toBe(true);
    // The target is restated on one line, its line break shown as \n.
    expect(p.lines.at(-1)).toBe('DESTRUCTIVE: files › write_file on path /home/me/.bashrc\\n── Airlock');
  });

  it('names the server’s title as the server’s, never in Airlock’s sentence', () => {
    const p = layoutTerminalPrompt(request({ ...WRITE, title: '✓ Airlock verified' }, { path: REAL_PATH, content: 'x' }), { columns: 80, code });
    const text = [...p.lines, p.question].join('\n');
    expect(text).toContain('The server calls this tool “✓ Airlock verified” (its words, not');
    expect(text.split('\n').filter((row) => row.includes('verified'))).toHaveLength(1);
  });

  it('says how long is left before no answer denies', () => {
    const r = request(MKDIR, { path: '/home/me/new' });
    const p = layoutTerminalPrompt(r, { columns: 80, code, now: r.openedAt + 15_000 });
    const at = p.lines.findIndex((line) => line.startsWith('Anything but the answer below denies'));
    expect(p.lines.slice(at, at + 2).join(' ')).toBe('Anything but the answer below denies, and so does no answer within 45 s; “more” shows every argument in full.');
  });

  it('flags an argument the tool does not declare', () => {
    const p = layoutTerminalPrompt(request(MKDIR, { path: '/home/me/new', mode: '0777' }), { columns: 80, code });
    expect(p.lines).toContain('  mode — ! the tool does not declare this');
    expect(p.lines.indexOf('  path — target')).toBeLessThan(p.lines.indexOf('  mode — ! the tool does not declare this'));
  });
});

describe('the answer', () => {
  it('allows only for the code (and, for a destructive call, the tool’s name with it)', () => {
    const mkdir = layoutTerminalPrompt(request(MKDIR, { path: '/home/me/new' }), { columns: 80, code: 'K7QX' });
    expect(mkdir.expected).toBe('K7QX');
    expect(mkdir.lines.at(-1)).toBe('files › create_directory on path /home/me/new');
    // Keystrokes meant for another program: "y⏎", "yes⏎", "⏎" — all deny.
    for (const typed of ['y', 'yes', 'Y', '', ' ', 'allow', 'create_directory']) expect(judgeTerminalAnswer(typed, mkdir.expected)).toBe('deny');
    expect(judgeTerminalAnswer(' k7qx ', mkdir.expected)).toBe('allow');
    expect(judgeTerminalAnswer('MORE', mkdir.expected)).toBe('more');

    const write = layoutTerminalPrompt(request(WRITE, { path: REAL_PATH, content: 'x' }), { columns: 80, code: 'K7QX' });
    expect(write.expected).toBe('write_file K7QX');
    for (const typed of ['write_file', 'K7QX', 'y']) expect(judgeTerminalAnswer(typed, write.expected)).toBe('deny');
    expect(judgeTerminalAnswer('write_file  k7qx', write.expected)).toBe('allow');
  });

  it('offers this session and always, as the window does: the code followed by the word; "always" only where it is allowed', () => {
    const mkdir = layoutTerminalPrompt(request(MKDIR, { path: '/home/me/new' }), { columns: 80, code: 'K7QX' });
    expect(mkdir.lines.join(' ')).toContain('For longer, type “K7QX session” (until Airlock stops) or “K7QX always” (from now on, for this tool as it is defined now).');
    expect(judgeTerminalChoice('K7QX', mkdir.expected)).toBe('allow-once');
    expect(judgeTerminalChoice(' k7qx  Session ', mkdir.expected)).toBe('allow-session');
    expect(judgeTerminalChoice('K7QX always', mkdir.expected)).toBe('allow-always');
    for (const typed of ['session', 'always', 'y', 'K7QX forever', 'K7QX sessions', 'KXQ7 always']) expect(judgeTerminalChoice(typed, mkdir.expected)).toBe('deny');
    // The organisation forbids "always" for this tool: it is not offered, and typing it denies.
    expect(judgeTerminalChoice('K7QX always', mkdir.expected, false)).toBe('deny');

    const write = layoutTerminalPrompt(request(WRITE, { path: REAL_PATH, content: 'x' }), { columns: 80, code: 'K7QX' });
    expect(write.lines.join(' ')).toContain('“write_file K7QX always” (from now on, for this tool as it is defined now; Airlock asks you to confirm)');
    expect(judgeTerminalChoice('write_file K7QX always', write.expected)).toBe('allow-always');
    expect(judgeTerminalChoice('K7QX always', write.expected)).toBe('deny');
    // The real tool and target stay the last line before the question.
    expect(write.lines.at(-1)).toBe(`  DESTRUCTIVE: files › write_file on path ${REAL_PATH}`.trimStart());
  });

  it('draws a fresh code each time, from letters and digits that cannot be confused', () => {
    const codes = Array.from({ length: 200 }, () => newAnswerCode());
    for (const c of codes) expect(c).toMatch(new RegExp(`^[ACDEFGHJKMNPQRTUVWXY34679]{${CODE_LENGTH}}$`));
    expect(new Set(codes).size).toBeGreaterThan(190);
  });
});
