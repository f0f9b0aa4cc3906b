/**
 * `airlock chat` and `airlock models`, the built command against the
 * scripted model server (real HTTP on loopback) and a real server in the
 * real sandbox: one message with `-m`, a confirmation answered on a
 * pseudo-terminal (util-linux `script`), and `--json` for scripts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../electron/core/audit';
import { ModelServer } from '../fixtures/model-server/model-server';

const REPO = join(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/airlock.js');
const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const KEY = 'sk-ant-cli-scripted';

let root: string;
let dataDir: string;
let work: string;
let model: ModelServer;

const env = () => ({ ...process.env, HOME: join(root, 'home'), AIRLOCK_DATA_DIR: dataDir, SCRIPTED_KEY: KEY });

/** Runs the CLI without blocking this process (the model server lives here). */
function airlock(args: string[], options: { pty?: boolean; onOutput?: (all: string, write: (text: string) => void) => void } = {}): Promise<{ code: number | null; out: string; err: string }> {
  const argv = [process.execPath, BIN, ...args];
  const child = options.pty
    ? // A pseudo-terminal: script(1) gives the command a real tty, as a person's terminal would.
      spawn('script', ['-qec', argv.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' '), '/dev/null'], { env: env(), stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(argv[0]!, argv.slice(1), { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const write = (text: string) => child.stdin?.write(text);
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    options.onOutput?.(out, write);
  });
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    }),
  );
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'airlock-chat-cli-'));
  dataDir = join(root, 'data');
  work = join(root, 'work');
  for (const dir of [work, join(root, 'home')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(work, 'notes.md'), 'cli notes');
  model = await ModelServer.start({ apiKey: KEY, models: ['claude-sonnet-4-5', 'claude-haiku-4-5'] });
  const added = spawnSync(process.execPath, [BIN, 'add', 'files', '--read', work, '--write', work, '--trust', '--yes', '--', process.execPath, FS_SERVER, work], { env: env(), encoding: 'utf8', timeout: 60_000 });
  expect(added.status, added.stderr).toBe(0);
});
afterAll(async () => {
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => model.reset());

describe('airlock models', () => {
  it('adds a provider with its key from an environment variable, tests it and sets the default; the key is not in models.json', async () => {
    const result = await airlock(['models', 'add', 'anthropic', '--name', 'Scripted', '--base-url', model.baseUrl, '--key-env', 'SCRIPTED_KEY', '--default', 'claude-sonnet-4-5']);
    expect(result.err).toBe('');
    expect(result.out).toContain('Added scripted. Connected: Scripted lists 2 models.');
    expect(result.code).toBe(0);
    expect(readFileSync(join(dataDir, 'models.json'), 'utf8')).not.toContain(KEY);
    const list = await airlock(['models']);
    expect(list.out).toContain('scripted         Scripted (anthropic) at');
    expect(list.out).toContain('Default model: scripted/claude-sonnet-4-5');
    const missing = await airlock(['models', 'add', 'openai', '--key-env', 'NOT_SET_ANYWHERE']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--key-env NOT_SET_ANYWHERE: that environment variable is not set.');
  });
});

describe('airlock chat', () => {
  it('-m on a terminal: the model lists a folder unasked, then its write is confirmed on the terminal and lands on disk', async () => {
    const target = join(work, 'from-cli.md');
    model.push(
      { text: 'Looking first.', toolCalls: [{ name: 'files__list_directory', input: { path: work } }] },
      { toolCalls: [{ name: 'files__write_file', input: { path: target, content: 'written via the CLI' } }] },
      (request) => ({ text: `All done: ${request.toolResults[0]!.text}` }),
    );
    let answered = false;
    const result = await airlock(['chat', '-m', 'Write from-cli.md'], {
      pty: true,
      onOutput: (all, write) => {
        // The prompt shows the code to type, after the tool's name (a destructive call).
        const expected = /type the tool's name and the code\s+“(write_file \w+)”/.exec(all)?.[1];
        if (!answered && expected) {
          answered = true;
          write(`${expected}\r`);
        }
      },
    });
    expect(result.out).toContain("Airlock's agent (claude-sonnet-4-5) wants to run files › write_file");
    expect(result.out).toContain('⚙ files › list_directory — Ran without asking');
    expect(result.out).toContain('⚙ files › write_file — You allowed it');
    expect(result.out).toContain('All done: Successfully wrote to');
    expect(result.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('written via the CLI');
    // The audit log names the agent, as the app's chat would.
    const [write] = await new AuditLog({ dir: join(dataDir, 'audit') }).read({ tool: 'write_file', limit: 1 });
    expect(write!.decision.caller).toEqual({ kind: 'agent', provider: 'Scripted', model: 'claude-sonnet-4-5' });
    expect(write!.decision.answer).toMatchObject({ how: 'allow-once', by: 'terminal' });
  });

  it('-m on a terminal: anything but the tool’s name and the code denies ("y" too), and nothing reaches the server', async () => {
    const target = join(work, 'never.md');
    model.push(
      { toolCalls: [{ name: 'files__write_file', input: { path: target, content: 'x' } }] },
      (request) => ({ text: request.toolResults[0]!.text.includes('The person denied this call') ? 'OK, I did not write it.' : 'Hmm.' }),
    );
    let answered = false;
    const result = await airlock(['chat', '-m', 'Write never.md'], {
      pty: true,
      onOutput: (all, write) => {
        if (!answered && /type the tool's name and the code\s+“/.test(all)) {
          answered = true;
          write('y\r');
        }
      },
    });
    expect(result.out).toContain('⚙ files › write_file — You denied it');
    expect(result.out).toContain('OK, I did not write it.');
    expect(existsSync(target)).toBe(false);
  });

  it('--json without a terminal: one event per line; a call that needs a person is denied, since nobody can be asked', async () => {
    const target = join(work, 'json.md');
    model.push(
      { text: 'Checking.', toolCalls: [{ name: 'files__list_directory', input: { path: work } }] },
      { toolCalls: [{ name: 'files__write_file', input: { path: target, content: 'x' } }] },
      { text: 'It was denied.' },
    );
    const result = await airlock(['chat', '-m', 'go', '--json', '--servers', 'files']);
    expect(result.code).toBe(0);
    const events = result.out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.filter((event) => event.type === 'text').map((event) => event.text).join('')).toBe('Checking.It was denied.');
    const tools = events.filter((event) => event.type === 'tool').map((event) => event.card as Record<string, unknown>);
    expect(tools.map((card) => [card.tool, card.outcome, (card.decision as { label: string }).label])).toEqual([
      ['list_directory', 'ok', 'Ran without asking'],
      ['write_file', 'denied', 'Denied: nobody could be asked'],
    ]);
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: 'end', outcome: 'done', usage: { inputTokens: 30, outputTokens: 15 } });
    expect(existsSync(target)).toBe(false);
    expect(model.requests[0]!.toolNames.every((name) => name.startsWith('files__'))).toBe(true);
  });

  it('a provider failure ends with its message and a failure exit code; a bad --model is a usage error', async () => {
    model.push({ status: 401, errorMessage: 'invalid x-api-key' });
    const failed = await airlock(['chat', '-m', 'hi']);
    expect(failed.code).toBe(1);
    expect(failed.err).toContain('error: Scripted refused the key (401: invalid x-api-key)');
    const usage = await airlock(['chat', '-m', 'hi', '--model', 'nobody/some-model']);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('there is no provider named nobody');
  });
});

describe('airlock chat: / prompts and @ resources from servers', () => {
  const CATALOG = join(REPO, 'test/fixtures/servers/catalog-abuse.mjs');
  beforeAll(() => {
    const records = join(root, 'records');
    mkdirSync(records, { recursive: true });
    const added = spawnSync(process.execPath, [BIN, 'add', 'abuse', '--write', records, '--yes', '--', process.execPath, CATALOG, records], { env: env(), encoding: 'utf8', timeout: 60_000 });
    expect(added.status, added.stderr).toBe(0);
  });
  const sent = () => JSON.stringify(model.requests[0]!.body);

  it('/ lists the prompts, @ the resources, without a turn', async () => {
    const prompts = await airlock(['chat', '-m', '/', '--servers', 'abuse']);
    expect(prompts.code, prompts.err).toBe(0);
    expect(prompts.out).toContain('/summarise topic=… — abuse’s prompt: Summarises a topic.');
    const resources = await airlock(['chat', '-m', '@', '--servers', 'abuse']);
    expect(resources.out).toContain('@abuse:note://one — one');
    expect(model.requests).toEqual([]);
  });

  it('-m "/summarise topic=… -- more": the prompt’s text, then the message, reach the model', async () => {
    model.push({ text: 'Zebras are striped.' });
    const result = await airlock(['chat', '-m', '/summarise topic="zebras-42" -- in one line', '--servers', 'abuse']);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('Zebras are striped.');
    expect(sent()).toContain('Summarise zebras-42 briefly.\\n\\nin one line');
  });

  it('@abuse:note://one attaches the resource’s text; an unknown one of the server is a usage error, and nothing is sent', async () => {
    model.push({ text: 'Read it.' });
    const result = await airlock(['chat', '-m', 'what does @abuse:note://one say?', '--servers', 'abuse']);
    expect(result.code, result.err).toBe(0);
    expect(sent()).toContain('what does say?\\n\\n[Attached from abuse: note://one]');
    model.reset();
    const typo = await airlock(['chat', '-m', 'read @abuse:note://nine', '--servers', 'abuse']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('abuse offers no resource note://nine. Type @ alone to list what can be attached.');
    expect(model.requests).toEqual([]);
  });

  it('a required argument left out is asked on the terminal; without one it is a usage error naming it', async () => {
    model.push({ text: 'Done.' });
    let answered = false;
    const asked = await airlock(['chat', '-m', '/summarise', '--servers', 'abuse'], {
      pty: true,
      onOutput: (all, write) => {
        if (!answered && /topic \(What to summarise\): /.test(all)) {
          answered = true;
          write('okapis\r');
        }
      },
    });
    expect(asked.code, asked.out + asked.err).toBe(0);
    expect(sent()).toContain('Summarise okapis briefly.');
    model.reset();
    const piped = await airlock(['chat', '-m', '/summarise', '--servers', 'abuse']);
    expect(piped.code).toBe(2);
    expect(piped.err).toContain('/summarise needs topic=….');
    expect(model.requests).toEqual([]);
  });
});
