/**
 * Sleep and clock jumps (issue 16.3): a wall clock set forward or back — by
 * hand, by NTP after a long offline stretch, by a VM resumed — must not
 * expire a question early, keep one open past its time, or extend an
 * approval or a session grant; nor make the audit log's writers hold or
 * give up its lock for as long as the clock moved.
 *
 * First with an injected clock (`ManualClock.jumpWall` moves only the wall
 * clock; `advance` moves time), then with the real clock and a faked wall
 * clock (vitest fakes only `Date`; `performance.now` and timers stay real),
 * which is what production reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultSandboxProfile, defaultServerRequestSettings, type ToolDefinition } from '../../shared/domain';
import { ManualClock, systemClock, type Clock } from '../../electron/core/approvals/clock';
import { ConfirmationRegistry } from '../../electron/core/approvals/confirmation-registry';
import { NetworkQuestions, NoAnswerError } from '../../electron/core/approvals/network-questions';
import { SessionGrants } from '../../electron/core/approvals/session-grants';
import { AuditLog } from '../../electron/core/audit/audit-log';
import { AirlockHost } from '../../electron/core/host';
import { decide, type ToolCall } from '../../electron/core/policy/decide';
import { RequestQueue } from '../../electron/core/server-requests/request-queue';
import { fingerprintTool } from '../../electron/core/tools/fingerprint';
import { addLocalServer } from '../support/add-server';
import { REPO } from './support/gateway-process';

const DAY = 24 * 60 * 60 * 1000;
const by = { shell: 'window' as const };

const WRITE: ToolDefinition = {
  name: 'write_file',
  description: 'Writes a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  annotations: { readOnlyHint: false, destructiveHint: true },
};

/** A registry with grants, and a way to open a confirmation for one destructive call. */
function confirmations(clock: Clock, options: { timeoutMs?: number; maxTimeoutMs?: number; grantTtlMs?: number } = {}) {
  const grants = new SessionGrants(clock);
  const registry = new ConfirmationRegistry({
    clock,
    sessionGrants: grants,
    defaultTimeoutMs: options.timeoutMs ?? 30_000,
    maxTimeoutMs: options.maxTimeoutMs ?? 60_000,
    tokenTtlMs: 10_000,
    ...(options.grantTtlMs !== undefined ? { sessionGrantTtlMs: options.grantTtlMs } : {}),
  });
  const call: ToolCall = { server: 'files', tool: 'write_file', arguments: { path: '/home/me/notes.md' }, caller: { kind: 'client', name: 'Claude' } };
  const profile = defaultSandboxProfile();
  const facts = { tool: { definition: WRITE, fingerprint: fingerprintTool(WRITE) }, server: { trusted: false, profile, sandboxAvailable: true }, rules: [], sessionGrants: [], mode: 'default' as const };
  const decision = decide(call, facts, clock.now());
  const open = () => registry.open({ call, decision, definition: WRITE, profile, serverTrusted: false });
  return { registry, grants, call, open };
}

describe('with an injected clock', () => {
  it('a wall clock set forward a day does not expire a confirmation, nor the approval given in time', async () => {
    const clock = new ManualClock();
    const { registry, call, open } = confirmations(clock);
    const { request, outcome } = open();
    clock.advance(10_000);
    clock.jumpWall(DAY);
    expect(registry.pending().map((r) => r.id)).toEqual([request.id]);
    expect(registry.answer(request.id, { choice: 'allow-once', answeredBy: by })).toMatchObject({ ok: true });
    const approved = await outcome;
    expect(approved.kind).toBe('approved');
    clock.jumpWall(DAY);
    expect(registry.consume(approved.kind === 'approved' ? approved.token : '', call.server, call.tool, call.arguments, fingerprintTool(WRITE)).ok).toBe(true);
  });

  it('a wall clock set back a day keeps no confirmation open past its time, even when the person asks for more time', async () => {
    const clock = new ManualClock();
    const { registry, open } = confirmations(clock, { timeoutMs: 30_000, maxTimeoutMs: 60_000 });
    const { request, outcome } = open();
    clock.jumpWall(-DAY);
    // More time, as the dialog asks while the person reads: never past the maximum from opening.
    registry.extend(request.id, 10 * DAY);
    clock.advance(60_000);
    expect(await outcome).toMatchObject({ kind: 'expired' });
    expect(registry.answer(request.id, { choice: 'allow-once', answeredBy: by })).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('a wall clock set back does not keep an approval alive past its lifetime', async () => {
    const clock = new ManualClock();
    const { registry, call, open } = confirmations(clock);
    const { request, outcome } = open();
    registry.answer(request.id, { choice: 'allow-once', answeredBy: by });
    const approved = await outcome;
    clock.jumpWall(-DAY);
    clock.advance(10_000);
    expect(registry.consume(approved.kind === 'approved' ? approved.token : '', call.server, call.tool, call.arguments, fingerprintTool(WRITE))).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('"allow for this session" ends on time when the wall clock is set back, and when the machine slept past its end', async () => {
    for (const change of ['set back', 'slept'] as const) {
      const clock = new ManualClock();
      const { registry, grants, open } = confirmations(clock, { grantTtlMs: 60 * 60_000 });
      const { request } = open();
      registry.answer(request.id, { choice: 'allow-session', answeredBy: by });
      expect(grants.list()).toHaveLength(1);
      if (change === 'set back') {
        clock.jumpWall(-DAY);
        clock.advance(60 * 60_000);
      } else {
        // Asleep: the wall clock moved on, the steady clock (and the timers) stood still.
        clock.jumpWall(2 * 60 * 60_000);
      }
      expect(grants.list(), change).toEqual([]);
    }
  });

  it('a server’s question (sampling, elicitation) is neither expired early nor kept open by a wall clock jump', async () => {
    const clock = new ManualClock();
    const queue = new RequestQueue<string>({ clock, defaultTimeoutMs: 30_000, maxTimeoutMs: 60_000 });
    const early = queue.open('forward', (answer) => ({ ok: true, answer }));
    clock.advance(10_000);
    clock.jumpWall(DAY);
    expect(queue.answer(early.id, 'yes', { shell: 'test' })).toEqual({ ok: true });
    expect(await early.outcome).toMatchObject({ kind: 'answered' });

    const late = queue.open('back', (answer) => ({ ok: true, answer }));
    clock.jumpWall(-2 * DAY);
    queue.extend(late.id, 10 * DAY);
    clock.advance(60_000);
    expect(await late.outcome).toMatchObject({ kind: 'expired' });
  });
});

describe('with the real clock and a faked wall clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('production confirmations go by the steady clock: a wall clock set forward a day refuses no answer in time', async () => {
    const registry = new ConfirmationRegistry({ defaultTimeoutMs: 60_000 });
    const call: ToolCall = { server: 'files', tool: 'write_file', arguments: {}, caller: { kind: 'user' } };
    const profile = defaultSandboxProfile();
    const decision = decide(call, { tool: { definition: WRITE, fingerprint: fingerprintTool(WRITE) }, server: { trusted: false, profile, sandboxAvailable: true }, rules: [], sessionGrants: [], mode: 'default' }, Date.now());
    const { request, outcome } = registry.open({ call, decision, definition: WRITE, profile, serverTrusted: false });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + DAY });
    expect(registry.answer(request.id, { choice: 'allow-once', answeredBy: by })).toMatchObject({ ok: true });
    expect((await outcome).kind).toBe('approved');
  });

  it('a production session grant set back a day still ends after its lifetime', async () => {
    const grants = new SessionGrants(systemClock);
    const now = Date.now();
    grants.add({ server: 'files', tool: 'write_file', fingerprint: fingerprintTool(WRITE), grantedAt: now, expiresAt: now + 200 });
    vi.useFakeTimers({ toFake: ['Date'], now: now - DAY, shouldAdvanceTime: true });
    expect(grants.list()).toHaveLength(1);
    // 200 ms of real time later, whatever the wall clock says.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(grants.list()).toEqual([]);
  });

  it('a network question (a server asks to reach a host) is neither answered too late nor closed early by a wall clock jump', async () => {
    const questions = new NetworkQuestions(() => {}, 200);
    const forward = questions.ask('files', 'example.com', 443);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + DAY, shouldAdvanceTime: true });
    expect(questions.answer(questions.list()[0]!.id, true)).toBe(true);
    expect(await forward).toBe(true);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 2 * DAY, shouldAdvanceTime: true });
    // Set back two days: still closed unanswered after its 200 ms.
    await expect(questions.ask('files', 'example.com', 443)).rejects.toBeInstanceOf(NoAnswerError);
    expect(questions.list()).toEqual([]);
  });

  it('a server’s sampling requests stay capped per minute when the wall clock is set back', async () => {
    const root = mkdtempSync(join(tmpdir(), 'airlock-clock-rate-'));
    const host = new AirlockHost({ dataDir: join(root, 'data'), homeDir: join(root, 'home'), version: 'test', hooks: { emit: () => {} } });
    try {
      await addLocalServer(host, 'echo', [process.execPath, join(REPO, 'test/fixtures/servers/echo.mjs')], { probe: false });
      const defaults = defaultServerRequestSettings();
      host.serverRequests.setSettings('echo', { ...defaults, sampling: { ...defaults.sampling, perMinute: 2 } });
      // The way a server's sampling request arrives (the host's handler for its connection); refused either way here.
      const sample = () =>
        host.serverRequests
          .handlersFor('echo')
          .sampling!({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 } as never, {} as never)
          .then(() => 'answered', (error: Error) => error.message);
      const capped = /sampling requests in the last minute; you allow 2/;
      expect(await sample()).not.toMatch(capped);
      expect(await sample()).not.toMatch(capped);
      expect(await sample()).toMatch(capped);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 60 * 60_000, shouldAdvanceTime: true });
      // Set back an hour, the same minute goes on: the flood is still refused.
      expect(await sample()).toMatch(capped);
    } finally {
      vi.useRealTimers();
      await host.dispose();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a writer of the audit log does not keep the lock for as long as the wall clock was set back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-clock-audit-'));
    const first = new AuditLog({ dir });
    const second = new AuditLog({ dir, lockTimeoutMs: 5_000 });
    try {
      const decision = { caller: { kind: 'user' as const }, server: 'files', tool: 'read', fingerprint: null, arguments: {}, verdict: 'allow' as const, final: 'allow' as const, reasons: [] };
      // The first writer takes the lock and keeps it (a lease) until it has been idle a moment…
      await first.appendDecision(decision);
      // …when the wall clock is set back an hour.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 60 * 60_000, shouldAdvanceTime: true });
      // Another writer (another Airlock process, in effect) gets the lock within its 5 s.
      await second.appendDecision(decision);
      await first.appendDecision(decision);
      vi.useRealTimers();
      const result = await second.verify();
      expect(result.ok).toBe(true);
      expect(await second.read({ limit: 10 })).toHaveLength(3);
    } finally {
      await first.close();
      await second.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
