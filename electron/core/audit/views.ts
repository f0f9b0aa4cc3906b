import type { AuditEntryView, AuditVerifyView } from '../../../shared/views';
import { inertText } from '../servers/log-ring';
import type { ActivityRecord, AuditAnswer, AuditRecord, ChangeEntry, ChangeKind, ClaimsContradictedEntry, DecisionEntry, NetworkEntry, SandboxRefusalEntry, VerifyResult } from './audit-log';

/**
 * One call (its decision and, once written, its outcome) as rows for the
 * Activity page and `airlock audit`, newest first. The words say what
 * happened, not what the policy first thought (issue 11.8): "allowed: your
 * own call (command line)", "refused: nobody could be asked", "allowed after
 * you answered in the terminal", "denied: nobody answered in time".
 *
 * SECURITY: names are data — who called is worded by the caller's kind,
 * which only the owner assigns; a client's name is quoted as the app's and
 * made inert, so an app calling itself "You" never reads like the person.
 */
export function toAuditEntryViews(record: AuditRecord): AuditEntryView[] {
  const { decision, outcome } = record;
  const caller = auditCallerLabel(decision.caller);
  const callerKind = kindOf(decision.caller);
  const rows: AuditEntryView[] = [];
  if (outcome) {
    rows.push({
      seq: outcome.seq,
      time: outcome.time,
      kind: 'outcome',
      callId: outcome.callId,
      caller,
      callerKind,
      server: outcome.server,
      tool: outcome.tool,
      outcome: outcome.outcome,
      // A call whose process stopped has no duration to show.
      ...(outcome.recovered ? {} : { durationMs: outcome.durationMs }),
      ...(outcome.detail ? { reasons: [outcome.detail] } : {}),
    });
  }
  const answer = decision.answer ?? undefined;
  const answeredBy = answerWords(answer);
  rows.push({
    seq: decision.seq,
    time: decision.time,
    kind: 'decision',
    callId: decision.callId,
    caller,
    callerKind,
    server: decision.server,
    tool: decision.tool,
    verdict: verdictWords(decision),
    reasons: [...decision.reasons],
    ...(answeredBy ? { answeredBy } : {}),
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
          entry.reason === 'no-credential'
            ? "The connection to this server's proxy came without the server's credential (another program on this computer, or another sandboxed server); nothing was dialled."
            : entry.reason === 'non-public-address'
            ? 'The name is, or resolves to, a private, loopback or link-local address.'
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
    callerKind: 'unknown',
    server: entry.server,
    tool: '',
    target: `${entry.host.includes(':') ? `[${entry.host}]` : entry.host}:${entry.port}`,
    verdict,
    reasons: [
      reason,
      ...(entry.repeats ? [`This entry counts ${entry.repeats + 1} identical requests, decided the same way in the minute before it.`] : []),
      ...(entry.otherHosts ? [`This entry counts requests for ${entry.otherHosts} other hosts in the minute before it, decided the same way; the last one is named. A server asking for that many names may be spelling something out in them.`] : []),
    ],
    ...(entry.repeats ? { repeats: entry.repeats } : {}),
  };
}

const CHANGE_WORDS: Record<ChangeKind, string> = {
  'rule-added': 'rule added',
  'rule-removed': 'rule removed',
  'rules-revoked': 'rules revoked',
  trust: 'trust changed',
  grants: 'grants changed',
  unsandboxed: 'sandbox consent changed',
  'policy-mode': 'policy mode changed',
  'strict-durability': 'strict durability changed',
  'server-requests': 'what it may ask changed',
  'tool-approved': 'tool approved',
  'screen-approved': 'screen approved',
  'code-approved': 'new code approved',
  'server-added': 'server added',
  'server-updated': 'server updated',
  'server-removed': 'server removed',
  'managed-policy': "organisation's policy",
  'audit-export': 'audit log streaming changed',
  'claims-reviewed': 'claims reviewed',
};

/**
 * A change a person made as a row: who ("You (window)", "You (command
 * line)"), what kind of change ("grants changed"), and what changed, line by
 * line. A setting has no server ('').
 */
export function toChangeView(entry: ChangeEntry): AuditEntryView {
  const via = entry.via === 'confirmation' ? ', answering a confirmation' : entry.via === 'network-question' ? ', answering a network question' : '';
  return {
    seq: entry.seq,
    time: entry.time,
    kind: 'change',
    callId: '',
    caller: entry.by === 'organisation' ? 'Your organisation' : `You (${entry.by === 'command-line' ? 'command line' : 'window'}${via})`,
    callerKind: entry.by === 'command-line' ? 'cli' : entry.by === 'organisation' ? 'unknown' : 'user',
    server: entry.server,
    tool: entry.tool,
    verdict: CHANGE_WORDS[entry.change] ?? 'changed',
    changes: Array.isArray(entry.changes) ? entry.changes.map((line) => inertText(String(line))) : [],
  };
}

/** A refusal the operating system's sandbox reported, as a row for the Activity page. */
export function toRefusalView(entry: SandboxRefusalEntry): AuditEntryView {
  return {
    seq: entry.seq,
    time: entry.time,
    kind: 'sandbox',
    callId: '',
    caller: 'the server itself',
    callerKind: 'unknown',
    server: entry.server,
    tool: '',
    verdict: 'refused by the sandbox',
    reasons: ["The operating system's sandbox refused what the server tried (its own words follow)."],
    target: inertText(String(entry.detail)),
    ...(entry.repeats ? { repeats: entry.repeats } : {}),
  };
}

const CLAIM_WORDS: Record<string, string> = {
  readOnlyHint: 'it only reads',
  destructiveHint: 'it does not delete or overwrite anything',
  openWorldHint: 'it stays on your machine',
};
const DID_WORDS: Record<string, string> = {
  wrote: 'created',
  changed: 'changed',
  deleted: 'deleted',
  renamed: 'renamed',
  overwrote: 'overwrote',
  network: 'tried to reach',
  refused: 'tried something its sandbox refused:',
};
const CLAIMS_EFFECT_WORDS: Record<string, string> = {
  withdrawn: 'claims contradicted: no longer used until you review',
  'already-withdrawn': 'claims contradicted again (already not used)',
  distrusted: 'claims contradicted again (you chose not to trust them)',
  kept: 'claims contradicted again (you chose to keep trusting them)',
};

/**
 * A tool that did, during a call, something its claims say it does not, as
 * a row: what it did, one line each ("created /srv/notes/x.txt, though it
 * says it only reads"), and what followed. Paths and hosts are the server's
 * doing: data, made inert.
 */
export function toClaimsView(entry: ClaimsContradictedEntry): AuditEntryView {
  const evidence = Array.isArray(entry.evidence) ? entry.evidence : [];
  return {
    seq: entry.seq,
    time: entry.time,
    kind: 'claims',
    callId: entry.callId,
    caller: 'the server itself',
    callerKind: 'unknown',
    server: entry.server,
    tool: entry.tool,
    verdict: CLAIMS_EFFECT_WORDS[entry.effect] ?? 'claims contradicted',
    reasons: [
      'Airlock watched what the server did while this call ran (its network attempts, the changes in the folders it may write) and set it against what the tool claims.',
      ...(evidence.some((item) => item.alongside?.length) ? ['Other calls to the server were running at the same time: what it did is counted against each of them.'] : []),
      ...(entry.more ? [`It did ${entry.more} more thing(s) in that call that are not listed one by one.`] : []),
    ],
    changes: evidence.map(
      (item) =>
        `${DID_WORDS[item.did] ?? inertText(String(item.did))} ${inertText(String(item.target))}${item.did === 'network' && item.allowed === false ? ' (refused)' : ''}, though it says ${CLAIM_WORDS[item.claim] ?? inertText(String(item.claim))}${item.alongside?.length ? ` (alongside ${item.alongside.map((tool) => inertText(String(tool))).join(', ')})` : ''}`,
    ),
  };
}

/** Rows for the Activity page: calls, network decisions, sandbox refusals, changes and contradicted claims, newest first. */
export function toActivityViews(record: ActivityRecord): AuditEntryView[] {
  if ('network' in record) return [toNetworkView(record.network)];
  if ('refusal' in record) return [toRefusalView(record.refusal)];
  if ('change' in record) return [toChangeView(record.change)];
  if ('claims' in record) return [toClaimsView(record.claims)];
  return toAuditEntryViews(record);
}

/**
 * Who called, by kind: "You (console)" (Airlock's window), "You (command
 * line)" (`airlock call`), "app “Claude Desktop”" (a gateway client, its
 * name quoted and inert), "Airlock's agent (model)". Entries written before
 * callers were typed (`{ kind: 'agent', name }` was a gateway client) read
 * as apps.
 */
export function auditCallerLabel(caller: unknown): string {
  const c = (caller && typeof caller === 'object' ? caller : {}) as Record<string, unknown>;
  const text = (value: unknown, fallback: string) => (typeof value === 'string' && value.length > 0 ? inertText(value.slice(0, 200)) : fallback);
  switch (kindOf(caller)) {
    case 'user':
      return 'You (console)';
    case 'cli':
      return 'You (command line)';
    case 'client':
      return `app “${text(c.name, 'unnamed')}”`;
    case 'agent':
      return `Airlock's agent (${text(c.model, 'unknown model')})`;
    case 'screen':
      return `${text(c.server, 'a server')}'s screen`;
    default:
      return 'an unknown caller';
  }
}

function kindOf(caller: unknown): AuditEntryView['callerKind'] {
  const c = (caller && typeof caller === 'object' ? caller : {}) as Record<string, unknown>;
  if (c.kind === 'user' || c.kind === 'cli' || c.kind === 'client' || c.kind === 'screen') return c.kind;
  // Before callers were typed, a gateway client was recorded as { kind: 'agent', name }.
  if (c.kind === 'agent') return typeof c.model === 'string' ? 'agent' : 'client';
  return 'unknown';
}

const SHELL_WORDS: Record<string, string> = { window: 'in the window', terminal: 'in the terminal', gateway: 'in the terminal' };

/** What happened to the call, in words. */
function verdictWords(decision: DecisionEntry): string {
  const allowed = decision.final === 'allow';
  // Nobody refused it: the server was not there to take it.
  if (decision.decidedBy === 'server-not-running') return 'not sent: the server was not running';
  if (decision.verdict !== 'ask') return allowed ? 'allowed' : 'denied';
  const answer = decision.answer ?? undefined;
  switch (answer?.how) {
    case 'own-call':
      return `allowed: your own call (${answer.by === 'command-line' ? 'command line' : 'console'})`;
    case 'console':
      // Written before callers were typed: the person's own call (console or command line).
      return 'allowed: your own call (console)';
    case 'no-approver':
      return 'refused: nobody could be asked';
    case 'expired':
      return 'denied: nobody answered in time';
    case 'cancelled':
      return 'not sent: the confirmation was cancelled';
    case 'refused-token':
      return 'denied: the approval did not match the call';
    case 'allow-once':
    case 'allow-session':
    case 'allow-always':
    case 'deny':
    case 'deny-always': {
      const where = answer.by ? (SHELL_WORDS[answer.by] ?? `(${inertText(answer.by)})`) : '';
      return `${allowed ? 'allowed' : 'denied'} after you answered${where ? ` ${where}` : ''}`;
    }
    default:
      return allowed ? 'allowed' : 'denied';
  }
}

const CHOICE_WORDS: Record<string, string> = {
  'allow-once': 'allow once',
  'allow-session': 'allow for this session',
  'allow-always': 'always allow',
  deny: 'deny',
  'deny-always': 'always deny',
};

/** The answer a person gave ("allow once (terminal), arguments edited"); nothing when nobody answered. */
function answerWords(answer: AuditAnswer | undefined): string | undefined {
  if (!answer) return undefined;
  const choice = CHOICE_WORDS[answer.how];
  if (!choice) return undefined;
  return `${choice}${answer.by ? ` (${inertText(answer.by)})` : ''}${answer.edited ? ', arguments edited' : ''}`;
}

/** The Activity page's view of a verification (`AuditVerifyViewSchema`). */
export function toAuditVerifyView(result: VerifyResult & { scope?: 'all' | 'new' }): AuditVerifyView {
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
    ...(result.scope ? { scope: result.scope } : {}),
  };
}
