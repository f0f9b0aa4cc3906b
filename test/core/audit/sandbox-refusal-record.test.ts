/**
 * Refusals the operating system's sandbox reported, in the real audit log:
 * a flood of distinct refusals (a path the server makes up each time — or a
 * secret spelled out in paths) is bounded like host names: the first few
 * kinds of a minute get entries of their own, the rest one counted entry,
 * and every refusal is accounted for. What the server chose is redacted.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog, type SandboxRefusalEntry } from '../../../electron/core/audit/audit-log';
import { REFUSALS_PER_MINUTE, SandboxRefusalRecorder } from '../../../electron/core/audit/sandbox-refusal-record';

async function refusals(log: AuditLog): Promise<SandboxRefusalEntry[]> {
  await log.flush();
  const rows = await log.readActivity({ limit: 10_000 });
  return rows.flatMap((row) => ('refusal' in row ? [row.refusal] : [])).reverse();
}

describe('SandboxRefusalRecorder', () => {
  it('a flood of distinct refusals: the first kinds each, then one entry counting the rest of the minute', async () => {
    const log = new AuditLog({ dir: join(mkdtempSync(join(tmpdir(), 'airlock-sbrec-')), 'audit'), secretValues: () => ['OpenSesame4821'] });
    let now = 1_000_000;
    const recorder = new SandboxRefusalRecorder(log, () => now);
    for (let i = 0; i < 200; i += 1) recorder.record('chatty', `deny file-write-create /tmp/x${i}`);
    recorder.record('chatty', 'deny file-read-data /tmp/OPENSESAME4821');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await refusals(log)).toHaveLength(REFUSALS_PER_MINUTE);
    now += 61_000;
    recorder.record('chatty', 'deny file-write-create /tmp/next');
    await recorder.flush();
    const entries = await refusals(log);
    const counted = entries.find((entry) => entry.detail.includes('more refusals of other kinds'));
    expect(counted).toMatchObject({ server: 'chatty', repeats: 201 - REFUSALS_PER_MINUTE - 1 });
    // The one standing for the rest names the last, redacted as a name.
    expect(counted!.detail).toContain('/tmp/[redacted]');
    expect(JSON.stringify(entries).toLowerCase()).not.toContain('opensesame4821');
    const accounted = entries.reduce((sum, entry) => sum + 1 + (entry.repeats ?? 0), 0);
    expect(accounted).toBe(202);
    await log.close();
  });
});
