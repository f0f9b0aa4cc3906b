/** An opaque handle for a scheduled callback. */
export type TimerHandle = unknown;

/**
 * Time as the supervisor sees it. Injected so tests can step backoff and
 * quarantine windows without waiting; production uses {@link systemClock}.
 */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `Date.now` and the global timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
