/**
 * The terminal confirmation in a real terminal, 80 columns wide (tmux), with
 * the built `airlock gateway` asking on it and an MCP client calling through
 * it — the red team's cases from issue 10, checked on the screen and on disk:
 * - item 1: a `content` padded to wrap, at 80 columns, into a fake prompt
 *   naming notes.txt while the real path is .bashrc;
 * - item 3: "y⏎" typed for another program sharing the terminal.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/airlock.js');
const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const GUTTER = '    ┆';
const SCREENSHOT_DIR = join(REPO, 'test-results/screenshots');

let root: string;
let dataDir: string;
let work: string;
let socket: string;
let client: Client;

function tmux(...args: string[]): string {
  const result = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  if (result.error) throw new Error(`tmux is needed for this test (apt-get install tmux): ${result.error.message}`);
  if (result.status !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr}`);
  return result.stdout;
}

/** The terminal's rows as a person sees them (scrollback included), without tmux joining wrapped rows. */
function screen(): string[] {
  return tmux('capture-pane', '-p', '-t', 'airlock', '-S', '-').replace(/\n+$/, '').split('\n');
}

async function waitForScreen(test: (rows: string[]) => boolean, what: string): Promise<string[]> {
  let rows: string[] = [];
  for (let i = 0; i < 600; i += 1) {
    rows = screen();
    if (test(rows)) return rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The terminal never showed ${what}. It shows:\n${rows.slice(-40).join('\n')}`);
}

/** Rows since the last prompt began, up to its question (the last row). */
async function nextPrompt(after: number): Promise<{ rows: string[]; question: string; code: string; end: number }> {
  const rows = await waitForScreen((r) => r.length > after && /^To allow this once, type .*“.*”: ?$/.test(r.at(-1)!.trimEnd()) && r.slice(after).some((row) => row.startsWith('── Airlock: a call')), 'a confirmation');
  const start = rows.findLastIndex((row) => row.startsWith('── Airlock: a call'));
  const question = rows.at(-1)!;
  const code = /“(?:\S+ )?([A-Z0-9]{4})”/.exec(question)![1]!;
  return { rows: rows.slice(start, -1), question, code, end: rows.length };
}

function type(text: string): void {
  if (text.length) tmux('send-keys', '-t', 'airlock', '-l', text);
  tmux('send-keys', '-t', 'airlock', 'Enter');
}

/** The red team's content: at 80 columns, the old prompt wrapped it into a formatted prompt naming notes.txt (quotes as U+02BA). */
function wrapSpoof(): string {
  const row = (text: string) => text.padEnd(80, ' ');
  const fake = ['', '── Airlock: AI App wants to run files › write_file ──', '  It may delete or overwrite things.', '  arguments: {', '    ʺpathʺ: ʺ/home/me/notes.txtʺ,', '    ʺcontentʺ: ʺmeeting at 10ʺ', '  }'].map(row);
  return `${' '.repeat(80 - '    "content": "'.length)}${fake.join('')}${' '.repeat(79)}`;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'al-'));
  dataDir = join(root, 'd');
  work = join(root, 'w');
  const home = join(root, 'h');
  for (const dir of [work, home]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(work, '.bashrc'), 'original');
  const env = { ...process.env, HOME: home };
  const add = spawnSync(process.execPath, [BIN, '--data-dir', dataDir, 'add', 'files', '--read', work, '--write', work, '--yes', '--', process.execPath, FS_SERVER, work], { encoding: 'utf8', env, timeout: 120_000 });
  expect(add.status, add.stderr).toBe(0);

  socket = `airlock-test-${process.pid}`;
  const command = `env HOME=${home} ${process.execPath} ${BIN} --data-dir ${dataDir} gateway --http 0 --client 'AI App'`;
  tmux('new-session', '-d', '-s', 'airlock', '-x', '80', '-y', '50', command);
  tmux('set-option', '-t', 'airlock', 'remain-on-exit', 'on');
  const rows = await waitForScreen((r) => r.some((row) => /Airlock gateway on http/.test(row)), 'the gateway’s address');
  const url = /Airlock gateway on (http:\/\/\S+)/.exec(rows.join('\n'))![1]!;
  client = new Client({ name: 'AI App', version: '1.0.0' });
  const token = readFileSync(join(dataDir, 'gateway-token'), 'utf8').trim();
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
}, 180_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
  rmSync(root, { recursive: true, force: true });
});

describe('the terminal confirmation, on a real 80-column terminal', () => {
  let seen = 0;
  const bashrc = () => join(work, '.bashrc');

  it('the wrap-spoof stays inside the folded argument; the real tool and path are right above the question; "y⏎" denies', async () => {
    const call = client.callTool({ name: 'files__write_file', arguments: { path: bashrc(), content: wrapSpoof() } }, undefined, { timeout: 120_000 });
    const prompt = await nextPrompt(seen);
    seen = prompt.end;
    // What the person saw, kept beside the window's screenshots.
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    writeFileSync(join(SCREENSHOT_DIR, 'terminal-confirmation.txt'), `${[...prompt.rows, prompt.question].join('\n')}\n`);
    for (const row of prompt.rows) expect(row.length, row).toBeLessThanOrEqual(80);
    // The fake is visibly inside the argument: every row that shows any of it is behind the gutter.
    const spoofRows = prompt.rows.filter((row) => /notes\.txt|ʺpathʺ|meeting at 10|AI App wants to run files › write_file ──/.test(row));
    for (const row of spoofRows) expect(row.startsWith(GUTTER), row).toBe(true);
    expect(prompt.rows.join('\n')).toMatch(/more characters not shown — type “more” to see them all/);
    // The real tool and path on the last line before the question.
    expect(prompt.rows.at(-1)).toBe(`DESTRUCTIVE: files › write_file on path ${bashrc()}`);
    expect(prompt.question).toMatch(/^To allow this once, type the tool's name and the code “write_file [A-Z0-9]{4}”:/);

    type('y');
    const result = await call;
    expect(result.isError).toBe(true);
    // Refused by the person's answer, before the server (not by the sandbox, which keeps .bashrc read-only as well).
    expect(JSON.stringify(result.content)).toMatch(/denied/i);
    expect(JSON.stringify(result.content)).not.toMatch(/EBUSY|EROFS/);
    expect(readFileSync(bashrc(), 'utf8')).toBe('original');
    await waitForScreen((r) => r.slice(seen - 1).some((row) => row.includes('Denied (that was not the code).')), 'the denial');
  }, 120_000);

  it('"more" shows the whole value (still behind the gutter) and asks again; the tool’s name and the code allow', async () => {
    const content = wrapSpoof();
    // (Not .bashrc this time: the sandbox keeps shell start-up files read-only even inside a write grant.)
    const target = join(work, 'allowed.txt');
    const call = client.callTool({ name: 'files__write_file', arguments: { path: target, content } }, undefined, { timeout: 120_000 });
    const first = await nextPrompt(seen);
    seen = first.end;
    type('more');
    const full = await nextPrompt(seen);
    seen = full.end;
    expect(full.code).toBe(first.code);
    const notes = full.rows.filter((row) => row.includes('notes.txt'));
    expect(notes.length).toBeGreaterThan(0);
    for (const row of notes) expect(row.startsWith(GUTTER)).toBe(true);
    expect(full.rows.at(-1)).toBe(`DESTRUCTIVE: files › write_file on path ${target}`);

    type(`write_file ${full.code}`);
    const result = await call;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe(content);
  }, 120_000);

  it('keystrokes meant for another program never approve: "y⏎", "yes⏎" and "⏎" each deny a call that is not destructive', async () => {
    for (const [i, typed] of ['y', 'yes', ''].entries()) {
      const dir = join(work, `made-${i}`);
      const call = client.callTool({ name: 'files__create_directory', arguments: { path: dir } }, undefined, { timeout: 120_000 });
      const prompt = await nextPrompt(seen);
      seen = prompt.end;
      expect(prompt.rows.at(-1)).toBe(`files › create_directory on path ${dir}`);
      expect(prompt.question).toMatch(/^To allow this once, type the code “[A-Z0-9]{4}”:/);
      type(typed);
      const result = await call;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/denied/i);
      expect(existsSync(dir)).toBe(false);
    }
    const dir = join(work, 'made-by-code');
    const call = client.callTool({ name: 'files__create_directory', arguments: { path: dir } }, undefined, { timeout: 120_000 });
    const prompt = await nextPrompt(seen);
    seen = prompt.end;
    type(prompt.code.toLowerCase());
    expect((await call).isError).toBeFalsy();
    expect(existsSync(dir)).toBe(true);
  }, 180_000);

  it('with the Airlock app connected, the terminal leaves the question to it; Enter opens the prompt here', async () => {
    const app = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/app-window.ts'), dataDir], { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const mode = await new Promise<string>((resolve, reject) => {
        app.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
        app.once('exit', (code) => reject(new Error(`the app stand-in exited (${code})`)));
      });
      expect(mode).toBe('owner');
      const dir = join(work, 'made-with-app-open');
      const call = client.callTool({ name: 'files__create_directory', arguments: { path: dir } }, undefined, { timeout: 120_000 });
      const rows = await waitForScreen((r) => r.length > seen && /instead\.$/.test(r.at(-1)!.trimEnd()) && r.slice(seen).some((row) => row.startsWith('── Airlock: AI App wants')), 'the note that the app can answer');
      seen = rows.length;
      const notice = rows.slice(rows.findLastIndex((row) => row.startsWith('── Airlock: AI App wants')));
      for (const row of notice) expect(row.length).toBeLessThanOrEqual(80);
      expect(notice.map((row) => row.trim()).join(' ')).toBe(
        `── Airlock: AI App wants to run files › create_directory on path ${dir} — it may change things. The Airlock app can answer it. Press Enter to answer on this terminal instead.`,
      );
      expect(existsSync(dir)).toBe(false);
      type('');
      const prompt = await nextPrompt(seen);
      seen = prompt.end;
      expect(prompt.rows.at(-1)).toBe(`files › create_directory on path ${dir}`);
      type(prompt.code);
      expect((await call).isError).toBeFalsy();
      expect(existsSync(dir)).toBe(true);
    } finally {
      app.stdin!.end();
      await new Promise((resolve) => (app.exitCode === null ? app.once('exit', resolve) : resolve(undefined)));
    }
  }, 120_000);
});

describe('how long an answer on the terminal holds: once, this session, always — as the window offers', () => {
  let seen = 0;
  const rules = () => JSON.parse(spawnSync(process.execPath, [BIN, '--data-dir', dataDir, 'rules', 'list', '--json'], { encoding: 'utf8', env: { ...process.env, HOME: join(root, 'h') } }).stdout) as Array<{ tool: string; effect: string }>;

  /** Makes the call and waits for its prompt (the screen so far is `seen`). */
  async function ask(name: string, args: Record<string, unknown>) {
    const call = client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
    const prompt = await nextPrompt(seen);
    seen = prompt.end;
    return { call, prompt };
  }

  it('"CODE session" allows it and every later call of that tool until Airlock stops, without asking again', async () => {
    seen = screen().length;
    const first = join(work, 'session-1');
    const { call, prompt } = await ask('files__create_directory', { path: first });
    expect(prompt.rows.join(' ')).toContain(`For longer, type “${prompt.code} session” (until Airlock stops)`);
    type(`${prompt.code} session`);
    expect((await call).isError).toBeFalsy();
    expect(existsSync(first)).toBe(true);
    await waitForScreen((r) => r.some((row) => row.includes('Allowed until Airlock stops (for this session).')), 'the answer taken');
    // The next call of the same tool runs at once: no second prompt.
    const second = join(work, 'session-2');
    const again = await client.callTool({ name: 'files__create_directory', arguments: { path: second } }, undefined, { timeout: 120_000 });
    expect(again.isError).toBeFalsy();
    expect(existsSync(second)).toBe(true);
    expect(screen().filter((row) => row.startsWith('── Airlock: a call')).length).toBe(screen().slice(0, seen).filter((row) => row.startsWith('── Airlock: a call')).length);
    // A session is not a rule: nothing was saved.
    expect(rules()).toEqual([]);
  }, 180_000);

  it('"always" for a destructive tool asks a second time; without "always" there it allows that call once only', async () => {
    const target = join(work, 'always-declined.txt');
    const { call, prompt } = await ask('files__write_file', { path: target, content: 'once' });
    type(`write_file ${prompt.code} always`);
    await waitForScreen((r) => /Type “always” to confirm; anything else allows this call once only: ?$/.test(r.slice(-3).map((row) => row.trimEnd()).join(' ')), 'the second confirmation');
    type('y');
    expect((await call).isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('once');
    expect(rules()).toEqual([]);
    seen = screen().length;
  }, 180_000);

  it('"always" confirmed saves a rule for this definition: later calls of the tool run without a prompt', async () => {
    const target = join(work, 'always.txt');
    const { call, prompt } = await ask('files__write_file', { path: target, content: 'first' });
    expect(prompt.rows.join(' ')).toContain(`“write_file ${prompt.code} always” (from now on, for this tool as it is defined now; Airlock asks you to confirm)`);
    type(`write_file ${prompt.code} always`);
    const rows = await waitForScreen((r) => /Type “always” to confirm; anything else allows this call once only: ?$/.test(r.slice(-3).map((row) => row.trimEnd()).join(' ')), 'the second confirmation');
    expect(rows.slice(-3).join(' ')).toMatch(/Always allow files › write_file from now on, without asking, even when it deletes or overwrites things\?/);
    type('always');
    expect((await call).isError).toBeFalsy();
    expect(rules()).toMatchObject([{ tool: 'write_file', effect: 'allow' }]);
    const later = await client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'second' } }, undefined, { timeout: 120_000 });
    expect(later.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('second');
  }, 180_000);
});
