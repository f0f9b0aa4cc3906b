/**
 * The owner of the data folder killed with SIGKILL mid-call (issue 16.1): a
 * real `airlock gateway --stdio` runs a sandboxed server that scattered
 * processes (own group, setsid, double fork, SIGTERM ignored) and holds an
 * app's call open after acting; the gateway is killed. Every process of it is
 * gone within a second (in /proc), the next gateway takes the folder over,
 * records the call as unknown, the log verifies with its end confirmed, and
 * the test process is back to its file descriptors. Three cycles here, and two
 * with a network grant (so the sandbox runs the network proxy's socat too);
 * 200 and 50 in `npm run soak` (test/soak/run.ts). Needs `npm run build` (the real CLI).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killOwnersMidCall } from './support/owner-kill';

const root = mkdtempSync(join(tmpdir(), 'airlock-owner-kill-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the owner killed with SIGKILL while a call is in flight', () => {
  it('leaves nothing running, loses nothing, and the next Airlock takes over — 3 cycles', async () => {
    const report = await killOwnersMidCall(root, 3);
    expect(report).toMatchObject({
      cycles: 3,
      kills: 3,
      orphans: 0,
      failedTakeovers: 0,
      callsActed: 3,
      unknown: 3,
      unresolved: 0,
      lost: 0,
      broken: 0,
      leftoverTempFolders: 0,
    });
    // bwrap, the server and what it scattered were there to be killed each time.
    expect(report.processesKilled).toBeGreaterThanOrEqual(3 * 5);
    expect(report.fdsAfter).toBeLessThanOrEqual(report.fdsBaseline);
  }, 240_000);

  it('takes the network proxy’s socat down with the server when the server has a network grant — 2 cycles', async () => {
    const report = await killOwnersMidCall(join(root, 'networked'), 2, { network: true });
    expect(report).toMatchObject({ cycles: 2, kills: 2, orphans: 0, failedTakeovers: 0, unknown: 2, unresolved: 0, lost: 0, broken: 0, leftoverTempFolders: 0 });
    // A socat ran inside each sandbox, and was gone within the second like the rest.
    expect(report.socatsKilled).toBe(2);
  }, 240_000);
});
