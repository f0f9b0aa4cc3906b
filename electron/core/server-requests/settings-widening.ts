/**
 * Which changes to what a server may ask back widen what it may do: a
 * sampling rule closer to "always", more tokens or requests a minute,
 * context from other servers, questions relayed to the app using Airlock.
 * Pure.
 *
 * SECURITY: invariant 1 in reverse — a client process on the owner socket
 * cannot be told from another program running as the person, so it may
 * narrow these settings but not widen them (server-requests-room.ts).
 */
import type { ServerRequestSettings } from '../../../shared/domain';

const SAMPLING_RANK: Record<ServerRequestSettings['sampling']['rule'], number> = { never: 0, ask: 1, always: 2 };
// Where a server's questions go: declined, asked in Airlock, or handed to the app using Airlock (whose answer Airlock does not see asked).
const QUESTIONS_RANK: Record<ServerRequestSettings['elicitation']['answer'], number> = { never: 0, airlock: 1, client: 2 };

/** The changes from `before` to `after` that let the server do more, one line each ("sampling: always (was ask)"); empty when none does. */
export function wideningLines(before: ServerRequestSettings, after: ServerRequestSettings): string[] {
  const lines: string[] = [];
  const wider = (label: string, was: unknown, now: unknown, widens: boolean) => {
    if (widens) lines.push(`${label}: ${String(now)} (was ${String(was)})`);
  };
  wider('sampling', before.sampling.rule, after.sampling.rule, SAMPLING_RANK[after.sampling.rule] > SAMPLING_RANK[before.sampling.rule]);
  wider('sampling may include context', 'no', 'yes', after.sampling.allowContext && !before.sampling.allowContext);
  wider('sampling reply limit (tokens)', before.sampling.maxTokens, after.sampling.maxTokens, after.sampling.maxTokens > before.sampling.maxTokens);
  wider('sampling requests a minute', before.sampling.perMinute, after.sampling.perMinute, after.sampling.perMinute > before.sampling.perMinute);
  wider('questions answered', before.elicitation.answer, after.elicitation.answer, QUESTIONS_RANK[after.elicitation.answer] > QUESTIONS_RANK[before.elicitation.answer]);
  wider('questions a minute', before.elicitation.perMinute, after.elicitation.perMinute, after.elicitation.perMinute > before.elicitation.perMinute);
  return lines;
}
