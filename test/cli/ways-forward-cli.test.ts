/**
 * What an app (Claude Desktop, Goose, an editor) is told when a call needs a
 * person and nobody can be asked — the Airlock app closed, the app's
 * connection with no terminal: the ways forward a person can really take,
 * with the real server and tool names, and each command working as shown.
 * Real processes: `airlock gateway --stdio` and `airlock run` started by an
 * SDK client as an app starts them, the published filesystem and memory
 * servers in the sandbox, the suggested commands typed on a real terminal.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PtySession } from '../support/pty';
import { airlockCli, BIN, REPO } from '../support/cli';

const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const MEMORY_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

let work: string;
const clients: Client[] = [];

const cli = airlockCli('airlock-ways-forward-', { timeout: 120_000 });
const { dataDir, home, run: airlock, env } = cli;

/** An app's connection, as Claude Desktop starts it from its config: a child process speaking MCP on stdio. */
async function appConnection(args: string[]): Promise<Client> {
  const client = new Client({ name: 'Claude Desktop', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, '--data-dir', dataDir, ...args], env: env(), stderr: 'ignore' }));
  clients.push(client);
  return client;
}

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text?: string }>).map((item) => item.text ?? '').join('\n');

/** Runs a suggested command exactly as the message shows it, on a terminal of its own, answering its questions. */
async function runAsShown(command: string, answers: Array<[RegExp, string]>): Promise<{ code: number | null; screen: string }> {
  const words = command.split(' ');
  expect(words[0]).toBe('airlock');
  const pty = PtySession.start([process.execPath, BIN, '--data-dir', dataDir, ...words.slice(1)], env());
  let from = 0;
  for (const [question, answer] of answers) {
    const match = await pty.waitFor(question, 60_000, from);
    from += match.index + match[0].length;
    pty.typeLine(answer);
  }
  const code = await pty.exited;
  return { code, screen: pty.output };
}

beforeAll(() => {
  work = join(home, 'notes');
  mkdirSync(work, { recursive: true });
  const files = airlock(['add', 'files', '--write', work, '--yes', '--', process.execPath, FS_SERVER, work]);
  expect(files.code, files.err).toBe(0);
  // The memory server with a data folder of its own: it keeps what it learns, so its reads are not contained.
  const memory = airlock(['add', 'memory', '--persistent-data', '--yes', '--', process.execPath, MEMORY_SERVER]);
  expect(memory.code, memory.err).toBe(0);
}, 240_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  cli.remove();
});

describe('a write through the stdio gateway, with the Airlock app closed', () => {
  it('is refused with the ways forward a person can take, in their words and with the real names — not "run the command in a terminal"', async () => {
    const app = await appConnection(['gateway', '--stdio', '--client', 'Claude Desktop']);
    const target = join(work, 'todo.md');
    const result = await app.callTool({ name: 'files__write_file', arguments: { path: target, content: 'buy milk' } });
    expect(result.isError).toBe(true);
    const said = text(result);
    expect(said).toContain('Airlock did not run files › write_file: it needs a person\'s confirmation (it may delete or overwrite things), and nobody could be asked');
    expect(said).toContain('- open the Airlock app and try again: it asks you there');
    expect(said).toContain('- always allow files › write_file, as it is defined now (it may delete or overwrite things: Airlock asks you twice): airlock rules add files write_file allow');
    // Trust would not let a write through: it is not offered.
    expect(said).not.toContain('airlock trust');
    expect(said).not.toContain('run the command in a terminal');
    expect(existsSync(target)).toBe(false);

    // The person runs the suggested command as shown, in a terminal: it asks, twice for a destructive tool.
    const command = /airlock rules add \S+ \S+ allow/.exec(said)![0];
    const run = await runAsShown(command, [
      [/Always allow files › write_file \(it may delete or overwrite things\)\? \[y\/N\]/, 'y'],
      [/Are you sure\?.*\[y\/N\]/, 'y'],
    ]);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toContain('Saved: always allow files › write_file');

    // The app's next try goes through, on the same connection.
    const again = await app.callTool({ name: 'files__write_file', arguments: { path: target, content: 'buy milk' } });
    expect(again.isError, text(again)).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('buy milk');
  }, 240_000);
});

describe('a read through `airlock run`, with the Airlock app closed', () => {
  it('names trust as a way forward for a read-only tool; `airlock trust NAME on` as shown lets it through', async () => {
    const app = await appConnection(['run', 'memory', '--client', 'Goose']);
    const refused = await app.callTool({ name: 'read_graph', arguments: {} });
    expect(refused.isError).toBe(true);
    const said = text(refused);
    expect(said).toContain('Airlock did not run memory › read_graph: it needs a person\'s confirmation (the server is not trusted)');
    expect(said).toContain("- trust memory's own labels, so its read-only tools run without asking: airlock trust memory on");
    expect(said).toContain('- always allow memory › read_graph, as it is defined now: airlock rules add memory read_graph allow');

    const command = /airlock trust \S+ on/.exec(said)![0];
    const run = await runAsShown(command, []);
    expect(run.code, run.screen).toBe(0);
    const allowed = await app.callTool({ name: 'read_graph', arguments: {} });
    expect(allowed.isError, text(allowed)).toBeFalsy();
    // A tool that changes things still needs a person: trust only spares the reads.
    const write = await app.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'milk', entityType: 'item', observations: [] }] } });
    expect(write.isError).toBe(true);
    expect(text(write)).not.toContain('airlock trust');
    expect(text(write)).toContain('airlock rules add memory create_entities allow');
  }, 240_000);
});

describe('a script’s own call with no terminal', () => {
  it('`airlock call` says how to get the confirmation, and the rule that spares it', () => {
    const result = airlock(['call', 'files', 'move_file', '--args', JSON.stringify({ source: join(work, 'todo.md'), destination: join(work, 'done.md') })]);
    expect(result.code).toBe(4);
    expect(result.out).toContain('This call needs your confirmation (the tool may delete or overwrite things), and there is no terminal to ask on.');
    expect(result.out).toContain('Or always allow files › move_file, as it is defined now (it may delete or overwrite things: Airlock asks you twice): airlock rules add files move_file allow');
  }, 120_000);
});
