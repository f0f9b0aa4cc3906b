import type { AuditEntryView, AuditVerifyView } from '../../../shared/views';
import type { DecisionEntry, OutcomeEntry, VerifyResult } from './audit-log';

/** The Activity page's view of a decision or outcome entry (`AuditEntryViewSchema`); repair entries are shown by verify. */
export function toAuditEntryView(entry: DecisionEntry | OutcomeEntry): AuditEntryView {
  const base = { seq: entry.seq, time: entry.time, kind: entry.type, callId: entry.callId, server: entry.server, tool: entry.tool };
  if (entry.type === 'outcome') {
    return { ...base, caller: '', outcome: entry.outcome, durationMs: entry.durationMs };
  }
  const answer = entry.answer;
  return {
    ...base,
    caller: entry.caller.kind === 'user' ? 'You' : entry.caller.name,
    verdict: entry.final === entry.verdict ? entry.verdict : `${entry.verdict} → ${entry.final}`,
    reasons: [...entry.reasons],
    ...(answer ? { answeredBy: answer.by ? `${answer.how} (${answer.by}${answer.edited ? ', edited' : ''})` : answer.how } : {}),
    arguments: entry.arguments,
    ...(entry.rule ? { rule: `${entry.rule.effect} rule made ${entry.rule.createdAt} for ${entry.rule.fingerprint.slice(0, 12)}` } : {}),
  };
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
