/**
 * What the person never saw does not run unasked (issue 9 3c, issue 10 5):
 * a server that tells the install probe apart lists more tools once it runs,
 * or renames one on the fly. Those tools are new — listed as pending ("added
 * after install") and asked about before their first call, whatever the
 * server's trust or containment — until the person approves them. Real
 * servers in the real sandbox; calls that reach the server are counted from
 * outside (a file in its granted folder, its stderr in Airlock's log).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDetail } from '../../../electron/cli/format';
import { createTestHost, fixture, type TestHost } from './host-support';

const agent = { kind: 'client', name: 'Test Agent' } as const;
const LATE = fixture('unseen/late-tools.mjs');

function lines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

describe('a trusted server that lists a tool only once the probe is over', () => {
  let t: TestHost;
  let records: string;
  beforeAll(async () => {
    t = await createTestHost();
    records = t.folder('records');
    await t.add('late', [process.execPath, LATE, records], { trusted: true, profile: { filesystem: { read: [], write: [records], persistentData: false } } });
  });
  afterAll(() => t.close());

  it('the probe saw echo, lookup and unlock; the running server also offers peek', () => {
    expect(Object.keys(t.host.servers.record('late').approvedTools).sort()).toEqual(['echo', 'lookup', 'unlock']);
    expect(t.host.supervisor.tools.get('late')?.tools.map((tool) => tool.name).sort()).toEqual(['echo', 'lookup', 'peek', 'unlock']);
  });

  it('peek is listed as new, "added after install", on the detail page data, in the summary and in `airlock show`', async () => {
    const detail = await t.host.servers.detail('late');
    const peek = detail.tools.find((tool) => tool.name === 'peek')!;
    expect(peek.isNew).toBe(true);
    expect(peek.approvedAt).toBeUndefined();
    expect(peek.preview).toMatchObject({ verdict: 'ask', label: 'Asks' });
    expect(peek.preview.reasons.join(' ')).toMatch(/added after install/);
    expect(detail.tools.filter((tool) => tool.isNew).map((tool) => tool.name)).toEqual(['peek']);
    expect(detail.newTools).toBe(1);
    expect(t.host.servers.list().find((server) => server.name === 'late')?.newTools).toBe(1);
    expect(formatDetail(detail)).toMatch(/ {2}peek — Asks[^\n]*\n(?: {6}[^\n]*\n)* {6}NEW — added after install/);
  });

  it('its first call asks even though the server is trusted and it claims read-only; with nobody to ask, 0 calls reach it', async () => {
    t.ask.available = false;
    const result = await t.host.calls.call({ server: 'late', tool: 'peek', arguments: {}, caller: agent });
    expect(result.decision).toMatchObject({ verdict: 'ask', decidedBy: { kind: 'new-tool' } });
    expect(result.outcome).toBe('denied');
    expect(lines(join(records, 'calls'))).toEqual([]);
    // The reviewed read-only tool still runs unasked (trusted-read-only): the row is about what was not reviewed.
    const reviewed = await t.host.calls.call({ server: 'late', tool: 'lookup', arguments: {}, caller: agent });
    expect(reviewed.decision.decidedBy.kind).toBe('trusted-read-only');
    expect(reviewed.outcome).toBe('ok');
    expect(lines(join(records, 'calls'))).toEqual(['lookup']);
    const [decision] = await t.host.audit.read({ server: 'late', tool: 'peek', limit: 1 });
    expect(decision?.decision).toMatchObject({ verdict: 'ask', final: 'deny', decidedBy: 'new-tool' });
  });

  it('approving it (the approveChange path) records it; then the table applies and it runs', async () => {
    const peek = (await t.host.servers.detail('late')).tools.find((tool) => tool.name === 'peek')!;
    const detail = await t.host.serverSettings.approveChange('late', 'peek', peek.fingerprint);
    expect(detail.tools.find((tool) => tool.name === 'peek')).toMatchObject({ isNew: false, preview: { verdict: 'allow' } });
    // The approval is a change in the audit log, naming the definition approved (task L, item 3).
    await t.host.changes.settled();
    const rows = (await t.host.activity.entries({ server: 'late', tool: 'peek' })).filter((row) => row.kind === 'change');
    expect(rows).toEqual([expect.objectContaining({ verdict: 'tool approved', caller: 'You (window)', changes: [`tool approved: peek (definition ${peek.fingerprint.slice(0, 12)})`] })]);
    expect(detail.newTools).toBe(0);
    const result = await t.host.calls.call({ server: 'late', tool: 'peek', arguments: {}, caller: agent });
    expect(result.decision.decidedBy.kind).toBe('trusted-read-only');
    expect(lines(join(records, 'calls'))).toEqual(['lookup', 'peek']);
  });
});

describe('a contained, untrusted server that renames and adds tools on the fly', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost();
    await t.add('sly', [process.execPath, LATE]);
  });
  afterAll(() => t.close());

  const called = () => t.host.supervisor.log('sly').filter((line) => line.text.startsWith('CALLED ')).map((line) => line.text.slice('CALLED '.length));

  it('before the change, its reviewed read-only tool runs unasked: the sandbox makes it safe', async () => {
    const result = await t.host.calls.call({ server: 'sly', tool: 'lookup', arguments: {}, caller: agent });
    expect(result.decision.decidedBy.kind).toBe('contained-read-only');
    expect(result.outcome).toBe('ok');
  });

  it('after it renames lookup to look_up and adds peek, both ask — containment does not cover what was never shown', async () => {
    // The person's own console call is their consent; the server then changes its list.
    expect((await t.host.calls.call({ server: 'sly', tool: 'unlock', arguments: {}, caller: { kind: 'user' } })).outcome).toBe('ok');
    await expect.poll(() => t.host.supervisor.tools.lookup('sly', 'look_up'), { timeout: 5_000 }).toBeDefined();
    t.ask.available = false;
    for (const tool of ['look_up', 'peek']) {
      const result = await t.host.calls.call({ server: 'sly', tool, arguments: {}, caller: agent });
      expect(result.decision, tool).toMatchObject({ verdict: 'ask', decidedBy: { kind: 'new-tool' } });
      expect(result.outcome).toBe('denied');
    }
    expect((await t.host.calls.call({ server: 'sly', tool: 'lookup', arguments: {}, caller: agent })).decision.decidedBy.kind).toBe('unknown-tool');
    expect(called()).toEqual(['lookup', 'unlock']);
    const detail = await t.host.servers.detail('sly');
    expect(detail.tools.filter((tool) => tool.isNew).map((tool) => tool.name).sort()).toEqual(['look_up', 'peek']);
  });
});
