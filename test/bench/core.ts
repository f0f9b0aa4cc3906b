/**
 * Whole-program figures for the core, as ratios against a baseline measured
 * in the same run (TESTING.md, "Benchmarks"):
 * - a call through the choke point (policy + confirmation-free allow + audit
 *   write, flushed within the window + sandboxed server) against a direct SDK
 *   client on the same server; the same with strict durability;
 * - the core's own memory with 20 sandboxed servers running, against the core alone.
 * Prints one JSON object per figure.
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

/** Median ms per call, through the choke point and direct, interleaved so both see the same load. */
async function measureCalls(host: AirlockHost, direct: Client): Promise<{ through: number; baseline: number }> {
  const through: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < CALLS + 20; i += 1) {
    let start = performance.now();
    await direct.callTool({ name: 'echo', arguments: { message: 'hi' } });
    const d = performance.now() - start;
    start = performance.now();
    const result = await host.callTool({ server: 'echo', tool: 'echo', arguments: { message: 'hi' }, caller: { kind: 'user' } });
    const t = performance.now() - start;
    if (result.outcome !== 'ok') throw new Error(`bench call failed: ${result.message}`);
    if (i >= 20) {
      baseline.push(d);
      through.push(t);
    }
  }
  return { through: median(through), baseline: median(baseline) };
}

async function chokePoint(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-'));
  const host = newHost(dataDir);
  try {
    await addEcho(host, 'echo');
    const direct = new Client({ name: 'bench', version: '1' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [ECHO], stderr: 'pipe' }));
    const group = await measureCalls(host, direct);
    figure('call-through-choke-point-ms', group.through, group.baseline, {
      unit: 'ms',
      calls: CALLS,
      goal: '<= 1.2',
      note: `the decision written before the call, flushed within ${host.settings().flushWindowMs} ms (group commit); baseline: a direct SDK client on the same server`,
    });
    host.setStrictDurability(true);
    const strict = await measureCalls(host, direct);
    figure('call-through-choke-point-ms-strict', strict.through, strict.baseline, {
      unit: 'ms',
      calls: CALLS,
      goal: 'reported',
      note: 'strict durability: the decision and the outcome each flushed to disk (fsync) before going on',
    });
    await direct.close();
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
      let start = performance.now();
      if ((await pins.check('echo', provenance, 'call')) !== null) throw new Error('the code check saw a change');
      cached.push(performance.now() - start);
      start = performance.now();
      await sha256OfFile(process.execPath);
      full.push(performance.now() - start);
    }
    figure('code-check-per-call-ms', median(cached), median(full), { unit: 'ms', goal: '<= 0.05 (a stat per file, not a hash)', note: 'baseline: hashing node itself' });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await chokePoint();
await codeCheck();
if (process.env.BENCH_SKIP_MEMORY !== '1') await memory();
