// Sandbox start-up and network-proxy cost, for `npm run bench`.
//
//   import { measureSandboxStartup, measureProxyMemory } from './sandbox-startup.mjs';
//   node test/bench/sandbox-startup.mjs        # prints one JSON object per figure
//
// The launcher is TypeScript; it is loaded through jiti (already installed
// with vite), so this file runs under plain Node without a build.
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createJiti } from 'jiti';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const jiti = createJiti(import.meta.url);
const FILESYSTEM_SERVER = join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

async function loadSandbox() {
  const launcher = await jiti.import(join(root, 'electron/core/sandbox/sandbox-launcher.ts'));
  const proxy = await jiti.import(join(root, 'electron/core/sandbox/network-proxy.ts'));
  return { ...launcher, ...proxy };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function connectAndList(command, args, env, cwd) {
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: 'pipe' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  return client;
}

function profile(allowedDomains = []) {
  return { filesystem: { read: [], write: [], persistentData: false }, network: { allowedDomains }, secrets: [] };
}

/**
 * Start-up of @modelcontextprotocol/server-filesystem, connect + listTools,
 * median of `runs`: direct (no sandbox), sandboxed with no network, and
 * sandboxed with a per-server proxy. Sandboxed times include plan().
 */
export async function measureSandboxStartup({ runs = 5 } = {}) {
  const { createSandboxLauncher } = await loadSandbox();
  const base = await mkdtemp(join(tmpdir(), 'airlock-bench-'));
  const allowed = await mkdtemp(join(base, 'allowed-'));
  const launcher = createSandboxLauncher({ runtimeDir: join(base, 'run') });
  const context = {
    serverName: 'bench',
    airlockDataDir: join(base, 'data'),
    serverDataDir: join(base, 'data', 'servers', 'bench'),
    secrets: {},
  };
  const spec = { command: process.execPath, args: [FILESYSTEM_SERVER, allowed], env: {} };
  const times = { direct: [], sandboxed: [], sandboxedWithProxy: [], plan: [] };
  try {
    // warm-up: module caches, the launcher's one-time self-test
    (await launcher.plan(spec, profile(), context)).dispose();
    for (let i = 0; i < runs; i += 1) {
      let t = performance.now();
      let client = await connectAndList(spec.command, spec.args, { PATH: process.env.PATH, HOME: base });
      times.direct.push(performance.now() - t);
      await client.close();

      for (const [key, domains] of [['sandboxed', []], ['sandboxedWithProxy', ['example.com']]]) {
        t = performance.now();
        const plan = await launcher.plan(spec, profile(domains), context);
        if (key === 'sandboxed') times.plan.push(performance.now() - t);
        client = await connectAndList(plan.command, plan.args, plan.env, plan.cwd);
        times[key].push(performance.now() - t);
        await client.close();
        await plan.dispose();
      }
    }
  } finally {
    await launcher.close();
    await rm(base, { recursive: true, force: true });
  }
  const direct = median(times.direct);
  return {
    runs,
    directMs: direct,
    sandboxedMs: median(times.sandboxed),
    sandboxedWithProxyMs: median(times.sandboxedWithProxy),
    planMs: median(times.plan),
    ratio: median(times.sandboxed) / direct,
    ratioWithProxy: median(times.sandboxedWithProxy) / direct,
  };
}

/**
 * For comparison only: the same server started the library's default way —
 * `initialize()` (shared proxy, host socat bridges) and
 * `wrapWithSandboxArgv()`, i.e. bash -c around bwrap around two socats and
 * two more shells. Median of `runs`, connect + listTools, wrap included.
 * Resets the library afterwards.
 */
export async function measureLibraryWrapperStartup({ runs = 5 } = {}) {
  const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
  const base = await mkdtemp(join(tmpdir(), 'airlock-bench-lib-'));
  const quote = (word) => `'${word.replace(/'/g, `'"'"'`)}'`;
  const command = [process.execPath, FILESYSTEM_SERVER, base].map(quote).join(' ');
  const times = [];
  try {
    await SandboxManager.initialize({
      network: { allowedDomains: ['example.com'], deniedDomains: [] },
      filesystem: { denyRead: [join(process.env.HOME ?? '/root', '.ssh')], allowWrite: [base], denyWrite: [] },
    });
    for (let i = 0; i <= runs; i += 1) {
      const t = performance.now();
      const { argv } = await SandboxManager.wrapWithSandboxArgv(command);
      const client = await connectAndList(argv[0], argv.slice(1), { PATH: process.env.PATH, HOME: base });
      if (i > 0) times.push(performance.now() - t); // first run is warm-up
      await client.close();
      SandboxManager.cleanupAfterCommand();
    }
  } finally {
    await SandboxManager.reset();
    await rm(base, { recursive: true, force: true });
  }
  return { runs, libraryWrapperMs: median(times) };
}

/** Proportional set size (shared pages split between sharers) in kB of every process running `name`. */
function rssOf(name) {
  let total = 0;
  let count = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const exe = readlinkSync(`/proc/${pid}/exe`);
      if (!exe.endsWith(`/${name}`)) continue;
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      total += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      count += 1;
    } catch {
      // gone, or not ours to read
    }
  }
  return { kB: total, count };
}

/**
 * Memory of the per-server network design with `servers` sandboxed servers
 * (server-filesystem) running at once, each with its own proxy: Airlock's
 * heap/RSS growth from the proxies alone, and the in-sandbox socat bridges.
 * Run with --expose-gc for steadier heap figures.
 */
export async function measureProxyMemory({ servers = 20 } = {}) {
  const { createSandboxLauncher, startServerProxy } = await loadSandbox();
  const base = await mkdtemp(join(tmpdir(), 'airlock-bench-mem-'));
  const gc = globalThis.gc ?? (() => {});
  try {
    // 1. the proxies alone, in this process (5x the count, to rise above GC noise)
    const warm = await startServerProxy(join(base, 'warm.sock'), { serverName: 'warm', allowedDomains: [] });
    await warm.close();
    gc();
    gc();
    const before = process.memoryUsage();
    const proxies = [];
    for (let i = 0; i < servers * 5; i += 1) {
      proxies.push(await startServerProxy(join(base, `p${i}.sock`), { serverName: `s${i}`, allowedDomains: ['example.com'] }));
    }
    gc();
    gc();
    const after = process.memoryUsage();
    await Promise.all(proxies.map((p) => p.close()));
    const perProxyBytes = (after.heapUsed - before.heapUsed + after.external - before.external) / (servers * 5);

    // 2. real sandboxed servers, each with a proxy, all running
    const socatBefore = rssOf('socat');
    const launcher = createSandboxLauncher({ runtimeDir: join(base, 'run') });
    const clients = [];
    const plans = [];
    const t = performance.now();
    for (let i = 0; i < servers; i += 1) {
      const context = {
        serverName: `mem-${i}`,
        airlockDataDir: join(base, 'data'),
        serverDataDir: join(base, 'data', 'servers', `mem-${i}`),
        secrets: {},
      };
      const plan = await launcher.plan({ command: process.execPath, args: [FILESYSTEM_SERVER, base], env: {} }, profile(['example.com']), context);
      plans.push(plan);
      clients.push(await connectAndList(plan.command, plan.args, plan.env, plan.cwd));
    }
    const startAllMs = performance.now() - t;
    gc();
    const withServers = process.memoryUsage();
    const socat = rssOf('socat');
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(plans.map((p) => p.dispose()));
    await launcher.close();
    const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 100) / 100;
    return {
      servers,
      perProxyHeapKb: Math.round(perProxyBytes / 1024),
      proxiesHeapMb: mb(perProxyBytes * servers),
      socatCount: socat.count - socatBefore.count,
      socatPssMbTotal: Math.round(((socat.kB - socatBefore.kB) / 1024) * 100) / 100,
      coreRssWithServersMb: mb(withServers.rss),
      coreHeapWithServersMb: mb(withServers.heapUsed),
      startAllMs: Math.round(startAllMs),
    };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const startup = await measureSandboxStartup();
  console.log(JSON.stringify({ name: 'sandbox-startup', value: startup.sandboxedMs, baseline: startup.directMs, ratio: startup.ratio, ...startup }));
  const library = await measureLibraryWrapperStartup();
  console.log(
    JSON.stringify({ name: 'sandbox-startup-library-wrapper', value: library.libraryWrapperMs, baseline: startup.directMs, ratio: library.libraryWrapperMs / startup.directMs }),
  );
  const memory = await measureProxyMemory({ servers: Number(process.env.AIRLOCK_BENCH_SERVERS ?? 20) });
  console.log(JSON.stringify({ name: 'sandbox-network-memory', ...memory }));
}
