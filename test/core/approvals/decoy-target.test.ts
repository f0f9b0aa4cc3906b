/**
 * Red-team finding (issue 10, item 2): a gateway client adds a decoy `path`
 * to server-filesystem's move_file, which declares only `source` and
 * `destination`. The confirmation must name what the server will really act
 * on — checked against what the real server, in the real sandbox, then does
 * to the files on disk.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfirmationView } from '../../../shared/views';
import { createTestHost, FILESYSTEM_SERVER, type TestHost } from '../host/host-support';

async function nextConfirmation(t: TestHost): Promise<ConfirmationView> {
  for (let i = 0; i < 400; i += 1) {
    const pending = t.host.approvals.pending();
    if (pending.length) return pending[0]!;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no confirmation opened');
}

describe('the confirmation names the real target, from the keys the schema declares', () => {
  let t: TestHost;
  let work: string;

  beforeAll(async () => {
    t = await createTestHost({ confirmationTimeoutMs: 30_000 });
    work = t.folder('work');
    await t.add('files', [process.execPath, FILESYSTEM_SERVER, work], { profile: { filesystem: { read: [work], write: [work], persistentData: false } } });
    t.ask.available = true;
  });
  afterAll(() => t?.close());

  it('move_file with a decoy `path`: the headline names source and destination, the decoy is flagged — and that is what the server moves', async () => {
    writeFileSync(join(work, 'old-cache.tmp'), 'cache');
    writeFileSync(join(work, 'secret.txt'), 'secret');
    const args = { path: join(work, 'old-cache.tmp'), source: join(work, 'secret.txt'), destination: join(work, 'moved.txt') };
    const pending = t.host.calls.call({ server: 'files', tool: 'move_file', arguments: args, caller: { kind: 'client', name: 'Red Team' } });
    const view = await nextConfirmation(t);

    expect(view.targets).toEqual([
      { key: 'source', values: [args.source] },
      { key: 'destination', values: [args.destination] },
    ]);
    expect(view.headline).toBe(`Red Team wants to run files › move_file on source ${args.source} and destination ${args.destination} — it may delete or overwrite things.`);
    expect(view.restatement).not.toContain('old-cache');
    expect(view.argumentList.map((a) => [a.key, a.declared, a.target])).toEqual([
      ['source', true, true],
      ['destination', true, true],
      ['path', false, false],
    ]);

    expect(t.host.approvals.answer(view.id, { choice: 'allow-once' }, { shell: 'test' })).toEqual({ accepted: true });
    expect((await pending).outcome).toBe('ok');
    // What the person was shown is what happened: secret.txt moved to the destination; the decoy is untouched.
    expect(existsSync(join(work, 'secret.txt'))).toBe(false);
    expect(readFileSync(join(work, 'moved.txt'), 'utf8')).toBe('secret');
    expect(readFileSync(join(work, 'old-cache.tmp'), 'utf8')).toBe('cache');
  });
});
