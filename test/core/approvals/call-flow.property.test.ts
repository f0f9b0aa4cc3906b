/**
 * How the three pieces compose into invariant 1, checked over random runs:
 * a call reaches the server only after decide() said allow or a person
 * approved that exact call, and the audit log holds that decision first.
 *
 * `throughGate` is a reference for the call pipeline (built elsewhere on
 * this API): decide → (ask: confirmation → token) → audit decision (fsync'ed)
 * → consume the token → send → audit outcome. The "server" is a recorder
 * that, on every call, checks the log already holds the allowing decision.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Rule, ToolDefinition } from '../../../shared/domain';
import { defaultSandboxProfile } from '../../../shared/domain';
import { AuditLog } from '../../../electron/core/audit/audit-log';
import { callDigest } from '../../../electron/core/approvals/approval-tokens';
import { ManualClock } from '../../../electron/core/approvals/clock';
import { ConfirmationRegistry, type ConfirmationRequest } from '../../../electron/core/approvals/confirmation-registry';
import { SessionGrants } from '../../../electron/core/approvals/session-grants';
import { decide, type ToolCall } from '../../../electron/core/policy/decide';
import { fingerprintTool } from '../../../electron/core/tools/fingerprint';

const TOOLS: Record<string, ToolDefinition> = {
  read: { name: 'read', inputSchema: { type: 'object', properties: { n: { type: 'integer' } } }, annotations: { readOnlyHint: true } },
  write: { name: 'write', inputSchema: { type: 'object', properties: { n: { type: 'integer' } } }, annotations: { destructiveHint: false } },
  wipe: { name: 'wipe', inputSchema: { type: 'object', properties: { n: { type: 'integer' } } } },
};

/** What the hostile or honest shell does when asked. */
type Behaviour = 'allow-once' | 'allow-session' | 'deny' | 'edit' | 'ignore' | 'answer-wrong-id' | 'replay-last-token';

interface Step {
  tool: keyof typeof TOOLS;
  n: number;
  behaviour: Behaviour;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  tool: fc.constantFrom('read', 'write', 'wipe'),
  n: fc.integer({ min: 0, max: 3 }),
  behaviour: fc.constantFrom<Behaviour>('allow-once', 'allow-session', 'deny', 'edit', 'ignore', 'answer-wrong-id', 'replay-last-token'),
});

describe('decide + confirmations + audit: invariant 1', () => {
  it('nothing reaches the server without allow or a matching approval, and never before its decision is logged', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.boolean(), fc.array(stepArb, { minLength: 1, maxLength: 6 }), async (trusted, contained, steps) => {
        const dir = mkdtempSync(join(tmpdir(), 'airlock-flow-'));
        try {
          const clock = new ManualClock();
          const grants = new SessionGrants(clock);
          const registry = new ConfirmationRegistry({ clock, sessionGrants: grants, defaultTimeoutMs: 5000 });
          const audit = new AuditLog({ dir, now: () => clock.now() });
          const profile = defaultSandboxProfile();
          if (!contained) profile.filesystem.write.push('/home/me');
          const rules: Rule[] = [];
          const received: { tool: string; args: Record<string, unknown> }[] = [];
          let lastToken: { token: string; args: Record<string, unknown> } | undefined;

          // The server: checks that an allowing decision for exactly this call is already in the log.
          const server = async (tool: string, args: Record<string, unknown>) => {
            const logged = await audit.read({ server: 'srv', tool, limit: 1 });
            expect(logged[0]?.decision.final).toBe('allow');
            expect(logged[0]?.decision.argumentsDigest).toBe(callDigest('srv', tool, args));
            received.push({ tool, args });
          };

          const throughGate = async (call: ToolCall, behaviour: Behaviour): Promise<{ sent: boolean; asked: boolean; by: string }> => {
            const definition = TOOLS[call.tool]!;
            const facts = {
              tool: { definition, fingerprint: fingerprintTool(definition) },
              server: { trusted, profile, sandboxAvailable: true },
              rules,
              sessionGrants: grants.list(),
              mode: 'default' as const,
              // read and write were reviewed at install; wipe was listed later (new: it always asks first).
              ...(call.tool === 'wipe' ? {} : { approved: { fingerprint: fingerprintTool(definition), definition, approvedAt: '2026-12-01T00:00:00.000Z' } }),
            };
            const decision = decide(call, facts, clock.now());
            let args = call.arguments;
            let token: string | undefined;
            if (decision.verdict === 'deny') {
              await audit.appendDecision({ ...call, fingerprint: decision.fingerprint, verdict: 'deny', final: 'deny', reasons: decision.reasons });
              return { sent: false, asked: false, by: decision.decidedBy.kind };
            }
            if (decision.verdict === 'ask') {
              const { request, outcome } = registry.open({ call, decision, definition, profile, serverTrusted: trusted });
              answer(request, behaviour);
              const o = await outcome;
              if (o.kind !== 'approved') {
                await audit.appendDecision({ ...call, fingerprint: decision.fingerprint, verdict: 'ask', final: 'deny', reasons: decision.reasons, answer: { how: o.kind } });
                return { sent: false, asked: true, by: decision.decidedBy.kind };
              }
              args = o.arguments;
              token = o.token;
              lastToken = { token: o.token, args: o.arguments };
            }
            await audit.appendDecision({ ...call, arguments: args, fingerprint: decision.fingerprint, verdict: decision.verdict, final: 'allow', reasons: decision.reasons });
            if (token !== undefined && !registry.consume(token, call.server, call.tool, args).ok) {
              return { sent: false, asked: true, by: decision.decidedBy.kind };
            }
            await server(call.tool, args);
            return { sent: true, asked: decision.verdict === 'ask', by: decision.decidedBy.kind };
          };

          const answer = (request: ConfirmationRequest, behaviour: Behaviour) => {
            const by = { shell: 'test' as const };
            switch (behaviour) {
              case 'allow-once':
              case 'allow-session':
              case 'deny':
                expect(registry.answer(request.id, { choice: behaviour, answeredBy: by }).ok).toBe(true);
                return;
              case 'edit':
                expect(registry.answer(request.id, { choice: 'allow-once', editedArguments: { n: 99 }, answeredBy: by }).ok).toBe(true);
                return;
              case 'answer-wrong-id':
                expect(registry.answer(`${request.id}x`, { choice: 'allow-once', answeredBy: by }).ok).toBe(false);
                clock.advance(5000);
                return;
              case 'replay-last-token':
                // A replayed token for this (different or same) call is refused; nobody answers.
                if (lastToken) expect(registry.consume(lastToken.token, 'srv', request.tool, request.arguments).ok).toBe(false);
                clock.advance(5000);
                return;
              case 'ignore':
                clock.advance(5000);
                return;
            }
          };

          for (const step of steps) {
            const call: ToolCall = { server: 'srv', tool: step.tool, arguments: { n: step.n }, caller: { kind: 'client', name: 'agent' } };
            const before = received.length;
            const r = await throughGate(call, step.behaviour);
            expect(received.length).toBe(before + (r.sent ? 1 : 0));
            if (!r.sent) continue;
            if (r.asked) {
              // Sent after a prompt only on a person's allow, with exactly the arguments they approved.
              expect(['allow-once', 'allow-session', 'edit']).toContain(step.behaviour);
              expect(received.at(-1)!.args).toEqual(step.behaviour === 'edit' ? { n: 99 } : { n: step.n });
            } else {
              expect(received.at(-1)!.args).toEqual({ n: step.n });
              // Sent unasked: the policy allowed it — for an untrusted, uncontained server only by a person's earlier grant.
              if (!trusted && !contained) expect(r.by).toBe('session-grant');
              if (!trusted && contained) expect(['session-grant', 'contained-read-only']).toContain(r.by);
            }
          }
          // Everything the server received has an allowing decision in the log with its exact digest.
          const log = await audit.read({ limit: 1000 });
          for (const r of received) {
            expect(log.some((e) => e.decision.final === 'allow' && e.decision.argumentsDigest === callDigest('srv', r.tool, r.args))).toBe(true);
          }
          expect((await audit.verify()).ok).toBe(true);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  });
});
