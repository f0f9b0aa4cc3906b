/**
 * Group commit (issue 15): an append is written (write(2) returned) before it
 * resolves; its fsync starts within the window; `flushed` waits for an fsync
 * that covers it; concurrent callers share one lock and one write; faults
 * (ENOSPC, a write cut short, a failing fsync) reject and are recovered from.
 * The file operations are the real ones, recorded.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVE_FILE, AuditLog, AuditWriteError, DEFAULT_FLUSH_WINDOW_MS, type DecisionInput } from '../../../electron/core/audit/audit-log';
import { manualTimer, recordingFs } from './support/recording-fs';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'airlock-durability-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const input = (i: number): DecisionInput => ({
  caller: { kind: 'client', name: 'Claude' },
  server: 'files',
  tool: 'read_text_file',
  fingerprint: null,
  arguments: { i },
  verdict: 'allow',
  final: 'allow',
  reasons: ['test'],
});

function setup() {
  const dir = tempDir();
  const fs = recordingFs();
  const timer = manualTimer();
  const log = new AuditLog({ dir, fs, timer, key: undefined });
  return { dir, fs, timer, log };
}

const logWrites = (events: ReturnType<typeof recordingFs>['events']) => events.filter((e) => e.op === 'write' && e.file === ACTIVE_FILE);
const logSyncs = (events: ReturnType<typeof recordingFs>['events']) => events.filter((e) => e.op === 'fsync' && e.file === ACTIVE_FILE);

describe('AuditLog durability', () => {
  it('written: on disk (in the OS) when it resolves, not yet fsynced; the fsync is armed within the window and covers it', async () => {
    const { dir, fs, timer, log } = setup();
    const entry = await log.appendDecision(input(1));
    expect(readFileSync(join(dir, ACTIVE_FILE), 'utf8')).toContain(entry.hash);
    expect(logWrites(fs.events)).toHaveLength(1);
    expect(logSyncs(fs.events)).toHaveLength(0);
    expect(timer.armed).toHaveLength(1);
    expect(timer.armed[0]!.ms).toBeLessThanOrEqual(DEFAULT_FLUSH_WINDOW_MS);
    expect(DEFAULT_FLUSH_WINDOW_MS).toBeLessThanOrEqual(100);
    timer.fire();
    await log.flush();
    const ops = fs.events.map((e) => `${e.op}:${e.file}`);
    // The log is flushed after its write, and before the head that names it.
    expect(ops.indexOf(`fsync:${ACTIVE_FILE}`)).toBeGreaterThan(ops.indexOf(`write:${ACTIVE_FILE}`));
    expect(ops.lastIndexOf('fsync:audit.head.json')).toBeGreaterThan(ops.indexOf(`fsync:${ACTIVE_FILE}`));
  });

  it('one timer for many writes: everything written before it fires is flushed by one fsync', async () => {
    const { fs, timer, log } = setup();
    for (let i = 0; i < 5; i++) await log.appendDecision(input(i));
    expect(timer.armed).toHaveLength(1);
    timer.fire();
    await log.flush();
    expect(logSyncs(fs.events)).toHaveLength(1);
  });

  it('flushed: resolves only after an fsync that started after its write', async () => {
    const { fs, log } = setup();
    const release = fs.holdFsyncs();
    let resolved = false;
    const pending = log.appendDecision(input(1), { durability: 'flushed' }).then((e) => ((resolved = true), e));
    await new Promise((r) => setTimeout(r, 20));
    expect(logWrites(fs.events)).toHaveLength(1);
    expect(resolved).toBe(false);
    release();
    await pending;
    const ops = fs.events.map((e) => `${e.op}:${e.file}`);
    expect(ops.indexOf(`fsync:${ACTIVE_FILE}`)).toBeGreaterThan(ops.indexOf(`write:${ACTIVE_FILE}`));
  });

  it('eight concurrent callers share one lock and one write', async () => {
    const { fs, log } = setup();
    await log.appendDecision(input(0));
    const before = fs.events.length;
    const entries = await Promise.all(Array.from({ length: 8 }, (_, i) => log.appendDecision(input(i + 1))));
    expect(entries.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const batch = fs.events.slice(before);
    // The lock is taken once at most (usually still held from the first append: a lease).
    expect(batch.filter((e) => e.op === 'write' && e.file === 'audit.lock').length).toBeLessThanOrEqual(1);
    expect(logWrites(batch)).toHaveLength(1);
    expect(logWrites(batch)[0]!.text!.split('\n').filter(Boolean)).toHaveLength(8);
    expect((await log.verify()).ok).toBe(true);
  });

  it('a full disk rejects with a message that says so, and the next append works once space returns', async () => {
    const { fs, log } = setup();
    await log.appendDecision(input(1));
    fs.failNext('write', { code: 'ENOSPC', file: ACTIVE_FILE });
    const failed = log.appendDecision(input(2));
    await expect(failed).rejects.toBeInstanceOf(AuditWriteError);
    await expect(failed).rejects.toMatchObject({ problem: 'disk-full', message: expect.stringMatching(/disk .* is full/) });
    const next = await log.appendDecision(input(3));
    expect(next.seq).toBe(2);
    expect(await log.verify()).toMatchObject({ ok: true, entries: 2 });
  });

  it('a write cut short by a full disk is sealed by the next append; nothing written after it is lost', async () => {
    const { dir, fs, log } = setup();
    await log.appendDecision(input(1));
    fs.failNext('write', { partialBytes: 40, file: ACTIVE_FILE });
    await expect(log.appendDecision(input(2))).rejects.toMatchObject({ problem: 'disk-full' });
    expect(readFileSync(join(dir, ACTIVE_FILE), 'utf8').endsWith('\n')).toBe(false);
    const next = await log.appendDecision(input(3));
    expect(next.arguments).toEqual({ i: 3 });
    const result = await log.verify();
    expect(result).toMatchObject({ ok: true, entries: 3, repaired: [{ file: ACTIVE_FILE, line: 2 }] });
  });

  it('a seal that is itself cut short is sealed whole by the next one', async () => {
    const { fs, log } = setup();
    await log.appendDecision(input(1));
    fs.failNext('write', { partialBytes: 40, file: ACTIVE_FILE });
    await expect(log.appendDecision(input(2))).rejects.toThrow();
    fs.failNext('write', { partialBytes: 30, file: ACTIVE_FILE });
    await expect(log.appendDecision(input(3))).rejects.toThrow();
    await log.appendDecision(input(4));
    expect(await log.verify()).toMatchObject({ ok: true, entries: 3, repaired: [{ line: 2 }] });
  });

  it('a seal that fails outright (the disk still full) is written by the next append, never skipped', async () => {
    const { fs, log } = setup();
    await log.appendDecision(input(1));
    fs.failNext('write', { partialBytes: 40, file: ACTIVE_FILE });
    await expect(log.appendDecision(input(2))).rejects.toThrow();
    fs.failNext('write', { code: 'ENOSPC', file: ACTIVE_FILE });
    await expect(log.appendDecision(input(3))).rejects.toMatchObject({ problem: 'disk-full' });
    // At once: no time for a periodic re-check to notice.
    await log.appendDecision(input(4));
    expect(await log.verify()).toMatchObject({ ok: true, entries: 3, repaired: [{ line: 2 }] });
  });

  it('a failing fsync rejects flushed appends, and nothing more is accepted until a flush succeeds', async () => {
    const { fs, timer, log } = setup();
    fs.failNext('fsync', { code: 'EIO', file: ACTIVE_FILE });
    await expect(log.appendDecision(input(1), { durability: 'flushed' })).rejects.toMatchObject({ message: expect.stringMatching(/flush its audit log/) });
    // The next append flushes first (now succeeding), then writes.
    const next = await log.appendDecision(input(2));
    expect(next.seq).toBe(2);
    timer.fire();
    await log.flush();
    expect(logSyncs(fs.events).length).toBeGreaterThanOrEqual(1);
  });

  it('close() flushes what was written', async () => {
    const { fs, log } = setup();
    await log.appendDecision(input(1));
    await log.close();
    expect(logSyncs(fs.events)).toHaveLength(1);
  });
  describe('an outcome left for after the turn (afterThisTurn)', () => {
    const outcome = (callId: string) => ({ callId, server: 'files', tool: 'read_text_file', outcome: 'ok' as const, durationMs: 1 });
    const linesOf = (dir: string) => readFileSync(join(dir, ACTIVE_FILE), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; callId?: string });

    it('is not written before the turn ends, and is written, chained, once it is over', async () => {
      const { dir, fs, log } = setup();
      const decision = await log.appendDecision(input(1));
      const later = log.appendOutcome(outcome(decision.callId), { afterThisTurn: true });
      // Microtasks of this turn run, and the caller goes on: still nothing new on disk.
      for (let i = 0; i < 20; i++) await Promise.resolve();
      expect(logWrites(fs.events)).toHaveLength(1);
      await new Promise((resolve) => setImmediate(resolve));
      const entry = await later;
      expect(logWrites(fs.events)).toHaveLength(2);
      expect(entry).toMatchObject({ seq: 2, prevHash: decision.hash });
      expect(linesOf(dir).map((line) => line.type)).toEqual(['decision', 'outcome']);
      expect(await log.verify()).toMatchObject({ ok: true, entries: 2 });
    });

    it('a later decision of the same turn is not held behind it: written first, the outcome after', async () => {
      const { dir, log } = setup();
      const first = await log.appendDecision(input(1));
      const later = log.appendOutcome(outcome(first.callId), { afterThisTurn: true });
      const second = await log.appendDecision(input(2));
      expect(second.seq).toBe(2);
      await later;
      expect(linesOf(dir).map((line) => line.type)).toEqual(['decision', 'decision', 'outcome']);
    });

    it('a reader, a flush and close of this log write it first', async () => {
      const { dir, fs, log } = setup();
      const decision = await log.appendDecision(input(1));
      void log.appendOutcome(outcome(decision.callId), { afterThisTurn: true });
      const [record] = await log.read();
      expect(record).toMatchObject({ decision: { callId: decision.callId }, outcome: { outcome: 'ok' } });

      void log.appendOutcome(outcome('flushed-call'), { afterThisTurn: true });
      await log.flush();
      expect(fs.events.filter((e) => e.op === 'fsync' && e.file === ACTIVE_FILE).length).toBeGreaterThan(0);
      expect(readFileSync(join(dir, ACTIVE_FILE), 'utf8')).toContain('flushed-call');

      void log.appendOutcome(outcome('closed-call'), { afterThisTurn: true });
      await log.close();
      expect(readFileSync(join(dir, ACTIVE_FILE), 'utf8')).toContain('closed-call');
    });

    it('a process that exits in the same turn (process.exit) still writes it, and the chain verifies', async () => {
      const dir = tempDir();
      const run = spawnSync(process.execPath, ['--import', 'tsx', resolve(__dirname, 'fixtures/outcome-then-exit.ts'), dir], { cwd: resolve(__dirname, '../../..'), encoding: 'utf8', timeout: 60_000 });
      expect(run.status, run.stderr).toBe(0);
      const lines = linesOf(dir);
      expect(lines.map((line) => line.type)).toEqual(['decision', 'outcome']);
      expect(lines[1]!.callId).toBe(lines[0]!.callId);
      expect(await new AuditLog({ dir, key: undefined }).verify()).toMatchObject({ ok: true, entries: 2 });
    });

    it('a failure to write it rejects its promise (the caller already went on) and the next append works', async () => {
      const { fs, log } = setup();
      const decision = await log.appendDecision(input(1));
      fs.failNext('write', { code: 'ENOSPC', file: ACTIVE_FILE });
      await expect(log.appendOutcome(outcome(decision.callId), { afterThisTurn: true })).rejects.toMatchObject({ problem: 'disk-full' });
      expect((await log.appendDecision(input(2))).seq).toBe(2);
    });

    it('strict (flushed) durability is never left for later', async () => {
      const { fs, timer, log } = setup();
      const decision = await log.appendDecision(input(1));
      const flushed = log.appendOutcome(outcome(decision.callId), { durability: 'flushed', afterThisTurn: true });
      for (let i = 0; i < 20; i++) await Promise.resolve();
      expect(logWrites(fs.events)).toHaveLength(2);
      timer.fire();
      await flushed;
      expect(logSyncs(fs.events).length).toBeGreaterThan(0);
    });
  });
});
