/**
 * IPC fuzz (issue 16.4): random and malformed payloads for every channel,
 * through the Electron wrapper and the real dispatchIpc into a real host with
 * a real sandboxed server (see support/ipc-fuzz.ts for what each run checks).
 * 50 runs per channel here (a fixed seed, so a failure can be replayed);
 * 1,000 per channel in `npm run soak`.
 */
import { describe, expect, it } from 'vitest';
import { channelNames } from '../../shared/ipc';
import { fuzzIpc } from './support/ipc-fuzz';

describe('every IPC channel, fuzzed', () => {
  it('refuses what the contract forbids, never crashes, and still answers a real call afterwards', async () => {
    const report = await fuzzIpc(50, { seed: 16_04 });
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ channels: channelNames.length, acceptedForbidden: 0, crashes: 0, uncaught: 0, polluted: false, answersAfter: true });
    expect(report.payloads).toBe(50 * channelNames.length);
    // The fuzz reached the real handlers, and broke requests in every way it knows.
    expect(report.handled).toBeGreaterThan(report.payloads / 5);
    expect(Object.keys(report.broken).sort()).toEqual(['extra-key', 'missing-key', 'not-an-object', 'not-plain', 'proto-key', 'too-deep', 'too-large', 'wrong-kind']);
    expect(report.forgedSenders).toBeGreaterThan(0);
  }, 300_000);
});
