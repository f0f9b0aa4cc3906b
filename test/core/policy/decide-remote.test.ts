/**
 * The remote rows of the policy table: a server reached by URL is never
 * contained (no sandbox is around it), its tools read as open-world whatever
 * they claim, and its read-only claims reduce prompts only when the person
 * trusts it. Everything else (rules, changes, strict mode) is the same table.
 */
import { describe, expect, it } from 'vitest';
import type { ToolAnnotations } from '../../../shared/domain';
import { decide, REASONS } from '../../../electron/core/policy/decide';
import { summariseSandbox } from '../../../electron/core/policy/containment';
import { CHANGES, CONTRADICTORY, DESTRUCTIVE, NOW, OLD_FP, READ_ONLY, call, contained, facts, grantFor, ruleFor, tool, type FactsInput } from './helpers';

const REMOTE = { url: 'https://mcp.example.com/mcp' };

/** Facts for a remote server: its profile is the default one (nothing granted), which would read as contained locally. */
function remoteFacts(input: FactsInput) {
  const base = facts({ profile: contained(), ...input });
  return { ...base, server: { ...base.server, remote: REMOTE } };
}

describe('decide(): a remote server', () => {
  type Row = [string, FactsInput | ((def: ReturnType<typeof tool>) => FactsInput), 'allow' | 'ask' | 'deny', string];
  const rows: Row[] = [
    // The row that differs from a local server: nothing contains it.
    ['untrusted, read-only claim, nothing granted (contained if it were local)', { annotations: READ_ONLY }, 'ask', 'untrusted'],
    ['untrusted, read-only claim, sandbox unavailable here', { annotations: READ_ONLY, sandboxAvailable: false }, 'ask', 'untrusted'],
    // Trust is what lets read-only claims reduce prompts.
    ['trusted, read-only', { annotations: READ_ONLY, trusted: true }, 'allow', 'trusted-read-only'],
    ['trusted, changes things', { annotations: CHANGES, trusted: true }, 'ask', 'trusted-changes-things'],
    ['trusted, destructive', { annotations: DESTRUCTIVE, trusted: true }, 'ask', 'destructive'],
    ['trusted, contradictory', { annotations: CONTRADICTORY, trusted: true }, 'ask', 'destructive'],
    ['untrusted, no annotations', { annotations: undefined }, 'ask', 'destructive'],
    // The rest of the table holds unchanged.
    ['blocked', { annotations: READ_ONLY, trusted: true, blocked: true }, 'deny', 'blocked'],
    ['deny rule', (d) => ({ annotations: READ_ONLY, trusted: true, rules: [ruleFor(d, 'deny')] }), 'deny', 'rule'],
    ['allow rule for this definition', (d) => ({ annotations: DESTRUCTIVE, rules: [ruleFor(d, 'allow')] }), 'allow', 'rule'],
    ['session grant', (d) => ({ annotations: CHANGES, grants: [grantFor(d)] }), 'allow', 'session-grant'],
    ['rule for an older definition', (d) => ({ annotations: READ_ONLY, trusted: true, rules: [ruleFor(d, 'allow', OLD_FP)] }), 'ask', 'definition-changed'],
    ['new tool, trusted, read-only', { annotations: READ_ONLY, trusted: true, unreviewed: true }, 'ask', 'new-tool'],
    ['strict mode, trusted, read-only', { annotations: READ_ONLY, trusted: true, mode: 'strict' }, 'ask', 'strict-mode'],
  ];
  it.each(rows)('%s → %s', (_name, input, verdict, decidedBy) => {
    const annotations = typeof input === 'function' ? input(tool()).annotations : input.annotations;
    const definition = tool(annotations);
    const resolved = typeof input === 'function' ? input(definition) : input;
    const result = decide(call(), remoteFacts({ ...resolved, definition }), NOW);
    expect(result.verdict).toBe(verdict);
    expect(result.decidedBy.kind).toBe(decidedBy);
    expect(result.flags.contained).toBe(false);
    // A blocked server is refused before its tool is read at all.
    if (decidedBy !== 'blocked') expect(result.flags.remote).toBe(true);
  });

  it('reads every tool as open-world, whatever it claims, and says why in its own words', () => {
    const claimsClosed: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
    const result = decide(call(), remoteFacts({ annotations: claimsClosed }), NOW);
    expect(result.reading?.openWorld).toBe(true);
    expect(result.reading?.stated.openWorldHint).toBe(true);
    expect(result.reasons).toContain(REASONS.remote);
    expect(result.reasons).not.toContain(REASONS.unsandboxed);
    expect(result.flags.unsandboxed).toBe(false);
    expect(result.flags.openWorldWithoutNetwork).toBe(false);
  });

  it('an untrusted read-only claim is named as one Airlock does not rely on', () => {
    const result = decide(call(), remoteFacts({ annotations: READ_ONLY }), NOW);
    expect(result.reasons).toContain(REASONS.remoteUntrustedReadOnlyClaim);
  });

  it('the same facts without `remote` are the contained row (the difference is the remote fact alone)', () => {
    const local = decide(call(), facts({ annotations: READ_ONLY, profile: contained() }), NOW);
    expect(local.verdict).toBe('allow');
    expect(local.decidedBy.kind).toBe('contained-read-only');
  });

  it('fails closed: any non-null remote value counts as remote', () => {
    const base = facts({ annotations: READ_ONLY, profile: contained() });
    const result = decide(call(), { ...base, server: { ...base.server, remote: {} as { url: string } } }, NOW);
    expect(result.verdict).toBe('ask');
  });

  it('a remote server’s summary says where it runs, never “no internet”', () => {
    const summary = summariseSandbox(contained(), REMOTE);
    expect(summary.line).toMatch(/^Runs on mcp\.example\.com, not on your computer/);
    expect(summary.line).not.toMatch(/no internet|writes nowhere/);
    expect(summary.contained).toBe(false);
    expect(summary.remote).toEqual({ url: REMOTE.url, host: 'mcp.example.com' });
  });
});
