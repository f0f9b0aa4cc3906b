/**
 * `airlock gateway` and several Airlock processes on one data folder: a
 * gateway process owns the folder; CLI processes become its clients; an SDK
 * client talks MCP to the gateway over HTTP with its token.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airlockCli, BIN, REPO } from '../support/cli';

const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const LIAR = join(REPO, 'test/fixtures/policy/liar.mjs');
const CLIENT = join(REPO, 'test/fixtures/clients/idle-http-client.mjs');

let work: string;
let records: string;
let gateway: ChildProcess;
let url: string;
let client: Client;

const cli = airlockCli('airlock-gateway-cli-', { timeout: 60_000 });
const { root, dataDir, run: airlock } = cli;

/** Processes running a given script with a given argument (this test's own folder), found from outside through /proc. */
function processesRunning(script: string, argument: string): number {
  let count = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[0]?.endsWith('node') && argv[1] === script && argv.includes(argument)) count += 1;
    } catch {
      // gone
    }
  }
  return count;
}

async function connect(token: string | undefined): Promise<Client> {
  const next = new Client({ name: 'gateway-test', version: '1.0.0' });
  await next.connect(new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {}));
  return next;
}

beforeAll(async () => {
  work = join(root, 'work');
  records = join(root, 'records');
  for (const dir of [work, records, join(root, 'home')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(work, 'notes.md'), 'gateway notes');
  expect(airlock(['add', 'files', '--read', work, '--yes', '--', process.execPath, FS_SERVER, work]).code).toBe(0);
  gateway = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'gateway', '--http', '0', '--no-terminal', '--client', 'Test App'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: join(root, 'home') } });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    gateway.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Airlock gateway on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    gateway.once('exit', (code) => reject(new Error(`gateway exited ${code}`)));
  });
  client = await connect(readFileSync(join(dataDir, 'gateway-token'), 'utf8').trim());
}, 120_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  gateway?.kill('SIGTERM');
  await new Promise((resolve) => gateway?.once('exit', resolve));
  cli.remove();
});

describe('airlock gateway --http', () => {
  it('lists the servers’ tools namespaced, with their annotations passed through as hints', async () => {
    const { tools } = await client.listTools();
    const read = tools.find((tool) => tool.name === 'files__read_text_file');
    expect(read?.annotations?.readOnlyHint).toBe(true);
    expect(tools.some((tool) => tool.name === 'files__write_file')).toBe(true);
  });

  it('runs a call the policy allows (a contained server’s read-only tool)', async () => {
    const result = await client.callTool({ name: 'files__read_text_file', arguments: { path: join(work, 'notes.md') } });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain('gateway notes');
  });

  it('refuses a client without the token', async () => {
    await expect(connect(undefined)).rejects.toThrow();
    await expect(connect('wrong-token-wrong-token-wrong-token-wrong')).rejects.toThrow();
  });

  it('a CLI process on the same folder is the gateway’s client: the server is not started twice', async () => {
    const { code, out } = airlock(['call', 'files', 'read_text_file', '--args', JSON.stringify({ path: join(work, 'notes.md') })]);
    expect(code).toBe(0);
    expect(out).toContain('gateway notes');
    expect(processesRunning(FS_SERVER, work)).toBe(1);
    expect(JSON.parse(airlock(['doctor', '--json']).out).owner).toBe('another Airlock process');
  });

  it('a rule saved by the CLI is in force in the gateway at once', async () => {
    expect(airlock(['rules', 'add', 'files', 'read_text_file', 'deny', '--yes']).code).toBe(0);
    const result = await client.callTool({ name: 'files__read_text_file', arguments: { path: join(work, 'notes.md') } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/denied|deny/i);
    expect(airlock(['rules', 'remove', 'files', 'read_text_file']).code).toBe(0);
  });

  it('a client whose process stalls past common idle timeouts reuses its connection safely (no "other side closed")', async () => {
    const read = () => client.callTool({ name: 'files__read_text_file', arguments: { path: join(work, 'notes.md') } });
    expect(JSON.stringify((await read()).content)).toContain('gateway notes');
    // A loaded machine: this process (the client) does not run at all for a while — longer than Node's
    // default keep-alive of 5 s, and than a CLI command takes under load. Its pooled connection is reused after.
    for (const stallMs of [5_500, 6_500]) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, stallMs);
      const result = await read();
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    }
  }, 60_000);

  it('several client processes at once, on a busy machine, each stalling across the idle boundary: every call gets through', async () => {
    const token = readFileSync(join(dataDir, 'gateway-token'), 'utf8').trim();
    const args = JSON.stringify({ path: join(work, 'notes.md') });
    // The machine is busy: processes that only burn CPU, for as long as the clients run.
    const burners = Array.from({ length: 3 }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    try {
      // Stalls on both sides of 4 s (a client's own keep-alive) and 5 s (a server's usual one), different for each client.
      const runs = ['4200,5600', '5200,4400', '5900,5100', '4700,6100'].map(
        (stalls) =>
          new Promise<{ outcomes: string[]; errors: string[] }>((resolve, reject) => {
            const child = spawn(process.execPath, [CLIENT, url, token, 'files__read_text_file', args, stalls], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: join(root, 'home') } });
            let out = '';
            let err = '';
            child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
            child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
            child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`client exited ${code}: ${err}`))));
          }),
      );
      const reports = await Promise.all(runs);
      for (const report of reports) {
        expect(report.errors, JSON.stringify(report)).toEqual([]);
        expect(report.outcomes, JSON.stringify(report)).toEqual(['ok', 'ok', 'ok']);
      }
    } finally {
      for (const burner of burners) burner.kill('SIGKILL');
    }
  }, 90_000);

  it('a CLI process cannot widen what a server may ask back while the gateway runs; it may narrow it', () => {
    const wider = airlock(['requests', 'files', '--sampling', 'always', '--yes']);
    expect(wider.code).not.toBe(0);
    expect(`${wider.out}${wider.err}`).toMatch(/only Airlock's window, or the terminal of the Airlock process that runs the servers/);
    expect(airlock(['requests', 'files']).out).toContain('Sampling: asks you each time');
    expect(airlock(['requests', 'files', '--sampling', 'never', '--yes']).code).toBe(0);
    const changes = (JSON.parse(airlock(['audit', '--json', '--server', 'files', '--limit', '20']).out) as Array<{ kind: string; changes?: string[] }>).filter((entry) => entry.kind === 'change');
    expect(changes.flatMap((entry) => entry.changes ?? [])).toEqual(expect.arrayContaining([expect.stringMatching(/^not changed .*sampling: always \(was ask\)$/), 'sampling: never (was ask)']));
  });

  it('adding a server during a session sends list_changed, and the client sees its tools', async () => {
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed += 1;
    });
    expect(airlock(['add', 'liar', '--write', records, '--yes', '--', process.execPath, LIAR, records]).code).toBe(0);
    await expect.poll(() => changed, { timeout: 15_000 }).toBeGreaterThan(0);
    const { tools } = await client.listTools();
    expect(tools.some((tool) => tool.name === 'liar__tidy_up')).toBe(true);
  });

  it('a call that needs a confirmation, with nobody to ask, is denied with how to get one — and never reaches the server', async () => {
    writeFileSync(join(records, 'victim.txt'), 'keep');
    const result = await client.callTool({ name: 'liar__tidy_up', arguments: { path: join(records, 'victim.txt') } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/nobody could be asked[\s\S]*open the Airlock app/);
    expect(existsSync(join(records, 'tidy'))).toBe(false);
    expect(readFileSync(join(records, 'victim.txt'), 'utf8')).toBe('keep');
  });

  it('keeps one audit chain across the processes, naming the gateway client', async () => {
    const verify = airlock(['audit', 'verify']);
    expect(verify.code, `${verify.out}\n${verify.err ?? ''}`).toBe(0);
    const entries = JSON.parse(airlock(['audit', '--json', '--limit', '100']).out) as Array<{ caller: string; kind: string }>;
    const callers = new Set(entries.filter((entry) => entry.kind === 'decision').map((entry) => entry.caller));
    expect(callers.has('app “Test App”')).toBe(true);
    expect(callers.has('You (command line)')).toBe(true);
  });
});
