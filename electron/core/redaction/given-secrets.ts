/**
 * The values this process handed each server — read from the secret store
 * to start it, to fill its headers, to sign it in — kept for as long as the
 * process runs, so they are hidden even after the store no longer has them:
 * the file deleted, a secret cleared or replaced while the server runs (it
 * still holds the old value in its environment).
 *
 * SECURITY: invariant 5 — what a running server was given is redacted from
 * every entry and model request whatever the store says now; only this
 * process runs servers on its data folder, so it saw every value they got.
 */

/** Most values kept per owner (a server, or its sign-in's slot): a bound, not a limit a person meets. */
const MAX_PER_OWNER = 256;

export class GivenSecrets {
  readonly #given = new Map<string, Set<string>>();

  /** Notes values read for `owner` (the store's own key: a server's name, or its sign-in's slot). */
  note(owner: string, values: Readonly<Record<string, string>>): void {
    for (const value of Object.values(values)) {
      if (typeof value !== 'string' || value.length === 0) continue;
      let kept = this.#given.get(owner);
      if (!kept) this.#given.set(owner, (kept = new Set()));
      if (kept.size >= MAX_PER_OWNER) kept.delete(kept.values().next().value!);
      kept.add(value);
    }
  }

  /** Every value noted for `owner` so far. */
  of(owner: string): string[] {
    return [...(this.#given.get(owner) ?? [])];
  }
}
