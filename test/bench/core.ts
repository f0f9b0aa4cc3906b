/**
 * Whole-program figures for the core, as ratios against a baseline measured
 * in the same run (TESTING.md, "Benchmarks"):
 * - a call through the choke point, auto-allowed by a rule (store and code
 *   checks, policy, the decision written before the call and flushed within
 *   the window, the sandboxed server, the outcome written) against a direct
 *   SDK client talking to the same server in the same sandbox (the same
 *   launch plan); the same against the server run without a sandbox; the same
 *   with calls one right after another (blocks, not interleaved); the same
 *   with strict durability;
 * - the core's own memory with 20 sandboxed servers running, against the core alone.
 * Prints one JSON object per figure. BENCH_CALLS (per round) and BENCH_ROUNDS
 * change the sample; each figure is the median of the rounds' medians.
 * BENCH_SKIP_MEMORY=1 / BENCH_ONLY_MEMORY=1 run one part. Each call figure also
 * gives this process's CPU time per call (µs), through the core and for the
 * direct client: what Airlock adds, less moved by other load than the clock.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defaultSandboxProfile } from '../../shared/domain';
import { CodeHasher, CodePins, sha256OfFile } from '../../electron/core/code-pins';
import { AirlockHost } from '../../electron/core/host';

const ROOT = resolve(import.meta.dirname, '../..');
const ECHO = join(ROOT, 'test/fixtures/servers/echo.mjs');
const BIN = join(ROOT, 'bin/airlock.js');
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SERVERS = Number(process.env.BENCH_SERVERS ?? 20);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const figure = (name: string, value: number, baseline: number, extra: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ name, value: round(value), baseline: round(baseline), ratio: round(value / baseline), ...extra }));
const round = (value: number) => Math.round(value * 1000) / 1000;

function newHost(dataDir: string): AirlockHost {
  return new AirlockHost({ dataDir, version: 'bench', hooks: { emit: () => {} } });
}

async function addEcho(host: AirlockHost, name: string): Promise<void> {
  const disclosure = await host.install.prepare({ kind: 'local', argv: [process.execPath, ECHO] });
  const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
  await host.install.commit({ draftId: disclosure.draftId, name, profile, trusted: true, secrets: {}, enable: true });
}

/** An SDK client on the server `name` runs, launched from the same plan the supervisor uses (same sandbox, same argv). */
async function sandboxedDirectClient(host: AirlockHost, dataDir: string, name: string): Promise<{ client: Client; dispose: () => Promise<void> }> {
  const record = host.store.read().servers[name]!;
  const plan = await host.launcher.plan(record.spec, record.profile, { serverName: `${name}-direct`, airlockDataDir: dataDir, serverDataDir: join(dataDir, 'bench-direct'), secrets: {} });
  if (!plan.sandboxed) throw new Error('the bench needs the sandbox: the plan is not sandboxed');
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, cwd: plan.cwd, stderr: 'pipe' }));
  return { client, dispose: async () => (await client.close(), await plan.dispose()) };
}

interface CallTimes {
  through: number;
  sandboxedDirect: number;
  direct: number;
  /** CPU time of this process per call (µs, mean): less moved by other load than the wall clock. */
  throughCpuUs: number;
  sandboxedDirectCpuUs: number;
}

const cpuUs = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/**
 * Median ms per call: through the choke point, a direct SDK client on the same
 * sandboxed server, and one on the server without a sandbox, interleaved call
 * by call so all see the same load; the median of `ROUNDS` rounds.
 */
async function measureCalls(host: AirlockHost, sandboxed: Client, unsandboxed: Client): Promise<CallTimes> {
  const rounds: CallTimes[] = [];
  const args = { message: 'hi' };
  for (let r = 0; r < ROUNDS; r += 1) {
    const times = { through: [] as number[], sandboxedDirect: [] as number[], direct: [] as number[] };
    const cpu = { through: 0, sandboxedDirect: 0 };
    for (let i = 0; i < CALLS + 20; i += 1) {
      let cpuStart = cpuUs();
      let start = performance.now();
      await sandboxed.callTool({ name: 'echo', arguments: args });
      const s = performance.now() - start;
      if (i >= 20) cpu.sandboxedDirect += cpuUs() - cpuStart;
      cpuStart = cpuUs();
      start = performance.now();
      const result = await host.calls.call({ server: 'echo', tool: 'echo', arguments: args, caller: { kind: 'client', name: 'bench' } });
      const t = performance.now() - start;
      if (i >= 20) cpu.through += cpuUs() - cpuStart;
      if (result.outcome !== 'ok' || result.decision.decidedBy.kind !== 'rule') throw new Error(`bench call not auto-allowed: ${result.outcome} ${result.decision.decidedBy.kind} ${result.message ?? ''}`);
      // The outcome is written once the call's turn is over: let that happen here, untimed, so it
      // does not land inside the next direct call's time (which would flatter the ratio).
      await new Promise((done) => setImmediate(done));
      start = performance.now();
      await unsandboxed.callTool({ name: 'echo', arguments: args });
      const d = performance.now() - start;
      if (i >= 20) {
        times.through.push(t);
        times.sandboxedDirect.push(s);
        times.direct.push(d);
      }
    }
    rounds.push({
      through: median(times.through),
      sandboxedDirect: median(times.sandboxedDirect),
      direct: median(times.direct),
      throughCpuUs: cpu.through / CALLS,
      sandboxedDirectCpuUs: cpu.sandboxedDirect / CALLS,
    });
  }
  const of = (key: keyof CallTimes) => median(rounds.map((x) => x[key]));
  return { through: of('through'), sandboxedDirect: of('sandboxedDirect'), direct: of('direct'), throughCpuUs: of('throughCpuUs'), sandboxedDirectCpuUs: of('sandboxedDirectCpuUs') };
}

/**
 * Median ms per call when calls follow one another without a pause: a block
 * of `CALLS` through the choke point, then a block of direct calls to the
 * same sandboxed server, `ROUNDS` times.
 */
async function measureInRow(host: AirlockHost, sandboxed: Client): Promise<{ through: number; direct: number }> {
  const args = { message: 'hi' };
  const through: number[] = [];
  const direct: number[] = [];
  const block = async (call: () => Promise<unknown>): Promise<number> => {
    for (let i = 0; i < 20; i += 1) await call();
    const start = performance.now();
    for (let i = 0; i < CALLS; i += 1) await call();
    return (performance.now() - start) / CALLS;
  };
  for (let r = 0; r < ROUNDS; r += 1) {
    through.push(await block(() => host.calls.call({ server: 'echo', tool: 'echo', arguments: args, caller: { kind: 'client', name: 'bench' } })));
    direct.push(await block(() => sandboxed.callTool({ name: 'echo', arguments: args })));
  }
  return { through: median(through), direct: median(direct) };
}

async function chokePoint(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-'));
  const host = newHost(dataDir);
  try {
    await addEcho(host, 'echo');
    const fingerprint = host.supervisor.tools.lookup('echo', 'echo')!.fingerprint;
    await host.policy.addRule({ server: 'echo', tool: 'echo', effect: 'allow', fingerprint, confirmDestructive: true });
    const sandboxed = await sandboxedDirectClient(host, dataDir, 'echo');
    const unsandboxed = new Client({ name: 'bench', version: '1' });
    await unsandboxed.connect(new StdioClientTransport({ command: process.execPath, args: [ECHO], stderr: 'pipe' }));
    const group = await measureCalls(host, sandboxed.client, unsandboxed);
    figure('call-through-choke-point-ms', group.through, group.sandboxedDirect, {
      unit: 'ms',
      calls: CALLS,
      rounds: ROUNDS,
      goal: '<= 1.2',
      unsandboxedDirectMs: round(group.direct),
      ratioToUnsandboxed: round(group.through / group.direct),
      cpuUsPerCall: round(group.throughCpuUs),
      directCpuUsPerCall: round(group.sandboxedDirectCpuUs),
      note: `auto-allowed by a rule; the decision written before the call, flushed within ${host.app.settings().flushWindowMs} ms (group commit); baseline: a direct SDK client on the same server in the same sandbox`,
    });
    const inRow = await measureInRow(host, sandboxed.client);
    figure('call-through-choke-point-ms-in-a-row', inRow.through, inRow.direct, {
      unit: 'ms',
      calls: CALLS,
      rounds: ROUNDS,
      goal: 'reported',
      note: 'calls one right after another (a script in a loop): blocks of calls through the choke point and of direct calls, alternating; the server and this process stay warm, so what Airlock adds weighs more than in the interleaved figure',
    });
    host.policy.setStrictDurability(true);
    const strict = await measureCalls(host, sandboxed.client, unsandboxed);
    figure('call-through-choke-point-ms-strict', strict.through, strict.sandboxedDirect, {
      unit: 'ms',
      calls: CALLS,
      rounds: ROUNDS,
      goal: 'reported',
      unsandboxedDirectMs: round(strict.direct),
      cpuUsPerCall: round(strict.throughCpuUs),
      directCpuUsPerCall: round(strict.sandboxedDirectCpuUs),
      note: 'strict durability: the decision and the outcome each flushed to disk (fsync) before going on; baseline: as above',
    });
    await sandboxed.dispose();
    await unsandboxed.close();
  } finally {
    await host.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (parent: number) => (children.get(parent) ?? []).forEach((child) => (out.push(child), walk(child)));
  walk(pid);
  return out;
}

/** Starts the built `airlock gateway` (the process that runs servers) and waits until `count` servers are ready. */
async function gatewayRss(dataDir: string, count: number): Promise<{ rss: number; children: number }> {
  const gateway = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'gateway', '--http', '0', '--no-terminal'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await new Promise<void>((ready, fail) => {
      gateway.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Airlock gateway on') && ready());
      gateway.once('exit', (code) => fail(new Error(`gateway exited ${code}`)));
    });
    for (let i = 0; i < 600; i += 1) {
      const list = JSON.parse(spawnSync(process.execPath, [BIN, '--data-dir', dataDir, 'list', '--json'], { encoding: 'utf8' }).stdout) as Array<{ state: string }>;
      if (list.filter((server) => server.state === 'ready').length === count) break;
      await new Promise((done) => setTimeout(done, 200));
    }
    await new Promise((done) => setTimeout(done, 1000));
    const children = descendants(gateway.pid!).reduce((sum, pid) => sum + (() => { try { return rssOf(pid); } catch { return 0; } })(), 0);
    return { rss: rssOf(gateway.pid!), children };
  } finally {
    gateway.kill('SIGTERM');
    await new Promise((done) => gateway.once('exit', done));
  }
}

/** The memory of the process that runs the core (the built gateway), with 20 sandboxed servers and with none. */
async function memory(): Promise<void> {
  const empty = mkdtempSync(join(tmpdir(), 'airlock-bench-empty-'));
  const full = mkdtempSync(join(tmpdir(), 'airlock-bench-mem-'));
  try {
    const setup = newHost(full);
    for (let i = 0; i < SERVERS; i += 1) await addEcho(setup, `echo-${i}`);
    await setup.dispose();
    const alone = await gatewayRss(empty, 0);
    const loaded = await gatewayRss(full, SERVERS);
    figure('core-rss-mb-with-20-servers', loaded.rss, alone.rss, { unit: 'MB', servers: SERVERS, goal: '<= 150 MB', serverProcessesRssMb: round(loaded.children) });
  } finally {
    rmSync(empty, { recursive: true, force: true });
    rmSync(full, { recursive: true, force: true });
  }
}

/**
 * Re-hashing a local server's code at each start and call (issue 10, item 5):
 * the check of `node` and a script once their hashes are remembered, against
 * hashing `node` itself (what every start would cost without the cache).
 */
async function codeCheck(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-code-'));
  try {
    const pins = new CodePins({ hasher: new CodeHasher({ dataDir }), now: () => Date.now() });
    const provenance = { kind: 'local' as const, executable: process.execPath, executableSha256: await sha256OfFile(process.execPath), script: { path: ECHO, sha256: await sha256OfFile(ECHO) } };
    await pins.check('echo', provenance, 'start');
    const cached: number[] = [];
    const full: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      // 200 checks in a row, as a stream of calls makes them (each call's own cold cost is in the choke-point figure).
      const start = performance.now();
      for (let j = 0; j < 200; j += 1) if ((await pins.check('echo', provenance, 'call')) !== null) throw new Error('the code check saw a change');
      cached.push((performance.now() - start) / 200);
      const hashStart = performance.now();
      await sha256OfFile(process.execPath);
      full.push(performance.now() - hashStart);
    }
    figure('code-check-per-call-ms', median(cached), median(full), {
      unit: 'ms',
      goal: '<= 0.05 (a stat per file, not a hash)',
      note: 'mean of 200 checks in a row (node and the script, their hashes remembered), median of 7 rounds; baseline: hashing node itself',
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.env.BENCH_ONLY_MEMORY !== '1') {
  await chokePoint();
  await codeCheck();
}
if (process.env.BENCH_SKIP_MEMORY !== '1') await memory();
