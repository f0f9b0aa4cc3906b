import type { Clock, TimerHandle } from '../../../../electron/core/servers/clock';

/** A clock tests move by hand: timers fire only in `advance`. Records every delay asked for. */
export class ManualClock implements Clock {
  private time = 1_000_000;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();
  readonly requestedDelays: number[] = [];

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.requestedDelays.push(ms);
    this.timers.set(id, { at: this.time + ms, callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }

  /** How many timers are waiting. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward and fires the timers that fall due, in order. */
  advance(ms: number): void {
    this.time += ms;
    const due = [...this.timers].filter(([, t]) => t.at <= this.time).sort((a, b) => a[1].at - b[1].at);
    for (const [id, timer] of due) {
      this.timers.delete(id);
      timer.callback();
    }
  }
}
