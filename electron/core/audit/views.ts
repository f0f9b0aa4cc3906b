import { callerLabel } from '../../../shared/domain';
import type { AuditEntryView, AuditVerifyView } from '../../../shared/views';
import type { ActivityRecord, AuditRecord, NetworkEntry, VerifyResult } from './audit-log';

/**
 * One call (its decision and, once written, its outcome) as rows for the
 * Activity page, newest first. The decision reads "allowed", "denied",
 * "allowed after asking" or "denied after asking".
 */
export function toAuditEntryViews(record: AuditRecord): AuditEntryView[] {
  const { decision, outcome } = record;
  const caller = callerLabel(decision.caller);
  const rows: AuditEntryView[] = [];
  if (outcome) {
    rows.push({
      seq: outcome.seq,
      time: outcome.time,
      kind: 'outcome',
      callId: outcome.callId,
      caller,
      server: outcome.server,
      tool: outcome.tool,
      outcome: outcome.outcome,
      // A call whose process stopped has no duration to show.
      ...(outcome.recovered ? {} : { durationMs: outcome.durationMs }),
      ...(outcome.detail ? { reasons: [outcome.detail] } : {}),
    });
  }
  const answer = decision.answer;
  rows.push({
    seq: decision.seq,
    time: decision.time,
    kind: 'decision',
    callId: decision.callId,
    caller,
    server: decision.server,
    tool: decision.tool,
    verdict: `${decision.final === 'allow' ? 'allowed' : 'denied'}${decision.verdict === 'ask' ? ' after asking' : ''}`,
    reasons: [...decision.reasons],
    ...(answer ? { answeredBy: `${answer.how}${answer.by ? ` (${answer.by})` : ''}${answer.edited ? ', arguments edited' : ''}` } : {}),
    arguments: decision.arguments,
    ...(decision.rule ? { rule: `${decision.rule.effect} rule made ${decision.rule.createdAt} for ${decision.rule.fingerprint.slice(0, 12)}` } : {}),
  });
  return rows;
}

/** What a network decision reads as: who decided, in words ("denied by you" is never "nobody could be asked"). */
export function networkVerdict(entry: Pick<NetworkEntry, 'decision' | 'decidedBy' | 'reason' | 'answeredBy'>): { verdict: string; reason: string } {
  const where = entry.answeredBy ? ` (${entry.answeredBy})` : '';
  switch (entry.decidedBy) {
    case 'grant':
      return { verdict: entry.decision === 'allow' ? 'allowed: granted' : 'denied', reason: 'The server has a grant for this host.' };
    case 'person':
      return entry.decision === 'allow'
        ? { verdict: `allowed by you${where}`, reason: 'A person allowed this host when the server asked.' }
        : { verdict: `denied by you${where}`, reason: 'A person denied this host when the server asked.' };
    case 'nobody':
      return {
        verdict: 'denied: nobody could be asked',
        reason:
          entry.reason === 'too-many-questions'
            ? 'The server asked about too many hosts in this run; Airlock stopped asking and denied the rest.'
            : 'No window or terminal could ask a person, or nobody answered in time, so Airlock denied it.',
      };
    case 'policy':
      return { verdict: 'denied: not granted', reason: 'The server has no grant for this host, and may not ask for one at run time (it is contained, or questions are off).' };
    default:
      return {
        verdict: `denied by Airlock`,
        reason:
          entry.reason === 'non-public-address'
            ? 'The name resolves to a private, loopback or link-local address.'
            : entry.reason === 'unresolvable'
              ? 'The name does not resolve.'
              : 'The host is not a plain name or address.',
      };
  }
}

/** A network decision as a row for the Activity page. */
export function toNetworkView(entry: NetworkEntry): AuditEntryView {
  const { verdict, reason } = networkVerdict(entry);
  return {
    seq: entry.seq,
    time: entry.time,
    kind: 'network',
    callId: '',
    caller: 'the server itself',
    server: entry.server,
    tool: '',
    target: `${entry.host.includes(':') ? `[${entry.host}]` : entry.host}:${entry.port}`,
    verdict,
    reasons: [reason, ...(entry.repeats ? [`This entry counts ${entry.repeats + 1} identical requests, decided the same way in the minute before it.`] : [])],
    ...(entry.repeats ? { repeats: entry.repeats } : {}),
  };
}

/** Rows for the Activity page: calls and network decisions, newest first. */
export function toActivityViews(record: ActivityRecord): AuditEntryView[] {
  return 'network' in record ? [toNetworkView(record.network)] : toAuditEntryViews(record);
}

/** The Activity page's view of a verification (`AuditVerifyViewSchema`). */
export function toAuditVerifyView(result: VerifyResult): AuditVerifyView {
  return {
    ok: result.ok,
    entries: result.entries,
    files: result.files.length,
    problems: [
      ...(result.problem ? [{ file: result.problem.file, line: result.problem.line, message: `${result.problem.kind}: ${result.problem.message}` }] : []),
      ...result.repaired.map((r) => ({ ...r, message: 'repaired: an incomplete write was sealed here (a crash or a full disk), not an edit.' })),
      ...result.notes.map((n) => ({ file: n.file, line: n.line, message: `note: ${n.message}` })),
    ],
    end: result.end,
  };
}
