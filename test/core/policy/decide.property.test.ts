import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Rule, SandboxProfile, ToolAnnotations, ToolDefinition } from '../../../shared/domain';
import { decide, type PolicyFacts, type SessionGrant } from '../../../electron/core/policy/decide';
import { NOW, call } from './helpers';

const RUNS = 3000;
const CURRENT = 'a'.repeat(64);
const OLD = 'b'.repeat(64);

const hintValue = fc.constantFrom<unknown>(undefined, true, false, 'true', 1, null);
const annotationsArb: fc.Arbitrary<ToolAnnotations | undefined> = fc.option(
  fc.record({ readOnlyHint: hintValue, destructiveHint: hintValue, idempotentHint: hintValue, openWorldHint: hintValue }).map(
    (a) => Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as ToolAnnotations,
  ),
  { nil: undefined },
);

const profileArb: fc.Arbitrary<SandboxProfile> = fc
  .record({
    read: fc.constantFrom<string[]>([], ['/home/me/Projects']),
    write: fc.constantFrom<string[]>([], ['/home/me/out']),
    persistentData: fc.boolean(),
    domains: fc.constantFrom<string[]>([], ['example.com']),
    secrets: fc.constantFrom<string[]>([], ['API_KEY']),
    unsandboxed: fc.boolean(),
  })
  .map((p) => ({
    filesystem: { read: [...p.read], write: [...p.write], persistentData: p.persistentData },
    network: { allowedDomains: [...p.domains] },
    secrets: [...p.secrets],
    ...(p.unsandboxed ? { unsandboxed: { consentedAt: '2026-01-01' } } : {}),
  }));

const ruleArb = (fps: string[]): fc.Arbitrary<Rule> =>
  fc.record({
    server: fc.constantFrom('files', 'other'),
    tool: fc.constantFrom('do_thing', 'other_tool'),
    fingerprint: fc.constantFrom(...fps),
    effect: fc.constantFrom('allow' as const, 'deny' as const),
    createdAt: fc.constant('2026-12-01T00:00:00.000Z'),
  });

const grantArb = (fps: string[]): fc.Arbitrary<SessionGrant> =>
  fc.record({
    server: fc.constantFrom('files', 'other'),
    tool: fc.constantFrom('do_thing', 'other_tool'),
    fingerprint: fc.constantFrom(...fps),
    grantedAt: fc.constant(NOW - 10),
    expiresAt: fc.option(fc.constantFrom(NOW - 1, NOW + 1000), { nil: undefined }),
  }).map((g) => Object.fromEntries(Object.entries(g).filter(([, v]) => v !== undefined)) as unknown as SessionGrant);

interface State {
  annotations: ToolAnnotations | undefined;
  trusted: boolean;
  blocked: boolean | undefined;
  profile: SandboxProfile;
  sandboxAvailable: boolean;
  rules: Rule[];
  grants: SessionGrant[];
  mode: 'default' | 'strict';
  missing: boolean;
  /** The approved set holds this tool as it is now, an older definition of it, or not at all (new). */
  reviewed: 'current' | 'older' | 'none';
  /** The server's code changed since it was approved. */
  codeChanged: boolean;
}

const stateArb = (fps = [CURRENT, OLD]): fc.Arbitrary<State> =>
  fc.record({
    annotations: annotationsArb,
    trusted: fc.boolean(),
    blocked: fc.constantFrom(undefined, false, true),
    profile: profileArb,
    sandboxAvailable: fc.boolean(),
    rules: fc.array(ruleArb(fps), { maxLength: 3 }),
    grants: fc.array(grantArb(fps), { maxLength: 2 }),
    mode: fc.constantFrom('default' as const, 'strict' as const),
    missing: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    reviewed: fc.constantFrom('current' as const, 'current' as const, 'older' as const, 'none' as const),
    codeChanged: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  });

function toFacts(s: State, annotations = s.annotations, fingerprint = CURRENT): PolicyFacts {
  const definition: ToolDefinition = {
    name: 'do_thing',
    description: 'SERVER-TEXT',
    inputSchema: { type: 'object' },
    ...(annotations !== undefined ? { annotations } : {}),
  };
  return {
    ...(s.missing ? {} : { tool: { definition, fingerprint } }),
    server: {
      trusted: s.trusted,
      ...(s.blocked !== undefined ? { blocked: s.blocked } : {}),
      profile: s.profile,
      sandboxAvailable: s.sandboxAvailable,
      ...(s.codeChanged ? { codeChange: { files: [{ role: 'script' as const, path: '/srv/x.js', approved: OLD, current: CURRENT }] } } : {}),
    },
    rules: s.rules,
    sessionGrants: s.grants,
    mode: s.mode,
    ...(s.reviewed === 'none' ? {} : { approved: { fingerprint: s.reviewed === 'current' ? fingerprint : OLD, definition, approvedAt: '2026-12-01T00:00:00.000Z' } }),
  };
}

function containedAndWorking(s: State): boolean {
  const p = s.profile;
  return (
    s.sandboxAvailable &&
    p.unsandboxed === undefined &&
    p.network.allowedDomains.length === 0 &&
    p.secrets.length === 0 &&
    p.filesystem.write.length === 0 &&
    !p.filesystem.persistentData
  );
}

const isReadOnly = (a: ToolAnnotations | undefined) => a?.readOnlyHint === true && a?.destructiveHint !== true;

describe('decide(): properties over random states', () => {
  it('never throws and always returns allow, ask or deny with reasons', () => {
    fc.assert(
      fc.property(stateArb(), (s) => {
        const d = decide(call(), toFacts(s), NOW);
        expect(['allow', 'ask', 'deny']).toContain(d.verdict);
        expect(d.reasons.length).toBeGreaterThan(0);
        expect(d.reasons.join(' ')).not.toContain('SERVER-TEXT');
      }),
      { numRuns: RUNS },
    );
  });

  it('never throws on garbage facts either', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.oneof(fc.double(), fc.integer()), (c, f, now) => {
        const d = decide(c as never, f as never, now);
        expect(['allow', 'ask', 'deny']).toContain(d.verdict);
      }),
      { numRuns: 1000 },
    );
  });

  it('invariant 2: an untrusted server’s annotations never turn ask into allow, unless contained + read-only', () => {
    fc.assert(
      fc.property(stateArb(), annotationsArb, (s0, other) => {
        const s = { ...s0, trusted: false };
        const a = decide(call(), toFacts(s), NOW);
        const b = decide(call(), toFacts(s, other), NOW);
        if (a.verdict !== b.verdict) {
          // The only annotation-dependent relaxation for an untrusted server: the sandbox makes a read-only claim safe.
          const [relaxed, annotations] = a.verdict === 'allow' ? [a, s.annotations] : [b, other];
          expect(relaxed.verdict).toBe('allow');
          expect(relaxed.decidedBy.kind).toBe('contained-read-only');
          expect(containedAndWorking(s)).toBe(true);
          expect(isReadOnly(annotations)).toBe(true);
          expect(s.mode).toBe('default');
        }
        // And a deny never depends on annotations.
        expect(a.verdict === 'deny').toBe(b.verdict === 'deny');
      }),
      { numRuns: RUNS },
    );
  });

  it('no mode lets an untrusted, uncontained server skip a prompt without the user’s own rule or grant', () => {
    fc.assert(
      fc.property(stateArb(), (s0) => {
        const s = { ...s0, trusted: false };
        const d = decide(call(), toFacts(s), NOW);
        if (d.verdict === 'allow') {
          expect(['rule', 'session-grant', 'contained-read-only']).toContain(d.decidedBy.kind);
          if (d.decidedBy.kind === 'contained-read-only') expect(containedAndWorking(s)).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('what the person never saw does not run unasked: a tool outside the approved set is allowed only by their own rule or grant for it', () => {
    fc.assert(
      fc.property(stateArb(), (s0) => {
        const s = { ...s0, reviewed: 'none' as const };
        const d = decide(call(), toFacts(s), NOW);
        if (d.verdict === 'allow') {
          expect(['rule', 'session-grant']).toContain(d.decidedBy.kind);
          const standing = d.decidedBy.kind === 'rule' ? d.decidedBy.rule : d.decidedBy.kind === 'session-grant' ? d.decidedBy.grant : undefined;
          expect(standing?.fingerprint).toBe(CURRENT);
        }
        if (!s.blocked && !s.missing && d.verdict !== 'deny') expect(d.flags.unreviewed).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('a code change voids every rule and grant: after it, nothing is allowed, and only a denial still denies', () => {
    fc.assert(
      fc.property(stateArb(), (s0) => {
        const s = { ...s0, codeChanged: true };
        const d = decide(call(), toFacts(s), NOW);
        expect(d.verdict).not.toBe('allow');
        if (d.verdict === 'deny') expect(['blocked', 'unknown-tool', 'rule', 'policy-error']).toContain(d.decidedBy.kind);
        if (d.decidedBy.kind === 'rule') expect(d.decidedBy.rule.effect).toBe('deny');
      }),
      { numRuns: RUNS },
    );
  });

  it('strict mode never allows', () => {
    fc.assert(
      fc.property(stateArb(), (s) => {
        expect(decide(call(), toFacts({ ...s, mode: 'strict' }), NOW).verdict).not.toBe('allow');
      }),
      { numRuns: RUNS },
    );
  });

  it('invariant 3: rules and grants made for another fingerprint never allow and are reported void', () => {
    fc.assert(
      fc.property(stateArb([OLD]), (s) => {
        const d = decide(call(), toFacts(s), NOW);
        expect(d.decidedBy.kind).not.toBe('rule');
        expect(d.decidedBy.kind).not.toBe('session-grant');
        const mine = (r: { server: string; tool: string }) => r.server === 'files' && r.tool === 'do_thing';
        const live = s.grants.filter((g) => mine(g) && (g.expiresAt === undefined || g.expiresAt > NOW));
        const expected = s.rules.filter(mine).length + live.length;
        if (!s.blocked && !s.missing) {
          expect(d.flags.voidedRules).toHaveLength(expected);
          if (expected > 0) expect(d.verdict).toBe('ask');
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('changing the fingerprint alone never turns a deny-free ask into allow through a rule', () => {
    fc.assert(
      fc.property(stateArb(), (s) => {
        const moved = decide(call(), toFacts(s, s.annotations, 'c'.repeat(64)), NOW);
        if (moved.verdict === 'allow') {
          expect(['trusted-read-only', 'contained-read-only']).toContain(moved.decidedBy.kind);
          expect(moved.flags.voidedRules).toHaveLength(0);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('retry only for a stated-idempotent tool of a trusted server, and never after deny', () => {
    fc.assert(
      fc.property(stateArb(), (s) => {
        const d = decide(call(), toFacts(s), NOW);
        if (d.retry === 'once-after-reconnect') {
          expect(s.trusted).toBe(true);
          expect(s.annotations?.idempotentHint).toBe(true);
          expect(d.verdict).not.toBe('deny');
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('destructive readings always get the destructive dialog and a second confirmation for always', () => {
    fc.assert(
      fc.property(stateArb(), (s) => {
        const d = decide(call(), toFacts(s), NOW);
        if (d.reading?.toolClass === 'destructive') {
          expect(d.confirmationKind).toBe('destructive');
          expect(d.alwaysNeedsSecondConfirmation).toBe(true);
          // Destructive: asks unless the user's own allow rule or grant for this exact fingerprint.
          if (d.verdict === 'allow') expect(['rule', 'session-grant']).toContain(d.decidedBy.kind);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
