/**
 * `claims-contradicted` entries (see `ClaimsContradictedEntry` in
 * entries.ts): what `AuditLog.appendClaimsContradicted` takes, and the body
 * it chains. Kept here so the log's writer only calls it; every text a
 * server could have chosen (a path, a host) goes through the log's
 * redaction (`hide`).
 */
import type { ClaimsContradictedEntry } from './entries';

/** Evidence items written one by one in an entry; more are counted (`more`). */
export const MAX_ENTRY_EVIDENCE = 50;

/** What `appendClaimsContradicted` takes. */
export interface ClaimsContradictedInput {
  callId: string;
  server: string;
  tool: string;
  fingerprint: string;
  claims: ClaimsContradictedEntry['claims'];
  evidence: ReadonlyArray<ClaimsContradictedEntry['evidence'][number]>;
  /** Things it did in that call that were counted, not kept. */
  more?: number;
  effect: ClaimsContradictedEntry['effect'];
}

/** The body the log chains (everything but v, seq, time, prevHash and hash); `hide` redacts a server's text. */
export function claimsContradictedBody(input: ClaimsContradictedInput, hide: (text: string) => string): Record<string, unknown> {
  const evidence = input.evidence.slice(0, MAX_ENTRY_EVIDENCE).map((item) => ({
    claim: String(item.claim),
    did: String(item.did),
    target: hide(String(item.target).slice(0, 1200)),
    at: String(item.at),
    ...(item.alongside?.length ? { alongside: item.alongside.slice(0, 20).map((tool) => String(tool).slice(0, 200)) } : {}),
    ...(typeof item.allowed === 'boolean' ? { allowed: item.allowed } : {}),
  }));
  const more = (input.more ?? 0) + Math.max(0, input.evidence.length - MAX_ENTRY_EVIDENCE);
  return {
    type: 'claims-contradicted',
    callId: String(input.callId),
    server: String(input.server),
    tool: String(input.tool),
    fingerprint: String(input.fingerprint),
    claims: [...new Set(input.claims)],
    evidence,
    ...(more > 0 ? { more } : {}),
    effect: input.effect,
  };
}
