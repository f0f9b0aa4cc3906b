/**
 * Airlock killed with SIGKILL mid-call (issue 16.1, the audit log's part):
 * a host in a child process sends a call that a real sandboxed server acts
 * on and never answers; the child is killed. The next Airlock process takes
 * over the data folder: the call's outcome is recorded as unknown ("Airlock
 * stopped before the call finished; the server may have acted") and the log
 * verifies, its end confirmed by the key both processes share.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileAuditKey } from '../../../electron/core/audit/audit-key';
import { AirlockHost } from '../../../electron/core/host';
import { createTestHost, fixture, REPO, type TestHost } from './host-support';

const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : []);

/** Processes whose command line mentions `marker` (the servers the killed child started). */
function processesMentioning(marker: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('Airlock killed with SIGKILL while a call is in flight', () => {
  let t: TestHost;
  let records: string;
  let next: AirlockHost | undefined;

  beforeAll(async () => {
    t = await createTestHost({ audit: { key: null } });
    records = t.folder('records');
    await t.add('slow', [process.execPath, fixture('policy/slow-writer.mjs'), records], { profile: { filesystem: { read: [], write: [records], persistentData: false } }, trusted: true });
    await t.host.dispose();
  });
  afterAll(async () => {
    await next?.dispose();
    // The killed host's server may outlive it (issue 16.1 is another room's); end exactly those, by pid.
    for (const pid of processesMentioning(records)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await t.close().catch(() => undefined);
  });

  it('the next Airlock records the call as unknown, and the log verifies with its end confirmed', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'fixtures/call-and-hang.ts'), t.dataDir, t.home], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, AIRLOCK_AUDIT_KEY_FILE: join(t.root, 'key') },
    });
    const exited = new Promise((done) => child.once('exit', done));
    // Wait until the server has acted on the call.
    for (let i = 0; i < 1200 && lines(join(records, 'appends')).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(lines(join(records, 'appends'))).toEqual(['in flight']);
    child.kill('SIGKILL');
    await exited;

    next = new AirlockHost({ dataDir: t.dataDir, homeDir: t.home, version: 'test', hooks: { emit: () => {} }, audit: { key: fileAuditKey(join(t.root, 'key')) } });
    await next.audit.recoverInterrupted();
    const rows = await next.activity.entries({ server: 'slow' });
    const outcome = rows.find((row) => row.kind === 'outcome');
    expect(outcome).toMatchObject({ outcome: 'unknown', reasons: ['Airlock stopped before the call finished; the server may have acted.'] });
    expect(rows.find((row) => row.kind === 'decision')).toMatchObject({ callId: outcome!.callId, verdict: expect.stringMatching(/^allowed/) });
    expect(await next.audit.verify()).toMatchObject({ ok: true, end: 'confirmed' });
    // The server acted once; nothing was retried.
    expect(lines(join(records, 'appends'))).toEqual(['in flight']);
  });
});
