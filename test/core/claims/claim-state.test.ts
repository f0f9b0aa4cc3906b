/**
 * What a contradiction does to a tool's claims, as a table (pure): withdrawn
 * unless already withdrawn or distrusted, or the person kept trusting these
 * very claims of this very definition; and what the policy is told.
 */
import { describe, expect, it } from 'vitest';
import type { CheckedClaim, ClaimCheck, ClaimEvidence } from '../../../shared/domain';
import { applyContradiction, claimsFactsOf, claimsToReview, MAX_KEPT_EVIDENCE, usableAnnotations } from '../../../electron/core/claims/claim-state';

const FP = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const evidence = (target: string, claim: CheckedClaim = 'readOnlyHint'): ClaimEvidence => ({ claim, did: 'wrote', target, at: '2026-12-01T10:00:00.000Z', callId: 'c1' });
const seen = (claims: CheckedClaim[], fingerprint = FP) => ({ claims, evidence: [evidence('/g/x', claims[0])], fingerprint, at: '2026-12-02T10:00:00.000Z' });
const check = (state: ClaimCheck['state'], claims: CheckedClaim[] = ['readOnlyHint'], fingerprint = FP): ClaimCheck => ({
  state,
  since: '2026-12-01T10:00:00.000Z',
  last: '2026-12-01T10:00:00.000Z',
  fingerprint,
  claims,
  evidence: [evidence('/g/first')],
  ...(state === 'withdrawn' ? {} : { reviewed: { at: '2026-12-01T11:00:00.000Z', by: 'window' as const } }),
});

type Row = [string, ClaimCheck | undefined, ReturnType<typeof seen>, string, ClaimCheck['state'], string];
const rows: Row[] = [
  ['first contradiction', undefined, seen(['readOnlyHint']), 'withdrawn', 'withdrawn', '2026-12-02T10:00:00.000Z'],
  ['again while withdrawn: the first time stays', check('withdrawn'), seen(['readOnlyHint']), 'already-withdrawn', 'withdrawn', '2026-12-01T10:00:00.000Z'],
  ['again after "don’t trust"', check('distrusted'), seen(['readOnlyHint']), 'distrusted', 'distrusted', '2026-12-01T10:00:00.000Z'],
  ['kept, the same claim, the same definition: recorded only', check('kept'), seen(['readOnlyHint']), 'kept', 'kept', '2026-12-01T10:00:00.000Z'],
  ['kept, another claim: withdrawn again', check('kept'), seen(['openWorldHint']), 'withdrawn', 'withdrawn', '2026-12-02T10:00:00.000Z'],
  ['kept, a changed definition: withdrawn again', check('kept'), seen(['readOnlyHint'], OTHER), 'withdrawn', 'withdrawn', '2026-12-02T10:00:00.000Z'],
];

describe('applyContradiction()', () => {
  it.each(rows)('%s', (_name, current, contradiction, effect, state, since) => {
    const applied = applyContradiction(current, contradiction);
    expect(applied.effect).toBe(effect);
    expect(applied.check.state).toBe(state);
    expect(applied.check.since).toBe(since);
    expect(applied.check.last).toBe(contradiction.at);
    expect(applied.check.evidence.at(-1)?.target).toBe('/g/x');
    if (state === 'withdrawn' && current?.state === 'kept') expect(applied.check.reviewed).toBeUndefined();
  });

  it('keeps at most the latest evidence, and the union of the claims', () => {
    let current: ClaimCheck | undefined;
    for (let i = 0; i < MAX_KEPT_EVIDENCE + 5; i += 1) current = applyContradiction(current, { ...seen([i % 2 ? 'openWorldHint' : 'readOnlyHint']), evidence: [evidence(`/g/${i}`)] }).check;
    expect(current!.evidence).toHaveLength(MAX_KEPT_EVIDENCE);
    expect(current!.evidence.at(-1)!.target).toBe(`/g/${MAX_KEPT_EVIDENCE + 4}`);
    expect(current!.claims.sort()).toEqual(['openWorldHint', 'readOnlyHint']);
  });
});

describe('what the policy and the views are told', () => {
  const record = (checks: Record<string, ClaimCheck>) => ({ claimChecks: checks });
  it('withdrawn and distrusted: facts, and no annotations; kept or none: nothing', () => {
    const annotations = { readOnlyHint: true };
    expect(claimsFactsOf(record({ t: check('withdrawn') }), 't')).toMatchObject({ state: 'withdrawn', since: Date.parse('2026-12-01T10:00:00.000Z') });
    expect(claimsFactsOf(record({ t: check('distrusted') }), 't')?.state).toBe('distrusted');
    expect(claimsFactsOf(record({ t: check('kept') }), 't')).toBeUndefined();
    expect(claimsFactsOf(record({}), 't')).toBeUndefined();
    expect(usableAnnotations(record({ t: check('withdrawn') }), 't', annotations)).toBeUndefined();
    expect(usableAnnotations(record({ t: check('kept') }), 't', annotations)).toBe(annotations);
    expect(claimsToReview(record({ a: check('withdrawn'), b: check('distrusted'), c: check('kept'), d: check('withdrawn') }))).toBe(2);
  });

  it('an unreadable time fails closed (every allow counts as made before it)', () => {
    expect(claimsFactsOf(record({ t: { ...check('withdrawn'), since: 'not a time' } }), 't')?.since).toBe(Number.POSITIVE_INFINITY);
  });

  it('names are data: a tool called constructor is a tool, an inherited name is none', () => {
    const checks = Object.assign(Object.create(null) as Record<string, ClaimCheck>, { constructor: check('withdrawn') });
    expect(claimsFactsOf({ claimChecks: checks }, 'constructor')?.state).toBe('withdrawn');
    expect(claimsFactsOf({ claimChecks: { t: check('withdrawn') } }, 'toString')).toBeUndefined();
  });
});
