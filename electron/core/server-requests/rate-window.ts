/**
 * Requests per server and kind in the last minute: the count the policy
 * compares with the person's cap (a server flooding sampling requests or
 * questions is refused past it). Memory stays bounded: only timestamps
 * inside the window are kept, at most `cap` of them per key.
 */
export class RateWindow {
  readonly #times = new Map<string, number[]>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly keep = 1000,
  ) {}

  /** How many were noted for `key` in the window ending at `now`. */
  count(key: string, now: number): number {
    const times = this.#prune(key, now);
    return times.length;
  }

  /** Notes one more for `key` at `now`. */
  note(key: string, now: number): void {
    const times = this.#prune(key, now);
    times.push(now);
    if (times.length > this.keep) times.splice(0, times.length - this.keep);
    this.#times.set(key, times);
  }

  #prune(key: string, now: number): number[] {
    const times = (this.#times.get(key) ?? []).filter((at) => at > now - this.windowMs && at <= now);
    if (times.length === 0) this.#times.delete(key);
    else this.#times.set(key, times);
    return times;
  }
}
