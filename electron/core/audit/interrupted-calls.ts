/**
 * Recovery: calls that a process allowed and sent, and that never got an
 * outcome because the process is gone (killed, crashed, the machine
 * stopped). The first writer to take over after it gives each the outcome
 * `unknown` — the server may have acted — so the log never leaves a sent
 * call without an end. Only the end of the log is scanned (a bounded number
 * of bytes), and only sessions shown dead (see session.ts) count.
 */
import { join } from 'node:path';
import type { AuditFileSystem } from './audit-fs';
import type { AuditEntry } from './entries';
import { listRotated, readEnd } from './log-files';
import { isSessionDead } from './session';

const RECOVERED_DETAIL = 'Airlock stopped before the call finished; the server may have acted.';

/** Where to look, and who is looking. */
export interface InterruptedScan {
  files: AuditFileSystem;
  dir: string;
  activePath: string;
  /** This process's session: its own calls are not interrupted. */
  session: string;
  /** How far back from the end to look (bytes, across files). */
  budget: number;
}

/**
 * Decisions of processes that are gone, sent (final allow) and without an
 * outcome, near the end of the log: the outcome entries to write for them,
 * in the order of their decisions.
 */
export function interruptedCalls(scan: InterruptedScan): Record<string, unknown>[] {
  const { files, dir, activePath, session } = scan;
  const found: { seq: number; body: Record<string, unknown> }[] = [];
  const ended = new Set<string>();
  const dead = new Map<string, boolean>();
  let budget = scan.budget;
  const paths = [...listRotated(files, dir).map((r) => join(dir, r.name)), activePath].reverse();
  for (const path of paths) {
    if (budget <= 0) break;
    let bytes: Buffer;
    try {
      bytes = readEnd(files, path, budget);
    } catch {
      break;
    }
    budget -= bytes.length;
    const lines = bytes.toString('utf8').split('\n');
    // The first piece may be a partial line when the window started mid-line; the last may be a torn one.
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!;
      if (!line.includes('"callId":"') || line.includes('"callId":""')) continue;
      let entry: AuditEntry;
      try {
        entry = JSON.parse(line) as AuditEntry;
      } catch {
        continue;
      }
      if (entry.type === 'outcome') ended.add(entry.callId);
      else if (entry.type === 'decision' && entry.final === 'allow' && !ended.has(entry.callId) && typeof entry.session === 'string' && entry.session !== session) {
        let gone = dead.get(entry.session);
        if (gone === undefined) dead.set(entry.session, (gone = isSessionDead(entry.session)));
        if (gone) {
          ended.add(entry.callId);
          found.push({
            seq: entry.seq,
            body: { type: 'outcome', callId: entry.callId, server: entry.server, tool: entry.tool, outcome: 'unknown', durationMs: 0, detail: RECOVERED_DETAIL, recovered: true },
          });
        }
      }
    }
  }
  return found.sort((a, b) => a.seq - b.seq).map((x) => x.body);
}
