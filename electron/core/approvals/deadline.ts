/**
 * A question's deadline — one for every kind of question Airlock puts to a
 * person (a tool call's confirmation, a server's question): enforced on the
 * steady clock, shown as a wall-clock time, extended while the person engages
 * (UX 6: the countdown pauses while they read or edit) but never past the
 * maximum from opening, with the timer that ends the question as expired.
 *
 * SECURITY: hostile behaviour 10 and issue 16.3 — reckoned on the steady
 * clock: a wall clock set back cannot stretch it past the maximum, and one
 * set forward does not refuse an answer given in time.
 */
import type { Clock } from './clock';

export class Deadline {
  readonly #clock: Clock;
  readonly #onExpire: () => void;
  /** When it expires, and the latest `extend` may move that to, on the steady clock. */
  #due: number;
  readonly #latestDue: number;
  #timer: unknown;

  /** A deadline `timeoutMs` from now, extensible up to `maxMs` from now; nothing runs until `start`. */
  constructor(clock: Clock, timeoutMs: number, maxMs: number, onExpire: () => void) {
    this.#clock = clock;
    this.#onExpire = onExpire;
    const steady = clock.monotonic();
    this.#due = steady + timeoutMs;
    this.#latestDue = steady + maxMs;
  }

  /** Starts the timer that expires the question `ms` from now. */
  start(ms: number): void {
    this.#timer = this.#clock.setTimeout(this.#onExpire, ms);
  }

  /** True once the deadline has passed: an answer now is late, even before the timer fired. */
  get passed(): boolean {
    return this.#clock.monotonic() >= this.#due;
  }

  /**
   * Gives more time: the deadline becomes `now + byMs`, but never earlier
   * than it was and never later than the maximum from opening. Returns the
   * new wall-clock deadline to show, `unchanged` when it already reaches that
   * far, or undefined when it has passed.
   */
  extend(byMs: number): { shown: number } | 'unchanged' | undefined {
    const steady = this.#clock.monotonic();
    const left = this.#due - steady;
    if (left <= 0) return undefined;
    const wanted = Math.min(Math.max(left, byMs), this.#latestDue - steady);
    if (!(wanted > left)) return 'unchanged';
    this.#due = steady + wanted;
    this.stop();
    this.#timer = this.#clock.setTimeout(this.#onExpire, wanted);
    return { shown: Math.round(this.#clock.now() + wanted) };
  }

  /** Stops the timer (the question closed). */
  stop(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
  }
}
