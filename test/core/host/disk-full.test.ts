/**
 * A full disk (issue 16.3): the data folder on a small tmpfs this test
 * mounts, a real server in the real sandbox counting what reaches it (its
 * record folder is elsewhere). When the disk fills: calls fail closed with a
 * message that says the disk is full, nothing reaches the server without its
 * decision on record, saving a setting fails and loses nothing; when space
 * returns, everything works again and the log verifies.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditKeyFromBytes } from '../../../electron/core/audit/audit-key';
import { AirlockHost } from '../../../electron/core/host';
import { AirlockStore } from '../../../electron/core/store/store';
import { addLocalServer } from '../../support/add-server';
import { fixture } from './host-support';

const root = mkdtempSync(join(tmpdir(), 'airlock-disk-full-'));
const disk = join(root, 'disk');
mkdirSync(disk);
// Mounting needs root (or CAP_SYS_ADMIN); without it this test says why and skips.
let mountProblem: string | undefined;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', disk], { stdio: 'pipe' });
} catch (error) {
  mountProblem = `cannot mount a small tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim() || 'mount failed'})`;
}

const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : []);

describe.skipIf(mountProblem !== undefined)(`a full disk under the data folder${mountProblem ? ` — skipped: ${mountProblem}` : ''}`, () => {
  const dataDir = join(disk, 'data');
  const home = join(root, 'home');
  const records = join(root, 'records');
  const filler = join(disk, 'filler');
  let host: AirlockHost;

  beforeAll(async () => {
    mkdirSync(home);
    mkdirSync(records);
    host = new AirlockHost({ dataDir, version: 'test', homeDir: home, hooks: { emit: () => {} }, audit: { key: auditKeyFromBytes(randomBytes(32)) } });
    await addLocalServer(host, 'counter', [process.execPath, fixture('servers/counter.mjs'), records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
  });
  afterAll(async () => {
    await host?.dispose();
    try {
      execFileSync('umount', [disk], { stdio: 'pipe' });
    } catch {
      // not mounted
    }
    rmSync(root, { recursive: true, force: true });
  });

  const call = (message: string) => host.calls.call({ server: 'counter', tool: 'echo', arguments: { message }, caller: { kind: 'user' } });

  it('calls fail closed with a message saying the disk is full; nothing reaches the server without its decision; all is well once space returns', async () => {
    expect((await call('before')).outcome).toBe('ok');
    // Fill the disk.
    const fd = openSync(filler, 'w');
    try {
      const chunk = Buffer.alloc(16 * 1024, 1);
      for (;;) writeSync(fd, chunk);
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(fd);
    }
    // A page of the log may still have room: calls go through until the log cannot take a decision.
    const sent: string[] = [];
    let refusal: Error | undefined;
    for (let i = 0; i < 40 && !refusal; i++) {
      try {
        const result = await call(`full-${i}`);
        expect(result.outcome).toBe('ok');
        sent.push(`full-${i}`);
      } catch (error) {
        refusal = error as Error;
        expect(lines(join(records, 'messages'))).not.toContain(`full-${i}`);
      }
    }
    expect(refusal, 'the log never ran out of space').toBeDefined();
    expect(refusal!.message).toMatch(/did not send this call.*disk .* is full/s);
    expect(lines(join(records, 'messages'))).toEqual(['before', ...sent]);

    // Saving a setting fails, says why, and loses nothing.
    expect(() => host.policy.setStrictDurability(true)).toThrow(/disk is full/);
    expect(new AirlockStore(dataDir).read().settings.strictDurability).toBeUndefined();
    expect(new AirlockStore(dataDir).read().servers.counter).toBeDefined();

    // Space returns.
    rmSync(filler);
    expect((await call('after')).outcome).toBe('ok');
    host.policy.setStrictDurability(true);
    expect(host.app.settings().strictDurability).toBe(true);
    expect(lines(join(records, 'messages'))).toEqual(['before', ...sent, 'after']);
    const verify = await host.audit.verify();
    expect(verify).toMatchObject({ ok: true, end: 'confirmed' });
    // Every call that reached the server has its decision on record.
    const decided = (await host.audit.read({ server: 'counter', limit: 1000 })).map((r) => (r.decision.arguments as { message: string }).message);
    for (const message of ['before', ...sent, 'after']) expect(decided).toContain(message);
  });
});
