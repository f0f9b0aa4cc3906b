/**
 * Audit log figures for `npm run bench` (issue 15), each with a baseline
 * measured in the same run:
 * - appends per second with 8 concurrent callers in one process, as the
 *   choke point appends (written before the call, flushed within the
 *   window) — against 8 callers doing a bare write(2) of lines of the same size;
 * - the same with every append flushed before it resolves (strict
 *   durability) — against a bare write + fsync per line;
 * - `verify` entries per second over a log of many files — against
 *   JSON.parse of the same lines;
 * - the Activity page's check after an append (only what is new) on that
 *   log — against a whole verify of it;
 * - the Activity page's first page (`read({ limit: 200 })`) with 1,000,000
 *   entries: time and peak RSS growth, in a fresh process — against the same
 *   first page of a 1,000-entry log.
 * Prints one JSON object per figure. BENCH_AUDIT_ENTRIES changes the size of
 * the large log (default 1,000,000).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog, type DecisionInput } from '../../electron/core/audit/audit-log';
import { canonicalJson, sha256OfCanonical } from '../../electron/core/tools/canonical-json';

const LARGE = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000);
const round = (value: number) => Math.round(value * 1000) / 1000;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const figure = (name: string, value: number, baseline: number, extra: Record<string, unknown>) =>
  console.log(JSON.stringify({ name, value: round(value), baseline: round(baseline), ratio: round(value / baseline), ...extra }));

const input: DecisionInput = {
  caller: { kind: 'client', name: 'bench' },
  server: 'files',
  tool: 'read_text_file',
  fingerprint: 'a'.repeat(64),
  arguments: { path: '/home/me/notes.md' },
  verdict: 'allow',
  final: 'allow',
  reasons: ['You trust this server, and it says this tool only reads.'],
};

async function callers(n: number, perCaller: number, one: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: n }, async () => {
      for (let i = 0; i < perCaller; i += 1) await one();
    }),
  );
  return (n * perCaller) / ((performance.now() - started) / 1000);
}

/** Appends/s with 8 callers, as the pipeline appends (durability as given), against bare writes of the same size. */
async function concurrentAppends(strict: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-audit-'));
  try {
    const perCaller = strict ? 150 : 1500;
    const runs: number[] = [];
    const base: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const log = new AuditLog({ dir: join(dir, `log-${round}`) });
      // `durability` is ignored by an AuditLog that fsyncs every append (the code before issue 15).
      const options = { durability: strict ? 'flushed' : 'written' } as never;
      const append = () => (log.appendDecision as (i: DecisionInput, o?: unknown) => Promise<unknown>)(input, options);
      await append();
      runs.push(await callers(8, perCaller, append));
      const size = readFileSync(join(dir, `log-${round}`, 'audit.jsonl')).length / (8 * perCaller + 1);
      const line = Buffer.from(`${'x'.repeat(Math.max(1, Math.round(size) - 1))}\n`);
      const fd = openSync(join(dir, `plain-${round}.jsonl`), 'a');
      base.push(
        await callers(8, perCaller, async () => {
          writeSync(fd, line);
          if (strict) fsyncSync(fd);
        }),
      );
      closeSync(fd);
      await (log as { close?: () => Promise<void> }).close?.();
    }
    figure(strict ? 'audit-appends-per-second-8-callers-strict' : 'audit-appends-per-second-8-callers', median(runs), median(base), {
      unit: 'entries/s',
      goal: strict ? 'reported' : '>= 5000',
      note: strict ? 'every append fsynced before it resolves (group commit shares an fsync among waiting callers); baseline: bare write + fsync per line' : 'written before resolving, fsynced within the window; baseline: bare write(2) of the same lines',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Writes a log of `count` entries (decision, outcome, decision, …) straight
 * to files in the on-disk format, rotated at 8 MiB, with its head — far
 * faster than appending one by one, and independent of the writer under test.
 */
function generateLog(dir: string, count: number): void {
  mkdirSync(dir, { recursive: true });
  let prevHash = '0'.repeat(64);
  let file = 1;
  let buffer: string[] = [];
  let bytes = 0;
  const flush = (name: string) => {
    writeFileSync(join(dir, name), buffer.join(''));
    buffer = [];
    bytes = 0;
  };
  const time = Date.parse('2026-12-01T00:00:00Z');
  let callId = '';
  for (let seq = 1; seq <= count; seq += 1) {
    const decision = seq % 2 === 1;
    if (decision) callId = `call-${seq}`;
    const body = decision
      ? {
          type: 'decision',
          callId,
          server: seq % 6 === 1 ? 'memory' : 'files',
          tool: 'read_text_file',
          caller: { kind: 'client', name: 'bench' },
          fingerprint: 'a'.repeat(64),
          arguments: { path: `/home/me/notes-${seq}.md` },
          redacted: [],
          argumentsDigest: sha256OfCanonical({ seq }),
          verdict: 'allow',
          final: 'allow',
          reasons: ['You trust this server, and it says this tool only reads.'],
          decidedBy: 'trusted-read-only',
        }
      : { type: 'outcome', callId, server: (seq - 1) % 6 === 1 ? 'memory' : 'files', tool: 'read_text_file', outcome: 'ok', durationMs: 3 };
    const withoutHash = { v: 1, seq, time: new Date(time + seq).toISOString(), prevHash, ...body };
    const hash = sha256OfCanonical(withoutHash);
    const line = `${canonicalJson({ ...withoutHash, hash })}\n`;
    prevHash = hash;
    buffer.push(line);
    bytes += line.length;
    if (bytes >= 8 * 1024 * 1024) flush(`audit-${String(file++).padStart(6, '0')}.jsonl`);
  }
  flush('audit.jsonl');
  writeFileSync(join(dir, 'audit.head.json'), `${JSON.stringify({ seq: count, hash: prevHash }).padEnd(159, ' ')}\n`);
}

async function verifyRate(dir: string, count: number): Promise<void> {
  const log = new AuditLog({ dir });
  const runs: number[] = [];
  const base: number[] = [];
  for (let r = 0; r < 2; r += 1) {
    let t = performance.now();
    const result = await log.verify();
    if (!result.ok || result.entries !== count) throw new Error(`verify failed in the bench: ${JSON.stringify(result.problem)}`);
    runs.push(count / ((performance.now() - t) / 1000));
    t = performance.now();
    let parsed = 0;
    for (const name of readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
      for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) if (line) parsed += (JSON.parse(line) as { seq: number }).seq > 0 ? 1 : 0;
    }
    base.push(parsed / ((performance.now() - t) / 1000));
  }
  figure('audit-verify-per-second', median(runs), median(base), { unit: 'entries/s', entries: count, goal: '>= 100000', note: 'baseline: JSON.parse of the same lines' });
}

/**
 * The Activity page's check after an append (issue 15, item 6): `verifyNew()`
 * reads only what was appended since the last clean check. Its median time
 * per append on the large log, against one whole `verify()` of it (what each
 * append cost the page before).
 */
async function checkAfterAppend(dir: string, count: number): Promise<void> {
  const log = new AuditLog({ dir });
  try {
    let t = performance.now();
    const whole = await log.verify();
    const wholeMs = performance.now() - t;
    if (!whole.ok) throw new Error(`verify failed in the bench: ${JSON.stringify(whole.problem)}`);
    await log.verifyNew();
    const times: number[] = [];
    for (let i = 0; i < 25; i += 1) {
      const d = await log.appendDecision(input);
      await log.appendOutcome({ callId: d.callId, server: d.server, tool: d.tool, outcome: 'ok', durationMs: 1 });
      await log.flush();
      t = performance.now();
      const result = await log.verifyNew();
      times.push(performance.now() - t);
      if (!result.ok || result.scope !== 'new' || result.entries !== count + 2 * (i + 1)) throw new Error(`the check after an append failed: ${JSON.stringify(result)}`);
    }
    figure('activity-check-after-append-ms', median(times), wholeMs, {
      unit: 'ms',
      entries: count,
      goal: 'independent of the log\'s length (not a whole verify per append)',
      note: 'verifyNew() after one call (2 entries) appended; baseline: verify() of the whole log, what the Activity page did per append before',
    });
  } finally {
    await log.close();
  }
}

/** The first page read in a fresh process: its time and peak RSS growth. */
function firstPage(dir: string): { ms: number; rssGrowthMb: number; records: number } {
  const script = `
    const { AuditLog } = await import(${JSON.stringify(join(import.meta.dirname, '../../electron/core/audit/audit-log.ts'))});
    const log = new AuditLog({ dir: ${JSON.stringify(dir)} });
    const before = process.memoryUsage().rss;
    const t = performance.now();
    const records = await log.read({ limit: 200 });
    const ms = performance.now() - t;
    const peak = process.resourceUsage().maxRSS * 1024;
    console.log(JSON.stringify({ ms, rssGrowthMb: (peak - before) / 1048576, records: records.length }));
  `;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (result.status !== 0) throw new Error(`first-page child failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { ms: number; rssGrowthMb: number; records: number };
}

async function scale(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'airlock-bench-scale-'));
  try {
    const small = join(root, 'small');
    const large = join(root, 'large');
    generateLog(small, 1000);
    const started = performance.now();
    generateLog(large, LARGE);
    const generatedIn = (performance.now() - started) / 1000;
    const smallRuns = [firstPage(small), firstPage(small), firstPage(small)];
    const largeRuns = [firstPage(large), firstPage(large), firstPage(large)];
    if (largeRuns.some((run) => run.records !== 200)) throw new Error('the first page did not hold 200 calls');
    figure('activity-first-page-ms-1m-entries', median(largeRuns.map((r) => r.ms)), median(smallRuns.map((r) => r.ms)), {
      unit: 'ms',
      entries: LARGE,
      files: readdirSync(large).filter((x) => x.endsWith('.jsonl')).length,
      goal: '<= 200 ms',
      note: `read({ limit: 200 }) in a fresh process; baseline: the same page of a 1,000-entry log (log generated in ${round(generatedIn)} s)`,
    });
    figure('activity-first-page-rss-growth-mb-1m-entries', median(largeRuns.map((r) => r.rssGrowthMb)), median(smallRuns.map((r) => r.rssGrowthMb)), {
      unit: 'MB',
      entries: LARGE,
      goal: '<= 50 MB',
      note: 'peak RSS growth of the reading process; baseline: a 1,000-entry log',
    });
    await verifyRate(large, LARGE);
    await checkAfterAppend(large, LARGE);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await concurrentAppends(false);
await concurrentAppends(true);
await scale();
