import type { ServerState } from '../../../shared/domain';

/** What can happen to a supervised server. */
export type LifecycleEvent =
  /** Someone wants it running (not a user restart: quarantine holds). */
  | { type: 'start' }
  /** The user restarts it: clears quarantine and the crash history. */
  | { type: 'restart' }
  /** Someone wants it stopped. */
  | { type: 'stop' }
  /** The handshake and first tool listing completed. */
  | { type: 'ready' }
  /** The process ended, or the handshake failed, without being asked to stop. */
  | { type: 'crash'; at: number }
  /** The server passed the limit of garbage on its stdout. */
  | { type: 'faulty' }
  /** The launcher refused (e.g. no sandbox) or the command could not be spawned: retrying will not help. */
  | { type: 'launch-failed' }
  /** The backoff delay ran out. */
  | { type: 'backoff-elapsed' }
  /** The last process group is gone and its launch plan disposed. */
  | { type: 'shutdown-complete' };

/** What the supervisor must do after a transition; it carries these out, in order. */
export type LifecycleEffect =
  | { type: 'spawn' }
  | { type: 'shutdown' }
  | { type: 'schedule-restart'; delayMs: number }
  | { type: 'cancel-restart' };

/** Restart and quarantine policy. */
export interface LifecyclePolicy {
  backoffInitialMs: number;
  backoffFactor: number;
  backoffMaxMs: number;
  /** This many crashes within `crashWindowMs` quarantine the server until a user restart. */
  maxCrashes: number;
  crashWindowMs: number;
}

/** Defaults: 500 ms doubling to 30 s; quarantine after 5 crashes in 60 s. */
export const DEFAULT_LIFECYCLE_POLICY: LifecyclePolicy = {
  backoffInitialMs: 500,
  backoffFactor: 2,
  backoffMaxMs: 30_000,
  maxCrashes: 5,
  crashWindowMs: 60_000,
};

/** A server's lifecycle state plus the crash times still inside the window. */
export interface LifecycleSnapshot {
  state: ServerState;
  crashes: readonly number[];
}

/** The result of one transition. */
export interface LifecycleTransition {
  snapshot: LifecycleSnapshot;
  effects: LifecycleEffect[];
}

/** The backoff before restart number `crashCount` (1-based): initial × factor^(n−1), capped. */
export function backoffDelay(crashCount: number, policy: LifecyclePolicy): number {
  const exponent = Math.max(0, crashCount - 1);
  return Math.min(policy.backoffMaxMs, Math.round(policy.backoffInitialMs * policy.backoffFactor ** exponent));
}

/**
 * The supervisor's state machine, as a pure function: no clock, no timers,
 * no processes — the event carries the time, and the effects say what to do.
 * Events that do not apply in a state leave it unchanged with no effects
 * (e.g. a late `crash` from a process already being stopped).
 */
export function transition(snapshot: LifecycleSnapshot, event: LifecycleEvent, policy: LifecyclePolicy = DEFAULT_LIFECYCLE_POLICY): LifecycleTransition {
  const { state, crashes } = snapshot;
  const to = (next: ServerState, effects: LifecycleEffect[] = [], nextCrashes: readonly number[] = crashes): LifecycleTransition => ({
    snapshot: { state: next, crashes: nextCrashes },
    effects,
  });
  const same = (): LifecycleTransition => ({ snapshot, effects: [] });

  if (event.type === 'restart') {
    // A user restart is the one way out of quarantine; it also forgets past crashes.
    const effects: LifecycleEffect[] = state === 'backoff' ? [{ type: 'cancel-restart' }] : [];
    if (state === 'starting' || state === 'ready' || state === 'crashed') effects.push({ type: 'shutdown' });
    effects.push({ type: 'spawn' });
    return to('starting', effects, []);
  }

  switch (state) {
    case 'stopped':
      return event.type === 'start' ? to('starting', [{ type: 'spawn' }]) : same();
    case 'starting':
    case 'ready':
      switch (event.type) {
        case 'stop':
          return to('stopped', [{ type: 'shutdown' }]);
        case 'ready':
          return state === 'starting' ? to('ready') : same();
        case 'crash': {
          const recent = [...crashes.filter((t) => event.at - t < policy.crashWindowMs), event.at];
          return to('crashed', [], recent);
        }
        case 'faulty':
          return to('quarantined', [{ type: 'shutdown' }]);
        case 'launch-failed':
          return state === 'starting' ? to('stopped') : same();
        default:
          return same();
      }
    case 'crashed':
      switch (event.type) {
        case 'stop':
          return to('stopped');
        case 'faulty':
          return to('quarantined');
        case 'shutdown-complete':
          return crashes.length >= policy.maxCrashes
            ? to('quarantined')
            : to('backoff', [{ type: 'schedule-restart', delayMs: backoffDelay(crashes.length, policy) }]);
        default:
          return same();
      }
    case 'backoff':
      switch (event.type) {
        case 'backoff-elapsed':
          return to('starting', [{ type: 'spawn' }]);
        case 'start':
          return to('starting', [{ type: 'cancel-restart' }, { type: 'spawn' }]);
        case 'stop':
          return to('stopped', [{ type: 'cancel-restart' }]);
        default:
          return same();
      }
    case 'quarantined':
      // Held until a user restart; `start` and `stop` do not lift it.
      return same();
  }
}
