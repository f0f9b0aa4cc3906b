/**
 * Network decisions in the real audit log: a flood of identical requests is
 * counted, and so is a flood of distinct host names (a server spelling
 * something out in them, or just hammering) — the first few hosts of a
 * minute get entries of their own, the rest one counted entry — and every
 * decision is accounted for.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog, type NetworkEntry } from '../../../electron/core/audit/audit-log';
import { HOSTS_PER_MINUTE, NetworkDecisionRecorder } from '../../../electron/core/audit/network-record';

async function networkEntries(log: AuditLog): Promise<NetworkEntry[]> {
  await log.flush();
  const rows = await log.readActivity({ limit: 10_000 });
  return rows.flatMap((row) => ('network' in row && row.network ? [row.network as NetworkEntry] : [])).reverse();
}

describe('NetworkDecisionRecorder', () => {
  it('a flood of distinct host names: the first hosts each, then one entry counting the rest of the minute', async () => {
    const log = new AuditLog({ dir: join(mkdtempSync(join(tmpdir(), 'airlock-netrec-')), 'audit') });
    let now = 1_000_000;
    const recorder = new NetworkDecisionRecorder(log, () => now);
    for (let i = 0; i < 200; i += 1) recorder.record({ serverName: 'chatty', host: `a${i}.example.com`, port: 80, allowed: false, reason: 'not-granted' });
    // A different verdict for the same server is its own count.
    recorder.record({ serverName: 'chatty', host: 'api.example.com', port: 443, allowed: true, reason: 'granted' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    let entries = await networkEntries(log);
    expect(entries.filter((entry) => entry.decision === 'deny')).toHaveLength(HOSTS_PER_MINUTE);
    expect(entries.filter((entry) => entry.decision === 'allow')).toHaveLength(1);
    // The next minute: the count is written when the next decision comes.
    now += 61_000;
    recorder.record({ serverName: 'chatty', host: 'b0.example.com', port: 80, allowed: false, reason: 'not-granted' });
    await recorder.flush();
    entries = await networkEntries(log);
    const counted = entries.find((entry) => entry.otherHosts);
    expect(counted).toMatchObject({ server: 'chatty', host: 'a199.example.com', otherHosts: 200 - HOSTS_PER_MINUTE });
    const accounted = entries.filter((entry) => entry.decision === 'deny').reduce((sum, entry) => sum + (entry.otherHosts ?? 1 + (entry.repeats ?? 0)), 0);
    expect(accounted).toBe(201);
    await log.close();
  });
});
