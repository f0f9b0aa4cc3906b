/**
 * Refusals the operating system's sandbox reported (macOS: Seatbelt through
 * `log stream`) in the audit log: a `sandbox` entry naming the server and
 * what it tried. A server can trip the sandbox as fast as it likes; as for
 * network decisions (network-record.ts; both through coalesce.ts), the
 * first refusal of a kind is written at once, identical ones within the
 * next minute are counted, and the count is written as one entry when the
 * minute is over and the next one comes, or on `flush()`. Every refusal is
 * accounted for.
 *
 * A flood of *distinct* refusals (a path the server makes up each time — or
 * a secret spelled out in paths) is bounded the same way as host names
 * (network-record.ts): per server, the first `REFUSALS_PER_MINUTE` kinds of
 * a minute get entries of their own; the rest of that minute are counted
 * and written as one entry naming the last. What the server chose is
 * redacted by the log itself (audit-log.ts), like a host name.
 */
import type { AuditLog } from './audit-log';
import { Coalescer } from './coalesce';

/** Distinct refusals per server written one by one in a minute; more are counted. */
export const REFUSALS_PER_MINUTE = 10;

interface Refusal {
  server: string;
  detail: string;
}

export class SandboxRefusalRecorder {
  private readonly coalescer: Coalescer<Refusal>;

  constructor(
    private readonly audit: Pick<AuditLog, 'appendSandboxRefusal'>,
    now: () => number = () => Date.now(),
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.coalescer = new Coalescer<Refusal>({
      same: (refusal) => `${refusal.server}\n${refusal.detail}`,
      group: (refusal) => refusal.server,
      perMinute: REFUSALS_PER_MINUTE,
      write: (refusal, repeats) => this.write(refusal.server, refusal.detail, repeats),
      writeOthers: (last, count) => this.writeOthers(last.server, last.detail, count),
      now,
    });
  }

  /** Records one refusal (never throws: what the sandbox enforced does not depend on it). */
  record(server: string, detail: string): void {
    this.coalescer.record({ server, detail });
  }

  /** Writes the counts still open (call on shutdown, before the log closes). */
  flush(): Promise<void> {
    return this.coalescer.flush();
  }

  // One entry standing for `count` refusals of other kinds in a minute, the last of them named.
  private writeOthers(server: string, last: string, count: number): Promise<unknown> {
    return this.write(server, `${count} more refusals of other kinds in that minute; the last: ${last}`, count - 1);
  }

  private write(server: string, detail: string, repeats: number): Promise<unknown> {
    return this.audit.appendSandboxRefusal({ server, detail, ...(repeats ? { repeats } : {}) }).catch((error: unknown) => this.onError(error));
  }
}
