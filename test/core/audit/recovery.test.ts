/**
 * After a crash (issue 16.1, 6a): decisions of an Airlock process that is
 * gone, sent and without an outcome, get the outcome `unknown` ("Airlock
 * stopped before the call finished; the server may have acted") from the
 * next process that writes the log. A process that is still alive keeps its
 * calls open; calls that were denied needed no outcome. Real processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog, type AuditEntry } from '../../../electron/core/audit/audit-log';
import { isSessionDead, newSessionId } from '../../../electron/core/audit/session';
import { killDuringAppends } from './support/kill-appends';

const REPO = resolve(__dirname, '../../..');
const WORKER = resolve(__dirname, 'fixtures/decide-and-die.ts');
const dirs: string[] = [];
const children: ChildProcess[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'airlock-recovery-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Starts the worker; resolves with its callIds once it printed "ready". */
function worker(dir: string, mode: 'exit' | 'hang', final: 'allow' | 'deny', count = 1): Promise<{ child: ChildProcess; callIds: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, dir, mode, final, String(count)], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((done, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready\n')) done({ child, callIds: out.split('\n').filter((l) => l && l !== 'ready') });
    });
    child.once('error', fail);
    child.once('exit', (code) => (out.includes('ready\n') ? undefined : fail(new Error(`worker exited ${code}`))));
  });
}

const exited = (child: ChildProcess) => new Promise<void>((done) => (child.exitCode !== null || child.signalCode !== null ? done() : child.once('exit', () => done())));

async function entries(log: AuditLog): Promise<AuditEntry[]> {
  const records = await log.read({ limit: 1000 });
  return records.flatMap((r) => [r.decision, ...(r.outcome ? [r.outcome] : [])]);
}

describe('unfinished calls of a stopped Airlock', () => {
  it('a process that exited mid-call: the next one records its calls as unknown, once', async () => {
    const dir = tempDir();
    const { child, callIds } = await worker(dir, 'exit', 'allow', 2);
    await exited(child);
    const log = new AuditLog({ dir });
    await log.recoverInterrupted();
    const records = await log.read({ limit: 10 });
    for (const callId of callIds) {
      const record = records.find((r) => r.decision.callId === callId)!;
      expect(record.outcome).toMatchObject({ outcome: 'unknown', recovered: true, detail: 'Airlock stopped before the call finished; the server may have acted.' });
    }
    expect((await log.verify()).ok).toBe(true);
    // A later process finds nothing left to do.
    const again = new AuditLog({ dir });
    await again.recoverInterrupted();
    expect((await entries(again)).filter((e) => e.type === 'outcome')).toHaveLength(2);
  });

  it('a process killed with SIGKILL while its call is in flight: recorded as unknown by the next process', async () => {
    const dir = tempDir();
    const { child, callIds } = await worker(dir, 'hang', 'allow');
    // Alive: its call is still open, and nobody else may close it.
    const watcher = new AuditLog({ dir });
    await watcher.recoverInterrupted();
    expect((await watcher.read())[0]).toEqual({ decision: expect.objectContaining({ callId: callIds[0] }) });
    child.kill('SIGKILL');
    await exited(child);
    const next = new AuditLog({ dir });
    await next.appendDecision({ caller: { kind: 'user' }, server: 'files', tool: 'read', fingerprint: null, arguments: {}, verdict: 'allow', final: 'allow', reasons: [] });
    const record = (await next.read({ limit: 10 })).find((r) => r.decision.callId === callIds[0])!;
    expect(record.outcome).toMatchObject({ outcome: 'unknown', recovered: true });
    expect((await next.verify()).ok).toBe(true);
  });

  it('a denied call needs no outcome: nothing is recorded for it', async () => {
    const dir = tempDir();
    const { child, callIds } = await worker(dir, 'exit', 'deny');
    await exited(child);
    const log = new AuditLog({ dir });
    await log.recoverInterrupted();
    expect((await log.read())[0]).toEqual({ decision: expect.objectContaining({ callId: callIds[0], final: 'deny' }) });
  });
});

describe('sessions', () => {
  it('this process is alive; a pid that does not exist, another boot, or another start time are dead; an id it cannot read is not', () => {
    const mine = newSessionId();
    expect(isSessionDead(mine)).toBe(false);
    const [boot, pid, start, nonce] = mine.split('.');
    expect(isSessionDead(`${boot}.${pid}.${Number(start) + 1}.${nonce}`)).toBe(true);
    expect(isSessionDead(`${boot}.4194000.${start}.${nonce}`)).toBe(true);
    expect(isSessionDead(`000000000000.${pid}.${start}.${nonce}`)).toBe(true);
    expect(isSessionDead('not a session')).toBe(false);
  });
});

describe('Airlock killed while appending (5 times here; 200 in `npm run soak`)', () => {
  it('one verifiable chain every time, nothing reported written is lost, every interrupted call reads unknown', async () => {
    const report = await killDuringAppends(tempDir(), 5);
    expect(report).toMatchObject({ kills: 5, lost: 0, unresolved: 0, broken: 0 });
    expect(report.decisions).toBeGreaterThanOrEqual(5);
  }, 120_000);
});
