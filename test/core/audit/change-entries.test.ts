/**
 * Changes to what Airlock allows are audit entries (task L, item 3): a
 * server added and removed, grants, trust, rules (added in the window,
 * removed at the command line, made by an "always" answer), the policy mode
 * and strict durability — each a `change` entry naming who (window or
 * command line) and what changed, read from the log's file on disk, in the
 * chain `verify()` checks, and shown as Activity rows.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import type { IpcHandlers } from '../../../shared/ipc';
import { createTestHost, FILESYSTEM_SERVER, type TestHost } from '../host/host-support';

interface ChangeLine {
  type: string;
  seq: number;
  change: string;
  by: string;
  via?: string;
  server: string;
  tool: string;
  changes: string[];
}

/** The change entries as written on disk, oldest first. */
function changesOnDisk(t: TestHost): ChangeLine[] {
  return readFileSync(join(t.dataDir, 'audit', 'audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ChangeLine)
    .filter((entry) => entry.type === 'change');
}

describe('rule and setting changes in the audit log', () => {
  let t: TestHost;
  let window: IpcHandlers;
  let terminal: IpcHandlers;
  let work: string;

  beforeAll(async () => {
    t = await createTestHost();
    work = t.folder('work');
    writeFileSync(join(work, 'notes.md'), 'hello');
    window = t.host.ipcHandlers();
    terminal = t.host.ipcHandlers({ kind: 'terminal', origin: 'cli-test' });
  });
  afterAll(() => t.close());

  it('a server added in the window is one entry naming its source and what it was given', async () => {
    const profile = { ...defaultSandboxProfile(), filesystem: { read: [], write: [work], persistentData: false } };
    const { unsandboxed: _none, ...editable } = profile;
    const disclosure = await window['install.prepare']({ source: { kind: 'local', argv: [process.execPath, FILESYSTEM_SERVER, work] } });
    await window['install.probe']({ draftId: disclosure.draftId, userConfig: {}, profile: editable });
    await window['install.commit']({ draftId: disclosure.draftId, name: 'files', profile: editable, trusted: false, secrets: {}, enable: true });
    const [added] = changesOnDisk(t);
    expect(added).toMatchObject({ change: 'server-added', by: 'window', server: 'files' });
    expect(added!.changes).toContain(`write grant added: ${work}`);
    expect(added!.changes).toContain('trusted: off');
    expect(added!.changes[0]).toMatch(/^source: local program .*server-filesystem/);
  });

  it('grants and trust changed at the command line say so, with what changed; an unchanged value writes nothing', async () => {
    const current = (await terminal['servers.get']({ name: 'files' })).profile;
    const { unsandboxed: _none, ...editable } = current;
    await terminal['servers.updateProfile']({ name: 'files', profile: { ...editable, network: { allowedDomains: ['example.com'] } } });
    await terminal['servers.setTrust']({ name: 'files', trusted: true });
    await terminal['servers.setTrust']({ name: 'files', trusted: true });
    const changes = changesOnDisk(t).slice(1);
    expect(changes).toHaveLength(2);
    expect(changes[0]).toMatchObject({ change: 'grants', by: 'command-line', server: 'files', changes: ['network added: example.com'] });
    expect(changes[1]).toMatchObject({ change: 'trust', by: 'command-line', server: 'files', changes: ['trusted: on (was off)'] });
  });

  it('a secret granted and taken back is a grants entry naming it, never its value', async () => {
    await terminal['servers.setSecret']({ name: 'files', key: 'NOTES_TOKEN', value: 'tok-value-never-logged' });
    await window['servers.clearSecret']({ name: 'files', key: 'NOTES_TOKEN' });
    const changes = changesOnDisk(t).slice(3);
    expect(changes.map((entry) => [entry.change, entry.by, entry.changes])).toEqual([
      ['grants', 'command-line', ['secret added: NOTES_TOKEN']],
      ['grants', 'window', ['secret removed: NOTES_TOKEN']],
    ]);
    expect(readFileSync(join(t.dataDir, 'audit', 'audit.jsonl'), 'utf8')).not.toContain('tok-value-never-logged');
  });

  it('a rule made by an "always" answer, one added in the window and one removed at the command line are each an entry', async () => {
    await window['servers.setTrust']({ name: 'files', trusted: false });
    t.ask.available = true;
    const call = t.host.calls.call({ server: 'files', tool: 'write_file', arguments: { path: join(work, 'x.txt'), content: 'x' }, caller: { kind: 'client', name: 'App' } });
    let pending = t.host.approvals.pending();
    for (let i = 0; i < 200 && !pending.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      pending = t.host.approvals.pending();
    }
    // Answered in a terminal: the rule it makes is the command line's.
    expect(t.host.approvals.answer(pending[0]!.id, { choice: 'deny-always' }, { shell: 'terminal' }).accepted).toBe(true);
    expect((await call).outcome).toBe('denied');
    await t.host.changes.settled();
    const read = (await window['servers.get']({ name: 'files' })).tools.find((tool) => tool.name === 'read_text_file')!;
    await window['rules.add']({ server: 'files', tool: 'read_text_file', effect: 'deny', fingerprint: read.fingerprint });
    await terminal['rules.remove']({ server: 'files', tool: 'write_file' });
    const changes = changesOnDisk(t).slice(5);
    expect(changes.map((entry) => [entry.change, entry.by, entry.via ?? '', entry.tool])).toEqual([
      ['trust', 'window', '', ''],
      ['rule-added', 'command-line', 'confirmation', 'write_file'],
      ['rule-added', 'window', '', 'read_text_file'],
      ['rule-removed', 'command-line', '', 'write_file'],
    ]);
    expect(changes[1]!.changes[0]).toMatch(/^rule added: always deny write_file \(definition [0-9a-f]{12}\)$/);
    expect(changes[3]!.changes).toEqual(['rule removed: always deny write_file']);
  });

  it('the policy mode and strict durability are settings entries (no server)', async () => {
    await window['settings.setPolicyMode']({ mode: 'strict' });
    await terminal['settings.setStrictDurability']({ strict: true });
    const changes = changesOnDisk(t).slice(-2);
    expect(changes).toEqual([
      expect.objectContaining({ change: 'policy-mode', by: 'window', server: '', changes: ['policy mode: strict (was default)'] }),
      expect.objectContaining({ change: 'strict-durability', by: 'command-line', server: '', changes: ['strict durability: on (was off)'] }),
    ]);
  });

  it('a server removed is an entry; the chain verifies; Activity shows each change with who made it', async () => {
    await terminal['servers.remove']({ name: 'files', confirm: true });
    const last = changesOnDisk(t).at(-1)!;
    expect(last).toMatchObject({ change: 'server-removed', by: 'command-line', server: 'files' });
    expect(last.changes[0]).toMatch(/removed with its grants, secrets and data, and 1 rule/);
    expect((await t.host.audit.verify()).ok).toBe(true);

    const rows = (await window['audit.list']({ limit: 200 })).filter((row) => row.kind === 'change');
    expect(rows).toHaveLength(changesOnDisk(t).length);
    expect(rows[0]).toMatchObject({ caller: 'You (command line)', callerKind: 'cli', server: 'files', verdict: 'server removed' });
    expect(rows.find((row) => row.verdict === 'policy mode changed')).toMatchObject({ caller: 'You (window)', server: '', changes: ['policy mode: strict (was default)'] });
    expect(rows.find((row) => row.tool === 'write_file' && row.verdict === 'rule added')).toMatchObject({ caller: 'You (command line, answering a confirmation)' });
    // A filter on decisions is about calls: changes are left out; a server filter keeps its own.
    expect((await window['audit.list']({ verdict: 'deny', limit: 200 })).some((row) => row.kind === 'change')).toBe(false);
    expect((await window['audit.list']({ server: 'files', limit: 200 })).filter((row) => row.kind === 'change')).toHaveLength(rows.length - 2);
  });
});
