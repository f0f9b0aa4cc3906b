/**
 * The choke point proven where its guarantees meet (issue 10): the real
 * AirlockHost — its CallPipeline, ConfirmationRegistry, AuditLog and
 * supervisor — with real fixture servers in the real sandbox, every effect
 * checked from outside:
 * - logged before sent: the log-witness server reads the audit log when the
 *   call reaches it; its call's decision must already be there;
 * - the audit records the arguments sent (a person's edited ones), as the
 *   server received them;
 * - an approval the registry refuses (expired: a zero token lifetime) sends
 *   nothing;
 * - no retry for a call that is not idempotent, exactly one for a trusted
 *   idempotent one — counted by a server that crashes while the call is open;
 * - strict durability (the person's setting, read from the store): the
 *   decision's fsync — recorded by the audit log's injected file system —
 *   returned before the supervisor sent the call;
 * - a tool that changes while its approval is being written to disk (the
 *   fsync held back) is not sent under that approval.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfirmationView } from '../../../shared/views';
import { callDigest } from '../../../electron/core/approvals/approval-tokens';
import { ACTIVE_FILE } from '../../../electron/core/audit/audit-log';
import { recordingFs, type FsEvent, type RecordingFs } from '../audit/support/recording-fs';
import { createTestHost, fixture, type TestHost } from '../host/host-support';
import { createWitnessedHost, type WitnessedHost } from './support/witnessed-host';

const agent = { kind: 'client', name: 'Test Agent' } as const;

async function nextConfirmation(t: TestHost): Promise<ConfirmationView> {
  for (let i = 0; i < 400; i += 1) {
    const pending = t.host.approvals.pending();
    if (pending.length) return pending[0]!;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no confirmation opened');
}

async function decisionOf(t: TestHost, server: string, callId: string) {
  const records = await t.host.audit.read({ server, limit: 1000 });
  const record = records.find((r) => r.decision.callId === callId);
  if (!record) throw new Error(`no decision on record for ${callId}`);
  return record;
}

describe('logged before sent, and logged as sent: the server reads the audit log when the call reaches it', () => {
  let t: WitnessedHost;
  beforeAll(async () => {
    t = await createWitnessedHost();
  });
  afterAll(() => t?.close());

  it('a call a rule allows: its decision (allow, the digest of what was sent) was on disk when the server got it', async () => {
    const write = t.host.supervisor.tools.lookup('witness', 'write')!;
    t.host.policy.saveRule({ server: 'witness', tool: 'write', fingerprint: write.fingerprint, effect: 'allow', createdAt: new Date().toISOString() });
    const args = { n: 1, note: 'by rule' };
    const result = await t.host.calls.call({ server: 'witness', tool: 'write', arguments: args, caller: agent });
    expect(result.outcome).toBe('ok');
    expect(result.decision.decidedBy.kind).toBe('rule');
    const arrivals = t.arrivals();
    expect(arrivals).toHaveLength(1);
    expect(arrivals[0]!.arguments).toEqual(args);
    expect(arrivals[0]!.decisions.filter((d) => d.callId === result.callId)).toEqual([
      { callId: result.callId, tool: 'write', final: 'allow', argumentsDigest: callDigest('witness', 'write', args), arguments: args },
    ]);
  });

  it('the person’s own call (the window’s console): its decision was on disk first', async () => {
    const before = t.arrivals().length;
    const result = await t.host.calls.call({ server: 'witness', tool: 'wipe', arguments: { n: 7 }, caller: { kind: 'user' } });
    expect(result.outcome).toBe('ok');
    expect(result.answer).toMatchObject({ how: 'own-call' });
    const arrival = t.arrivals()[before]!;
    expect(arrival.decisions.find((d) => d.callId === result.callId)).toMatchObject({ final: 'allow', argumentsDigest: callDigest('witness', 'wipe', { n: 7 }) });
  });

  it('a person approves with edited arguments: the server gets the edited ones, and the decision on disk at that moment records exactly those', async () => {
    t.ask.available = true;
    const before = t.arrivals().length;
    const requested = { n: 1, note: 'as the agent asked' };
    const edited = { n: 2, note: 'as the person edited it' };
    const pending = t.host.calls.call({ server: 'witness', tool: 'wipe', arguments: requested, caller: agent });
    const request = await nextConfirmation(t);
    expect(t.host.approvals.answer(request.id, { choice: 'allow-once', editedArguments: edited }, { shell: 'test' })).toEqual({ accepted: true });
    const result = await pending;
    expect(result.outcome).toBe('ok');
    expect(result.answer).toMatchObject({ how: 'allow-once', edited: true });
    expect(result.arguments).toEqual(edited);
    const arrivals = t.arrivals().slice(before);
    expect(arrivals.map((a) => a.arguments)).toEqual([edited]);
    // At the moment of arrival: the decision for this call, recording what was sent — not what was asked.
    expect(arrivals[0]!.decisions.find((d) => d.callId === result.callId)).toEqual({
      callId: result.callId,
      tool: 'wipe',
      final: 'allow',
      argumentsDigest: callDigest('witness', 'wipe', edited),
      arguments: edited,
    });
    // And the log as Airlock reads it back says the same.
    const { decision, outcome } = await decisionOf(t, 'witness', result.callId);
    expect(decision.arguments).toEqual(edited);
    expect(decision.argumentsDigest).not.toBe(callDigest('witness', 'wipe', requested));
    expect(decision.answer).toMatchObject({ how: 'allow-once', edited: true });
    expect(outcome?.outcome).toBe('ok');
  });

  it('a call a person denies: the denial is on record, and nothing reaches the server', async () => {
    t.ask.available = true;
    const before = t.arrivals().length;
    const pending = t.host.calls.call({ server: 'witness', tool: 'wipe', arguments: { n: 3 }, caller: agent });
    const request = await nextConfirmation(t);
    expect(t.host.approvals.answer(request.id, { choice: 'deny' }, { shell: 'test' })).toEqual({ accepted: true });
    const result = await pending;
    expect(result.outcome).toBe('denied');
    expect(t.arrivals()).toHaveLength(before);
    expect((await decisionOf(t, 'witness', result.callId)).decision).toMatchObject({ final: 'deny', answer: { how: 'deny' } });
    expect(await t.host.audit.verify()).toMatchObject({ ok: true });
  });
});

describe('an approval the registry refuses sends nothing', () => {
  let t: WitnessedHost;
  beforeAll(async () => {
    // Every approval token expires the moment it is minted: consume() refuses it.
    t = await createWitnessedHost({ approvalTokenTtlMs: 0 });
    t.ask.available = true;
  });
  afterAll(() => t?.close());

  it('a person approves, the token has expired by the time the call would go: denied, recorded as a refused approval, 0 calls reach the server', async () => {
    const pending = t.host.calls.call({ server: 'witness', tool: 'write', arguments: { n: 1 }, caller: agent });
    const request = await nextConfirmation(t);
    expect(t.host.approvals.answer(request.id, { choice: 'allow-once' }, { shell: 'test' })).toEqual({ accepted: true });
    const result = await pending;
    expect(result.outcome).toBe('denied');
    expect(result.message).toMatch(/refused the approval: This approval expired/);
    expect(t.arrivals()).toEqual([]);
    const { decision, outcome } = await decisionOf(t, 'witness', result.callId);
    expect(decision).toMatchObject({ final: 'deny', answer: { how: 'refused-token', confirmationId: request.id } });
    expect(outcome?.outcome).toBe('denied');
    // No shell can answer it again to try once more.
    expect(t.host.approvals.answer(request.id, { choice: 'allow-once' }, { shell: 'test' }).accepted).toBe(false);
    expect(t.arrivals()).toEqual([]);
  });
});

describe('retries, counted by a server that crashes while the call is open', () => {
  let t: TestHost;
  // Each server counts in its own data folder: `lookup` says it only reads, so its bookkeeping is not a change in a folder the person gave it.
  const arrivals = (key: string) =>
    ['trusted', 'untrusted'].flatMap((name) => {
      const file = join(t.host.servers.serverDataDir(name), 'calls');
      return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((line) => line.endsWith(` ${key}`)) : [];
    });
  const call = (server: string, tool: 'append' | 'lookup', key: string, crashes: number) =>
    t.host.calls.call({ server, tool, arguments: { key, crashes }, caller: { kind: 'user' } });

  beforeAll(async () => {
    t = await createTestHost();
    const profile = { filesystem: { read: [], write: [], persistentData: true } };
    await t.add('trusted', [process.execPath, fixture('calls/crash-counting.mjs')], { profile, trusted: true });
    await t.add('untrusted', [process.execPath, fixture('calls/crash-counting.mjs')], { profile });
  });
  afterAll(() => t?.close());

  it('a tool that is not idempotent, on a trusted server: reached once, never retried, outcome unknown', async () => {
    const result = await call('trusted', 'append', 'append-once', 1);
    expect(result.decision.retry).toBe('never');
    expect(result.outcome).toBe('unknown');
    expect(result.message).toMatch(/Outcome unknown — the server may have acted\..*did not retry/);
    expect(arrivals('append-once')).toEqual(['append append-once']);
  });

  it('an idempotent tool of an untrusted server (its claim relaxes nothing): reached once, never retried', async () => {
    const result = await call('untrusted', 'lookup', 'untrusted-lookup', 1);
    expect(result.decision.retry).toBe('never');
    expect(result.outcome).toBe('unknown');
    expect(arrivals('untrusted-lookup')).toHaveLength(1);
  });

  it('an idempotent tool of a trusted server: retried once after the restart, and that answer is the result', async () => {
    const result = await call('trusted', 'lookup', 'lookup-once', 1);
    expect(result.decision.retry).toBe('once-after-reconnect');
    expect(result.outcome).toBe('ok');
    expect(JSON.stringify(result.result?.content)).toContain('answered after 1 crash');
    expect(arrivals('lookup-once')).toHaveLength(2);
  });

  it('an idempotent tool of a trusted server that crashes again: exactly one retry, then outcome unknown', async () => {
    const result = await call('trusted', 'lookup', 'lookup-always', 9);
    expect(result.outcome).toBe('unknown');
    expect(result.message).toMatch(/retried it once, after restarting the server; that failed too/);
    expect(arrivals('lookup-always')).toHaveLength(2);
    // The log says the same: one decision, one outcome, for one call.
    const records = (await t.host.audit.read({ server: 'trusted', tool: 'lookup', limit: 100 })).filter((r) => r.decision.callId === result.callId);
    expect(records).toHaveLength(1);
    expect(records[0]!.outcome?.outcome).toBe('unknown');
  });
});

describe('durability as the person set it, through the host: the fsync the audit log’s file system records, against the moment the supervisor sends', () => {
  let t: WitnessedHost;
  let fs: RecordingFs;
  beforeAll(async () => {
    fs = recordingFs();
    t = await createWitnessedHost({ audit: { fs } });
    const write = t.host.supervisor.tools.lookup('witness', 'write')!;
    t.host.policy.saveRule({ server: 'witness', tool: 'write', fingerprint: write.fingerprint, effect: 'allow', createdAt: new Date().toISOString() });
    // The moment of sending, marked in the same list as the file operations (the real supervisor does the sending).
    const supervisor = t.host.supervisor;
    const send = supervisor.callTool.bind(supervisor);
    supervisor.callTool = ((...args: Parameters<typeof send>) => {
      fs.mark(`send ${JSON.stringify(args[2])}`);
      return send(...args);
    }) as typeof supervisor.callTool;
  });
  afterAll(() => t?.close());

  /** Where this call's decision was written, whether the log was fsynced between that and its sending, and where it was sent. */
  const order = (events: FsEvent[], callId: string, args: unknown) => {
    const written = events.findIndex((e) => e.op === 'write' && e.file === ACTIVE_FILE && e.text!.includes(`"callId":"${callId}"`) && e.text!.includes('"type":"decision"'));
    const sent = events.findIndex((e) => e.op === 'mark' && e.file === `send ${JSON.stringify(args)}`);
    const flushed = events.findIndex((e, i) => i > written && i < sent && e.op === 'fsync' && e.file === ACTIVE_FILE);
    return { written, flushed, sent };
  };

  it('strict durability on: the decision was flushed to disk before the call was sent, and the server saw it', async () => {
    t.host.policy.setStrictDurability(true);
    const args = { n: 1, note: 'strict' };
    const result = await t.host.calls.call({ server: 'witness', tool: 'write', arguments: args, caller: agent });
    expect(result.outcome).toBe('ok');
    const { written, flushed, sent } = order(fs.events, result.callId, args);
    expect(written).toBeGreaterThanOrEqual(0);
    expect(flushed).toBeGreaterThan(written);
    expect(sent).toBeGreaterThan(flushed);
    expect(t.arrivals().at(-1)!.decisions.some((d) => d.callId === result.callId && d.final === 'allow')).toBe(true);
  });

  it('strict durability off (the default): the decision was written before the call was sent, without waiting for the disk', async () => {
    t.host.policy.setStrictDurability(false);
    const args = { n: 2, note: 'default' };
    const result = await t.host.calls.call({ server: 'witness', tool: 'write', arguments: args, caller: agent });
    expect(result.outcome).toBe('ok');
    const { written, flushed, sent } = order(fs.events, result.callId, args);
    expect(written).toBeGreaterThanOrEqual(0);
    expect(sent).toBeGreaterThan(written);
    expect(flushed).toBe(-1);
    // The flush still comes, within the window.
    await t.host.audit.flush();
    expect(fs.events.findIndex((e, i) => i > written && e.op === 'fsync' && e.file === ACTIVE_FILE)).toBeGreaterThan(written);
  });
});

describe('a tool that changes while its approval is being written to disk', () => {
  let t: TestHost;
  let fs: RecordingFs;
  let records: string;
  const reports = () => (existsSync(join(records, 'calls')) ? readFileSync(join(records, 'calls'), 'utf8').split('\n').filter(Boolean) : []);

  beforeAll(async () => {
    fs = recordingFs();
    t = await createTestHost({ audit: { fs } });
    records = t.folder('shifty-records');
    await t.add('shifty', [process.execPath, fixture('unseen/shifty.mjs'), records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
    t.ask.available = true;
  });
  afterAll(() => t?.close());

  it('is not sent: the person approved the definition that was there, and it is gone', async () => {
    const before = t.host.supervisor.tools.lookup('shifty', 'send_report')!.fingerprint;
    // The disk is slow: the approval's fsync waits until released.
    const release = fs.holdFsyncs();
    let result;
    try {
      const pending = t.host.calls.call({ server: 'shifty', tool: 'send_report', arguments: { to: 'team' }, caller: agent });
      expect(t.host.approvals.answer((await nextConfirmation(t)).id, { choice: 'allow-once' }, { shell: 'test' })).toEqual({ accepted: true });
      // The decision (allow) is written; its flush is held.
      await expect
        .poll(() => fs.events.some((e) => e.op === 'write' && e.file === ACTIVE_FILE && e.text!.includes('"type":"decision"') && e.text!.includes('"tool":"send_report"')), { timeout: 10_000 })
        .toBe(true);
      // Meanwhile the server rewrites the tool (the person's own call: written, not waiting for the disk).
      expect((await t.host.calls.call({ server: 'shifty', tool: 'swap', arguments: {}, caller: { kind: 'user' } })).outcome).toBe('ok');
      await expect.poll(() => t.host.supervisor.tools.lookup('shifty', 'send_report')?.fingerprint, { timeout: 10_000 }).not.toBe(before);
      release();
      result = await pending;
    } finally {
      release();
    }
    expect(result.outcome).toBe('denied');
    expect(result.message).toMatch(/changed just before Airlock sent the call, so it was not sent/);
    expect(reports()).toEqual([]);
    const { decision, outcome } = await decisionOf(t, 'shifty', result.callId);
    expect(decision.fingerprint).toBe(before);
    expect(outcome).toMatchObject({ outcome: 'denied', detail: 'definition-changed' });
  });
});
