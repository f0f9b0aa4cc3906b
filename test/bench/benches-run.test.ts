/**
 * `npm run bench` still runs: every benchmark it lists, with samples small
 * enough for the test suite, exits 0 and prints its figures — each a JSON
 * object with a name and finite measurements. No figure is judged
 * here (TESTING.md: speed is the bench's, not a test's); what this catches
 * is a bench that stopped at its first step after a change elsewhere (as
 * the catalog's did when unreviewed templates were refused) and so would
 * report nothing the next time anyone measures.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const HERE = import.meta.dirname;
const TSX = ['--import', 'tsx'];

/** Each bench of run.ts, the variables that shrink its samples, and how many figures it prints at the least. */
const BENCHES: Array<{ file: string; args?: string[]; env: Record<string, string>; figures: number }> = [
  { file: 'core.ts', args: ['--expose-gc', ...TSX], env: { BENCH_CALLS: '5', BENCH_ROUNDS: '1', BENCH_SERVERS: '2' }, figures: 5 },
  { file: 'claims.ts', args: TSX, env: { BENCH_CALLS: '5', BENCH_ROUNDS: '1' }, figures: 2 },
  { file: 'cli-startup.mjs', env: { AIRLOCK_BENCH_RUNS: '1' }, figures: 2 },
  { file: 'sandbox-startup.mjs', env: { AIRLOCK_BENCH_SERVERS: '2' }, figures: 2 },
  { file: 'policy-audit.mjs', env: {}, figures: 1 },
  { file: 'audit.ts', args: TSX, env: { BENCH_AUDIT_ENTRIES: '2000' }, figures: 6 },
  { file: 'audit-export.ts', args: TSX, env: { BENCH_EXPORT_CALLS: '50', BENCH_EXPORT_ROUNDS: '1' }, figures: 1 },
  { file: 'gateways.ts', args: TSX, env: { BENCH_CALLS: '5', BENCH_ROUNDS: '1' }, figures: 3 },
  { file: 'catalog.ts', args: TSX, env: { BENCH_READS: '3' }, figures: 2 },
  { file: 'scale.ts', args: TSX, env: { BENCH_SCALE_SERVERS: '2', BENCH_SCALE_TOOLS: '3', BENCH_SCALE_SAMPLES: '2' }, figures: 5 },
  { file: 'agent.ts', args: TSX, env: { BENCH_TURNS: '2' }, figures: 4 },
  { file: 'renderer-size.ts', args: TSX, env: {}, figures: 2 },
];

function runBench(file: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...args, join(HERE, file)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => done({ code, out, err }));
  });
}

describe('npm run bench', () => {
  it('lists every bench of this folder', () => {
    const listed = [...readFileSync(join(HERE, 'run.ts'), 'utf8').matchAll(/file: '([^']+)'/g)].map((m) => m[1]);
    expect(BENCHES.map((bench) => bench.file).sort()).toEqual([...listed].sort());
  });

  it.each(BENCHES)('$file runs to the end and prints its figures', { timeout: 180_000 }, async ({ file, args = [], env, figures }) => {
    const { code, out, err } = await runBench(file, args, env);
    expect(code, `${file} exited ${code}:\n${err.slice(-2000)}`).toBe(0);
    const printed = out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { name?: unknown; value?: unknown; ratio?: unknown; error?: unknown });
    expect(printed.length, out).toBeGreaterThanOrEqual(figures);
    for (const figure of printed) {
      expect(typeof figure.name, JSON.stringify(figure)).toBe('string');
      expect(figure.error, JSON.stringify(figure)).toBeUndefined();
      // Its measurements: a value and ratio, or (memory) named sizes; none may be NaN or infinite.
      const numbers = Object.values(figure).filter((value) => typeof value === 'number');
      expect(numbers.length, JSON.stringify(figure)).toBeGreaterThan(0);
      expect(numbers.every(Number.isFinite), JSON.stringify(figure)).toBe(true);
    }
  });
});
