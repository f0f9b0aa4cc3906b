// Gateway call overhead, for `npm run bench`.
//
//   import { measureGatewayLatency } from './gateway.mjs';
//   node test/bench/gateway.mjs            # prints one JSON object per figure
//
// Median latency of server-everything's `echo`, called by an SDK client
// through the gateway (over stdio: a separate gateway process, as another app
// starts it; over loopback HTTP with the token), against the same client
// talking to the server directly, measured in the same run. The gateway's
// core here is the tests' DirectCore (real SDK clients, a trivial policy):
// the figure is the facade's and the transport's cost, not the policy's or
// the audit log's. TypeScript is loaded through jiti, as the other benches do.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createJiti } from 'jiti';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const jiti = createJiti(import.meta.url);
const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const JITI_CLI = join(root, 'node_modules/jiti/lib/jiti-cli.mjs');
const STDIO_GATEWAY = join(root, 'test/core/gateway/support/stdio-gateway.ts');

// The floor for any stdio gateway: a bare SDK proxy (one Server forwarding to one Client, no
// policy, no namespacing), run from source with `node -e`. It shows what the extra process hop
// costs by itself, so the gateway's own share can be told apart from it.
const BARE_PROXY = `
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const upstream = new Client({ name: 'bare-proxy', version: '1' });
await upstream.connect(new StdioClientTransport({ command: process.execPath, args: [process.argv[1], 'stdio'], stderr: 'ignore' }));
const server = new Server({ name: 'bare-proxy', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => upstream.listTools());
server.setRequestHandler(CallToolRequestSchema, (r) => upstream.callTool({ name: r.params.name, arguments: r.params.arguments }));
await server.connect(new StdioServerTransport());
process.stdin.on('end', () => process.exit(0));
`;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/**
 * Median latency per path. `blocks`: each path's calls back to back (hot
 * processes: the pure cost of the extra hop). `interleaved`: the paths take
 * turns call by call, so each sees the same load on a shared machine, and
 * every call wakes processes that were idle (closer to an agent's pace).
 */
async function timePaths(paths, calls, warmup, mode) {
  for (const { client, tool } of paths) for (let i = 0; i < warmup; i++) await client.callTool({ name: tool, arguments: { message: 'warm' } });
  const times = paths.map(() => []);
  const once = async (p, i) => {
    const start = performance.now();
    await paths[p].client.callTool({ name: paths[p].tool, arguments: { message: `m${i}` } });
    times[p].push(performance.now() - start);
  };
  if (mode === 'interleaved') {
    for (let i = 0; i < calls; i++) for (let p = 0; p < paths.length; p++) await once(p, i);
  } else {
    for (let p = 0; p < paths.length; p++) for (let i = 0; i < calls; i++) await once(p, i);
  }
  return times.map(median);
}

async function stdioClient(args) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  // cwd: the project, so `node -e` resolves the SDK from its node_modules.
  await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd: root, stderr: 'ignore' }));
  return client;
}

/**
 * Median echo latency (ms) direct vs through the gateway, `calls` calls each
 * after `warmup`. Ratios are what to compare (the machines are shared).
 */
export async function measureGatewayLatency({ calls = 300, warmup = 30, mode = 'blocks' } = {}) {
  const direct = await stdioClient([EVERYTHING, 'stdio']);
  const bare = await stdioClient(['--input-type=module', '-e', BARE_PROXY, EVERYTHING]);
  const viaStdio = await stdioClient([JITI_CLI, STDIO_GATEWAY]);

  const { DirectCore } = await jiti.import(join(root, 'test/core/gateway/support/direct-core.ts'));
  const { startHttpGateway } = await jiti.import(join(root, 'electron/core/gateway/http-gateway.ts'));
  const { generateGatewayToken } = await jiti.import(join(root, 'electron/core/gateway/gateway-token.ts'));
  const core = new DirectCore();
  await core.addServer('everything', { command: process.execPath, args: [EVERYTHING, 'stdio'] });
  const token = generateGatewayToken();
  const gateway = await startHttpGateway(core, { port: 0, token, log: () => undefined });
  const viaHttp = new Client({ name: 'bench', version: '1.0.0' });
  await viaHttp.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));

  const [directMs, bareProxyMs, stdioMs, httpMs] = await timePaths(
    [
      { client: direct, tool: 'echo' },
      { client: bare, tool: 'echo' },
      { client: viaStdio, tool: 'everything__echo' },
      { client: viaHttp, tool: 'everything__echo' },
    ],
    calls,
    warmup,
    mode,
  );
  for (const client of [direct, bare, viaStdio, viaHttp]) await client.close();
  await gateway.close();
  await core.close();
  return { directMs, bareProxyMs, stdioMs, httpMs };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const mode of ['blocks', 'interleaved']) {
    const { directMs, bareProxyMs, stdioMs, httpMs } = await measureGatewayLatency({ mode });
    const figure = (name, value, baseline, extra = {}) => console.log(JSON.stringify({ name, mode, value, baseline, ratio: value / baseline, unit: 'ms', ...extra }));
    figure('gateway-echo-latency-stdio', stdioMs, directMs, { goal: '<= 2.0' });
    figure('gateway-echo-latency-stdio-vs-bare-proxy', stdioMs, bareProxyMs);
    figure('bare-sdk-proxy-echo-latency-stdio', bareProxyMs, directMs);
    figure('gateway-echo-latency-http', httpMs, directMs);
  }
}
