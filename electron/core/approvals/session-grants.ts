import type { SessionGrant } from '../policy/decide';
import type { Clock } from './clock';

/**
 * "Allow for this session" grants, in memory only: they end when Airlock
 * stops, when revoked, or at their expiry. Each is bound to the fingerprint
 * the person saw, so `decide()` voids it when the tool changes.
 */
export class SessionGrants {
  #grants: SessionGrant[] = [];
  /** When each grant with an expiry ends on the steady clock (a grant's `expiresAt` is the wall-clock time shown). */
  readonly #dueAt = new WeakMap<SessionGrant, number>();
  readonly #clock: Clock;
  readonly #listeners = new Set<() => void>();

  /** `clock` decides expiry. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Adds (or replaces) the grant for a server's tool. */
  add(grant: SessionGrant): void {
    this.#grants = this.#grants.filter((g) => !(g.server === grant.server && g.tool === grant.tool));
    const copy = { ...grant };
    if (typeof copy.expiresAt === 'number') this.#dueAt.set(copy, this.#clock.monotonic() + (copy.expiresAt - this.#clock.now()));
    this.#grants.push(copy);
    this.#changed();
  }

  /** True when no grant is held (expired ones included): nothing for `decide()` to weigh. */
  get empty(): boolean {
    return this.#grants.length === 0;
  }

  /**
   * Unexpired grants (copies), for `PolicyFacts.sessionGrants`.
   *
   * SECURITY (issue 16.3): a grant ends at whichever comes first — its
   * wall-clock expiry or its lifetime on the steady clock — so setting the
   * wall clock back never extends one, and a machine asleep past the expiry
   * (the steady clock may stand still meanwhile) does not either.
   */
  list(): SessionGrant[] {
    const now = this.#clock.now();
    const steady = this.#clock.monotonic();
    this.#grants = this.#grants.filter((g) => typeof g.expiresAt !== 'number' || (g.expiresAt > now && (this.#dueAt.get(g) ?? Infinity) > steady));
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
