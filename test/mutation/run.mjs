#!/usr/bin/env node
// Runs the mutation exercise: for each mutation (mutations.mjs), makes the
// change, runs its test files, records which tests failed, restores the
// file. A mutation no test kills is a survivor: the run exits 1.
//
//   node test/mutation/run.mjs            every mutation
//   node test/mutation/run.mjs 3 7        only these
//
// Not part of `npm test` (it runs the suites many times). One mutant at a
// time, one vitest worker: the machine is shared.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUTATIONS } from './mutations.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const wanted = process.argv.slice(2).map(Number);
const selected = wanted.length ? MUTATIONS.filter((m) => wanted.includes(m.id)) : MUTATIONS;
const outDir = join(root, 'test-results', 'mutation');
mkdirSync(outDir, { recursive: true });

// Never start on a file that already differs from the commit: a restore would lose that work.
const dirty = spawnSync('git', ['status', '--porcelain', '--', ...new Set(selected.map((m) => m.file))], { cwd: root, encoding: 'utf8' }).stdout.trim();
if (dirty) {
  console.error(`These files have uncommitted changes; commit or stash them first:\n${dirty}`);
  process.exit(2);
}

let restore;
let running;
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => (running?.kill('SIGTERM'), restore?.(), process.exit(130)));

const results = [];
for (const mutation of selected) {
  const path = join(root, mutation.file);
  const original = readFileSync(path, 'utf8');
  const count = original.split(mutation.find).length - 1;
  if (count !== 1) {
    results.push({ ...mutation, line: 0, killedBy: [], problem: `the text to change occurs ${count} times` });
    console.log(`#${mutation.id} ${mutation.title}: NOT RUN — the text to change occurs ${count} times`);
    continue;
  }
  const line = original.slice(0, original.indexOf(mutation.find)).split('\n').length;
  restore = () => writeFileSync(path, original);
  writeFileSync(path, original.replace(mutation.find, mutation.replace));
  const report = join(outDir, `${mutation.id}.json`);
  rmSync(report, { force: true });
  const started = Date.now();
  try {
    // Asynchronously, so that an interrupt (Ctrl-C) still restores the file.
    await new Promise((resolvePromise) => {
      const child = spawn('npx', ['vitest', 'run', '--config', 'test/mutation/vitest.config.mjs', ...mutation.tests, '--maxWorkers=1'], {
        cwd: root,
        stdio: 'ignore',
        env: { ...process.env, VITEST_MUTATION_REPORT: report },
      });
      running = child;
      const timer = setTimeout(() => child.kill('SIGTERM'), 20 * 60_000);
      child.on('exit', () => (clearTimeout(timer), resolvePromise()));
      child.on('error', () => (clearTimeout(timer), resolvePromise()));
    });
  } finally {
    running = undefined;
    restore();
    restore = undefined;
  }
  const killedBy = [];
  if (existsSync(report)) {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    for (const file of json.testResults ?? []) {
      const name = relative(root, file.name);
      const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
      for (const test of failed) killedBy.push(`${name} › ${test.fullName}`);
      if (failed.length === 0 && file.status === 'failed') killedBy.push(`${name} (${String(file.message ?? 'failed to run').split('\n')[0]})`);
    }
  }
  // No report is not a kill: the run proved nothing about this mutant.
  const problem = existsSync(report) ? undefined : 'vitest wrote no report (it did not finish)';
  results.push({ ...mutation, line, killedBy, problem, seconds: Math.round((Date.now() - started) / 1000) });
  console.log(`#${mutation.id} ${mutation.file}:${line} ${mutation.title}: ${problem ? `NOT RUN — ${problem}` : killedBy.length ? `killed by ${killedBy.length} test(s)` : 'SURVIVED'} (${Math.round((Date.now() - started) / 1000)} s)`);
  for (const test of killedBy) console.log(`    ${test}`);
}

writeFileSync(join(outDir, 'summary.json'), JSON.stringify(results.map(({ id, title, file, line, killedBy, problem }) => ({ id, title, where: `${file}:${line}`, killedBy, problem })), null, 2));
const survivors = results.filter((r) => r.killedBy.length === 0 || r.problem);
console.log(`\n${results.length - survivors.length} of ${results.length} mutations killed${survivors.length ? `; survived or not run: ${survivors.map((r) => `#${r.id}`).join(', ')}` : ''}.`);
process.exit(survivors.length ? 1 : 0);
