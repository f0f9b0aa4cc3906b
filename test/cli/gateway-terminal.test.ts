/**
 * Who asks, when several Airlock processes share a data folder (issue 10.8):
 * a gateway that is another process's client, started on a terminal, asks
 * there about its own calls and sends the answer back; and the Airlock app,
 * started while a gateway runs the servers, takes them over so that its
 * window answers every confirmation. Real processes: the built `airlock`
 * command, a real pseudo-terminal (script(1)), an SDK client over HTTP, a
 * fixture server that records every call that reaches it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AirlockHost } from '../../electron/core/host';
import { SharedHost } from '../../electron/core/ipc/shared-host';
import { PtySession } from '../support/pty';
import { airlockCli, BIN, REPO } from '../support/cli';

const LIAR = join(REPO, 'test/fixtures/policy/liar.mjs');

let records: string;
let owner: ChildProcess;
let ownerUrl: string;
const clients: Client[] = [];

const cli = airlockCli('airlock-gateway-terminal-', { timeout: 60_000 });
const { root, dataDir, home, run: airlock, env } = cli;
const tidyCalls = () => (existsSync(join(records, 'tidy')) ? readFileSync(join(records, 'tidy'), 'utf8').split('\n').filter(Boolean).length : 0);
const token = () => readFileSync(join(dataDir, 'gateway-token'), 'utf8').trim();

async function connect(url: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token()}` } } }));
  clients.push(client);
  return client;
}

/** The liar fixture's server processes running now (from /proc), to see which Airlock process runs them. */
function liarProcesses(): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[0]?.endsWith('node') && argv[1] === LIAR && argv[2] === records) pids.push(Number(pid));
    } catch {
      // gone
    }
  }
  return pids;
}

function startGateway(args: string[]): Promise<{ process: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'gateway', '--http', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: env() });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Airlock gateway on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ process: child, url: match[1]! });
    });
    child.once('exit', (code) => reject(new Error(`gateway exited ${code}`)));
  });
}

beforeAll(async () => {
  records = join(root, 'records');
  mkdirSync(records, { recursive: true });
  expect(airlock(['add', 'liar', '--write', records, '--yes', '--', process.execPath, LIAR, records]).code).toBe(0);
  // The owner: a gateway with no terminal (as an AI app starts it), running the servers.
  const started = await startGateway(['--no-terminal', '--client', 'Owner App']);
  owner = started.process;
  ownerUrl = started.url;
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  owner?.kill('SIGTERM');
  await new Promise((resolve) => (owner?.exitCode !== null ? resolve(undefined) : owner.once('exit', resolve)));
  cli.remove();
});

describe('a gateway that is another process’s client, on a terminal', () => {
  let pty: PtySession;
  let url: string;
  let client: Client;

  beforeAll(async () => {
    pty = PtySession.start([process.execPath, BIN, '--data-dir', dataDir, 'gateway', '--http', '0', '--client', 'Terminal App'], env());
    url = (await pty.waitFor(/Airlock gateway on (http:\/\/\S+)/))[1]!;
    expect(pty.output).toContain('another Airlock process (the app, or another gateway) runs the servers');
    expect(pty.output).toContain("this gateway's calls that need a confirmation are asked on this terminal");
    client = await connect(url, 'terminal-test');
  }, 120_000);
  afterAll(async () => {
    pty?.kill();
    await pty?.exited;
  });

  it('asks its own call’s confirmation on its terminal; the code shown there lets it through, once', async () => {
    writeFileSync(join(records, 'a.txt'), 'a');
    const before = tidyCalls();
    const mark = pty.output.length;
    const call = client.callTool({ name: 'liar__tidy_up', arguments: { path: join(records, 'a.txt') } });
    const code = (await pty.waitFor(/Terminal App wants to run liar › tidy_up[\s\S]*the code\s+“([^”]+)”/, 60_000, mark))[1]!;
    expect(tidyCalls()).toBe(before);
    pty.typeLine(code);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(tidyCalls()).toBe(before + 1);
    expect(existsSync(join(records, 'a.txt'))).toBe(false);
    const entries = JSON.parse(airlock(['audit', '--json', '--tool', 'tidy_up']).out) as Array<Record<string, string>>;
    expect(entries.find((entry) => entry.kind === 'decision')).toMatchObject({ caller: 'app “Terminal App”', verdict: 'allowed after you answered in the terminal', answeredBy: 'allow once (terminal)' });
  });

  it('anything but the code denies, and the server never sees the call', async () => {
    writeFileSync(join(records, 'b.txt'), 'b');
    const before = tidyCalls();
    const mark = pty.output.length;
    const call = client.callTool({ name: 'liar__tidy_up', arguments: { path: join(records, 'b.txt') } });
    await pty.waitFor(/the code\s+“([^”]+)”/, 60_000, mark);
    pty.typeLine('');
    const result = await call;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/denied/);
    expect(tidyCalls()).toBe(before);
    expect(readFileSync(join(records, 'b.txt'), 'utf8')).toBe('b');
  });

  it('another gateway’s call is not asked on this terminal: the owner, with none, refuses it', async () => {
    const other = await connect(ownerUrl, 'owner-test');
    const before = tidyCalls();
    const mark = pty.output.length;
    const result = await other.callTool({ name: 'liar__tidy_up', arguments: { path: join(records, 'c.txt') } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/nobody could be asked/);
    expect(pty.output.slice(mark)).not.toContain('Owner App');
    expect(tidyCalls()).toBe(before);
  });
});

describe('a --stdio gateway started by an app that draws on the person’s terminal', () => {
  it('never asks on that terminal: keys typed for the app cannot answer Airlock; the call is refused and never sent', async () => {
    // Its own data folder, so that this gateway runs the servers itself (the strongest case: no window anywhere).
    const own = join(root, 'tui-data');
    expect(spawnSync(process.execPath, [BIN, '--data-dir', own, 'add', 'liar', '--write', records, '--yes', '--', process.execPath, LIAR, records], { encoding: 'utf8', env: env() }).status).toBe(0);
    writeFileSync(join(records, 'tui.txt'), 'keep');
    const before = tidyCalls();
    const app = PtySession.start([process.execPath, join(REPO, 'test/fixtures/clients/tui-app.mjs'), BIN, own, 'liar__tidy_up', JSON.stringify({ path: join(records, 'tui.txt') })], env());
    await app.waitFor(/app> ready/);
    // The person answers the app's own questions, as they would; none of it may reach Airlock.
    for (let i = 0; i < 5 && !/RESULT/.test(app.output); i += 1) {
      app.typeLine('y');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const result = JSON.parse((await app.waitFor(/RESULT (.*)\r?\n/))[1]!) as { isError?: boolean; content: unknown };
    expect(await app.exited).toBe(0);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/nobody could be asked/);
    expect(app.output).not.toMatch(/the code\s+“/);
    expect(tidyCalls()).toBe(before);
    expect(readFileSync(join(records, 'tui.txt'), 'utf8')).toBe('keep');
  }, 120_000);
});

describe('the Airlock app started while a gateway runs the servers', () => {
  it('takes the servers over; the gateway becomes its client, and the window answers the gateway’s confirmation', async () => {
    const gatewayClient = await connect(ownerUrl, 'handover-test');
    expect((await gatewayClient.listTools()).tools.some((tool) => tool.name === 'liar__tidy_up')).toBe(true);
    const before = liarProcesses();
    expect(before.length).toBe(1);
    const app = await SharedHost.open({
      dataDir,
      role: 'app',
      takeOver: true,
      label: 'Airlock app (test)',
      canAsk: () => true,
      // On a folder of its own, as the app runs with AIRLOCK_DATA_DIR: self-contained, like the gateway started on it.
      createHost: (hooks) => new AirlockHost({ dataDir, selfContained: true, version: '0.0.0-test', homeDir: home, hooks }),
      onOwner: (host) => host.servers.startEnabled(),
    });
    try {
      expect(app.mode).toBe('owner');
      // The server now runs under this process; the gateway's copy stopped.
      await expect.poll(() => liarProcesses().filter((pid) => !before.includes(pid)).length, { timeout: 30_000 }).toBe(1);
      await expect.poll(() => liarProcesses().filter((pid) => before.includes(pid)).length, { timeout: 30_000 }).toBe(0);
      writeFileSync(join(records, 'd.txt'), 'd');
      const calls = tidyCalls();
      const host = app.localHost!;
      const call = gatewayClient.callTool({ name: 'liar__tidy_up', arguments: { path: join(records, 'd.txt') } });
      await expect.poll(() => host.approvals.pending().length, { timeout: 30_000 }).toBe(1);
      const view = host.approvals.pending()[0]!;
      expect(view.callerLabel).toBe('Owner App');
      expect(host.approvals.answer(view.id, { choice: 'allow-once' }, { shell: 'window' })).toEqual({ accepted: true });
      expect((await call).isError).toBeFalsy();
      expect(tidyCalls()).toBe(calls + 1);
      const entries = await host.activity.entries({ tool: 'tidy_up' });
      expect(entries.find((entry) => entry.kind === 'decision')).toMatchObject({ caller: 'app “Owner App”', verdict: 'allowed after you answered in the window' });
      // One chain across both owners (a CLI process would be this test process's client, so ask the host directly).
      expect((await host.audit.verify()).ok).toBe(true);

      // `airlock call` on a terminal, in strict mode: asked on its terminal and in the window. Answered in the
      // window, the terminal's question is withdrawn and the command ends — nothing waits for a key.
      host.policy.setMode('strict');
      writeFileSync(join(records, 'e.txt'), 'e');
      const cli = PtySession.start([process.execPath, BIN, '--data-dir', dataDir, 'call', 'liar', 'tidy_up', '--args', JSON.stringify({ path: join(records, 'e.txt') })], env());
      // The app can answer too: the terminal offers to leave the question to it.
      await cli.waitFor(/The Airlock app can answer it/);
      await expect.poll(() => host.approvals.pending().length, { timeout: 30_000 }).toBe(1);
      const asked = host.approvals.pending()[0]!;
      expect(asked.caller).toEqual({ kind: 'cli' });
      expect(host.approvals.answer(asked.id, { choice: 'allow-once' }, { shell: 'window' })).toEqual({ accepted: true });
      expect(await cli.exited).toBe(0);
      expect(cli.output).toContain('answered elsewhere');
      expect(tidyCalls()).toBe(calls + 2);
    } finally {
      await app.close();
    }
  }, 120_000);
});
