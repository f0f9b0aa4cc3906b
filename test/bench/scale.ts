/**
 * Airlock at a power user's scale, for `npm run bench` (issue 15, item 5):
 * 50 sandboxed servers × 40 tools (2,000 tools, the many-tools fixture),
 * each figure against a baseline measured in the same run:
 * - `tools/list` through the HTTP gateway (the whole core, all 2,000 tools)
 *   against a direct SDK client's `tools/list` of one sandboxed server that
 *   lists the same 2,000 tools;
 * - start-up of the 50 servers (`startEnabledServers`, all in their
 *   sandboxes, tools listed) against start-up of one;
 * - the Servers page's data (`servers.list`), a server's detail page
 *   (`servers.get`), and a call through the choke point auto-allowed by a
 *   rule, with 2,000 tools — against the same with one server of 40 tools.
 * Prints one JSON object per figure: medians (BENCH_SCALE_SAMPLES samples).
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
const MANY = join(ROOT, 'test/fixtures/servers/many-tools.mjs');
const SERVERS = Number(process.env.BENCH_SCALE_SERVERS ?? 50);
const TOOLS = Number(process.env.BENCH_SCALE_TOOLS ?? 40);
const SAMPLES = Number(process.env.BENCH_SCALE_SAMPLES ?? 30);
const TOKEN = 'bench-token-bench-token-bench-token-0123456789';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number) => Math.round(value * 1000) / 1000;
const figure = (name: string, value: number, baseline: number, extra: Record<string, unknown>) =>
  console.log(JSON.stringify({ name, value: round(value), baseline: round(baseline), ratio: round(value / baseline), unit: 'ms', ...extra }));

const newHost = (dataDir: string) => new AirlockHost({ dataDir, version: 'bench', hooks: { emit: () => {} } });
const { unsandboxed: _u, ...profile } = defaultSandboxProfile();

/** A data folder with `servers` many-tools servers of `tools` tools each, added (trusted, sandboxed) and enabled; `s0__tool_0001` allowed by a rule. */
async function dataFolder(label: string, servers: number, tools: number): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), `airlock-bench-scale-${label}-`));
  const host = newHost(dataDir);
  try {
    for (let i = 0; i < servers; i += 1) {
      const disclosure = await host.install.prepare({ kind: 'local', argv: [process.execPath, MANY, String(tools)] });
      await host.install.commit({ draftId: disclosure.draftId, name: `s${i}`, profile, trusted: true, secrets: {}, enable: i === 0 });
    }
    const fingerprint = host.supervisor.tools.lookup('s0', 'tool_0001')!.fingerprint;
    await host.policy.addRule({ server: 's0', tool: 'tool_0001', effect: 'allow', fingerprint, confirmDestructive: true });
    await host.dispose();
    // Enabled without starting each now: the start-up below starts them together, as the app does.
    const again = newHost(dataDir);
    for (let i = 1; i < servers; i += 1) again.store.update((state) => ({ ...state, servers: { ...state.servers, [`s${i}`]: { ...state.servers[`s${i}`]!, enabled: true } } }));
    await again.dispose();
  } catch (error) {
    await host.dispose().catch(() => undefined);
    throw error;
  }
  return dataDir;
}

/** A host on `dataDir` with every enabled server started; how long the start took. */
async function started(dataDir: string, expectTools: number): Promise<{ host: AirlockHost; ms: number }> {
  const host = newHost(dataDir);
  const t = performance.now();
  await host.servers.startEnabled();
  const ms = performance.now() - t;
  const tools = (await host.gateway.core().listTools()).length;
  if (tools !== expectTools) throw new Error(`expected ${expectTools} tools once started, found ${tools}: ${JSON.stringify(host.servers.list().filter((s) => s.state !== 'ready').map((s) => [s.name, s.state]))}`);
  return { host, ms };
}

async function allTools(client: Client): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const result = await client.listTools(cursor ? { cursor } : {});
    count += result.tools.length;
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return count;
}

async function time<T>(samples: number[], run: () => Promise<T> | T): Promise<T> {
  const t = performance.now();
  const value = await run();
  samples.push(performance.now() - t);
  return value;
}

const bigDir = await dataFolder('big', SERVERS, TOOLS);
const smallDir = await dataFolder('small', 1, TOOLS);
const hosts: AirlockHost[] = [];
const closers: Array<() => Promise<unknown>> = [];
try {
  // Start-up: the small one first, then the 50 together.
  const small = await started(smallDir, TOOLS);
  hosts.push(small.host);
  const big = await started(bigDir, SERVERS * TOOLS);
  hosts.push(big.host);
  figure('startup-50-servers-ms', big.ms, small.ms, {
    servers: SERVERS,
    tools: SERVERS * TOOLS,
    goal: 'reported',
    note: 'startEnabledServers(): every server launched in its sandbox, initialized and its tools listed; baseline: the same with one server',
  });

  // tools/list: through the HTTP gateway against one sandboxed server listing as many tools, directly.
  const gateway = await startHttpGateway(big.host.gateway.core(), { port: 0, token: TOKEN, log: () => {} });
  closers.push(() => gateway.close());
  const viaGateway = new Client({ name: 'bench', version: '1' });
  await viaGateway.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  closers.push(() => viaGateway.close());
  const record = small.host.store.read().servers.s0!;
  const plan = await small.host.launcher.plan({ ...record.spec, args: [MANY, String(SERVERS * TOOLS)] }, record.profile, { serverName: 'direct', airlockDataDir: smallDir, serverDataDir: join(smallDir, 'bench-direct'), secrets: {} });
  if (!plan.sandboxed) throw new Error('the bench needs the sandbox: the plan is not sandboxed');
  const direct = new Client({ name: 'bench', version: '1' });
  await direct.connect(new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, cwd: plan.cwd, stderr: 'ignore' }));
  closers.push(async () => (await direct.close(), await plan.dispose()));
  const listed = { gateway: [] as number[], direct: [] as number[] };
  for (let i = 0; i < SAMPLES + 3; i += 1) {
    const g: number[] = [];
    const d: number[] = [];
    const throughCount = await time(g, () => allTools(viaGateway));
    const directCount = await time(d, () => allTools(direct));
    if (throughCount !== SERVERS * TOOLS || directCount !== SERVERS * TOOLS) throw new Error(`tools/list: ${throughCount} through the gateway, ${directCount} directly`);
    if (i >= 3) (listed.gateway.push(g[0]!), listed.direct.push(d[0]!));
  }
  figure('gateway-tools-list-2000-ms', median(listed.gateway), median(listed.direct), {
    tools: SERVERS * TOOLS,
    goal: '<= 2.0',
    note: 'tools/list through `airlock gateway --http` (the whole core, 50 sandboxed servers × 40 tools); baseline: a direct SDK client, tools/list of one sandboxed server listing the same 2,000 tools',
  });

  // The Servers page, a detail page and a decision with 2,000 tools, against one server of 40.
  const pages = { list: [] as number[], listBase: [] as number[], get: [] as number[], getBase: [] as number[], call: [] as number[], callBase: [] as number[] };
  const call = (host: AirlockHost) => async () => {
    const result = await host.calls.call({ server: 's0', tool: 'tool_0001', arguments: { message: 'hi' }, caller: { kind: 'client', name: 'bench' } });
    if (result.outcome !== 'ok' || result.decision.decidedBy.kind !== 'rule') throw new Error(`bench call not auto-allowed: ${result.outcome} ${result.message ?? ''}`);
  };
  for (let i = 0; i < SAMPLES + 5; i += 1) {
    const warm = i < 5;
    const sink = (samples: number[]) => (warm ? [] : samples);
    await time(sink(pages.list), () => big.host.servers.list());
    await time(sink(pages.listBase), () => small.host.servers.list());
    await time(sink(pages.get), () => big.host.servers.detail('s0'));
    await time(sink(pages.getBase), () => small.host.servers.detail('s0'));
  }
  // Calls on their own (a detail page reads the audit log; calls write it), many more of them.
  for (let i = 0; i < 10 * SAMPLES + 20; i += 1) {
    const sink = (samples: number[]) => (i < 20 ? [] : samples);
    await time(sink(pages.call), call(big.host));
    await time(sink(pages.callBase), call(small.host));
  }
  const note = `baseline: the same with one server of ${TOOLS} tools`;
  figure('servers-list-ms-50-servers', median(pages.list), median(pages.listBase), { servers: SERVERS, goal: 'reported', note: `servers.list (the Servers page's data); ${note}` });
  figure('servers-get-ms-50-servers', median(pages.get), median(pages.getBase), { servers: SERVERS, goal: 'reported', note: `servers.get of one server (its detail page: tools, logs, recent calls); ${note}` });
  figure('call-decision-ms-2000-tools', median(pages.call), median(pages.callBase), { tools: SERVERS * TOOLS, goal: 'reported', note: `a call through the choke point, auto-allowed by a rule, with 2,000 tools listed; ${note}` });
} finally {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  for (const host of hosts) await host.dispose().catch(() => undefined);
  rmSync(bigDir, { recursive: true, force: true });
  rmSync(smallDir, { recursive: true, force: true });
}
