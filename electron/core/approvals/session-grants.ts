import type { SessionGrant } from '../policy/decide';
import type { Clock } from './clock';

/**
 * "Allow for this session" grants, in memory only: they end when Airlock
 * stops, when revoked, or at their expiry. Each is bound to the fingerprint
 * the person saw, so `decide()` voids it when the tool changes.
 */
export class SessionGrants {
  #grants: SessionGrant[] = [];
  readonly #clock: Clock;
  readonly #listeners = new Set<() => void>();

  /** `clock` decides expiry. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Adds (or replaces) the grant for a server's tool. */
  add(grant: SessionGrant): void {
    this.#grants = this.#grants.filter((g) => !(g.server === grant.server && g.tool === grant.tool));
    this.#grants.push({ ...grant });
    this.#changed();
  }

  /** Unexpired grants (copies), for `PolicyFacts.sessionGrants`. */
  list(): SessionGrant[] {
    const now = this.#clock.now();
    this.#grants = this.#grants.filter((g) => typeof g.expiresAt !== 'number' || g.expiresAt > now);
    return this.#grants.map((g) => ({ ...g }));
  }

  /** Unexpired grants for one server. */
  forServer(server: string): SessionGrant[] {
    return this.list().filter((g) => g.server === server);
  }

  /** Revokes the grants of a server (one tool, or all of its tools). Returns how many ended. */
  revoke(server: string, tool?: string): number {
    const before = this.#grants.length;
    this.#grants = this.#grants.filter((g) => !(g.server === server && (tool === undefined || g.tool === tool)));
    const removed = before - this.#grants.length;
    if (removed > 0) this.#changed();
    return removed;
  }

  /** Ends every grant. */
  clear(): void {
    if (this.#grants.length === 0) return;
    this.#grants = [];
    this.#changed();
  }

  /** Called after any change; returns an unsubscribe function. */
  onDidChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    for (const l of this.#listeners) {
      try {
        l();
      } catch {
        // A broken observer must not break the grants.
      }
    }
  }
}
