import { callerLabel } from '../../../shared/domain';
import type { AuditEntryView, AuditVerifyView } from '../../../shared/views';
import type { AuditRecord, VerifyResult } from './audit-log';

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
      durationMs: outcome.durationMs,
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

/** The Activity page's view of a verification (`AuditVerifyViewSchema`). */
export function toAuditVerifyView(result: VerifyResult): AuditVerifyView {
  return {
    ok: result.ok,
    entries: result.entries,
    files: result.files.length,
    problems: [
      ...(result.problem ? [{ file: result.problem.file, line: result.problem.line, message: `${result.problem.kind}: ${result.problem.message}` }] : []),
      ...result.repaired.map((r) => ({ ...r, message: 'repaired: an incomplete write was sealed here (a crash or a full disk), not an edit.' })),
    ],
  };
}
