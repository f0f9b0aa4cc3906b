// How long the `airlock` command takes to start, for `npm run bench`: `airlock --version`
// (goal ≤ 2×) and `airlock list` with one server (goal ≤ 3×), each against `node -e 0`
// run in turn with it, on this machine, in this run. Every app that starts
// `airlock gateway --stdio` pays the start at each start; every script pays it per command.
//
//   node test/bench/cli-startup.mjs     # one JSON object per figure (needs `npm run build`)
//
// Each figure is the median of RUNS pairs, the command and its baseline run one after the
// other so both see the same load: wall time (what a person waits) and CPU time (user +
// system of the finished process, what it costs; on a loaded machine the steadier of the two).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const BIN = join(root, 'bin/airlock.js');
const MEMORY_SERVER = join(root, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const RUNS = Number(process.env.AIRLOCK_BENCH_RUNS ?? 11);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (value) => Math.round(value * 1000) / 1000;

/** Wall and CPU time (ms) of one whole process, from outside: the clock around it, and the kernel's count of its children's CPU. */
function timed(argv, env) {
  const before = childCpu();
  const start = performance.now();
  const result = spawnSync(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const wall = performance.now() - start;
  if (result.status !== 0) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { wall, cpu: childCpu() - before };
}

/** CPU (ms) of this process's reaped children so far (/proc/self/stat: cutime + cstime, in clock ticks of 10 ms). */
function childCpu() {
  const fields = readFileSync('/proc/self/stat', 'utf8');
  const f = fields.slice(fields.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) * (1000 / 100);
}

function compare(name, argv, env, goal) {
  const baseline = [process.execPath, '-e', '0'];
  const pairs = [];
  timed(argv, env); // warm-up: the file system cache, not the figure
  timed(baseline, env);
  for (let run = 0; run < RUNS; run += 1) pairs.push({ a: timed(argv, env), b: timed(baseline, env) });
  const figure = (key) => ({ value: median(pairs.map((p) => p.a[key])), baseline: median(pairs.map((p) => p.b[key])), ratio: median(pairs.map((p) => p.a[key] / p.b[key])) });
  const wall = figure('wall');
  const cpu = figure('cpu');
  console.log(
    JSON.stringify({
      name,
      value: round(wall.value),
      baseline: round(wall.baseline),
      ratio: round(wall.ratio),
      unit: 'ms wall',
      cpuMs: round(cpu.value),
      cpuBaselineMs: round(cpu.baseline),
      cpuRatio: round(cpu.ratio),
      goal,
      runs: RUNS,
    }),
  );
}

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-cli-'));
try {
  const env = { ...process.env, HOME: dataDir, NO_COLOR: '1' };
  delete env.AIRLOCK_DATA_DIR;
  const add = spawnSync(process.execPath, [BIN, '--data-dir', join(dataDir, 'data'), 'add', 'memory', '--yes', '--', process.execPath, MEMORY_SERVER], { env, encoding: 'utf8' });
  if (add.status !== 0) throw new Error(`could not add the server for the list figure: ${add.stderr}`);
  compare('cli-version', [process.execPath, BIN, '--version'], env, 'ratio ≤ 2');
  compare('cli-list', [process.execPath, BIN, '--data-dir', join(dataDir, 'data'), 'list'], env, 'ratio ≤ 3');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
