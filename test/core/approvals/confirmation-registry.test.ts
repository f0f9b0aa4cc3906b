import { describe, expect, it, vi } from 'vitest';
import type { ToolAnnotations, ToolDefinition } from '../../../shared/domain';
import { defaultSandboxProfile } from '../../../shared/domain';
import { decide, type ToolCall } from '../../../electron/core/policy/decide';
import { fingerprintTool } from '../../../electron/core/tools/fingerprint';
import { ConfirmationRegistry, type ObservedOutcome } from '../../../electron/core/approvals/confirmation-registry';
import { ManualClock } from '../../../electron/core/approvals/clock';
import { SessionGrants } from '../../../electron/core/approvals/session-grants';
import { callDigest } from '../../../electron/core/approvals/approval-tokens';

const WRITE_FILE: ToolDefinition = {
  name: 'write_file',
  title: 'Write file',
  description: 'Create or overwrite a file.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string', minLength: 1 }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
};

const EDIT: ToolDefinition = { ...WRITE_FILE, name: 'edit', annotations: { readOnlyHint: false, destructiveHint: false } };

function setup(definition: ToolDefinition = WRITE_FILE, options: { timeoutMs?: number; maxPending?: number } = {}) {
  const clock = new ManualClock();
  const grants = new SessionGrants(clock);
  const registry = new ConfirmationRegistry({ clock, sessionGrants: grants, defaultTimeoutMs: 30_000, tokenTtlMs: 10_000, ...options });
  const call: ToolCall = {
    server: 'files',
    tool: definition.name,
    arguments: { path: '/home/me/notes.md', content: 'hello' },
    caller: { kind: 'client', name: 'Claude' },
  };
  const profile = defaultSandboxProfile();
  profile.filesystem.write.push('/home/me');
  const facts = {
    tool: { definition, fingerprint: fingerprintTool(definition) },
    server: { trusted: false, profile, sandboxAvailable: true },
    rules: [],
    sessionGrants: grants.list(),
    mode: 'default' as const,
  };
  const decision = decide(call, facts, clock.now());
  const open = (c: ToolCall = call) => registry.open({ call: c, decision, definition, profile, serverTrusted: false });
  return { clock, grants, registry, call, decision, open, facts };
}

const by = { shell: 'window' as const };

describe('ConfirmationRegistry', () => {
  it('opens a request with everything a shell shows, and tells every observer', () => {
    const { registry, open, decision } = setup();
    const seen: string[] = [];
    registry.onDidOpen((r) => seen.push(`a:${r.id}`));
    registry.onDidOpen(() => {
      throw new Error('a broken shell');
    });
    registry.onDidOpen((r) => seen.push(`b:${r.id}`));
    const { request } = open();
    expect(seen).toEqual([`a:${request.id}`, `b:${request.id}`]);
    expect(request.id).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(request).toMatchObject({
      server: 'files',
      tool: 'write_file',
      title: 'Write file',
      arguments: { path: '/home/me/notes.md', content: 'hello' },
      reasons: decision.reasons,
      claimedAnnotations: WRITE_FILE.annotations,
      confirmationKind: 'destructive',
      alwaysNeedsSecondConfirmation: true,
      serverTrusted: false,
      caller: { kind: 'client', name: 'Claude' },
      deadline: request.openedAt + 30_000,
    });
    expect(request.reading.toolClass).toBe('destructive');
    expect(request.sandbox.line).toContain('writes to /home/me');
    expect(Object.isFrozen(request.arguments)).toBe(true);
    expect(registry.pending()).toEqual([request]);
  });

  it('refuses to open for a decision that is not ask', () => {
    const { registry, decision, call } = setup();
    expect(() =>
      registry.open({ call, decision: { ...decision, verdict: 'allow' }, definition: WRITE_FILE, profile: defaultSandboxProfile(), serverTrusted: false }),
    ).toThrow(/ask/);
  });

  it('refuses to open for arguments that are not a JSON object', () => {
    const { open, call } = setup();
    for (const bad of [null, [1], 'x', { when: new Date() }]) {
      expect(() => open({ ...call, arguments: bad as never })).toThrow(/JSON object/);
    }
  });

  it('the caller mutating its arguments after opening changes nothing', () => {
    const { open, call } = setup();
    const args = { ...call.arguments };
    const { request } = open({ ...call, arguments: args });
    args.path = '/etc/passwd';
    expect(request.arguments.path).toBe('/home/me/notes.md');
  });

  it('allow once: the first valid answer wins, yields a single-use token for the exact call', async () => {
    const { registry, open, call } = setup();
    const closed = vi.fn();
    registry.onDidClose(closed);
    const { request, outcome } = open();
    const r1 = registry.answer(request.id, { choice: 'allow-once', answeredBy: by });
    const r2 = registry.answer(request.id, { choice: 'deny', answeredBy: { shell: 'terminal' } });
    expect(r1.ok).toBe(true);
    expect(r2).toMatchObject({ ok: false, reason: 'already-answered' });
    const o = await outcome;
    expect(o).toMatchObject({ kind: 'approved', choice: 'allow-once', edited: false, arguments: call.arguments, answeredBy: by });
    expect(closed).toHaveBeenCalledOnce();
    expect(registry.pending()).toEqual([]);
    if (o.kind !== 'approved') throw new Error('unreachable');
    expect(registry.consume(o.token, 'files', 'write_file', call.arguments)).toMatchObject({ ok: true, confirmationId: request.id, digest: callDigest('files', 'write_file', call.arguments) });
    // Replay: refused.
    expect(registry.consume(o.token, 'files', 'write_file', call.arguments)).toMatchObject({ ok: false, reason: 'unknown-token' });
  });

  describe('hostile behaviour 10: approval abuse', () => {
    it('an answer for an id main never issued is refused', () => {
      const { registry, open } = setup();
      open();
      expect(registry.answer('made-up-id', { choice: 'allow-once', answeredBy: by })).toMatchObject({ ok: false, reason: 'unknown-id' });
      expect(registry.answer(42 as never, { choice: 'allow-once', answeredBy: by })).toMatchObject({ ok: false, reason: 'unknown-id' });
      expect(registry.answer('__proto__', { choice: 'allow-once', answeredBy: by })).toMatchObject({ ok: false, reason: 'unknown-id' });
    });

    it('a token never issued is refused', () => {
      const { registry, call } = setup();
      expect(registry.consume('forged', 'files', 'write_file', call.arguments)).toMatchObject({ ok: false, reason: 'unknown-token' });
      expect(registry.consume(undefined, 'files', 'write_file', call.arguments)).toMatchObject({ ok: false, reason: 'unknown-token' });
    });

    it.each([
      ['changed arguments', 'files', 'write_file', { path: '/home/me/.bashrc', content: 'hello' }],
      ['an extra argument', 'files', 'write_file', { path: '/home/me/notes.md', content: 'hello', mode: 'append' }],
      ['another tool', 'files', 'delete_file', { path: '/home/me/notes.md', content: 'hello' }],
      ['another server', 'other', 'write_file', { path: '/home/me/notes.md', content: 'hello' }],
    ])('an approval used for %s is refused, and burnt', async (_n, server, tool, args) => {
      const { registry, open, call } = setup();
      const { request, outcome } = open();
      registry.answer(request.id, { choice: 'allow-once', answeredBy: by });
      const o = await outcome;
      if (o.kind !== 'approved') throw new Error('unreachable');
      expect(registry.consume(o.token, server, tool, args)).toMatchObject({ ok: false, reason: 'different-call' });
      expect(registry.consume(o.token, 'files', 'write_file', call.arguments)).toMatchObject({ ok: false, reason: 'unknown-token' });
    });

    it('key order does not matter for the digest (canonical JSON)', async () => {
      const { registry, open } = setup();
      const { request, outcome } = open();
      registry.answer(request.id, { choice: 'allow-once', answeredBy: by });
      const o = await outcome;
      if (o.kind !== 'approved') throw new Error('unreachable');
      expect(registry.consume(o.token, 'files', 'write_file', { content: 'hello', path: '/home/me/notes.md' }).ok).toBe(true);
    });

    it('an answer at or after the deadline is refused, even before the timer fires', async () => {
      const clock = new ManualClock();
      const late = new ConfirmationRegistry({
        clock: { now: () => clock.now(), monotonic: () => clock.monotonic(), setTimeout: () => 0, clearTimeout: () => undefined },
        defaultTimeoutMs: 1000,
      });
      const s = setup();
      const { request, outcome } = late.open({ call: s.call, decision: s.decision, definition: WRITE_FILE, profile: defaultSandboxProfile(), serverTrusted: false });
      clock.advance(1000);
      expect(late.answer(request.id, { choice: 'allow-once', answeredBy: by })).toMatchObject({ ok: false, reason: 'expired' });
      expect(await outcome).toMatchObject({ kind: 'expired' });
      expect(late.answer(request.id, { choice: 'allow-once', answeredBy: by })).toMatchObject({ ok: false, reason: 'expired' });
    });

    it('no answer by the deadline is a deny', async () => {
      const { registry, open, clock } = setup();
      const closed: ObservedOutcome[] = [];
      registry.onDidClose((_r, o) => closed.push(o));
      const { request, outcome } = open();
      clock.advance(29_999);
      expect(registry.pending()).toHaveLength(1);
      clock.advance(1);
      expect(await outcome).toEqual({ kind: 'expired', id: request.id, at: request.deadline });
      expect(closed).toHaveLength(1);
      expect(registry.answer(request.id, { choice: 'allow-once', answeredBy: by })).toMatchObject({ ok: false, reason: 'expired' });
    });

    it('a token used after its time-to-live is refused', async () => {
      const { registry, open, clock, call } = setup();
      const { request, outcome } = open();
      registry.answer(request.id, { choice: 'allow-once', answeredBy: by });
      const o = await outcome;
      if (o.kind !== 'approved') throw new Error('unreachable');
      clock.advance(10_000);
      expect(registry.consume(o.token, 'files', 'write_file', call.arguments)).toMatchObject({ ok: false, reason: 'expired' });
    });

    it('an answer that is not one Airlock offers, or from nowhere, is refused without closing', () => {
      const { registry, open } = setup();
      const { request } = open();
      expect(registry.answer(request.id, { choice: 'allow-forever' as never, answeredBy: by })).toMatchObject({ ok: false, reason: 'invalid-answer' });
      expect(registry.answer(request.id, { choice: 'allow-once', answeredBy: { shell: 'evil' } as never })).toMatchObject({ ok: false, reason: 'invalid-answer' });
      expect(registry.answer(request.id, null as never)).toMatchObject({ ok: false, reason: 'invalid-answer' });
      expect(registry.pending()).toHaveLength(1);
    });
  });

  describe('edited arguments', () => {
    it('valid edits are what the token is bound to, and are marked edited', async () => {
      const { registry, open, call } = setup();
      const { request, outcome } = open();
      const edited = { path: '/home/me/notes-copy.md', content: 'hello' };
      expect(registry.answer(request.id, { choice: 'allow-once', editedArguments: edited, answeredBy: by }).ok).toBe(true);
      const o = await outcome;
      if (o.kind !== 'approved') throw new Error('unreachable');
      expect(o).toMatchObject({ edited: true, arguments: edited });
      expect(registry.consume(o.token, 'files', 'write_file', call.arguments)).toMatchObject({ ok: false, reason: 'different-call' });
    });

    it('the edited arguments are used as they were at answer time', async () => {
      const { registry, open } = setup();
      const { request, outcome } = open();
      const edited = { path: '/home/me/a.md', content: 'x' };
      registry.answer(request.id, { choice: 'allow-once', editedArguments: edited, answeredBy: by });
      edited.path = '/etc/shadow';
      const o = await outcome;
      if (o.kind !== 'approved') throw new Error('unreachable');
      expect(o.arguments.path).toBe('/home/me/a.md');
      expect(registry.consume(o.token, 'files', 'write_file', { path: '/home/me/a.md', content: 'x' }).ok).toBe(true);
    });

    it('the same arguments sent back are not marked edited', async () => {
      const { registry, open, call } = setup();
      const { request, outcome } = open();
      registry.answer(request.id, { choice: 'allow-once', editedArguments: { content: 'hello', path: '/home/me/notes.md' }, answeredBy: by });
      expect(await outcome).toMatchObject({ edited: false, arguments: call.arguments });
    });

    it.each([
      ['a missing required parameter', { path: '/x' }],
      ['a wrong type', { path: 3, content: 'x' }],
      ['an unknown parameter', { path: '/x', content: 'x', extra: true }],
      ['an empty path (minLength)', { path: '', content: 'x' }],
      ['not an object', ['path']],
      ['not JSON', { path: '/x', content: 'x', when: new Date() }],
    ])('%s is refused and the request stays open', (_n, edited) => {
      const { registry, open } = setup();
      const { request } = open();
      const r = registry.answer(request.id, { choice: 'allow-once', editedArguments: edited as never, answeredBy: by });
      expect(r).toMatchObject({ ok: false, reason: 'invalid-arguments' });
      expect(registry.pending()).toHaveLength(1);
    });
  });

  describe('remembering', () => {
    it('allow-always for a destructive tool needs confirmDestructiveAlways', async () => {
      const { registry, open } = setup();
      const { request, outcome } = open();
      expect(registry.answer(request.id, { choice: 'allow-always', answeredBy: by })).toMatchObject({ ok: false, reason: 'needs-second-confirmation' });
      expect(registry.pending()).toHaveLength(1);
      expect(registry.answer(request.id, { choice: 'allow-always', confirmDestructiveAlways: true, answeredBy: by }).ok).toBe(true);
      const o = await outcome;
      expect(o).toMatchObject({
        kind: 'approved',
        rule: { server: 'files', tool: 'write_file', fingerprint: fingerprintTool(WRITE_FILE), effect: 'allow' },
      });
    });

    it('allow-always for a tool that is not destructive needs no second confirmation', async () => {
      const { registry, open } = setup(EDIT);
      const { request, outcome } = open();
      expect(registry.answer(request.id, { choice: 'allow-always', answeredBy: by }).ok).toBe(true);
      expect((await outcome).kind).toBe('approved');
    });

    it('allow-session stores a grant bound to the fingerprint, which decide() then honours', async () => {
      const { registry, open, grants, call, facts, clock } = setup(EDIT);
      const { request, outcome } = open();
      registry.answer(request.id, { choice: 'allow-session', answeredBy: by });
      const o = await outcome;
      expect(o).toMatchObject({ kind: 'approved', grant: { server: 'files', tool: 'edit', fingerprint: fingerprintTool(EDIT) } });
      expect(grants.list()).toHaveLength(1);
      const again = decide(call, { ...facts, sessionGrants: grants.list() }, clock.now());
      expect(again.verdict).toBe('allow');
      grants.revoke('files');
      expect(decide(call, { ...facts, sessionGrants: grants.list() }, clock.now()).verdict).toBe('ask');
    });

    it('deny-always yields a deny rule; deny yields none', async () => {
      const a = setup();
      const ra = a.open();
      a.registry.answer(ra.request.id, { choice: 'deny-always', answeredBy: by });
      expect(await ra.outcome).toMatchObject({ kind: 'denied', choice: 'deny-always', rule: { effect: 'deny', fingerprint: fingerprintTool(WRITE_FILE) } });
      const b = setup();
      const rb = b.open();
      b.registry.answer(rb.request.id, { choice: 'deny', answeredBy: by, editedArguments: { ignored: true } });
      const ob = await rb.outcome;
      expect(ob.kind).toBe('denied');
      expect('rule' in ob).toBe(false);
    });
  });

  it('caps pending requests (an agent flooding prompts)', async () => {
    const { open } = setup(WRITE_FILE, { maxPending: 2 });
    open();
    open();
    const third = open();
    expect(await third.outcome).toMatchObject({ kind: 'cancelled' });
  });

  it('cancelAll denies everything pending', async () => {
    const { registry, open } = setup();
    const a = open();
    const b = open();
    registry.cancelAll('Airlock is quitting.');
    expect(await a.outcome).toMatchObject({ kind: 'cancelled', reason: 'Airlock is quitting.' });
    expect(await b.outcome).toMatchObject({ kind: 'cancelled' });
    expect(registry.answer(a.request.id, { choice: 'allow-once', answeredBy: by })).toMatchObject({ ok: false, reason: 'already-answered' });
  });

  it('deadlines are capped, and one in the past closes at once', async () => {
    const { registry, decision, call, clock } = setup();
    const far = registry.open({ call, decision, definition: WRITE_FILE, profile: defaultSandboxProfile(), serverTrusted: false, deadline: clock.now() + 10 * 24 * 3600_000 });
    expect(far.request.deadline).toBe(clock.now() + 15 * 60_000);
    const past = registry.open({ call, decision, definition: WRITE_FILE, profile: defaultSandboxProfile(), serverTrusted: false, deadline: clock.now() - 1 });
    expect(await past.outcome).toMatchObject({ kind: 'expired' });
  });

  it('ids are unguessable and distinct', () => {
    const { open } = setup(WRITE_FILE, { maxPending: 1000 });
    const ids = new Set(Array.from({ length: 200 }, () => open().request.id));
    expect(ids.size).toBe(200);
  });
});

describe('approval properties', () => {
  it('a token is accepted for exactly one call: the approved one, once', async () => {
    const fc = (await import('fast-check')).default;
    const json = fc.jsonValue({ maxDepth: 3 });
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 4 }), fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 4 }), async (approved, other) => {
        const definition: ToolDefinition = { name: 't', inputSchema: { type: 'object' }, annotations: { destructiveHint: false } as ToolAnnotations };
        const clock = new ManualClock();
        const registry = new ConfirmationRegistry({ clock });
        const call: ToolCall = { server: 's', tool: 't', arguments: approved as Record<string, unknown>, caller: { kind: 'user' } };
        const decision = decide(call, { tool: { definition, fingerprint: fingerprintTool(definition) }, server: { trusted: false, profile: defaultSandboxProfile(), sandboxAvailable: false }, rules: [], sessionGrants: [], mode: 'default' }, clock.now());
        const { request, outcome } = registry.open({ call, decision, definition, profile: defaultSandboxProfile(), serverTrusted: false });
        registry.answer(request.id, { choice: 'allow-once', answeredBy: by });
        const o = await outcome;
        if (o.kind !== 'approved') throw new Error('not approved');
        const sameCall = callDigest('s', 't', other) === callDigest('s', 't', o.arguments);
        expect(registry.consume(o.token, 's', 't', other).ok).toBe(sameCall);
        expect(registry.consume(o.token, 's', 't', o.arguments).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the approval token stays with the caller that opened the request', () => {
  it('observers and the answering shell never see it', async () => {
    const { registry, open } = setup(EDIT);
    const observed: unknown[] = [];
    registry.onDidClose((_r, o) => observed.push(o));
    const { request, outcome } = open();
    const result = registry.answer(request.id, { choice: 'allow-once', answeredBy: by });
    const o = await outcome;
    expect(o.kind === 'approved' && typeof o.token).toBe('string');
    expect(result.ok && 'token' in result.outcome).toBe(false);
    expect(observed).toHaveLength(1);
    expect(JSON.stringify(observed)).not.toContain(o.kind === 'approved' ? o.token : 'x');
    expect(JSON.stringify(result)).not.toContain(o.kind === 'approved' ? o.token : 'x');
  });
});

describe('an approval binds to the definition shown (issue 9, item 8)', () => {
  it('the token is refused for another definition of the tool, and for one no longer listed', async () => {
    const { registry, open, call, decision } = setup(EDIT);
    for (const now of ['f'.repeat(64), '']) {
      const { request, outcome } = open();
      registry.answer(request.id, { choice: 'allow-once', answeredBy: by });
      const o = await outcome;
      if (o.kind !== 'approved') throw new Error('unreachable');
      expect(registry.consume(o.token, 'files', 'edit', call.arguments, now)).toMatchObject({ ok: false, reason: 'definition-changed' });
      // Burnt: not even the right definition can use it now.
      expect(registry.consume(o.token, 'files', 'edit', call.arguments, decision.fingerprint!)).toMatchObject({ ok: false, reason: 'unknown-token' });
    }
    const { request, outcome } = open();
    registry.answer(request.id, { choice: 'allow-once', answeredBy: by });
    const o = await outcome;
    if (o.kind !== 'approved') throw new Error('unreachable');
    expect(registry.consume(o.token, 'files', 'edit', call.arguments, decision.fingerprint!)).toMatchObject({ ok: true });
  });

  it('cancelChanged withdraws only the questions whose tool is no longer defined as shown, saying why', async () => {
    const { registry, open, call, decision } = setup(EDIT);
    const same = open();
    const changed = open({ ...call, tool: 'edit' });
    const otherServer = open({ ...call, server: 'elsewhere' });
    const current = (tool: string) => (tool === 'edit' ? decision.fingerprint! : undefined);
    expect(registry.cancelChanged('files', current)).toEqual([]);
    expect(registry.cancelChanged('files', () => 'f'.repeat(64)).sort()).toEqual([same.request.id, changed.request.id].sort());
    expect(await same.outcome).toMatchObject({ kind: 'cancelled', cause: 'definition-changed', reason: expect.stringMatching(/changed while you were being asked/) });
    expect(registry.pending().map((request) => request.id)).toEqual([otherServer.request.id]);
    expect(registry.answer(same.request.id, { choice: 'allow-once', answeredBy: by })).toMatchObject({ ok: false, reason: 'already-answered' });
    // A tool the server no longer offers is no longer defined as shown either.
    expect(registry.cancelChanged('elsewhere', () => undefined)).toEqual([otherServer.request.id]);
  });
});

describe('edited arguments are checked within a cost limit (issue 10, item 6)', () => {
  it('against a 26-level exponential schema they are refused with a clear message; the request stays open', async () => {
    const defs: Record<string, unknown> = { a0: { type: 'string' } };
    for (let i = 1; i <= 26; i += 1) defs[`a${i}`] = { allOf: [{ $ref: `#/$defs/a${i - 1}` }, { $ref: `#/$defs/a${i - 1}` }] };
    const PICK: ToolDefinition = { name: 'pick', inputSchema: { type: 'object', $defs: defs, properties: { x: { $ref: '#/$defs/a26' } } }, annotations: { destructiveHint: false } };
    const { registry, open, call } = setup(PICK);
    const { request, outcome } = open({ ...call, arguments: { x: 'sent' } });
    const refused = registry.answer(request.id, { choice: 'allow-once', editedArguments: { x: 'edited' }, answeredBy: by });
    expect(refused).toMatchObject({ ok: false, reason: 'invalid-arguments' });
    expect(refused.ok === false && refused.message).toMatch(/too complex to check within Airlock’s limit of 100,000 steps.*still open: allow the arguments as they were sent, or deny/);
    expect(registry.pending().map((r) => r.id)).toEqual([request.id]);
    expect(registry.answer(request.id, { choice: 'allow-once', answeredBy: by }).ok).toBe(true);
    expect(await outcome).toMatchObject({ kind: 'approved', arguments: { x: 'sent' }, edited: false });
  });
});
