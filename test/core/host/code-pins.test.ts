/**
 * Code changes void rules (issue 10, item 5): a local server's script edited
 * after install no longer runs under "always allow". The script is re-hashed
 * at each start and before each call; a changed hash makes every call ask,
 * shows the old and new hash, and approving the new code pins it again —
 * the rules made before do not count. Real server, real sandbox; calls that
 * reach it are counted in a file it writes.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDetail } from '../../../electron/cli/format';
import { AirlockHost } from '../../../electron/core/host';
import { createTestHost, fixture, type TestHost } from './host-support';

const agent = { kind: 'client', name: 'Test Agent' } as const;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

function lines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

describe('a local server whose script is edited after install', () => {
  let t: TestHost;
  let records: string;
  let script: string;
  let original: string;
  let edited: string;
  const calls = () => lines(join(records, 'calls'));

  beforeAll(async () => {
    t = await createTestHost();
    records = t.folder('records');
    // The script the person added: a wrapper they (or anything that can write there) can edit.
    script = join(t.folder('code'), 'notes-server.mjs');
    original = `import ${JSON.stringify(fixture('unseen/notes.mjs'))};\n`;
    edited = `${original}// edited after install: imagine it now uploads the notes\n`;
    writeFileSync(script, original);
    await t.add('notes', [process.execPath, script, records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
    const detail = await t.host.servers.detail('notes');
    for (const tool of detail.tools) {
      await t.host.policy.addRule({ server: 'notes', tool: tool.name, effect: tool.name === 'note' ? 'allow' : 'deny', fingerprint: tool.fingerprint });
    }
    t.ask.available = false;
  });
  afterAll(() => t.close());

  it('before the edit, "always allow" runs the call without asking', async () => {
    expect(t.host.servers.record('notes').provenance).toMatchObject({ kind: 'local', script: { path: script, sha256: sha(original) } });
    const result = await t.host.calls.call({ server: 'notes', tool: 'note', arguments: { text: 'one' }, caller: agent });
    expect(result.decision.decidedBy.kind).toBe('rule');
    expect(result.outcome).toBe('ok');
    expect(calls()).toEqual(['note']);
  });

  it('after the edit, the next call asks — the rule made before does not count — and with nobody to ask, nothing reaches it', async () => {
    writeFileSync(script, edited);
    const result = await t.host.calls.call({ server: 'notes', tool: 'note', arguments: { text: 'two' }, caller: agent });
    expect(result.decision).toMatchObject({ verdict: 'ask', decidedBy: { kind: 'code-changed' } });
    expect(result.decision.reasons.join(' ')).toContain(`Its script ${script}: sha256 ${sha(original).slice(0, 12)}… → ${sha(edited).slice(0, 12)}…`);
    expect(result.outcome).toBe('denied');
    // A restart runs the edited code: still asked, still nothing sent.
    await t.host.servers.restart('notes');
    const again = await t.host.calls.call({ server: 'notes', tool: 'note', arguments: { text: 'three' }, caller: agent });
    expect(again.decision.decidedBy.kind).toBe('code-changed');
    // Putting the file back does not help while the process runs what it loaded at its start.
    writeFileSync(script, original);
    expect((await t.host.calls.call({ server: 'notes', tool: 'note', arguments: { text: 'reverted' }, caller: agent })).decision.decidedBy.kind).toBe('code-changed');
    writeFileSync(script, edited);
    expect(calls()).toEqual(['note']);
    const [logged] = await t.host.audit.read({ server: 'notes', tool: 'note', limit: 1 });
    expect(logged?.decision).toMatchObject({ final: 'deny', decidedBy: 'code-changed' });
    // The "always deny" still denies.
    expect((await t.host.calls.call({ server: 'notes', tool: 'read_notes', arguments: {}, caller: agent })).decision.verdict).toBe('deny');
  });

  it('shows the old and new hash on the detail page data, in the summary, in the rules and in `airlock show`', async () => {
    const detail = await t.host.servers.detail('notes');
    expect(detail.codeChanged).toBe(true);
    expect(detail.codeChange?.files.find((file) => file.role === 'script')).toEqual({ role: 'script', path: script, approved: sha(original), current: sha(edited) });
    expect(detail.tools.find((tool) => tool.name === 'note')?.preview.verdict).toBe('ask');
    expect(t.host.policy.rules().map(({ tool, current }) => [tool, current]).sort()).toEqual([['note', false], ['read_notes', true]]);
    const text = formatDetail(detail);
    expect(text).toContain(`approved sha256 ${sha(original)}`);
    expect(text).toContain(`now      sha256 ${sha(edited)}`);
    expect(text).toContain('airlock approve notes --code');
  });

  it('a new Airlock process on the same data folder (the CLI) sees the change at the server’s first start', async () => {
    const other = new AirlockHost({ dataDir: t.dataDir, version: 'test', homeDir: t.home, hooks: { emit: () => {}, canAsk: () => false } });
    try {
      const result = await other.calls.call({ server: 'notes', tool: 'note', arguments: { text: 'four' }, caller: agent });
      expect(result.decision.decidedBy.kind).toBe('code-changed');
    } finally {
      await other.dispose();
    }
    expect(calls()).toEqual(['note']);
  });

  it('approving needs the hashes the person saw; then the new code is pinned and the "always allow" made before is gone', async () => {
    await expect(t.host.serverSettings.approveCode('notes', [{ path: script, sha256: sha(original) }])).rejects.toThrow(/changed again/);
    const change = (await t.host.servers.detail('notes')).codeChange!;
    const detail = await t.host.serverSettings.approveCode('notes', change.files.map((file) => ({ path: file.path, sha256: file.current! })));
    expect(detail.codeChange).toBeUndefined();
    expect(detail.codeChanged).toBe(false);
    expect(t.host.servers.record('notes').provenance).toMatchObject({ script: { sha256: sha(edited) } });
    expect(t.host.policy.rules().map((rule) => [rule.tool, rule.effect])).toEqual([['read_notes', 'deny']]);
    // The approval, and the rule it took away, are a change in the audit log (task L, item 3).
    await t.host.changes.settled();
    const approved = readFileSync(join(t.dataDir, 'audit', 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; change?: string; by?: string; changes?: string[] })
      .filter((entry) => entry.type === 'change' && entry.change === 'code-approved');
    expect(approved).toEqual([
      expect.objectContaining({ by: 'window', changes: [`code approved: ${script} (sha256 ${sha(edited).slice(0, 12)}, was ${sha(original).slice(0, 12)})`, 'rule removed: always allow note'] }),
    ]);
    // The usual table again: an untrusted server's tool that changes things asks (no rule left to allow it).
    const result = await t.host.calls.call({ server: 'notes', tool: 'note', arguments: { text: 'five' }, caller: agent });
    expect(result.decision.decidedBy.kind).toBe('untrusted');
    expect(calls()).toEqual(['note']);
    // A rule made for the new code counts.
    const note = detail.tools.find((tool) => tool.name === 'note')!;
    await t.host.policy.addRule({ server: 'notes', tool: 'note', effect: 'allow', fingerprint: note.fingerprint });
    expect((await t.host.calls.call({ server: 'notes', tool: 'note', arguments: { text: 'six' }, caller: agent })).outcome).toBe('ok');
    expect(calls()).toEqual(['note', 'note']);
  });
});
