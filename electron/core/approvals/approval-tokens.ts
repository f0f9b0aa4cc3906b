import { randomBytes } from 'node:crypto';
import { sha256OfCanonical } from '../tools/canonical-json';
import type { Clock } from './clock';

/**
 * The digest an approval is bound to: sha256 of the canonical JSON of
 * `{ server, tool, arguments }` — the call exactly as it will be sent.
 */
export function callDigest(server: string, tool: string, args: unknown): string {
  return sha256OfCanonical({ server, tool, arguments: args });
}

/** Why a token was not accepted. */
export type ConsumeRefusal = 'unknown-token' | 'expired' | 'different-call' | 'definition-changed';

/** The result of `ApprovalTokens.consume`. */
export type ConsumeResult =
  | { ok: true; confirmationId: string; digest: string }
  | { ok: false; reason: ConsumeRefusal; message: string };

interface TokenRecord {
  digest: string;
  /** On the steady clock: a wall clock set back does not keep an approval alive. */
  dueAt: number;
  confirmationId: string;
  /** The tool definition the person saw (its fingerprint), when the approval is bound to one. */
  fingerprint?: string;
}

/**
 * Single-use approval tokens, minted in the core when a person approves a
 * call. Each is bound to the digest of the call that was approved; using it
 * burns it, whatever the outcome.
 *
 * SECURITY: invariant 1 — an approval lets exactly one call through: the
 * one the person saw (edited arguments included), once, before it expires,
 * to the tool as it was defined when they saw it (its fingerprint). A token
 * presented for a different call or a changed tool is burnt, not kept.
 */
export class ApprovalTokens {
  readonly #tokens = new Map<string, TokenRecord>();
  readonly #clock: Clock;
  readonly #ttlMs: number;

  /** `ttlMs`: how long after the approval the call must be sent. */
  constructor(clock: Clock, ttlMs: number) {
    this.#clock = clock;
    this.#ttlMs = ttlMs;
  }

  /** Mints a token for one call, bound to the definition the person saw when `fingerprint` is given. */
  issue(server: string, tool: string, args: unknown, confirmationId: string, fingerprint?: string): string {
    this.#prune();
    const token = randomBytes(32).toString('base64url');
    this.#tokens.set(token, {
      digest: callDigest(server, tool, args),
      dueAt: this.#clock.monotonic() + this.#ttlMs,
      confirmationId,
      ...(fingerprint !== undefined ? { fingerprint } : {}),
    });
    return token;
  }

  /**
   * Accepts a token once, and only for exactly the call it was minted for —
   * and, for a token bound to a definition, only while `fingerprint` (the
   * tool's definition now) is still that one. Any attempt (accepted or not)
   * burns the token.
   */
  consume(token: unknown, server: string, tool: string, args: unknown, fingerprint?: string): ConsumeResult {
    if (typeof token !== 'string') return { ok: false, reason: 'unknown-token', message: 'No approval was given for this call.' };
    const record = this.#tokens.get(token);
    if (!record) {
      return { ok: false, reason: 'unknown-token', message: 'This approval was never given, or it was already used.' };
    }
    this.#tokens.delete(token);
    if (this.#clock.monotonic() >= record.dueAt) {
      return { ok: false, reason: 'expired', message: 'This approval expired before the call was sent.' };
    }
    let digest: string;
    try {
      digest = callDigest(server, tool, args);
    } catch {
      return { ok: false, reason: 'different-call', message: 'The call could not be matched to its approval.' };
    }
    if (digest !== record.digest) {
      return { ok: false, reason: 'different-call', message: 'This approval was for a different call (server, tool or arguments differ).' };
    }
    if (record.fingerprint !== undefined && fingerprint !== undefined && fingerprint !== record.fingerprint) {
      return { ok: false, reason: 'definition-changed', message: 'The tool changed after this approval was given; it was for the definition shown then.' };
    }
    return { ok: true, confirmationId: record.confirmationId, digest };
  }

  /** Number of unused, unexpired tokens (for tests and diagnostics). */
  get size(): number {
    this.#prune();
    return this.#tokens.size;
  }

  #prune(): void {
    const now = this.#clock.monotonic();
    for (const [k, v] of this.#tokens) if (now >= v.dueAt) this.#tokens.delete(k);
  }
}
