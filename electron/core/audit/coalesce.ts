/**
 * How a flood of like records reaches the audit log without making it a
 * server's megaphone, for network decisions (network-record.ts) and the
 * sandbox's refusals (sandbox-refusal-record.ts) alike:
 *
 * - the first of identical records is written at once; identical ones within
 *   the next minute are counted, and the count is written as one entry
 *   (standing for `1 + repeats`) when the minute is over and the next one
 *   comes, or on `flush()`;
 * - a flood of *distinct* ones (a host or path made up each time — or a
 *   secret spelled out in them) is bounded per group (a server, …): the
 *   first `perMinute` kinds of a minute get entries of their own, the rest
 *   of that minute are counted and written as one entry naming the last.
 *
 * Every record is accounted for. What the entries say is the recorder's.
 */

const COALESCE_MS = 60_000;
/** Open windows (and groups) kept at most; the oldest is written and closed first. */
const MAX_WINDOWS = 10_000;

/** What a recorder tells the coalescer about its records. */
export interface CoalesceParts<T> {
  /** Records with the same `same` key are identical: counted within a minute. */
  same(record: T): string;
  /** The group whose distinct kinds are bounded per minute. */
  group(record: T): string;
  /** Distinct kinds per group written one by one in a minute; more are counted. */
  perMinute: number;
  /** Writes one entry standing for `1 + repeats` identical records. */
  write(record: T, repeats: number): Promise<unknown>;
  /** Writes one entry standing for `count` records of other kinds in a minute, `last` the latest of them. */
  writeOthers(last: T, count: number): Promise<unknown>;
  now(): number;
}

interface Window<T> {
  since: number;
  /** Identical records since the entry that opened this window (not yet written). */
  counted: number;
  record: T;
}

/** The distinct kinds one group had in a minute. */
interface Spread<T> {
  since: number;
  kinds: number;
  /** Records of further kinds this minute, not yet written; the latest one is named for them. */
  others: number;
  last?: T;
}

export class Coalescer<T> {
  private readonly windows = new Map<string, Window<T>>();
  private readonly spreads = new Map<string, Spread<T>>();

  constructor(private readonly parts: CoalesceParts<T>) {}

  /** Counts one record, and writes what is due (the writes are the recorder's, and do not throw). */
  record(record: T): void {
    const key = this.parts.same(record);
    const now = this.parts.now();
    const open = this.windows.get(key);
    if (open && now - open.since < COALESCE_MS) {
      open.counted += 1;
      return;
    }
    // The last window's count first (it happened before this one), then this record.
    if (open && open.counted > 0) void this.parts.write(open.record, open.counted - 1);
    if (!open && this.#spread(record, now)) return;
    this.windows.set(key, { since: now, counted: 0, record });
    void this.parts.write(record, 0);
    if (this.windows.size > MAX_WINDOWS) {
      const oldest = this.windows.keys().next().value!;
      const closing = this.windows.get(oldest)!;
      if (closing.counted > 0) void this.parts.write(closing.record, closing.counted - 1);
      this.windows.delete(oldest);
    }
  }

  /** A record of a kind not seen this minute: true when it is counted (its group is past its kinds for the minute), not written now. */
  #spread(record: T, now: number): boolean {
    const key = this.parts.group(record);
    let spread = this.spreads.get(key);
    if (spread && now - spread.since >= COALESCE_MS) {
      if (spread.others > 0 && spread.last !== undefined) void this.parts.writeOthers(spread.last, spread.others);
      spread = undefined;
    }
    if (!spread) {
      spread = { since: now, kinds: 0, others: 0 };
      this.spreads.set(key, spread);
      if (this.spreads.size > MAX_WINDOWS) this.spreads.delete(this.spreads.keys().next().value!);
    }
    if (spread.kinds < this.parts.perMinute) {
      spread.kinds += 1;
      return false;
    }
    spread.others += 1;
    spread.last = record;
    return true;
  }

  /** Writes the counts still open (call on shutdown, before the log closes). */
  async flush(): Promise<void> {
    const writes: Promise<unknown>[] = [];
    for (const [key, open] of this.windows) {
      if (open.counted > 0) writes.push(this.parts.write(open.record, open.counted - 1));
      this.windows.delete(key);
    }
    for (const [key, spread] of this.spreads) {
      if (spread.others > 0 && spread.last !== undefined) writes.push(this.parts.writeOthers(spread.last, spread.others));
      this.spreads.delete(key);
    }
    await Promise.all(writes);
  }
}
