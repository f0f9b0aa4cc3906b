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

/** utime+stime+cutime+cstime (ms) of one process, from /proc. */
function procCpu(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ms: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10 };
  } catch {
    return undefined;
  }
}

/** CPU time (ms) of a live process tree: the process and every descendant, with their reaped children. */
function treeCpu(root) {
  const all = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = procCpu(Number(entry));
    if (info) all.set(Number(entry), info);
  }
  let total = 0;
  const walk = (pid) => {
    total += all.get(pid)?.ms ?? 0;
    for (const [child, info] of all) if (info.ppid === pid) walk(child);
  };
  walk(root);
  return total;
}

/**
 * CPU time (ms) this process and its reaped children (rg, which) have used.
 * On a shared, loaded machine wall time mostly measures the neighbours; CPU
 * time is what the sandbox itself costs.
 */
function selfCpu() {
  const own = process.cpuUsage();
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) * 10 + (own.user + own.system) / 1000;
}

async function connectAndList(command, args, env, cwd) {
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: 'pipe' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  /** CPU (ms) the server's process tree has used up to now. */
  client.treeCpuMs = () => treeCpu(transport.pid);
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
export async function measureSandboxStartup({ runs = 5, compareLibrary = true } = {}) {
  const { createSandboxLauncher } = await loadSandbox();
  const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
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
  const times = { direct: [], sandboxed: [], sandboxedWithProxy: [], plan: [], libraryWrapper: [] };
  const cpu = { direct: [], sandboxed: [], sandboxedWithProxy: [], libraryWrapper: [] };
  const quote = (word) => `'${word.replace(/'/g, `'"'"'`)}'`;
  // For comparison only: the library's default way — initialize() (shared
  // proxy, host socat bridges) and wrapWithSandboxArgv(), i.e. bash -c around
  // bwrap around two socats and two more shells. Set up untimed each run and
  // reset afterwards: Airlock's launcher refuses to plan beside it.
  const libraryRun = async () => {
    await SandboxManager.initialize({
      network: { allowedDomains: ['example.com'], deniedDomains: [] },
      filesystem: { denyRead: [join(process.env.HOME ?? '/root', '.ssh')], allowWrite: [allowed], denyWrite: [] },
    });
    try {
      const c = selfCpu();
      const t = performance.now();
      const { argv } = await SandboxManager.wrapWithSandboxArgv([spec.command, ...spec.args].map(quote).join(' '));
      const client = await connectAndList(argv[0], argv.slice(1), { PATH: process.env.PATH, HOME: base });
      times.libraryWrapper.push(performance.now() - t);
      cpu.libraryWrapper.push(client.treeCpuMs() + (selfCpu() - c));
      await client.close();
      SandboxManager.cleanupAfterCommand();
    } finally {
      await SandboxManager.reset();
    }
  };
  try {
    // warm-up: module caches, the launcher's one-time self-test
    (await launcher.plan(spec, profile(), context)).dispose();
    for (let i = 0; i < runs; i += 1) {
      let c = selfCpu();
      let t = performance.now();
      let client = await connectAndList(spec.command, spec.args, { PATH: process.env.PATH, HOME: base });
      times.direct.push(performance.now() - t);
      cpu.direct.push(client.treeCpuMs() + (selfCpu() - c));
      await client.close();

      for (const [key, domains] of [['sandboxed', []], ['sandboxedWithProxy', ['example.com']]]) {
        c = selfCpu();
        t = performance.now();
        const plan = await launcher.plan(spec, profile(domains), context);
        if (key === 'sandboxed') times.plan.push(performance.now() - t);
        client = await connectAndList(plan.command, plan.args, plan.env, plan.cwd);
        times[key].push(performance.now() - t);
        cpu[key].push(client.treeCpuMs() + (selfCpu() - c));
        await client.close();
        await plan.dispose();
      }
      if (compareLibrary) await libraryRun();
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
    ...(compareLibrary ? { libraryWrapperMs: median(times.libraryWrapper), libraryWrapperRatio: median(times.libraryWrapper) / direct } : {}),
    // CPU time of the whole start (plan, bwrap, the server's tree, this client): robust to neighbours
    cpuDirectMs: median(cpu.direct),
    cpuSandboxedMs: median(cpu.sandboxed),
    cpuSandboxedWithProxyMs: median(cpu.sandboxedWithProxy),
    cpuRatio: median(cpu.sandboxed) / median(cpu.direct),
    cpuRatioWithProxy: median(cpu.sandboxedWithProxy) / median(cpu.direct),
    ...(compareLibrary ? { cpuLibraryWrapperMs: median(cpu.libraryWrapper), cpuLibraryWrapperRatio: median(cpu.libraryWrapper) / median(cpu.direct) } : {}),
  };
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
  const memory = await measureProxyMemory({ servers: Number(process.env.AIRLOCK_BENCH_SERVERS ?? 20) });
  console.log(JSON.stringify({ name: 'sandbox-network-memory', ...memory }));
}
