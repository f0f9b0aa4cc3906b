/**
 * Streaming the audit log over OTLP must not slow a call. One host with the
 * echo server in the sandbox and an "always allow" rule, its log streamed to
 * an OTLP/HTTP collector (a receiver in another process, answering 200, so
 * its work does not land here). Blocks of calls alternate: streaming off,
 * then on (after the entries written meanwhile were caught up, not timed),
 * and so on — the exporter's work lands on the calls of its own process, as
 * it does in use, and drift over the run touches both alike. (Two hosts in
 * one process would not do: the export of one lands on the other's calls.)
 * The figure is the median call with streaming on against off (goal ≤
 * 1.05×), and how many entries the collector acknowledged: all of them,
 * 10,000 by default (BENCH_EXPORT_CALLS calls, two entries each).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { defaultSandboxProfile } from '../../shared/domain';
import { AirlockHost } from '../../electron/core/host';

const ROOT = resolve(import.meta.dirname, '../..');
const ECHO = join(ROOT, 'test/fixtures/servers/echo.mjs');
const CALLS = Number(process.env.BENCH_EXPORT_CALLS ?? 5000);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number) => Math.round(value * 1000) / 1000;

/** A collector in its own process: reads each request, answers 200, prints its port. */
async function startCollector(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const http = require('node:http');
       const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()); });
       server.listen(0, '127.0.0.1', () => console.log(server.address().port));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolvePort) => child.stdout.once('data', (data: Buffer) => resolvePort(Number(data.toString().trim()))));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

async function hostWithEcho(dataDir: string, env: Record<string, string>): Promise<AirlockHost> {
  const host = new AirlockHost({ dataDir, version: 'bench', hooks: { emit: () => {} }, auditExport: { env } });
  const disclosure = await host.install.prepare({ kind: 'local', argv: [process.execPath, ECHO] });
  const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
  await host.install.commit({ draftId: disclosure.draftId, name: 'echo', profile, trusted: true, secrets: {}, enable: true });
  const fingerprint = host.supervisor.tools.lookup('echo', 'echo')!.fingerprint;
  await host.policy.addRule({ server: 'echo', tool: 'echo', effect: 'allow', fingerprint, confirmDestructive: true });
  return host;
}

const root = mkdtempSync(join(tmpdir(), 'airlock-bench-export-'));
const collector = await startCollector();
const host = await hostWithEcho(join(root, 'data'), {});
const ROUNDS = Number(process.env.BENCH_EXPORT_ROUNDS ?? 5);
const PER_BLOCK = Math.ceil(CALLS / ROUNDS / 2);
try {
  const caller = { kind: 'client', name: 'bench' } as const;
  let n = 0;
  const call = async () => {
    const started = performance.now();
    const result = await host.calls.call({ server: 'echo', tool: 'echo', arguments: { message: `call ${n++}` }, caller });
    if (result.outcome !== 'ok') throw new Error(`call ${n}: ${result.outcome} ${result.message ?? ''}`);
    return performance.now() - started;
  };
  const drain = async () => {
    await host.changes.settled();
    await host.audit.flush();
    const started = performance.now();
    let status = host.auditExport.view();
    while ((status.backlog > 0 || status.state === 'sending') && performance.now() - started < 120_000) {
      await new Promise((r) => setTimeout(r, 10));
      status = host.auditExport.view();
    }
    return { status, ms: performance.now() - started };
  };
  for (let i = 0; i < 50; i++) await call();
  const withExport: number[] = [];
  const without: number[] = [];
  let longestDrainMs = 0;
  // This process's CPU time per call (µs), the exporter's own work included (it runs here, between and during calls).
  const cpu = { on: 0, off: 0 };
  // How long the event loop stalled (the longest wait a call arriving at the wrong moment would see), p99 and max, in ms.
  const loop = { on: monitorEventLoopDelay({ resolution: 1 }), off: monitorEventLoopDelay({ resolution: 1 }) };
  const cpuNow = () => {
    const usage = process.cpuUsage();
    return usage.user + usage.system;
  };
  for (let round = 0; round < ROUNDS; round++) {
    host.auditExport.configure({ endpoint: null }, 'command-line');
    let started = cpuNow();
    loop.off.enable();
    for (let i = 0; i < PER_BLOCK; i++) without.push(await call());
    loop.off.disable();
    cpu.off += cpuNow() - started;
    host.auditExport.configure(process.env.BENCH_EXPORT_AA ? { endpoint: null } : { endpoint: collector.url }, 'command-line');
    await drain();
    started = cpuNow();
    loop.on.enable();
    for (let i = 0; i < PER_BLOCK; i++) withExport.push(await call());
    loop.on.disable();
    const drained = await drain();
    // The block's export, to its last acknowledgement, is counted with its calls.
    cpu.on += cpuNow() - started;
    longestDrainMs = Math.max(longestDrainMs, drained.ms);
  }
  const { status } = await drain();
  const value = median(withExport);
  const baseline = median(without);
  console.log(
    JSON.stringify({
      name: 'call with the audit log streamed over OTLP (http/protobuf) vs not, median ms',
      value: round(value),
      baseline: round(baseline),
      ratio: round(value / baseline),
      goal: 1.05,
      cpuUsPerCall: { on: Math.round(cpu.on / withExport.length), off: Math.round(cpu.off / without.length) },
      eventLoopDelayMs: {
        on: { p99: round(loop.on.percentile(99) / 1e6), max: round(loop.on.max / 1e6) },
        off: { p99: round(loop.off.percentile(99) / 1e6), max: round(loop.off.max / 1e6) },
      },
      calls: withExport.length + without.length,
      exported: status.acknowledged,
      written: status.head,
      backlog: status.backlog,
      // After each block of calls with streaming on: how long until the collector had acknowledged all of it.
      longestDrainMs: Math.round(longestDrainMs),
    }),
  );
  if (!process.env.BENCH_EXPORT_AA && status.backlog > 0) process.exitCode = 1;
} finally {
  await host.dispose();
  collector.stop();
  rmSync(root, { recursive: true, force: true });
}
