// Runs the MCP conformance suite (@modelcontextprotocol/conformance, server
// mode) against Airlock's HTTP gateway, hosting server-everything.
//
//   CONFORMANCE_NODE=/path/to/node22 CONFORMANCE_CLI=/path/to/conformance/dist/index.js node test/conformance/run.mjs
//
// The suite needs Node 22 (it uses fs.globSync) and cannot send a bearer
// token, so a loopback relay in front of the gateway adds the token; every
// other byte passes through. Not part of `npm test` (Node 22 is not this
// project's toolchain); results are recorded in the README.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/airlock.js');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const node22 = process.env.CONFORMANCE_NODE;
const cli = process.env.CONFORMANCE_CLI;
if (!node22 || !cli) {
  console.error('Set CONFORMANCE_NODE (a Node 22 binary) and CONFORMANCE_CLI (conformance dist/index.js).');
  process.exit(2);
}

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-conformance-'));
const add = spawnSync(process.execPath, [BIN, '--data-dir', dataDir, 'add', 'everything', '--trust', '--yes', '--', process.execPath, EVERYTHING], { encoding: 'utf8' });
if (add.status !== 0) throw new Error(add.stderr);
const gateway = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'gateway', '--http', '0', '--no-terminal', '--client', 'conformance'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((ok) => gateway.stdout.on('data', (chunk) => /on (http:\/\/\S+)/.test(chunk) && ok(/on (http:\/\/\S+)/.exec(chunk)[1])));
const target = new URL(url);
const token = readFileSync(join(dataDir, 'gateway-token'), 'utf8').trim();

const relay = createServer((incoming, outgoing) => {
  const headers = { ...incoming.headers, host: target.host, authorization: `Bearer ${token}` };
  const forward = request({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers }, (answer) => {
    outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(outgoing);
  });
  forward.on('error', () => outgoing.destroy());
  incoming.pipe(forward);
});
await new Promise((ok) => relay.listen(0, '127.0.0.1', ok));
const relayUrl = `http://127.0.0.1:${relay.address().port}/mcp`;

// Not spawnSync: the relay lives in this process and must keep serving.
const suite = spawn(node22, [cli, 'server', '--url', relayUrl, ...(process.env.CONFORMANCE_SCENARIO ? ['--scenario', process.env.CONFORMANCE_SCENARIO] : ['--suite', 'all'])], { stdio: 'inherit' });
const status = await new Promise((ok) => suite.once('exit', (code) => ok(code ?? 1)));
relay.close();
gateway.kill('SIGTERM');
await new Promise((ok) => gateway.once('exit', ok));
rmSync(dataDir, { recursive: true, force: true });
process.exitCode = status;
