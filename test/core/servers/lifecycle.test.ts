import { describe, expect, it } from 'vitest';
import type { ServerState } from '../../../shared/domain';
import {
  backoffDelay,
  DEFAULT_LIFECYCLE_POLICY,
  transition,
  type LifecycleEffect,
  type LifecycleEvent,
} from '../../../electron/core/servers/lifecycle';

const policy = { ...DEFAULT_LIFECYCLE_POLICY, backoffInitialMs: 100, backoffFactor: 2, backoffMaxMs: 1000, maxCrashes: 5, crashWindowMs: 60_000 };
const T = 1_000_000;

type Row = [ServerState, LifecycleEvent, ServerState, LifecycleEffect[]];

describe('transition (the supervisor state machine)', () => {
  it.each<Row>([
    // stopped
    ['stopped', { type: 'start' }, 'starting', [{ type: 'spawn' }]],
    ['stopped', { type: 'restart' }, 'starting', [{ type: 'spawn' }]],
    ['stopped', { type: 'stop' }, 'stopped', []],
    ['stopped', { type: 'crash', at: T }, 'stopped', []],
    ['stopped', { type: 'shutdown-complete' }, 'stopped', []],
    // starting
    ['starting', { type: 'ready' }, 'ready', []],
    ['starting', { type: 'start' }, 'starting', []],
    ['starting', { type: 'stop' }, 'stopped', [{ type: 'shutdown' }]],
    ['starting', { type: 'crash', at: T }, 'crashed', []],
    ['starting', { type: 'launch-failed' }, 'stopped', []],
    ['starting', { type: 'faulty' }, 'quarantined', [{ type: 'shutdown' }]],
    ['starting', { type: 'restart' }, 'starting', [{ type: 'shutdown' }, { type: 'spawn' }]],
    // ready
    ['ready', { type: 'start' }, 'ready', []],
    ['ready', { type: 'ready' }, 'ready', []],
    ['ready', { type: 'stop' }, 'stopped', [{ type: 'shutdown' }]],
    ['ready', { type: 'crash', at: T }, 'crashed', []],
    ['ready', { type: 'faulty' }, 'quarantined', [{ type: 'shutdown' }]],
    ['ready', { type: 'restart' }, 'starting', [{ type: 'shutdown' }, { type: 'spawn' }]],
    ['ready', { type: 'backoff-elapsed' }, 'ready', []],
    // crashed
    ['crashed', { type: 'shutdown-complete' }, 'backoff', [{ type: 'schedule-restart', delayMs: 100 }]],
    ['crashed', { type: 'stop' }, 'stopped', []],
    ['crashed', { type: 'start' }, 'crashed', []],
    ['crashed', { type: 'faulty' }, 'quarantined', []],
    ['crashed', { type: 'restart' }, 'starting', [{ type: 'shutdown' }, { type: 'spawn' }]],
    // backoff
    ['backoff', { type: 'backoff-elapsed' }, 'starting', [{ type: 'spawn' }]],
    ['backoff', { type: 'start' }, 'starting', [{ type: 'cancel-restart' }, { type: 'spawn' }]],
    ['backoff', { type: 'stop' }, 'stopped', [{ type: 'cancel-restart' }]],
    ['backoff', { type: 'restart' }, 'starting', [{ type: 'cancel-restart' }, { type: 'spawn' }]],
    ['backoff', { type: 'crash', at: T }, 'backoff', []],
    // quarantined: only a user restart lifts it
    ['quarantined', { type: 'start' }, 'quarantined', []],
    ['quarantined', { type: 'stop' }, 'quarantined', []],
    ['quarantined', { type: 'backoff-elapsed' }, 'quarantined', []],
    ['quarantined', { type: 'restart' }, 'starting', [{ type: 'spawn' }]],
  ])('%s + %j → %s', (state, event, next, effects) => {
    const crashes = state === 'crashed' ? [T] : [];
    const result = transition({ state, crashes }, event, policy);
    expect(result.snapshot.state).toBe(next);
    expect(result.effects).toEqual(effects);
  });

  it('records crashes inside the window and forgets older ones', () => {
    const result = transition({ state: 'ready', crashes: [T - 70_000, T - 30_000] }, { type: 'crash', at: T }, policy);
    expect(result.snapshot.crashes).toEqual([T - 30_000, T]);
  });

  it('backs off exponentially with the number of recent crashes, capped', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy))).toEqual([100, 200, 400, 800, 1000, 1000]);
    const third = transition({ state: 'crashed', crashes: [T - 2, T - 1, T] }, { type: 'shutdown-complete' }, policy);
    expect(third.effects).toEqual([{ type: 'schedule-restart', delayMs: 400 }]);
  });

  it('quarantines at the fifth crash within the window', () => {
    const four = [T - 4, T - 3, T - 2, T - 1];
    expect(transition({ state: 'crashed', crashes: four }, { type: 'shutdown-complete' }, policy).snapshot.state).toBe('backoff');
    const five = [...four, T];
    expect(transition({ state: 'crashed', crashes: five }, { type: 'shutdown-complete' }, policy)).toEqual({
      snapshot: { state: 'quarantined', crashes: five },
      effects: [],
    });
  });

  it('a user restart clears the crash history', () => {
    const result = transition({ state: 'quarantined', crashes: [1, 2, 3, 4, 5] }, { type: 'restart' }, policy);
    expect(result.snapshot).toEqual({ state: 'starting', crashes: [] });
  });
});
