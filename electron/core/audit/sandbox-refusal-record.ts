/**
 * Refusals the operating system's sandbox reported (macOS: Seatbelt through
 * `log stream`) in the audit log: a `sandbox` entry naming the server and
 * what it tried. A server can trip the sandbox as fast as it likes; as for
 * network decisions (network-record.ts), the first refusal of a kind is
 * written at once, identical ones within the next minute are counted, and
 * the count is written as one entry when the minute is over and the next
 * one comes, or on `flush()`. Every refusal is accounted for.
 *
 * A flood of *distinct* refusals (a path the server makes up each time — or
 * a secret spelled out in paths) is bounded the same way as host names
 * (network-record.ts): per server, the first `REFUSALS_PER_MINUTE` kinds of
 * a minute get entries of their own; the rest of that minute are counted
 * and written as one entry naming the last. What the server chose is
 * redacted by the log itself (audit-log.ts), like a host name.
 */
import type { AuditLog } from './audit-log';

const COALESCE_MS = 60_000;
const MAX_WINDOWS = 10_000;
/** Distinct refusals per server written one by one in a minute; more are counted. */
export const REFUSALS_PER_MINUTE = 10;

/** The distinct refusals one server caused in a minute. */
interface Spread {
  since: number;
  kinds: number;
  /** Refusals of further kinds this minute, not yet written; the latest one is named for them. */
  others: number;
  last?: string;
}

interface Window {
  since: number;
  counted: number;
  server: string;
  detail: string;
}

export class SandboxRefusalRecorder {
  private readonly windows = new Map<string, Window>();
  private readonly spreads = new Map<string, Spread>();

  constructor(
    private readonly audit: Pick<AuditLog, 'appendSandboxRefusal'>,
    private readonly now: () => number = () => Date.now(),
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Records one refusal (never throws: what the sandbox enforced does not depend on it). */
  record(server: string, detail: string): void {
    const key = `${server}\n${detail}`;
    const now = this.now();
    const open = this.windows.get(key);
    if (open && now - open.since < COALESCE_MS) {
      open.counted += 1;
      return;
    }
    if (open && open.counted > 0) void this.write(open.server, open.detail, open.counted - 1);
    if (!open && this.#spread(server, detail, now)) return;
    this.windows.set(key, { since: now, counted: 0, server, detail });
    void this.write(server, detail, 0);
    if (this.windows.size > MAX_WINDOWS) {
      const oldest = this.windows.keys().next().value!;
      const closing = this.windows.get(oldest)!;
      if (closing.counted > 0) void this.write(closing.server, closing.detail, closing.counted - 1);
      this.windows.delete(oldest);
    }
  }

  /** A refusal of a kind not seen this minute: true when it is counted (the server is past its kinds for the minute), not written now. */
  #spread(server: string, detail: string, now: number): boolean {
    let spread = this.spreads.get(server);
    if (spread && now - spread.since >= COALESCE_MS) {
      if (spread.others > 0 && spread.last !== undefined) void this.writeOthers(server, spread.last, spread.others);
      spread = undefined;
    }
    if (!spread) {
      spread = { since: now, kinds: 0, others: 0 };
      this.spreads.set(server, spread);
      if (this.spreads.size > MAX_WINDOWS) this.spreads.delete(this.spreads.keys().next().value!);
    }
    if (spread.kinds < REFUSALS_PER_MINUTE) {
      spread.kinds += 1;
      return false;
    }
    spread.others += 1;
    spread.last = detail;
    return true;
  }

  /** Writes the counts still open (call on shutdown, before the log closes). */
  async flush(): Promise<void> {
    const writes: Promise<unknown>[] = [];
    for (const [key, open] of this.windows) {
      if (open.counted > 0) writes.push(this.write(open.server, open.detail, open.counted - 1));
      this.windows.delete(key);
    }
    for (const [server, spread] of this.spreads) {
      if (spread.others > 0 && spread.last !== undefined) writes.push(this.writeOthers(server, spread.last, spread.others));
      this.spreads.delete(server);
    }
    await Promise.all(writes);
  }

  // One entry standing for `count` refusals of other kinds in a minute, the last of them named.
  private writeOthers(server: string, last: string, count: number): Promise<unknown> {
    return this.write(server, `${count} more refusals of other kinds in that minute; the last: ${last}`, count - 1);
  }

  private write(server: string, detail: string, repeats: number): Promise<unknown> {
    return this.audit.appendSandboxRefusal({ server, detail, ...(repeats ? { repeats } : {}) }).catch((error: unknown) => this.onError(error));
  }
}
