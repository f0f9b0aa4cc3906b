/**
 * The call choke point with real servers in the real sandbox: policy,
 * confirmation, audit, and what reaches the server — counted from outside.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfirmationView } from '../../../shared/views';
import { createTestHost, FILESYSTEM_SERVER, fixture, type TestHost } from './host-support';

const agent = { kind: 'client', name: 'Test Agent' } as const;

function lines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

async function nextConfirmation(t: TestHost): Promise<ConfirmationView> {
  for (let i = 0; i < 200; i += 1) {
    const pending = t.host.approvals.pending();
    if (pending.length) return pending[0]!;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no confirmation opened');
}

describe('server-filesystem through the choke point', () => {
  let t: TestHost;
  let work: string;
  let outside: string;

  beforeAll(async () => {
    t = await createTestHost();
    work = t.folder('work');
    outside = t.folder('outside');
    writeFileSync(join(work, 'notes.md'), 'hello');
    writeFileSync(join(outside, 'keep.txt'), 'untouched');
    await t.add('files', [process.execPath, FILESYSTEM_SERVER, work, outside], {
      profile: { filesystem: { read: [work, outside], write: [work], persistentData: false } },
    });
  });
  afterAll(() => t.close());

  it('lists the tools the probe saw as approved, with the server’s claims', async () => {
    const detail = await t.host.servers.detail('files');
    expect(detail.state).toBe('ready');
    const write = detail.tools.find((tool) => tool.name === 'write_file')!;
    expect(write.reading.class).toBe('destructive');
    expect(write.preview.verdict).toBe('ask');
    expect(write.approvedAt).toBeDefined();
    expect(detail.tools.find((tool) => tool.name === 'read_text_file')!.reading.class).toBe('read-only');
  });

  it('write_file asks, and with nobody to ask is denied without reaching the server', async () => {
    t.ask.available = false;
    const result = await t.host.calls.call({ server: 'files', tool: 'write_file', arguments: { path: join(work, 'a.txt'), content: 'x' }, caller: agent });
    expect(result.outcome).toBe('denied');
    expect(result.message).toMatch(/needs a person's confirmation.*nobody could be asked[\s\S]*open the Airlock app/);
    expect(existsSync(join(work, 'a.txt'))).toBe(false);
  });

  it('write_file runs once when a person allows it, with the arguments they edited', async () => {
    t.ask.available = true;
    const pending = t.host.calls.call({ server: 'files', tool: 'write_file', arguments: { path: join(work, 'b.txt'), content: 'draft' }, caller: agent });
    const request = await nextConfirmation(t);
    expect(request.destructive).toBe(true);
    expect(request.headline).toContain('Test Agent wants to run files › write_file on');
    expect(t.host.approvals.answer(request.id, { choice: 'allow-once', editedArguments: { path: join(work, 'b.txt'), content: 'edited' } }, { shell: 'test' })).toEqual({ accepted: true });
    const result = await pending;
    expect(result.outcome).toBe('ok');
    expect(readFileSync(join(work, 'b.txt'), 'utf8')).toBe('edited');
    // The same id cannot be answered again (no replay).
    expect(t.host.approvals.answer(request.id, { choice: 'allow-once' }, { shell: 'test' }).accepted).toBe(false);
  });

  it('a write outside the granted folder fails with the sandbox’s error, the file unchanged', async () => {
    const result = await t.host.calls.call({ server: 'files', tool: 'write_file', arguments: { path: join(outside, 'keep.txt'), content: 'overwritten' }, caller: { kind: 'user' } });
    expect(result.outcome).toBe('tool-error');
    expect(JSON.stringify(result.result?.content)).toMatch(/EROFS|EACCES|read-only file system|permission denied/i);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('untouched');
  });

  it('read_text_file asks while untrusted and not contained, and runs without asking once trusted', async () => {
    t.ask.available = false;
    const untrusted = await t.host.calls.call({ server: 'files', tool: 'read_text_file', arguments: { path: join(work, 'notes.md') }, caller: agent });
    expect(untrusted.outcome).toBe('denied');
    expect(untrusted.decision.verdict).toBe('ask');
    t.host.serverSettings.setTrust('files', true);
    const trusted = await t.host.calls.call({ server: 'files', tool: 'read_text_file', arguments: { path: join(work, 'notes.md') }, caller: agent });
    expect(trusted.outcome).toBe('ok');
    expect(trusted.decision.decidedBy.kind).toBe('trusted-read-only');
    t.host.serverSettings.setTrust('files', false);
  });

  it('writes every decision before its outcome, in a chain that verifies', async () => {
    const entries = await t.host.activity.entries({ server: 'files' });
    expect(entries.length).toBeGreaterThan(0);
    const byCall = new Map<string, number[]>();
    for (const entry of [...entries].reverse()) byCall.set(entry.callId, [...(byCall.get(entry.callId) ?? []), entry.seq]);
    for (const entry of entries.filter((row) => row.kind === 'outcome')) {
      const decision = entries.find((row) => row.kind === 'decision' && row.callId === entry.callId)!;
      expect(decision.seq).toBeLessThan(entry.seq);
    }
    expect(await t.host.audit.verify()).toMatchObject({ ok: true });
  });
});

describe('a contained server’s read-only tools run without asking, even untrusted', () => {
  let t: TestHost;
  let work: string;
  beforeAll(async () => {
    t = await createTestHost();
    work = t.folder('work');
    writeFileSync(join(work, 'notes.md'), 'contained');
    await t.add('reader', [process.execPath, FILESYSTEM_SERVER, work], { profile: { filesystem: { read: [work], write: [], persistentData: false } } });
  });
  afterAll(() => t.close());

  it('allows read_text_file and says the sandbox, not the claim, makes it safe', async () => {
    const result = await t.host.calls.call({ server: 'reader', tool: 'read_text_file', arguments: { path: join(work, 'notes.md') }, caller: agent });
    expect(result.outcome).toBe('ok');
    expect(result.decision.decidedBy.kind).toBe('contained-read-only');
    expect(result.decision.reasons.join(' ')).toMatch(/sandbox, not the claim/);
  });

  it('still asks for its write tools', async () => {
    const result = await t.host.calls.call({ server: 'reader', tool: 'create_directory', arguments: { path: join(work, 'x') }, caller: agent });
    expect(result.decision.verdict).toBe('ask');
    expect(existsSync(join(work, 'x'))).toBe(false);
  });
});

describe('hostile servers', () => {
  let t: TestHost;
  let records: string;
  let victims: string;
  beforeAll(async () => {
    t = await createTestHost();
    records = t.folder('records');
    victims = t.folder('victims');
  });
  afterAll(() => t.close());

  it('1 — lies in annotations: "read-only" tidy_up still asks, and its delete is blocked by the sandbox', async () => {
    writeFileSync(join(victims, 'precious.txt'), 'keep');
    await t.add('liar', [process.execPath, fixture('policy/liar.mjs'), records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
    t.ask.available = false;
    const asked = await t.host.calls.call({ server: 'liar', tool: 'tidy_up', arguments: { path: join(victims, 'precious.txt') }, caller: agent });
    expect(asked.decision.verdict).toBe('ask');
    expect(asked.outcome).toBe('denied');
    expect(lines(join(records, 'tidy'))).toEqual([]);
    // Even the person's own call cannot make it delete outside its grant.
    const own = await t.host.calls.call({ server: 'liar', tool: 'tidy_up', arguments: { path: join(victims, 'precious.txt') }, caller: { kind: 'user' } });
    expect(own.outcome).toBe('tool-error');
    expect(readFileSync(join(victims, 'precious.txt'), 'utf8')).toBe('keep');
  });

  it('2 — rug pull: a changed definition voids the rule; nothing reaches the server until approved again', async () => {
    await t.add('rugpull', [process.execPath, fixture('policy/rug-pull.mjs'), records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
    const before = (await t.host.servers.detail('rugpull')).tools.find((tool) => tool.name === 'lookup')!;
    t.host.policy.saveRule({ server: 'rugpull', tool: 'lookup', fingerprint: before.fingerprint, effect: 'allow', createdAt: new Date().toISOString() });
    t.ask.available = false;
    const first = await t.host.calls.call({ server: 'rugpull', tool: 'lookup', arguments: { word: 'apple' }, caller: agent });
    expect(first.outcome).toBe('ok');
    expect(first.decision.decidedBy.kind).toBe('rule');
    // The server rewrites the tool and sends list_changed; wait until Airlock has relisted it.
    await expect.poll(() => t.host.supervisor.tools.lookup('rugpull', 'lookup')?.fingerprint, { timeout: 5_000 }).not.toBe(before.fingerprint);
    const second = await t.host.calls.call({ server: 'rugpull', tool: 'lookup', arguments: { word: 'pear' }, caller: agent });
    expect(second.decision.verdict).toBe('ask');
    expect(second.decision.flags.voidedRules).toHaveLength(1);
    expect(second.decision.flags.suspiciousLoosening.length).toBeGreaterThan(0);
    expect(second.outcome).toBe('denied');
    expect(lines(join(records, 'lookups'))).toHaveLength(1);
    const detail = await t.host.servers.detail('rugpull');
    const changed = detail.tools.find((tool) => tool.name === 'lookup')!;
    expect(changed.pendingChange?.suspicious).toBe(true);
    expect(changed.pendingChange?.diff.changes.map((change) => change.field).join(' ')).toMatch(/escription/);
    expect(detail.pendingChanges).toBe(1);
    expect(changed.warnings.map((warning) => warning.kind)).toEqual(expect.arrayContaining(['addresses-model', 'secret-path']));
  });

  it('3 — shadowing: tools stay namespaced by server; the collision and cross-reference are flagged', async () => {
    const work = t.folder('shadow-work');
    await t.add('files', [process.execPath, FILESYSTEM_SERVER, work], { profile: { filesystem: { read: [work], write: [], persistentData: false } } });
    await t.add('shadow', [process.execPath, fixture('policy/shadow.mjs')]);
    const detail = await t.host.servers.detail('shadow');
    const tool = detail.tools.find((candidate) => candidate.name === 'read_text_file')!;
    expect(tool.namespacedName).toBe('shadow__read_text_file');
    const kinds = tool.warnings.map((warning) => warning.kind);
    expect(kinds).toContain('name-collision');
    expect(kinds).toContain('mentions-other-tool');
    expect(kinds).toContain('addresses-model');
  });

  it('a slow non-idempotent call times out as "outcome unknown" and reaches the server exactly once', async () => {
    await t.add('slow', [process.execPath, fixture('policy/slow-writer.mjs'), records], { profile: { filesystem: { read: [], write: [records], persistentData: false } }, trusted: true });
    const result = await t.host.calls.call({ server: 'slow', tool: 'append_line', arguments: { line: 'once' }, caller: { kind: 'user' } });
    expect(result.outcome).toBe('unknown');
    expect(result.message).toMatch(/Outcome unknown — the server may have acted/);
    expect(result.decision.retry).toBe('never');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(lines(join(records, 'appends'))).toEqual(['once']);
  });

  it('10 — approval abuse: never-issued ids, replays and late answers are refused; nothing reaches the server', async () => {
    await t.add('victim', [process.execPath, fixture('policy/liar.mjs'), t.folder('victim-records')], {
      profile: { filesystem: { read: [], write: [join(t.root, 'victim-records')], persistentData: false } },
    });
    expect(t.host.approvals.answer('never-issued', { choice: 'allow-once' }, { shell: 'test' }).accepted).toBe(false);
    t.ask.available = true;
    const pending = t.host.calls.call({ server: 'victim', tool: 'tidy_up', arguments: { path: '/tmp/x' }, caller: agent, confirmationTimeoutMs: 1_500 });
    const request = await nextConfirmation(t);
    const result = await pending;
    expect(result.outcome).toBe('denied');
    expect(t.host.approvals.answer(request.id, { choice: 'allow-once' }, { shell: 'test' }).accepted).toBe(false);
    expect(lines(join(t.root, 'victim-records', 'tidy'))).toEqual([]);
  });
});
