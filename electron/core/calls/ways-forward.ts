/**
 * What a person can do when a call needs their confirmation and nothing
 * could ask them (the Airlock app is closed; the app that called has no
 * terminal of Airlock's): the ways forward that would really let this call
 * through, worked out from the decision — never a suggestion that would not
 * help (trust for a tool that changes things, a rule in strict mode). Each
 * command is one a person can run as shown.
 *
 * SECURITY: invariant 1 — these are the person's choices, said in words an
 * AI app passes on to its user; each command still asks the person on their
 * terminal (a rule for a destructive tool asks twice), and nothing here
 * changes a decision.
 */
import type { PolicyMode, ServerRecord } from '../../../shared/domain';
import { REASONS, type Decision } from '../policy/decide';
import { inertLine } from '../servers/log-ring';

/** One way forward: what to do, and the command that does it (when there is one). */
export interface WayForward {
  kind: 'open-app' | 'rule' | 'trust' | 'approve-code' | 'review-claims';
  /** What it does, in a person's words. */
  words: string;
  /** The command to run in a terminal, exactly as it runs. */
  command?: string;
}

/** A word on a command line as a POSIX shell reads it back (server-chosen names may need quotes). */
export function shellWord(word: string): string {
  const flat = inertLine(word);
  return /^[\w@%+=:,./-]+$/.test(flat) ? flat : `'${flat.replace(/'/g, `'\\''`)}'`;
}

/** The ways forward for a call of `server › tool` that `decision` says must be confirmed. */
export function waysForwardFor(server: string, tool: string, decision: Decision, record: Pick<ServerRecord, 'trusted'>, mode: PolicyMode): WayForward[] {
  const ways: WayForward[] = [{ kind: 'open-app', words: 'open the Airlock app and try again: it asks you there' }];
  const strict = mode === 'strict' || decision.decidedBy.kind === 'strict-mode' || decision.reasons.includes(REASONS.organisationStrict);
  if (strict) return ways;
  if (decision.decidedBy.kind === 'code-changed') {
    ways.push({ kind: 'approve-code', words: `review ${server}'s changed code (\`airlock show ${server}\`), then approve it`, command: `airlock approve ${server} --code` });
    return ways;
  }
  if (decision.flags.claimsWithdrawn) {
    ways.push({
      kind: 'review-claims',
      words: `look at what ${server} › ${inertLine(tool)} did against its claims (\`airlock show ${server} ${shellWord(tool)}\`), and if you still trust them, say so`,
      command: `airlock review-claims ${server} ${shellWord(tool)} keep`,
    });
  }
  if (!decision.flags.alwaysForbiddenByOrganisation) {
    const destructive = decision.confirmationKind === 'destructive';
    ways.push({
      kind: 'rule',
      words: `always allow ${server} › ${inertLine(tool)}, as it is defined now${destructive ? ' (it may delete or overwrite things: Airlock asks you twice)' : ''}`,
      command: `airlock rules add ${server} ${shellWord(tool)} allow`,
    });
  }
  // Trust lets only read-only tools of a server through unasked: offered only where that is what stands in the way.
  if (decision.decidedBy.kind === 'untrusted' && decision.reading?.toolClass === 'read-only' && !record.trusted) {
    ways.push({ kind: 'trust', words: `trust ${server}'s own labels, so its read-only tools run without asking`, command: `airlock trust ${server} on` });
  }
  return ways;
}

/**
 * The refusal an app (Claude, Goose, an editor) receives when nobody could be
 * asked: what happened, then each way forward on its own line.
 */
export function nobodyToAskMessage(server: string, tool: string, decision: Decision, ways: readonly WayForward[]): string {
  const why = confirmationCause(decision);
  return [
    `Airlock did not run ${server} › ${inertLine(tool)}: it needs a person's confirmation (${why}), and nobody could be asked — the Airlock app is not open, and this connection has no terminal to ask on. Nothing was sent to the server.`,
    // What the tool was seen doing (the evidence is Airlock's own reading, already redacted): the person judges by it.
    ...(decision.flags.claimsWithdrawn ? [decision.reasons.slice(0, 2).join(' ')] : []),
    'What the person can do (tell them; these are their choices):',
    ...ways.map((way) => `- ${way.words}${way.command ? `: ${way.command}` : ''}`),
  ].join('\n');
}

/** Why the call must be confirmed, in a few words. */
function confirmationCause(decision: Decision): string {
  if (decision.flags.claimsWithdrawn) return 'the tool did something its claims say it does not, so Airlock no longer relies on them';
  switch (decision.decidedBy.kind) {
    case 'strict-mode':
      return 'strict mode asks for every call';
    case 'code-changed':
      return "the server's code changed since it was approved";
    case 'new-tool':
      return 'the tool was added after the server was reviewed';
    case 'definition-changed':
      return 'the tool changed since it was approved';
    default:
      if (decision.confirmationKind === 'destructive') return 'it may delete or overwrite things';
      if (decision.reading?.toolClass === 'read-only') return 'the server is not trusted';
      return 'it may change things';
  }
}
