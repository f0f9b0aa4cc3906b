/**
 * Refusals the operating system's sandbox reported (macOS: Seatbelt through
 * `log stream`) in the audit log: a `sandbox` entry naming the server and
 * what it tried. A server can trip the sandbox as fast as it likes; as for
 * network decisions (network-record.ts), the first refusal of a kind is
 * written at once, identical ones within the next minute are counted, and
 * the count is written as one entry when the minute is over and the next
 * one comes, or on `flush()`. Every refusal is accounted for.
 */
import type { AuditLog } from './audit-log';

const COALESCE_MS = 60_000;
const MAX_WINDOWS = 10_000;

interface Window {
  since: number;
  counted: number;
  server: string;
  detail: string;
}

export class SandboxRefusalRecorder {
  private readonly windows = new Map<string, Window>();

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
    this.windows.set(key, { since: now, counted: 0, server, detail });
    void this.write(server, detail, 0);
    if (this.windows.size > MAX_WINDOWS) {
      const oldest = this.windows.keys().next().value!;
      const closing = this.windows.get(oldest)!;
      if (closing.counted > 0) void this.write(closing.server, closing.detail, closing.counted - 1);
      this.windows.delete(oldest);
    }
  }

  /** Writes the counts still open (call on shutdown, before the log closes). */
  async flush(): Promise<void> {
    const writes: Promise<unknown>[] = [];
    for (const [key, open] of this.windows) {
      if (open.counted > 0) writes.push(this.write(open.server, open.detail, open.counted - 1));
      this.windows.delete(key);
    }
    await Promise.all(writes);
  }

  private write(server: string, detail: string, repeats: number): Promise<unknown> {
    return this.audit.appendSandboxRefusal({ server, detail, ...(repeats ? { repeats } : {}) }).catch((error: unknown) => this.onError(error));
  }
}
