/**
 * Figures for what servers offer besides tools, as ratios against a baseline
 * measured in the same run (TESTING.md, "Benchmarks"):
 * - `resources/read` through the core's catalog (sandboxed server-everything,
 *   size cap and flags included) against a direct SDK client on the same server;
 * - the same read through the HTTP gateway in transparent mode against the
 *   core's own read (the relay's cost).
 * Prints one JSON object per figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { defaultSandboxProfile } from '../../shared/domain';
import { AirlockHost } from '../../electron/core/host';
import { startHttpGateway } from '../../electron/core/gateway';

const ROOT = resolve(import.meta.dirname, '../..');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const READS = Number(process.env.BENCH_READS ?? 200);
const URI = 'demo://resource/dynamic/text/1';
const TOKEN = 'bench-token-bench-token-bench-token-0123456789';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number) => Math.round(value * 1000) / 1000;
const figure = (name: string, value: number, baseline: number, goal: string) =>
  console.log(JSON.stringify({ name, value: round(value), baseline: round(baseline), ratio: round(value / baseline), goal }));

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-catalog-'));
const host = new AirlockHost({ dataDir, version: 'bench', hooks: { emit: () => {} } });
try {
  const disclosure = await host.install.prepare({ kind: 'local', argv: [process.execPath, EVERYTHING, 'stdio'] });
  const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
  // Inspected as at install, so its resources and templates are the ones the person reviewed (a template never reviewed is not read).
  await host.install.probe(disclosure.draftId, {}, profile);
  await host.install.commit({ draftId: disclosure.draftId, name: 'everything', profile, trusted: false, secrets: {}, enable: true });
  const direct = new Client({ name: 'bench', version: '1' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'pipe' }));
  const core = host.gateway.core();
  const gateway = await startHttpGateway(core, { port: 0, token: TOKEN, transparent: await core.catalog!.describe('everything'), log: () => {} });
  const relayed = new Client({ name: 'bench', version: '1' });
  await relayed.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));

  const through: number[] = [];
  const baseline: number[] = [];
  const overHttp: number[] = [];
  // Interleaved, so all three see the same machine load.
  for (let i = 0; i < READS + 20; i += 1) {
    let start = performance.now();
    await host.catalog.catalog.readResource('everything', URI);
    const a = performance.now() - start;
    start = performance.now();
    await direct.readResource({ uri: URI });
    const b = performance.now() - start;
    start = performance.now();
    await relayed.readResource({ uri: URI });
    const c = performance.now() - start;
    if (i >= 20) {
      through.push(a);
      baseline.push(b);
      overHttp.push(c);
    }
  }
  figure('resources/read through the core (sandboxed, capped), ms', median(through), median(baseline), 'ratio <= 1.5 against a direct SDK client');
  figure('resources/read through airlock run over HTTP, ms', median(overHttp), median(through), 'the relay: HTTP + one more hop');
  await relayed.close();
  await gateway.close();
  await direct.close();
} finally {
  await host.dispose();
  rmSync(dataDir, { recursive: true, force: true });
}
