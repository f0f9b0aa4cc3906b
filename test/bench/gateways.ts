/**
 * The gateways as another app uses them, for `npm run bench` (issue 15):
 * the built `airlock gateway --stdio` and `airlock gateway --http` (the
 * whole core: policy, audit log, the sandboxed server), each in its own
 * process and data folder, calling a fixture server's `echo`, auto-allowed
 * by a rule — against, in the same run and call by call:
 * - a direct SDK client on the same server in the same sandbox (the same
 *   launch plan): what the app would get without Airlock;
 * - a bare SDK stdio proxy (one `Server` forwarding to one `Client`, nothing
 *   else) in front of it: what the extra process costs when done plainly;
 * - `mcp-proxy` and `supergateway` (the published packages, each in its
 *   fastest stateful mode) serving it over streamable HTTP.
 * Prints one JSON object per figure: medians of BENCH_ROUNDS rounds of
 * BENCH_CALLS calls.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { defaultSandboxProfile } from '../../shared/domain';
import { AirlockHost } from '../../electron/core/host';
import type { LaunchPlan } from '../../electron/core/sandbox/launcher';

const ROOT = resolve(import.meta.dirname, '../..');
const ECHO = join(ROOT, 'test/fixtures/servers/echo.mjs');
const BIN = join(ROOT, 'bin/airlock.js');
const MCP_PROXY = join(ROOT, 'node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs');
const SUPERGATEWAY = join(ROOT, 'node_modules/supergateway/dist/index.js');
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number) => Math.round(value * 1000) / 1000;
const figure = (name: string, value: number, baseline: number, extra: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ name, value: round(value), baseline: round(baseline), ratio: round(value / baseline), unit: 'ms', calls: CALLS, rounds: ROUNDS, ...extra }));

// The plain way to put a process between an app and a server: the SDK's Server forwarding to its Client.
const BARE_PROXY = `
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const plan = JSON.parse(process.env.BENCH_PLAN);
const upstream = new Client({ name: 'bare-proxy', version: '1' });
await upstream.connect(new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, cwd: plan.cwd, stderr: 'ignore' }));
const server = new Server({ name: 'bare-proxy', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => upstream.listTools());
server.setRequestHandler(CallToolRequestSchema, (r) => upstream.callTool({ name: r.params.name, arguments: r.params.arguments }));
await server.connect(new StdioServerTransport());
process.stdin.on('end', () => process.exit(0));
`;

/** A data folder with the echo fixture added (trusted, sandboxed) and its tool allowed by a rule. */
async function dataFolder(label: string): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), `airlock-bench-${label}-`));
  const host = new AirlockHost({ dataDir, version: 'bench', hooks: { emit: () => {} } });
  try {
    const disclosure = await host.install.prepare({ kind: 'local', argv: [process.execPath, ECHO] });
    const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
    await host.install.commit({ draftId: disclosure.draftId, name: 'echo', profile, trusted: true, secrets: {}, enable: true });
    const fingerprint = host.supervisor.tools.lookup('echo', 'echo')!.fingerprint;
    await host.policy.addRule({ server: 'echo', tool: 'echo', effect: 'allow', fingerprint, confirmDestructive: true });
  } finally {
    await host.dispose();
  }
  return dataDir;
}

/** Launch plans for the echo server in the sandbox Airlock gives it (one per process that runs it). */
async function plans(count: number): Promise<{ plans: LaunchPlan[]; dispose: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-plans-'));
  const host = new AirlockHost({ dataDir, version: 'bench', hooks: { emit: () => {} } });
  const disclosure = await host.install.prepare({ kind: 'local', argv: [process.execPath, ECHO] });
  const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
  await host.install.commit({ draftId: disclosure.draftId, name: 'echo', profile, trusted: true, secrets: {}, enable: false });
  const record = host.store.read().servers.echo!;
  const made: LaunchPlan[] = [];
  for (let i = 0; i < count; i += 1) {
    const plan = await host.launcher.plan(record.spec, record.profile, { serverName: `echo-${i}`, airlockDataDir: dataDir, serverDataDir: join(dataDir, `data-${i}`), secrets: {} });
    if (!plan.sandboxed) throw new Error('the bench needs the sandbox: the plan is not sandboxed');
    made.push(plan);
  }
  return {
    plans: made,
    dispose: async () => {
      for (const plan of made) await plan.dispose();
      await host.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
  return port;
}

const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/** Starts a process and resolves once `ready` matches what it printed (stdout or stderr). */
function start(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(command, args, { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((done, fail) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`${args.join(' ').slice(0, 200)} did not start: ${output.slice(-500)}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        done({ child, output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`${args.join(' ').slice(0, 200)} exited ${code}: ${output.slice(-500)}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await Promise.race([new Promise((done) => child.once('exit', done)), new Promise((done) => setTimeout(done, 5000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function httpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

interface Path {
  name: string;
  client: Client;
  tool: string;
}

/** Median ms per call of each path, interleaved call by call; the median of the rounds. */
async function measure(paths: Path[]): Promise<Record<string, number>> {
  const rounds: Array<Record<string, number>> = [];
  for (const path of paths) for (let i = 0; i < 30; i += 1) await path.client.callTool({ name: path.tool, arguments: { message: 'warm' } });
  for (let r = 0; r < ROUNDS; r += 1) {
    const times = paths.map(() => [] as number[]);
    for (let i = 0; i < CALLS; i += 1) {
      for (let p = 0; p < paths.length; p += 1) {
        const start = performance.now();
        const result = await paths[p]!.client.callTool({ name: paths[p]!.tool, arguments: { message: `m${i}` } });
        times[p]!.push(performance.now() - start);
        if (result.isError) throw new Error(`${paths[p]!.name}: the call failed: ${JSON.stringify(result.content).slice(0, 300)}`);
      }
    }
    rounds.push(Object.fromEntries(paths.map((path, p) => [path.name, median(times[p]!)])));
  }
  return Object.fromEntries(paths.map((path) => [path.name, median(rounds.map((r) => r[path.name]!))]));
}

const stdioDir = await dataFolder('stdio');
const httpDir = await dataFolder('http');
const made = await plans(4);
const [directPlan, barePlan, proxyPlan, superPlan] = made.plans as [LaunchPlan, LaunchPlan, LaunchPlan, LaunchPlan];
const children: ChildProcess[] = [];
const clients: Client[] = [];
try {
  const direct = new Client({ name: 'bench', version: '1' });
  await direct.connect(new StdioClientTransport({ command: directPlan.command, args: directPlan.args, env: directPlan.env, cwd: directPlan.cwd, stderr: 'ignore' }));
  clients.push(direct);

  const viaStdio = new Client({ name: 'bench', version: '1' });
  await viaStdio.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, '--data-dir', stdioDir, 'gateway', '--stdio', '--client', 'bench'], stderr: 'ignore' }));
  clients.push(viaStdio);

  const bare = new Client({ name: 'bench', version: '1' });
  await bare.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--input-type=module', '-e', BARE_PROXY],
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), BENCH_PLAN: JSON.stringify({ command: barePlan.command, args: barePlan.args, env: barePlan.env, cwd: barePlan.cwd }) },
      stderr: 'ignore',
    }),
  );
  clients.push(bare);

  const http = await start(process.execPath, [BIN, '--data-dir', httpDir, 'gateway', '--http', '0', '--no-terminal', '--client', 'bench'], process.env, /Airlock gateway on (\S+)/);
  children.push(http.child);
  const gatewayUrl = /Airlock gateway on (\S+)/.exec(http.output)![1]!;
  const token = readFileSync(join(httpDir, 'gateway-token'), 'utf8').trim();
  const viaHttp = await httpClient(gatewayUrl, { Authorization: `Bearer ${token}` });
  clients.push(viaHttp);

  // The peers, in their fastest stateful modes, wrapping the same sandboxed launch.
  const proxyPort = await freePort();
  const proxy = await start(
    process.execPath,
    [MCP_PROXY, '--port', String(proxyPort), '--host', '127.0.0.1', '--server', 'stream', '--no-eventStore', '--', proxyPlan.command, ...proxyPlan.args],
    { ...process.env, ...proxyPlan.env },
    /port/i,
  );
  children.push(proxy.child);
  const viaMcpProxy = await retry(() => httpClient(`http://127.0.0.1:${proxyPort}/mcp`));
  clients.push(viaMcpProxy);

  const superPort = await freePort();
  const sg = await start(
    process.execPath,
    [SUPERGATEWAY, '--stdio', [superPlan.command, ...superPlan.args].map(shellQuote).join(' '), '--outputTransport', 'streamableHttp', '--stateful', '--port', String(superPort), '--logLevel', 'info'],
    { ...process.env, ...superPlan.env },
    /listening|Listening|port/i,
  );
  children.push(sg.child);
  const viaSupergateway = await retry(() => httpClient(`http://127.0.0.1:${superPort}/mcp`));
  clients.push(viaSupergateway);

  const ms = await measure([
    { name: 'direct', client: direct, tool: 'echo' },
    { name: 'stdio', client: viaStdio, tool: 'echo__echo' },
    { name: 'bare', client: bare, tool: 'echo' },
    { name: 'http', client: viaHttp, tool: 'echo__echo' },
    { name: 'mcpProxy', client: viaMcpProxy, tool: 'echo' },
    { name: 'supergateway', client: viaSupergateway, tool: 'echo' },
  ]);
  const fastestPeer = Math.min(ms.mcpProxy!, ms.supergateway!);
  figure('gateway-stdio-call-ms', ms.stdio!, ms.direct!, {
    goal: '<= 1.5',
    bareSdkProxyMs: round(ms.bare!),
    ratioToBareSdkProxy: round(ms.stdio! / ms.bare!),
    note: '`airlock gateway --stdio` (the whole core: rule-allowed, audit written, sandboxed server) against a direct SDK client on the same server in the same sandbox',
  });
  figure('bare-sdk-proxy-stdio-call-ms', ms.bare!, ms.direct!, { goal: 'reported', note: 'an SDK Server forwarding to an SDK Client, nothing else, in front of the same sandboxed server' });
  figure('gateway-http-call-ms', ms.http!, fastestPeer, {
    goal: '<= 1.0 (the fastest of mcp-proxy and supergateway)',
    mcpProxyMs: round(ms.mcpProxy!),
    supergatewayMs: round(ms.supergateway!),
    directMs: round(ms.direct!),
    note: '`airlock gateway --http` (bearer token, the whole core) against mcp-proxy 6.7.19 and supergateway 4.0.0 (stateful streamable HTTP) serving the same sandboxed server',
  });
} finally {
  for (const client of clients) await client.close().catch(() => undefined);
  for (const child of children) await stop(child);
  await made.dispose();
  rmSync(stdioDir, { recursive: true, force: true });
  rmSync(httpDir, { recursive: true, force: true });
}

async function retry<T>(make: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i += 1) {
    try {
      return await make();
    } catch (error) {
      if (i >= 50) throw error;
      await new Promise((done) => setTimeout(done, 200));
    }
  }
}
