/**
 * Network decisions in the audit log (issue 16.6): every request a
 * sandboxed server makes through its proxy becomes a `network` entry naming
 * the server, host, port, decision and who decided — the server's grant, a
 * person (and where they answered), nobody (no one could be asked, or no one
 * answered in time), the policy (the server may not be asked about), or
 * Airlock's own checks. "Denied: nobody could be asked" never reads as
 * "denied by you".
 *
 * A server can make requests as fast as it likes; the log must not become
 * its megaphone. The first decision for a (server, host, port, verdict,
 * reason) is written at once; identical ones within the next minute are
 * counted, and the count is written as one entry (standing for
 * `1 + repeats` decisions) when the minute is over and the next one comes,
 * or on `flush()` (shutdown). Every decision is accounted for.
 *
 * A flood of *distinct* names (`a1.example`, `a2.example`, … — or a secret
 * spelled out in host names) is bounded the same way: per server and
 * verdict, the first `HOSTS_PER_MINUTE` hosts of a minute get entries of
 * their own; the rest of that minute are counted, and written as one entry
 * (`otherHosts`) when the minute is over. Host names are redacted by the
 * log itself (audit-log.ts), like every entry.
 */
import type { NetworkDecision } from '../sandbox/network-proxy';
import type { AuditLog } from './audit-log';
import type { NetworkDecider } from './entries';

const COALESCE_MS = 60_000;
/** Distinct hosts per server, verdict and reason written one by one in a minute; more are counted. */
export const HOSTS_PER_MINUTE = 10;

/** Who decided, from the proxy's reason. */
export function networkDecider(reason: NetworkDecision['reason']): NetworkDecider {
  switch (reason) {
    case 'granted':
      return 'grant';
    case 'user-allowed':
    case 'user-denied':
      return 'person';
    case 'ask-failed':
    case 'too-many-questions':
      return 'nobody';
    case 'not-granted':
      return 'policy';
    default:
      return 'airlock';
  }
}

interface Window {
  since: number;
  /** Identical decisions since the entry that opened this window (not yet written). */
  counted: number;
  decision: NetworkDecision;
}

/** The distinct hosts one server asked for in a minute, with one verdict and reason. */
interface Spread {
  since: number;
  hosts: number;
  /** Decisions for further hosts this minute, not yet written; the latest one stands for them. */
  others: number;
  last?: NetworkDecision;
}

export class NetworkDecisionRecorder {
  private readonly windows = new Map<string, Window>();
  private readonly spreads = new Map<string, Spread>();
  private readonly answers = new Map<string, { by: string; at: number }>();

  constructor(
    private readonly audit: Pick<AuditLog, 'appendNetwork'>,
    private readonly now: () => number = () => Date.now(),
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** A person answered a question about this request, in `by` (window, terminal). */
  noteAnswer(server: string, host: string, port: number, by: string): void {
    this.answers.set(`${server}\n${host}\n${port}`, { by, at: this.now() });
    if (this.answers.size > 1000) this.answers.delete(this.answers.keys().next().value!);
  }

  /** Records one decision the proxy took (never throws; the verdict does not depend on it). */
  record(decision: NetworkDecision): void {
    const key = `${decision.serverName}\n${decision.host}\n${decision.port}\n${decision.allowed}\n${decision.reason}`;
    const now = this.now();
    const open = this.windows.get(key);
    if (open && now - open.since < COALESCE_MS) {
      open.counted += 1;
      return;
    }
    // The last window's count first (it happened before this one), then this decision.
    if (open && open.counted > 0) void this.write(open.decision, open.counted - 1);
    if (!open && this.#spread(decision, now)) return;
    this.windows.set(key, { since: now, counted: 0, decision });
    void this.write(decision, 0);
    if (this.windows.size > 10_000) {
      const oldest = this.windows.keys().next().value!;
      const closing = this.windows.get(oldest)!;
      if (closing.counted > 0) void this.write(closing.decision, closing.counted - 1);
      this.windows.delete(oldest);
    }
  }

  /**
   * A decision for a host not seen in this minute: true when it is counted
   * (the server is past its hosts for the minute), not written now.
   */
  #spread(decision: NetworkDecision, now: number): boolean {
    const key = `${decision.serverName}\n${decision.allowed}\n${decision.reason}`;
    let spread = this.spreads.get(key);
    if (spread && now - spread.since >= COALESCE_MS) {
      if (spread.others > 0 && spread.last) void this.write(spread.last, 0, spread.others);
      spread = undefined;
    }
    if (!spread) {
      spread = { since: now, hosts: 0, others: 0 };
      this.spreads.set(key, spread);
      if (this.spreads.size > 10_000) this.spreads.delete(this.spreads.keys().next().value!);
    }
    if (spread.hosts < HOSTS_PER_MINUTE) {
      spread.hosts += 1;
      return false;
    }
    spread.others += 1;
    spread.last = decision;
    return true;
  }

  /** Writes the counts still open (call on shutdown, before the log closes). */
  async flush(): Promise<void> {
    const writes: Promise<unknown>[] = [];
    for (const [key, open] of this.windows) {
      if (open.counted > 0) writes.push(this.write(open.decision, open.counted - 1));
      this.windows.delete(key);
    }
    for (const [key, spread] of this.spreads) {
      if (spread.others > 0 && spread.last) writes.push(this.write(spread.last, 0, spread.others));
      this.spreads.delete(key);
    }
    await Promise.all(writes);
  }

  // One entry standing for 1 + repeats identical decisions (or, with `otherHosts`, for that many decisions about other hosts, the last of them named).
  private write(decision: NetworkDecision, repeats: number, otherHosts = 0): Promise<unknown> {
    const decidedBy = networkDecider(decision.reason);
    const answer = decidedBy === 'person' ? this.answers.get(`${decision.serverName}\n${decision.host}\n${decision.port}`) : undefined;
    return this.audit
      .appendNetwork({
        server: decision.serverName,
        host: decision.host,
        port: decision.port,
        allowed: decision.allowed,
        reason: decision.reason,
        decidedBy,
        ...(answer ? { answeredBy: answer.by } : {}),
        ...(repeats ? { repeats } : {}),
        ...(otherHosts ? { otherHosts } : {}),
      })
      .catch((error: unknown) => this.onError(error));
  }
}
