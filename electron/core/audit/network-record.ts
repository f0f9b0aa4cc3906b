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
 * its megaphone (coalesce.ts). The first decision for a (server, host, port,
 * verdict, reason) is written at once; identical ones within the next minute
 * are counted, and the count is written as one entry (standing for
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
import { Coalescer } from './coalesce';
import type { NetworkDecider } from './entries';

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

export class NetworkDecisionRecorder {
  private readonly answers = new Map<string, { by: string; at: number }>();
  private readonly coalescer: Coalescer<NetworkDecision>;

  constructor(
    private readonly audit: Pick<AuditLog, 'appendNetwork'>,
    private readonly now: () => number = () => Date.now(),
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.coalescer = new Coalescer({
      same: (decision) => `${decision.serverName}\n${decision.host}\n${decision.port}\n${decision.allowed}\n${decision.reason}`,
      // Distinct hosts are bounded per server, verdict and reason.
      group: (decision) => `${decision.serverName}\n${decision.allowed}\n${decision.reason}`,
      perMinute: HOSTS_PER_MINUTE,
      write: (decision, repeats) => this.write(decision, repeats),
      writeOthers: (last, count) => this.write(last, 0, count),
      now: () => this.now(),
    });
  }

  /** A person answered a question about this request, in `by` (window, terminal). */
  noteAnswer(server: string, host: string, port: number, by: string): void {
    this.answers.set(`${server}\n${host}\n${port}`, { by, at: this.now() });
    if (this.answers.size > 1000) this.answers.delete(this.answers.keys().next().value!);
  }

  /** Records one decision the proxy took (never throws; the verdict does not depend on it). */
  record(decision: NetworkDecision): void {
    this.coalescer.record(decision);
  }

  /** Writes the counts still open (call on shutdown, before the log closes). */
  flush(): Promise<void> {
    return this.coalescer.flush();
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
