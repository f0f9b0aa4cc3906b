/**
 * Invariant 1 over random runs, on the real `CallPipeline` (not a copy): a
 * call reaches the server only after decide() said allow or a person
 * approved that exact call, and the audit log holds that decision — with the
 * arguments sent — first. And its converse: what a person approved is sent.
 *
 * Everything the pipeline uses is the real part: decide(), the
 * ConfirmationRegistry and its single-use tokens (a zero lifetime in some
 * runs: every approval then expires before it is used), SessionGrants, an
 * AuditLog on disk. The server is a real process, the log-witness fixture:
 * when a call reaches it, it reads the audit log and records what it
 * received beside every decision on disk at that moment — so "logged
 * before sent" is checked where the order happens, and counted from
 * outside. A shell (honest or not) answers the confirmations as the window
 * would, through the registry's public API.
 */
import fc from 'fast-check';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type Caller, type PolicyMode, type Rule, type ServerRecord, type ToolDefinition } from '../../../shared/domain';
import { callDigest } from '../../../electron/core/approvals/approval-tokens';
import { ManualClock } from '../../../electron/core/approvals/clock';
import { ConfirmationRegistry, type ConfirmationRequest } from '../../../electron/core/approvals/confirmation-registry';
import { SessionGrants } from '../../../electron/core/approvals/session-grants';
import { AuditLog } from '../../../electron/core/audit/audit-log';
import { CallPipeline } from '../../../electron/core/calls/call-pipeline';
import { fingerprintTool } from '../../../electron/core/tools/fingerprint';
import type { Arrival } from '../calls/support/witnessed-host';
import { fixture } from '../host/host-support';

type ToolName = 'read' | 'write' | 'wipe';

/** What the (honest or hostile) shell does when a confirmation opens. */
type Behaviour = 'allow-once' | 'allow-session' | 'allow-always' | 'deny' | 'deny-always' | 'edit' | 'ignore' | 'answer-wrong-id' | 'answer-old-id';
const APPROVING: ReadonlySet<Behaviour> = new Set(['allow-once', 'allow-session', 'allow-always', 'edit']);

interface Step {
  tool: ToolName;
  n: number;
  caller: Caller;
  behaviour: Behaviour;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  tool: fc.constantFrom<ToolName>('read', 'write', 'wipe'),
  n: fc.integer({ min: 0, max: 3 }),
  caller: fc.constantFrom<Caller>({ kind: 'client', name: 'agent' }, { kind: 'client', name: 'agent' }, { kind: 'user' }, { kind: 'cli' }),
  behaviour: fc.constantFrom<Behaviour>('allow-once', 'allow-session', 'allow-always', 'deny', 'deny-always', 'edit', 'ignore', 'answer-wrong-id', 'answer-old-id'),
});

const EDITED = { n: 99, note: 'edited by the person' };

let root: string;
let records: string;
let client: Client;
let tools: Record<ToolName, { definition: ToolDefinition; fingerprint: string }>;

const arrivals = (): Arrival[] =>
  existsSync(join(records, 'arrivals')) ? readFileSync(join(records, 'arrivals'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Arrival) : [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'airlock-call-flow-'));
  records = join(root, 'records');
  mkdirSync(records);
  // The witness reads the audit folder named in `audit-dir` at each call (each run has its own log).
  client = new Client({ name: 'call-flow-property', version: '1' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [fixture('calls/log-witness.mjs'), records], env: { PATH: process.env.PATH ?? '' }, stderr: 'pipe' }),
  );
  const listed = (await client.listTools()).tools as unknown as ToolDefinition[];
  const entry = (name: ToolName) => {
    const definition = listed.find((tool) => tool.name === name)!;
    return { definition, fingerprint: fingerprintTool(definition) };
  };
  tools = { read: entry('read'), write: entry('write'), wipe: entry('wipe') };
});

afterAll(async () => {
  await client?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the real call pipeline: invariant 1', () => {
  it('nothing reaches the server without allow or a matching approval, never before its decision (with the arguments sent) is on disk; an approval is not lost', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom<PolicyMode>('default', 'default', 'strict'),
        fc.constantFrom(0, 30_000),
        fc.array(stepArb, { minLength: 1, maxLength: 8 }),
        async (trusted, contained, mode, tokenTtlMs, steps) => {
          const dir = mkdtempSync(join(root, 'audit-'));
          writeFileSync(join(records, 'audit-dir'), dir);
          const clock = new ManualClock();
          const sessionGrants = new SessionGrants(clock);
          const confirmations = new ConfirmationRegistry({ clock, sessionGrants, defaultTimeoutMs: 5_000, tokenTtlMs });
          const audit = new AuditLog({ dir, now: () => clock.now() });
          const profile = defaultSandboxProfile();
          if (!contained) profile.filesystem.write.push('/home/me');
          const reviewed = (name: ToolName) => ({ fingerprint: tools[name].fingerprint, definition: tools[name].definition, approvedAt: '2026-12-01T00:00:00.000Z' });
          const record: ServerRecord = {
            name: 'srv',
            spec: { command: process.execPath, args: [fixture('calls/log-witness.mjs')], env: {} },
            provenance: { kind: 'local', executable: process.execPath, executableSha256: 'a'.repeat(64) },
            profile,
            trusted,
            enabled: true,
            // read and write were reviewed at install; wipe was listed later (new: it always asks first).
            approvedTools: { read: reviewed('read'), write: reviewed('write') },
            createdAt: '2026-12-01T00:00:00.000Z',
          };
          const rules: Rule[] = [];

          // The shell: answers each confirmation as this step's behaviour says, from outside the pipeline.
          let behaviour: Behaviour = 'ignore';
          // The confirmation this step opened, if any (set by the shell's listener).
          const shown: { request?: ConfirmationRequest } = {};
          let approvedByShell = false;
          let previousId: string | undefined;
          const act = (request: ConfirmationRequest) => {
            const by = { shell: 'test' as const };
            switch (behaviour) {
              case 'allow-once':
              case 'allow-session':
              case 'deny':
              case 'deny-always':
                expect(confirmations.answer(request.id, { choice: behaviour, answeredBy: by }).ok).toBe(true);
                break;
              case 'allow-always':
                expect(confirmations.answer(request.id, { choice: 'allow-always', confirmDestructiveAlways: true, answeredBy: by }).ok).toBe(true);
                break;
              case 'edit':
                expect(confirmations.answer(request.id, { choice: 'allow-once', editedArguments: EDITED, answeredBy: by }).ok).toBe(true);
                break;
              case 'answer-wrong-id':
                // An id Airlock never issued is refused; nobody answers, the deadline passes.
                expect(confirmations.answer(`${request.id}x`, { choice: 'allow-once', answeredBy: by }).ok).toBe(false);
                clock.advance(5_000);
                break;
              case 'answer-old-id':
                // An earlier confirmation's id, answered again (a replay), is refused; the deadline passes.
                if (previousId) expect(confirmations.answer(previousId, { choice: 'allow-once', answeredBy: by }).ok).toBe(false);
                clock.advance(5_000);
                break;
              case 'ignore':
                clock.advance(5_000);
                break;
            }
            approvedByShell = APPROVING.has(behaviour);
          };
          const unsubscribe = confirmations.onDidOpen((request) => {
            shown.request = request;
            // As a window would: after the request is shown, not inside open().
            setImmediate(() => act(request));
          });

          const pipeline = new CallPipeline({
            state: () => ({ servers: { srv: record }, rules, settings: { policyMode: mode } }),
            lookupTool: (server, tool) => (server === 'srv' && tool in tools ? { server, name: tool, ...tools[tool as ToolName] } : undefined),
            ensureReady: async () => {},
            toolsSettled: async () => true,
            codeChange: async () => null,
            // The one part that is not in this process: a real server.
            callServer: async (_server, tool, args) => (await client.callTool({ name: tool, arguments: args })) as CallToolResult,
            saveRule: (rule) => {
              const kept = rules.filter((r) => !(r.server === rule.server && r.tool === rule.tool));
              rules.splice(0, rules.length, ...kept, rule);
            },
            sessionGrants,
            confirmations,
            audit,
            sandboxAvailable: () => true,
            canAsk: () => true,
            now: () => clock.now(),
          });

          // What a person said earlier in this run (their standing answers), to judge what runs unasked.
          const personAllowed = new Set<ToolName>();
          const standing = new Map<ToolName, 'allow' | 'deny'>();
          try {
            for (const step of steps) {
              behaviour = step.behaviour;
              shown.request = undefined;
              approvedByShell = false;
              const requested = { n: step.n };
              const before = arrivals().length;
              const result = await pipeline.call({ server: 'srv', tool: step.tool, arguments: requested, caller: step.caller });
              const got = arrivals().slice(before);
              const opened = shown.request as ConfirmationRequest | undefined;
              const sent = got.length === 1;
              // Counted at the server: one arrival for a call that ran, none for one that did not.
              expect(got.length).toBe(result.outcome === 'ok' ? 1 : 0);
              expect(['ok', 'denied']).toContain(result.outcome);
              if (opened) previousId = opened.id;

              if (sent) {
                const arrival = got[0]!;
                // Logged before sent, and logged as sent: this call's allowing decision, with the digest of what arrived.
                expect(arrival.decisions.filter((d) => d.callId === result.callId)).toEqual([
                  expect.objectContaining({ final: 'allow', argumentsDigest: callDigest('srv', step.tool, arrival.arguments) }),
                ]);
                expect(arrival.arguments).toEqual(result.arguments);
                // A standing deny holds for every caller.
                expect(standing.get(step.tool)).not.toBe('deny');
                if (result.decision.verdict === 'allow') {
                  // Sent unasked: only by what a person said before, or by trust/containment of a reviewed read-only tool.
                  expect(mode).toBe('default');
                  const by = result.decision.decidedBy.kind;
                  if (by === 'rule' || by === 'session-grant') expect(personAllowed.has(step.tool)).toBe(true);
                  else if (by === 'trusted-read-only') expect([trusted, step.tool]).toEqual([true, 'read']);
                  else if (by === 'contained-read-only') expect([contained, step.tool]).toEqual([true, 'read']);
                  else expect.fail(`sent unasked, decided by ${by}`);
                  expect(arrival.arguments).toEqual(requested);
                } else if (opened) {
                  // Sent after a confirmation: only on a person's allow, with exactly the arguments they approved, and a live token.
                  expect(APPROVING.has(step.behaviour)).toBe(true);
                  expect(tokenTtlMs).toBeGreaterThan(0);
                  expect(result.answer).toMatchObject({ how: step.behaviour === 'edit' ? 'allow-once' : step.behaviour, by: 'test', confirmationId: opened.id });
                  expect(arrival.arguments).toEqual(step.behaviour === 'edit' ? EDITED : requested);
                } else {
                  // Sent after an ask with no confirmation: only the person's own call (the window's console, or the CLI when nothing more is needed).
                  expect(result.answer?.how).toBe('own-call');
                  expect(['user', 'cli']).toContain(step.caller.kind);
                  if (step.caller.kind === 'cli') expect([mode, step.tool === 'wipe']).toEqual(['default', false]);
                  expect(arrival.arguments).toEqual(requested);
                }
              } else if (opened && approvedByShell && tokenTtlMs > 0) {
                // Nothing a person allowed is lost in transit.
                expect.fail(`a person approved ${step.tool} and it was not sent: ${result.message}`);
              }

              // Keep track of what the person said, for the next steps.
              if (opened && (step.behaviour === 'allow-session' || step.behaviour === 'allow-always')) personAllowed.add(step.tool);
              if (opened && step.behaviour === 'allow-always') standing.set(step.tool, 'allow');
              if (opened && step.behaviour === 'deny-always') standing.set(step.tool, 'deny');
            }
            // The whole log verifies; every arrival is matched by an allowing decision in it.
            expect((await audit.verify()).ok).toBe(true);
          } finally {
            unsubscribe();
            await audit.close();
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});
