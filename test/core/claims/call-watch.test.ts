/**
 * Which call was running when a server did something (pure attribution, no
 * processes): every call in flight gets it, each naming the others; nothing
 * between calls; nothing queued before a call was sent; nothing at all for a
 * server Airlock does not observe.
 */
import { describe, expect, it } from 'vitest';
import { CallObservations } from '../../../electron/core/claims/call-watch';
import type { GrantChange } from '../../../electron/core/sandbox/grant-watch';

const call = (tool: string, callId = tool) => ({ callId, server: 's', tool, annotations: { readOnlyHint: true }, fingerprint: 'f'.repeat(64) });
const write = (path: string): GrantChange => ({ grant: '/g', kind: 'created', path, size: 1, at: performance.now() });

describe('CallObservations', () => {
  it('a server it does not observe costs nothing: no watch', () => {
    const observations = new CallObservations();
    expect(observations.begin(call('t'))).toBeUndefined();
    expect(observations.observing('s')).toBe(false);
  });

  it('attributes to every call in flight, each naming the others; not between calls', async () => {
    const observations = new CallObservations();
    const launch = observations.attach('s');
    observations.noteNetwork('s', 'before.example', 443, false);
    const a = observations.begin(call('a'))!;
    const b = observations.begin(call('b'))!;
    observations.noteNetwork('s', 'during.example', 443, true);
    const seenB = await observations.end(b);
    observations.noteNetwork('s', 'only-a.example', 443, true);
    const seenA = await observations.end(a);
    observations.noteNetwork('s', 'after.example', 443, true);
    expect(seenB.effects).toEqual([expect.objectContaining({ kind: 'network', host: 'during.example', alongside: ['a'] })]);
    expect(seenA.effects).toEqual([expect.objectContaining({ host: 'during.example', alongside: ['b'] }), expect.objectContaining({ host: 'only-a.example' })]);
    expect(seenA.effects[1]).not.toHaveProperty('alongside');
    launch.end();
    expect(observations.observing('s')).toBe(false);
  });

  it('a refusal the OS sandbox reports (macOS) while a call runs is its evidence; one reported after it returned is not', async () => {
    const observations = new CallObservations();
    observations.attach('s');
    const watch = observations.begin(call('t'))!;
    observations.noteRefusal('s', 'write', 'deny(1) file-write-create /Users/ann/x');
    const seen = await observations.end(watch);
    observations.noteRefusal('s', 'network', 'deny(1) network-outbound 1.2.3.4:443');
    expect(seen.effects).toEqual([expect.objectContaining({ kind: 'refused', operation: 'write', detail: 'deny(1) file-write-create /Users/ann/x' })]);
  });

  it('with watched grants: what was queued before the call was sent is not its; a move held back is settled at its end', async () => {
    const observations = new CallObservations();
    const launch = observations.attach('s');
    let settled = 0;
    launch.settleWith(() => (settled += 1));
    const watch = observations.begin(call('t'))!;
    // Not sent yet: a change read now was made before.
    launch.grantChange(write('/g/before.txt'));
    await watch.ready;
    launch.grantChange(write('/g/during.txt'));
    const seen = await observations.end(watch);
    expect(seen.effects.map((effect) => (effect.kind === 'created' ? effect.path : effect.kind))).toEqual(['/g/during.txt']);
    expect(settled).toBeGreaterThanOrEqual(2);
  });

  it('writing again to what the call made is part of making it; a file that was there and got shorter is said to', async () => {
    const observations = new CallObservations();
    const launch = observations.attach('s');
    const before = { size: 100, dir: false, since: performance.now() - 1000 };
    const watch = observations.begin(call('t'))!;
    await watch.ready;
    launch.grantChange(write('/g/new.txt'));
    launch.grantChange({ grant: '/g', kind: 'modified', path: '/g/new.txt', before: { size: 1, dir: false, since: performance.now() }, size: 5, at: performance.now() });
    launch.grantChange({ grant: '/g', kind: 'modified', path: '/g/old.txt', before, size: 120, at: performance.now() });
    launch.grantChange({ grant: '/g', kind: 'modified', path: '/g/old.txt', before: { ...before, size: 120 }, size: 10, at: performance.now() });
    const seen = await observations.end(watch);
    expect(seen.effects).toEqual([
      expect.objectContaining({ kind: 'created', path: '/g/new.txt', replacedExisting: false }),
      expect.objectContaining({ kind: 'modified', path: '/g/old.txt', existedBefore: true, shrank: true }),
    ]);
  });
});
