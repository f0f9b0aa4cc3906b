/**
 * Time and timers, passed in so tests can move time by hand. Handles are
 * opaque to callers.
 *
 * Two readings, for two jobs (issue 16.3): `now()` is the wall clock — what
 * is shown and recorded (a deadline on screen, a grant's `expiresAt`);
 * `monotonic()` is a steady count that no clock change moves — what every
 * deadline is enforced by, like the timers themselves. A wall clock set
 * forward or back (by hand, by NTP after a long offline stretch, by a VM
 * resumed) must not expire a question early, keep one open, or extend an
 * approval.
 */
export interface Clock {
  /** Epoch milliseconds (the wall clock): for what is shown and recorded. */
  now(): number;
  /** Milliseconds on a steady clock (only differences mean anything): for what is enforced. */
  monotonic(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock. Timers are unref'ed so a pending confirmation never keeps a CLI alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, Math.max(0, Math.min(ms, 2_147_483_647)));
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * A clock moved by hand, for tests and simulations: `advance` moves time
 * (both readings, firing due timers in order); `jumpWall` sets only the wall
 * clock forward or back, as a person changing the system time does.
 */
export class ManualClock implements Clock {
  #now: number;
  #steady = 0;
  #next = 1;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();

  /** Starts at `start` epoch milliseconds. */
  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  /** The wall clock. */
  now(): number {
    return this.#now;
  }

  /** The steady clock. */
  monotonic(): number {
    return this.#steady;
  }

  /** Schedules `callback` after `ms` of steady time. */
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#steady + Math.max(0, ms), callback });
    return id;
  }

  /** Cancels a timer. */
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const target = this.#steady + ms;
    for (;;) {
      let dueId: number | undefined;
      let dueAt = Infinity;
      for (const [id, t] of this.#timers) if (t.at <= target && t.at < dueAt) [dueId, dueAt] = [id, t.at];
      if (dueId === undefined) break;
      const t = this.#timers.get(dueId)!;
      this.#timers.delete(dueId);
      const step = Math.max(0, t.at - this.#steady);
      this.#steady += step;
      this.#now += step;
      t.callback();
    }
    this.#now += target - this.#steady;
    this.#steady = target;
  }

  /** Sets the wall clock `ms` forward (or back, when negative); no time passes and no timer fires. */
  jumpWall(ms: number): void {
    this.#now += ms;
  }
}
