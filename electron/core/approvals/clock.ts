/**
 * Time and timers, passed in so tests can move time by hand. Handles are
 * opaque to callers.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock. Timers are unref'ed so a pending confirmation never keeps a CLI alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, Math.max(0, Math.min(ms, 2_147_483_647)));
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** A clock moved by hand (`advance`), for tests and simulations. */
export class ManualClock implements Clock {
  #now: number;
  #next = 1;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();

  /** Starts at `start` epoch milliseconds. */
  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  /** The current time. */
  now(): number {
    return this.#now;
  }

  /** Schedules `callback` at now + ms. */
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), callback });
    return id;
  }

  /** Cancels a timer. */
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let dueId: number | undefined;
      let dueAt = Infinity;
      for (const [id, t] of this.#timers) if (t.at <= target && t.at < dueAt) [dueId, dueAt] = [id, t.at];
      if (dueId === undefined) break;
      const t = this.#timers.get(dueId)!;
      this.#timers.delete(dueId);
      this.#now = Math.max(this.#now, t.at);
      t.callback();
    }
    this.#now = target;
  }
}
