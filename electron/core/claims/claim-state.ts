/**
 * What Airlock holds about a tool whose behaviour contradicted its claims
 * (`ServerRecord.claimChecks`), as pure functions: how a new contradiction
 * changes it, what the policy is told (`ClaimsFacts`), and the words a
 * person reads. Behaviour only ever withdraws trust: nothing here makes a
 * tool ask less than its claims alone would.
 */
import { ownEntry, type CheckedClaim, type ClaimCheck, type ClaimEvidence, type ServerRecord, type ToolAnnotations } from '../../../shared/domain';
import type { ClaimsCheckView } from '../../../shared/views';
import type { ClaimsFacts } from '../policy/decide';

/** Evidence kept in the store per tool (the audit log keeps all of it). */
export const MAX_KEPT_EVIDENCE = 20;

/** What the claims said, in a person's words ("it only reads"). */
export const CLAIM_WORDS: Record<CheckedClaim, string> = {
  readOnlyHint: 'it only reads',
  destructiveHint: 'it does not delete or overwrite anything',
  openWorldHint: 'it stays on your machine',
};

/** One piece of evidence in a sentence: "created /home/ann/notes/x.txt, though it says it only reads". */
export function evidenceWords(evidence: Pick<ClaimEvidence, 'claim' | 'did' | 'target' | 'allowed' | 'alongside'>): string {
  const target = evidence.target.length > 300 ? `${evidence.target.slice(0, 300)}…` : evidence.target;
  const did = (() => {
    switch (evidence.did) {
      case 'wrote':
        return `created ${target}`;
      case 'changed':
        return `changed ${target}`;
      case 'deleted':
        return `deleted ${target}`;
      case 'renamed':
        return `renamed ${target}`;
      case 'overwrote':
        return `overwrote ${target}`;
      case 'network':
        return `tried to reach ${target}${evidence.allowed ? '' : ' (refused)'}`;
      case 'refused':
        return `tried something its sandbox refused (${target})`;
    }
  })();
  const alongside = evidence.alongside?.length ? ` (other calls to the server were running at the same time — ${evidence.alongside.join(', ')} — so it is counted against each)` : '';
  return `It ${did}, though it says ${CLAIM_WORDS[evidence.claim]}${alongside}.`;
}

/** A contradiction seen now, for `applyContradiction`. */
export interface SeenContradiction {
  claims: readonly CheckedClaim[];
  evidence: readonly ClaimEvidence[];
  fingerprint: string;
  /** ISO time. */
  at: string;
}

/** What a contradiction did to the tool's claims. */
export type ContradictionEffect =
  /** Its claims were trusted and are now withdrawn (the person is told). */
  | 'withdrawn'
  /** They were already withdrawn, awaiting review: more evidence. */
  | 'already-withdrawn'
  /** The person chose not to trust them: more evidence. */
  | 'distrusted'
  /** The person chose to keep trusting them for this definition, and these claims: recorded, not withdrawn again. */
  | 'kept';

/**
 * The tool's state after a contradiction: withdrawn unless it already is
 * (or the person chose not to trust it), or the person chose to keep
 * trusting these very claims of this very definition.
 */
export function applyContradiction(current: ClaimCheck | undefined, seen: SeenContradiction): { check: ClaimCheck; effect: ContradictionEffect } {
  const evidence = [...(current?.evidence ?? []), ...seen.evidence].slice(-MAX_KEPT_EVIDENCE);
  const claims = [...new Set([...(current?.claims ?? []), ...seen.claims])];
  if (current?.state === 'kept' && current.fingerprint === seen.fingerprint && seen.claims.every((claim) => current.claims.includes(claim))) {
    return { check: { ...current, last: seen.at, evidence }, effect: 'kept' };
  }
  if (current?.state === 'withdrawn' || current?.state === 'distrusted') {
    return { check: { ...current, last: seen.at, fingerprint: seen.fingerprint, claims, evidence }, effect: current.state === 'withdrawn' ? 'already-withdrawn' : 'distrusted' };
  }
  // New, or kept for another definition or other claims: withdrawn from now on.
  return { check: { state: 'withdrawn', since: seen.at, last: seen.at, fingerprint: seen.fingerprint, claims, evidence }, effect: 'withdrawn' };
}

/** The tool's claim check, read by own entry (a tool named `constructor` is a tool). */
export function claimCheckOf(record: Pick<ServerRecord, 'claimChecks'>, tool: string): ClaimCheck | undefined {
  return ownEntry(record.claimChecks, tool);
}

/** Whether the policy must not use the tool's claims (withdrawn, or the person chose not to trust them). */
export function claimsUnusable(check: ClaimCheck | undefined): check is ClaimCheck & { state: 'withdrawn' | 'distrusted' } {
  return check !== undefined && (check.state === 'withdrawn' || check.state === 'distrusted');
}

/** What `decide()` is told about the tool's claims (undefined: they may be used as usual). */
export function claimsFactsOf(record: Pick<ServerRecord, 'claimChecks'>, tool: string): ClaimsFacts | undefined {
  const check = claimCheckOf(record, tool);
  if (!claimsUnusable(check)) return undefined;
  const since = Date.parse(check.since);
  return {
    state: check.state,
    // SECURITY: an unreadable time fails closed — every rule and session permission counts as made before it.
    since: Number.isNaN(since) ? Number.POSITIVE_INFINITY : since,
    evidence: check.evidence.slice(-2).map(evidenceWords),
  };
}

/** The annotations the policy may read for a tool: none at all while its claims are withdrawn or distrusted. */
export function usableAnnotations(record: Pick<ServerRecord, 'claimChecks'>, tool: string, annotations: ToolAnnotations | undefined): ToolAnnotations | undefined {
  return claimsUnusable(claimCheckOf(record, tool)) ? undefined : annotations;
}

/** How many tools of a server wait for the person's review (their claims withdrawn). */
export function claimsToReview(record: Pick<ServerRecord, 'claimChecks'>): number {
  return Object.values(record.claimChecks ?? {}).filter((check) => check.state === 'withdrawn').length;
}

/** The view of a tool's claim check: what Airlock does now, and the evidence (newest first). */
export function claimsCheckView(check: ClaimCheck): ClaimsCheckView {
  const summary =
    check.state === 'withdrawn'
      ? 'Airlock no longer uses its claims: it asks before each call, whatever the server’s trust or sandbox, and an “always allow” given before asks again — until you review what it did.'
      : check.state === 'distrusted'
        ? 'You chose not to trust its claims: Airlock treats it as a tool that says nothing about itself.'
        : 'You chose to keep trusting its claims for this definition after reviewing what it did; what it does against them is still recorded.';
  return {
    state: check.state,
    summary,
    claims: [...check.claims],
    since: check.since,
    last: check.last,
    evidence: [...check.evidence].reverse().map((item) => ({ ...item, words: evidenceWords(item) })),
    ...(check.reviewed ? { reviewed: { ...check.reviewed } } : {}),
  };
}
