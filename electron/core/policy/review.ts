/**
 * Whether the person has seen a thing a server offers, as it is now: a tool
 * today; prompts and resource templates (issue 12) keep an approved set of
 * the same shape and ask the same question. Pure.
 *
 * SECURITY: what the person never saw does not run unasked — an item is
 * `approved` only when the approved set holds it, by its own name (never an
 * inherited property: names are data), at exactly its current fingerprint.
 */
import { ownEntry } from '../../../shared/domain';

/** What an approved set keeps per name (`ApprovedTool` for tools). */
export interface Approval {
  fingerprint: string;
  approvedAt: string;
}

/**
 * - `approved`: the person approved exactly this definition;
 * - `changed`: they approved another definition under this name (a rug pull or an update);
 * - `new`: the name is not in the approved set — it appeared after install (or was never reviewed).
 */
export type ReviewState<A extends Approval> = { kind: 'approved'; approved: A } | { kind: 'changed'; approved: A } | { kind: 'new' };

/** The review state of `name` at `fingerprint` against an approved set keyed by (server-chosen) names. */
export function reviewState<A extends Approval>(approvedSet: Readonly<Record<string, A>> | undefined, name: string, fingerprint: string): ReviewState<A> {
  const approved = ownEntry(approvedSet, name);
  // Anything but a well-formed approval is no approval (fails closed).
  if (!approved || typeof approved !== 'object' || typeof approved.fingerprint !== 'string') return { kind: 'new' };
  return approved.fingerprint === fingerprint ? { kind: 'approved', approved } : { kind: 'changed', approved };
}
