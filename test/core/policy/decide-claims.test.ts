/**
 * decide() for a tool whose behaviour contradicted its claims (the fact is
 * passed in: `facts.claims`), as a table. Its claims are read as absent —
 * trust and containment spare it no prompt — and an "always allow" or a
 * session permission made before the contradiction does not count; one
 * made after does. A deny still denies, strict mode still asks, nothing
 * ever asks less than without the fact.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimsFacts, PolicyFacts } from '../../../electron/core/policy/decide';
import { decide, REASONS } from '../../../electron/core/policy/decide';
import { CHANGES, CONTRADICTORY, DESTRUCTIVE, NOW, READ_ONLY, call, contained, facts, grantFor, ruleFor, tool, uncontained, type FactsInput } from './helpers';

const SINCE = NOW - 60_000;
const withdrawn: ClaimsFacts = { state: 'withdrawn', since: SINCE, evidence: ['It created /home/me/Documents/x.txt, though it says it only reads.'] };
const distrusted: ClaimsFacts = { ...withdrawn, state: 'distrusted' };
const BEFORE = new Date(SINCE - 1000).toISOString();
const AFTER = new Date(SINCE + 1000).toISOString();

function withClaims(input: FactsInput, claims: ClaimsFacts | undefined): PolicyFacts {
  return { ...facts(input), ...(claims ? { claims } : {}) };
}

type Row = [string, FactsInput, ClaimsFacts, 'allow' | 'ask' | 'deny', string];
const def = tool(READ_ONLY);
const rows: Row[] = [
  // What relaxed it before does not any more.
  ['trusted, read-only', { annotations: READ_ONLY, trusted: true }, withdrawn, 'ask', 'claims-contradicted'],
  ['contained, read-only (untrusted)', { annotations: READ_ONLY, profile: contained() }, withdrawn, 'ask', 'claims-contradicted'],
  ['trusted and contained, read-only', { annotations: READ_ONLY, trusted: true, profile: contained() }, withdrawn, 'ask', 'claims-contradicted'],
  ['trusted, read-only, distrusted by the person', { annotations: READ_ONLY, trusted: true }, distrusted, 'ask', 'claims-contradicted'],
  ['trusted, not destructive', { annotations: CHANGES, trusted: true }, withdrawn, 'ask', 'claims-contradicted'],
  ['untrusted, destructive', { annotations: DESTRUCTIVE }, withdrawn, 'ask', 'claims-contradicted'],
  // Rules and session permissions: before the contradiction they were made on the strength of the claims.
  ['an allow rule made before', { annotations: CHANGES, trusted: true, rules: [{ ...ruleFor(tool(CHANGES), 'allow'), createdAt: BEFORE }] }, withdrawn, 'ask', 'claims-contradicted'],
  ['an allow rule made after', { annotations: CHANGES, rules: [{ ...ruleFor(tool(CHANGES), 'allow'), createdAt: AFTER }] }, withdrawn, 'allow', 'rule'],
  ['an allow rule with an unreadable date', { annotations: CHANGES, rules: [{ ...ruleFor(tool(CHANGES), 'allow'), createdAt: 'whenever' }] }, withdrawn, 'ask', 'claims-contradicted'],
  ['a session grant made before', { annotations: READ_ONLY, grants: [grantFor(def, { grantedAt: SINCE - 1 })] }, withdrawn, 'ask', 'claims-contradicted'],
  ['a session grant made after', { annotations: READ_ONLY, grants: [grantFor(def, { grantedAt: SINCE + 1 })] }, withdrawn, 'allow', 'session-grant'],
  ['a deny rule made before still denies', { annotations: READ_ONLY, trusted: true, rules: [{ ...ruleFor(def, 'deny'), createdAt: BEFORE }] }, withdrawn, 'deny', 'rule'],
  // Other questions keep their own reasons, with the claims' first.
  ['strict mode', { annotations: READ_ONLY, trusted: true, mode: 'strict' }, withdrawn, 'ask', 'strict-mode'],
  ['a new tool', { annotations: READ_ONLY, trusted: true, unreviewed: true }, withdrawn, 'ask', 'new-tool'],
  ['code changed', { annotations: READ_ONLY, trusted: true, codeChanged: true }, withdrawn, 'ask', 'code-changed'],
  ['blocked server', { annotations: READ_ONLY, trusted: true, blocked: true }, withdrawn, 'deny', 'blocked'],
  ['unknown tool', { annotations: READ_ONLY, trusted: true, missing: true }, withdrawn, 'deny', 'unknown-tool'],
];

describe('decide() with a tool whose behaviour contradicted its claims', () => {
  it.each(rows)('%s → %s', (_name, input, claims, verdict, decidedBy) => {
    const decision = decide(call(), withClaims(input, claims), NOW);
    expect(decision.verdict).toBe(verdict);
    expect(decision.decidedBy.kind).toBe(decidedBy);
  });

  it.each(rows)('never asks less than without the fact: %s', (_name, input, claims) => {
    const rank = { allow: 0, ask: 1, deny: 2 } as const;
    const without = decide(call(), withClaims(input, undefined), NOW);
    const withFact = decide(call(), withClaims(input, claims), NOW);
    expect(rank[withFact.verdict]).toBeGreaterThanOrEqual(rank[without.verdict]);
  });

  it('reads the tool as claiming nothing: destructive, open-world, never retried, "always" asked twice', () => {
    const decision = decide(call(), withClaims({ annotations: { ...READ_ONLY, idempotentHint: true }, trusted: true }, withdrawn), NOW);
    expect(decision.reading).toMatchObject({ toolClass: 'destructive', openWorld: true, idempotent: false });
    expect(decision).toMatchObject({ confirmationKind: 'destructive', alwaysNeedsSecondConfirmation: true, retry: 'never' });
    expect(decision.flags.claimsWithdrawn).toBe(true);
  });

  it('says why, first: the contradiction and what the tool did; a suspended "always allow" says so', () => {
    const asked = decide(call(), withClaims({ annotations: CHANGES, rules: [{ ...ruleFor(tool(CHANGES), 'allow'), createdAt: BEFORE }] }, withdrawn), NOW);
    expect(asked.reasons.slice(0, 3)).toEqual([REASONS.claimsWithdrawn, withdrawn.evidence[0], REASONS.claimsSuspendedAllow]);
    expect(asked.flags.suspendedAllows).toBe(1);
    const reviewed = decide(call(), withClaims({ annotations: READ_ONLY, trusted: true }, distrusted), NOW);
    expect(reviewed.reasons[0]).toBe(REASONS.claimsDistrusted);
  });

  it('fails closed on a malformed fact: anything present withdraws, an unreadable time suspends every allow', () => {
    const odd = decide(call(), { ...facts({ annotations: READ_ONLY, trusted: true }), claims: { state: 'withdrawn', since: Number.NaN, evidence: 'x' } as unknown as ClaimsFacts }, NOW);
    expect(odd.verdict).toBe('ask');
    const oddRule = decide(call(), { ...facts({ annotations: CHANGES, rules: [{ ...ruleFor(tool(CHANGES), 'allow'), createdAt: AFTER }] }), claims: { state: 'withdrawn', since: Number.NaN, evidence: [] } }, NOW);
    expect(oddRule.verdict).toBe('ask');
    const contradictory = decide(call(), withClaims({ annotations: CONTRADICTORY, trusted: true, profile: uncontained() }, withdrawn), NOW);
    expect(contradictory.verdict).toBe('ask');
  });
});
