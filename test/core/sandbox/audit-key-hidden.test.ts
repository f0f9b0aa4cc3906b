/**
 * The audit log's key is out of every server's reach wherever it is kept
 * (task L, item 5; README "The end is anchored"). Its default place is under
 * the hidden home folder; moved with `$AIRLOCK_AUDIT_KEY_FILE` to a folder
 * outside home — where reads are otherwise allowed — a server read it before
 * (and could then forge the record of where the log ends). Now the sandbox
 * hides that file, even beneath a read grant of its folder. A real
 * server-filesystem in the real sandbox tries.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHost, FILESYSTEM_SERVER, type TestHost } from '../host/host-support';

describe('an audit key kept outside the home folder', () => {
  let t: TestHost;
  let keys: string;
  let keyFile: string;
  const saved = process.env.AIRLOCK_AUDIT_KEY_FILE;

  beforeAll(async () => {
    // The folder is made before the host, which creates the key in it.
    keys = mkdtempSync(join(tmpdir(), 'airlock-keys-elsewhere-'));
    keyFile = join(keys, 'audit-head.key');
    process.env.AIRLOCK_AUDIT_KEY_FILE = keyFile;
    t = await createTestHost();
    writeFileSync(join(keys, 'beside.txt'), 'readable');
    // Even granted the key's folder to read.
    await t.add('files', [process.execPath, FILESYSTEM_SERVER, keys], { profile: { filesystem: { read: [keys], write: [], persistentData: false } } });
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.AIRLOCK_AUDIT_KEY_FILE;
    else process.env.AIRLOCK_AUDIT_KEY_FILE = saved;
    await t.close();
    rmSync(keys, { recursive: true, force: true });
  });

  it('is hidden from a server, even one granted its folder; the file beside it is not', async () => {
    const read = (path: string) => t.host.calls.call({ server: 'files', tool: 'read_text_file', arguments: { path }, caller: { kind: 'user' } });
    const beside = await read(join(keys, 'beside.txt'));
    expect(beside.outcome).toBe('ok');
    expect(JSON.stringify(beside.result?.content)).toContain('readable');
    const key = await read(keyFile);
    const said = JSON.stringify(key.result?.content ?? key.message);
    expect(said).not.toContain('airlock-audit-key');
    expect(key.outcome).not.toBe('ok');
  });
});
