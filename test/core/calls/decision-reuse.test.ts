/**
 * The choke point reuses a decision only when every fact it was made on is
 * the very same (issue 15: `decide()` off the hot path of repeated calls).
 * Each fact is changed in turn — a rule, the server record (trust, turned
 * off), the tool's definition, a session grant, the code, the sandbox, the
 * mode — and the next call must be decided on the new facts, against a real
 * MCP server (the echo fixture) that counts what reaches it. A caller cannot
 * change a decision it was handed.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyMode, Rule, ServerRecord, ToolDefinition } from '../../../shared/domain';
import { ConfirmationRegistry, SessionGrants, systemClock } from '../../../electron/core/approvals';
import { AuditLog } from '../../../electron/core/audit/audit-log';
import { CallPipeline } from '../../../electron/core/calls/call-pipeline';
import type { CodeChange } from '../../../electron/core/policy/decide';
import type { IndexedTool } from '../../../electron/core/servers/tool-index';
import { fingerprintTool } from '../../../electron/core/tools/fingerprint';
import { echoRecord, startEcho, type EchoServer } from './support/echo-fixture';

let echo: EchoServer;
let definition: ToolDefinition;
beforeAll(async () => {
  echo = await startEcho('decision-reuse');
  definition = echo.definition;
});
afterAll(() => echo.close());

const reached = () => echo.reached();

function setup() {
  const { record: base, fingerprint, allow } = echoRecord(definition);
  // The facts, replaced (never edited) as the store and the tool index do.
  const facts = {
    record: base,
    rules: [allow] as readonly Rule[],
    mode: 'default' as PolicyMode,
    indexed: { server: 'echo', name: 'echo', definition, fingerprint } as IndexedTool | undefined,
    codeChange: null as CodeChange | null,
    sandbox: true,
    /** More servers, the same echo behind each. */
    others: {} as Record<string, ServerRecord>,
  };
  const sessionGrants = new SessionGrants(systemClock);
  const confirmations = new ConfirmationRegistry({ sessionGrants, defaultTimeoutMs: 10_000 });
  const calls = new CallPipeline({
    state: () => ({ servers: { echo: facts.record, ...facts.others }, rules: facts.rules, settings: { policyMode: facts.mode } }),
    lookupTool: () => facts.indexed,
    ensureReady: async () => {},
    toolsSettled: async () => true,
    codeChange: async () => facts.codeChange,
    callServer: async (_server, tool, args) => (await echo.client.callTool({ name: tool, arguments: args })) as never,
    saveRule: () => {},
    sessionGrants,
    confirmations,
    audit: new AuditLog({ dir: mkdtempSync(join(echo.root, 'audit-')) }),
    sandboxAvailable: () => facts.sandbox,
    // Nobody can be asked: a call that needs a person is refused at once, and says so.
    canAsk: () => false,
    now: () => Date.now(),
  });
  const call = (server = 'echo') => calls.call({ server, tool: 'echo', arguments: { message: 'reuse' }, caller: { kind: 'client', name: 'Agent' } });
  return { facts, base, allow, fingerprint, sessionGrants, call, calls };
}

describe('a decision is reused only on the very same facts', () => {
  it('the same facts: allowed by the rule each time, and each call reaches the server', async () => {
    const { call } = setup();
    const before = reached();
    const first = await call();
    const second = await call();
    expect([first.outcome, second.outcome]).toEqual(['ok', 'ok']);
    expect(second.decision).toEqual(first.decision);
    expect(reached()).toBe(before + 2);
  });

  it('each changed fact is decided afresh: the rule removed, then denied, trust, off, the definition, a grant, the code, the sandbox, strict mode', async () => {
    const { facts, base, allow, fingerprint, sessionGrants, call } = setup();
    expect((await call()).decision.decidedBy.kind).toBe('rule');

    facts.rules = [];
    let result = await call();
    expect(result).toMatchObject({ outcome: 'denied', nobodyToAsk: true });
    expect(result.decision.verdict).toBe('ask');

    facts.rules = [{ ...allow, effect: 'deny' }];
    result = await call();
    expect(result.decision).toMatchObject({ verdict: 'deny', decidedBy: { kind: 'rule' } });

    facts.rules = [allow];
    expect((await call()).decision.decidedBy.kind).toBe('rule');
    facts.record = { ...base, enabled: false };
    expect((await call()).decision.decidedBy.kind).toBe('blocked');
    facts.record = base;
    expect((await call()).outcome).toBe('ok');

    // A new definition (a rug pull): the rule was for the old one.
    const changed = { ...definition, description: 'now it deletes things' } as ToolDefinition;
    facts.indexed = { server: 'echo', name: 'echo', definition: changed, fingerprint: fingerprintTool(changed) };
    result = await call();
    expect(result.decision.verdict).toBe('ask');
    expect(result.decision.flags.changedSinceApproval).toBeTruthy();
    facts.indexed = { server: 'echo', name: 'echo', definition, fingerprint };
    expect((await call()).outcome).toBe('ok');

    // A session grant made between two calls on otherwise the same facts counts at once, and its end too.
    facts.rules = [];
    expect((await call()).decision.verdict).toBe('ask');
    sessionGrants.add({ server: 'echo', tool: 'echo', fingerprint, grantedAt: Date.now() });
    expect((await call()).decision.decidedBy.kind).toBe('session-grant');
    sessionGrants.revoke('echo');
    expect((await call()).decision.verdict).toBe('ask');
    facts.rules = [allow];

    facts.codeChange = { files: [{ role: 'script', path: '/x.mjs', approved: 'a'.repeat(64), current: 'b'.repeat(64) }] } as unknown as CodeChange;
    expect((await call()).decision.decidedBy.kind).toBe('code-changed');
    facts.codeChange = null;
    expect((await call()).outcome).toBe('ok');

    facts.sandbox = false;
    result = await call();
    expect(result.decision.flags.unsandboxed).toBe(true);
    facts.sandbox = true;

    facts.mode = 'strict';
    expect((await call()).decision.verdict).toBe('ask');
    facts.mode = 'default';
    expect((await call()).outcome).toBe('ok');
  });

  it('a caller cannot change the decision it was handed, nor the next one', async () => {
    const { facts, call } = setup();
    const first = await call();
    expect(() => {
      (first.decision as { verdict: string }).verdict = 'allow';
      first.decision.reasons.push('edited');
    }).toThrow(TypeError);
    facts.rules = [];
    const next = await call();
    expect(next.decision.verdict).toBe('ask');
    expect(next.decision.reasons).not.toContain('edited');
  });

  it('remembers only what was decided since the store last changed: a removed server’s decisions go with its snapshot', async () => {
    const { facts, base, allow, calls, call } = setup();
    facts.others = { second: { ...base, name: 'second' } };
    facts.rules = [allow, { ...allow, server: 'second' }];
    expect([(await call()).outcome, (await call('second')).outcome]).toEqual(['ok', 'ok']);
    expect(calls.rememberedDecisions()).toBe(2);
    // The store re-reads every fact when its file changes, and hands out a new rule list.
    facts.others = {};
    facts.rules = [allow];
    expect((await call()).outcome).toBe('ok');
    expect(calls.rememberedDecisions()).toBe(1);
    await expect(call('second')).rejects.toThrow('There is no server named second');
    expect(calls.rememberedDecisions()).toBe(1);
  });
});
