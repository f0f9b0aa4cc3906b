/**
 * A change while a confirmation is open cancels it (issue 9, item 8): the
 * person's answer binds to the definition they were shown. A server that
 * rewrites a tool and sends tools/list_changed while its confirmation is
 * open gets nothing under the old approval: the question is withdrawn and
 * asked again with the new definition (and after a few changes, the call is
 * refused). Real server, real sandbox; the fixture counts what reaches it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfirmationView } from '../../../shared/views';
import { CHANGED_WHILE_ASKED } from '../../../electron/core/calls/call-pipeline';
import { createTestHost, fixture, type TestHost } from './host-support';

const agent = { kind: 'client', name: 'Test Agent' } as const;

describe('a tool that changes while its confirmation is open', () => {
  let t: TestHost;
  let records: string;
  const calls = () => (existsSync(join(records, 'calls')) ? readFileSync(join(records, 'calls'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { version: number }) : []);
  const fingerprint = () => t.host.supervisor.tools.lookup('shifty', 'send_report')!.fingerprint;
  const swap = async () => expect((await t.host.calls.call({ server: 'shifty', tool: 'swap', arguments: {}, caller: { kind: 'user' } })).outcome).toBe('ok');

  /** The one open confirmation other than `not`, once there is one. */
  async function confirmation(not?: string): Promise<ConfirmationView> {
    for (let i = 0; i < 400; i += 1) {
      const open = t.host.approvals.pending().filter((request) => request.id !== not);
      if (open.length) return open[0]!;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('no confirmation opened');
  }

  beforeAll(async () => {
    t = await createTestHost({ confirmationTimeoutMs: 30_000 });
    records = t.folder('records');
    await t.add('shifty', [process.execPath, fixture('unseen/shifty.mjs'), records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
    t.ask.available = true;
  });
  afterAll(() => t.close());

  it('the open question is withdrawn and asked again with the new definition; the old one cannot be answered', async () => {
    const before = fingerprint();
    const pending = t.host.calls.call({ server: 'shifty', tool: 'send_report', arguments: { to: 'team' }, caller: agent });
    const first = await confirmation();
    expect(first.toolDescription).toContain('version 1');
    await swap();
    const second = await confirmation(first.id);
    expect(t.host.approvals.pending().map((request) => request.id)).toEqual([second.id]);
    expect(second.toolDescription).toContain('version 2');
    expect(second.reasons[0]).toBe(CHANGED_WHILE_ASKED);
    expect(second.changes?.changes.map((change) => change.field).join(' ')).toMatch(/Description/);
    // The answer to the withdrawn question is refused.
    expect(t.host.approvals.answer(first.id, { choice: 'allow-once' }, { shell: 'test' }).accepted).toBe(false);
    expect(t.host.approvals.answer(second.id, { choice: 'deny' }, { shell: 'test' })).toEqual({ accepted: true });
    const result = await pending;
    expect(result.outcome).toBe('denied');
    expect(result.decision.fingerprint).not.toBe(before);
    expect(calls()).toEqual([]);
  });

  it('an approval given after the change was announced, before Airlock re-read the tool, sends nothing; the new question decides', async () => {
    const pending = t.host.calls.call({ server: 'shifty', tool: 'send_report', arguments: { to: 'team' }, caller: agent });
    const first = await confirmation();
    const shown = fingerprint();
    await swap();
    // The list_changed has arrived; Airlock has not re-read the tool yet: the question is still open.
    expect(t.host.approvals.pending().map((request) => request.id)).toEqual([first.id]);
    expect(t.host.approvals.answer(first.id, { choice: 'allow-once' }, { shell: 'test' })).toEqual({ accepted: true });
    const second = await confirmation(first.id);
    expect(second.reasons[0]).toBe(CHANGED_WHILE_ASKED);
    expect(calls()).toEqual([]);
    expect(t.host.approvals.answer(second.id, { choice: 'allow-once' }, { shell: 'test' })).toEqual({ accepted: true });
    const result = await pending;
    expect(result.outcome).toBe('ok');
    // Exactly one call, under the new approval, and the audit holds the definition approved and sent.
    expect(calls()).toEqual([{ version: 3, args: { to: 'team' } }]);
    const [logged] = await t.host.audit.read({ server: 'shifty', tool: 'send_report', limit: 1 });
    expect(logged?.decision.fingerprint).toBe(fingerprint());
    expect(logged?.decision.fingerprint).not.toBe(shown);
    expect(logged?.decision.answer).toMatchObject({ how: 'allow-once', confirmationId: second.id });
  });

  it('a tool that keeps changing under the question is refused after three questions, with a clear message', async () => {
    const before = calls().length;
    const pending = t.host.calls.call({ server: 'shifty', tool: 'send_report', arguments: { to: 'team' }, caller: agent });
    let open = await confirmation();
    for (let i = 0; i < 2; i += 1) {
      await swap();
      open = await confirmation(open.id);
    }
    await swap();
    const result = await pending;
    expect(result.outcome).toBe('denied');
    expect(result.message).toMatch(/kept changing while you were being asked/);
    expect(t.host.approvals.pending()).toEqual([]);
    expect(calls()).toHaveLength(before);
  });
});
