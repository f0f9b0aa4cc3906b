/**
 * Reading the audit log: `readAudit` reads from the end backwards and stops
 * as soon as the page is full, so the Activity page's first page costs the
 * same with a thousand entries or a million. It notes which files to read,
 * and how far, under the log's lock (no append or rotation is half-way), then
 * reads without it (log-snapshot.ts). Verifying the chain is audit-verify.ts;
 * its results are named here too, for the log's readers.
 */
import { promises as fs } from 'node:fs';
import type { Verdict } from '../../../shared/domain';
import type { AuditEntry, ChangeEntry, ClaimsContradictedEntry, DecisionEntry, NetworkEntry, OutcomeEntry, SandboxRefusalEntry } from './entries';
import { closeAll, forEachLineBackwards, openFile, parseEntry, snapshot, type ReaderContext } from './log-snapshot';

export type { AuditNote, AuditProblem, ChainCheck, VerifiedMark, VerifyResult } from './audit-verify';
export type { ReaderContext } from './log-snapshot';

/** A decision with its outcome, as `read()` returns them (newest first). */
export interface AuditRecord {
  decision: DecisionEntry;
  outcome?: OutcomeEntry;
}

/** A row of the Activity page: a call, a network decision, or a change a person made. */
export type ActivityRecord = AuditRecord | { network: NetworkEntry } | { change: ChangeEntry } | { refusal: SandboxRefusalEntry } | { claims: ClaimsContradictedEntry };

/** Filters for `read()`. `decision` matches the policy verdict, or the final allow/deny. */
export interface AuditQuery {
  server?: string;
  tool?: string;
  decision?: Verdict;
  limit?: number;
}

/** Most outcomes whose decision is not yet found that a backwards read keeps (a forged log cannot grow memory). */
const MAX_WAITING_OUTCOMES = 10_000;

/**
 * Records newest first, reading each file from its end backwards in growing
 * chunks, until `limit` records are found (or the log's start).
 */
export async function readAudit(context: ReaderContext, query: AuditQuery, includeNetwork: boolean): Promise<ActivityRecord[]> {
  const limit = query.limit ?? 100;
  const out: ActivityRecord[] = [];
  if (limit <= 0) return out;
  const snap = await snapshot(context);
  const outcomes = new Map<string, OutcomeEntry>();
  const wanted = (entry: AuditEntry): boolean => {
    if (entry.type === 'decision') {
      if (query.server !== undefined && entry.server !== query.server) return false;
      if (query.tool !== undefined && entry.tool !== query.tool) return false;
      if (query.decision !== undefined && entry.verdict !== query.decision && entry.final !== query.decision) return false;
      return true;
    }
    if (entry.type === 'network' && includeNetwork) {
      if (query.server !== undefined && entry.server !== query.server) return false;
      if (query.tool !== undefined) return false;
      if (query.decision === 'ask') return entry.decidedBy === 'person';
      if (query.decision !== undefined && entry.decision !== query.decision) return false;
      return true;
    }
    if (entry.type === 'sandbox' && includeNetwork) {
      if (query.server !== undefined && entry.server !== query.server) return false;
      return query.tool === undefined && (query.decision === undefined || query.decision === 'deny');
    }
    if (entry.type === 'change' && includeNetwork) {
      // A change is no call: a filter on decisions leaves it out; a tool filter matches a rule's tool.
      if (query.server !== undefined && entry.server !== query.server) return false;
      if (query.tool !== undefined && entry.tool !== query.tool) return false;
      return query.decision === undefined;
    }
    if (entry.type === 'claims-contradicted' && includeNetwork) {
      if (query.server !== undefined && entry.server !== query.server) return false;
      if (query.tool !== undefined && entry.tool !== query.tool) return false;
      return query.decision === undefined;
    }
    return false;
  };
  const onLine = (bytes: Buffer): boolean => {
    if (bytes.length === 0) return true;
    const parsed = parseEntry(bytes);
    if (!parsed) return true; // verify() reports it; reading shows what can be read
    const { entry } = parsed;
    if (entry.type === 'outcome') {
      if (outcomes.size >= MAX_WAITING_OUTCOMES) outcomes.delete(outcomes.keys().next().value!);
      if (!outcomes.has(entry.callId)) outcomes.set(entry.callId, entry);
      return true;
    }
    if (entry.type === 'decision') {
      const outcome = outcomes.get(entry.callId);
      outcomes.delete(entry.callId);
      if (wanted(entry)) out.push(outcome ? { decision: entry, outcome } : { decision: entry });
    } else if (wanted(entry)) {
      out.push(entry.type === 'change' ? { change: entry } : entry.type === 'sandbox' ? { refusal: entry } : entry.type === 'claims-contradicted' ? { claims: entry } : { network: entry as NetworkEntry });
    }
    return out.length < limit;
  };
  try {
    for (let i = snap.files.length - 1; i >= 0 && out.length < limit; i--) {
      const file = snap.files[i]!;
      let handle: fs.FileHandle;
      try {
        handle = await openFile(context.dir, file);
      } catch {
        break; // a rotated file removed since: what is older is not reachable in order
      }
      try {
        if (!(await forEachLineBackwards(handle, file.size, onLine))) break;
      } finally {
        if (!file.handle) await handle.close();
      }
    }
  } finally {
    await closeAll(snap.files);
  }
  return out;
}
