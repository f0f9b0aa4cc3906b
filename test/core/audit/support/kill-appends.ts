/**
 * Airlock killed mid-write (issue 16.1, for the audit log): a child appends
 * calls in a loop and is killed with SIGKILL at a random point, again and
 * again. After each kill the next process must find one verifiable chain
 * holding every entry the child reported written, and give each call that
 * was sent but has no outcome the outcome `unknown`. Used by a short test in
 * `npm test` and by `npm run soak`.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { AuditLog } from '../../../../electron/core/audit/audit-log';

const REPO = resolve(import.meta.dirname, '../../../..');
const WORKER = resolve(import.meta.dirname, '../fixtures/append-loop.ts');

export interface AppendKillReport {
  kills: number;
  /** Decisions the children reported written. */
  decisions: number;
  /** Of those, missing after a restart. */
  lost: number;
  /** Calls whose decision was written but whose outcome was not: all must read "unknown". */
  interrupted: number;
  /** Of those, without an outcome after the next process took over. */
  unresolved: number;
  /** Restarts after which the chain did not verify. */
  broken: number;
  /** Torn lines sealed by a repair entry (a kill mid-write). */
  repaired: number;
  entries: number;
}

export async function killDuringAppends(dir: string, kills: number, random: () => number = Math.random): Promise<AppendKillReport> {
  const report: AppendKillReport = { kills: 0, decisions: 0, lost: 0, interrupted: 0, unresolved: 0, broken: 0, repaired: 0, entries: 0 };
  const decided = new Set<string>();
  const ended = new Set<string>();
  for (let k = 0; k < kills; k++) {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, dir], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    const waitFor = 1 + Math.floor(random() * 40);
    await new Promise<void>((done, fail) => {
      let out = '';
      let count = 0;
      let killing = false;
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const lines = out.split('\n');
        out = lines.pop()!;
        for (const line of lines) {
          const [kind, callId] = line.split(' ');
          if (kind === 'd') (decided.add(callId!), (count += 1));
          if (kind === 'o') ended.add(callId!);
        }
        if (count >= waitFor && !killing) {
          killing = true;
          setTimeout(() => child.kill('SIGKILL'), random() * 3);
        }
      });
      child.once('exit', (code, signal) => (signal === 'SIGKILL' ? done() : fail(new Error(`the appending child ended by itself (${code ?? signal})`))));
    });
    report.kills += 1;
    const log = new AuditLog({ dir, maxFileBytes: 64 * 1024 });
    await log.recoverInterrupted();
    const result = await log.verify();
    if (!result.ok) report.broken += 1;
    report.repaired = result.repaired.length;
    report.entries = result.entries;
  }
  // Everything the children reported, against the log as the last process left it.
  const log = new AuditLog({ dir, maxFileBytes: 64 * 1024 });
  const records = new Map((await log.read({ limit: 1_000_000 })).map((r) => [r.decision.callId, r]));
  report.decisions = decided.size;
  for (const callId of decided) {
    const record = records.get(callId);
    if (!record) report.lost += 1;
    else if (!ended.has(callId)) {
      report.interrupted += 1;
      if (!record.outcome || (record.outcome.outcome !== 'unknown' && record.outcome.outcome !== 'ok')) report.unresolved += 1;
    }
  }
  return report;
}
