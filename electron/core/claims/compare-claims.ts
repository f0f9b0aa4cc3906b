/**
 * What a tool did during a call, set against what it claims (pure: no I/O,
 * no clock). The claims are the server's explicit hints, exactly as sent;
 * only a stated hint can be contradicted (an unstated one already reads as
 * the spec's cautious default):
 *
 * | claim                   | contradicted by                                                      |
 * |-------------------------|----------------------------------------------------------------------|
 * | `readOnlyHint: true`    | any write, change, delete or rename in a write grant; a write the OS sandbox refused |
 * | `destructiveHint: false`| deleting a file that was there before the call; replacing one (a new file or a rename in its place); rewriting one so that it got shorter |
 * | `openWorldHint: false`  | any network attempt through its proxy, allowed or not; a connection the OS sandbox refused |
 *
 * `destructiveHint` means something only for a tool that does not claim to
 * be read-only (the spec reads it only then): a read-only claim is checked
 * on its own, and more strictly.
 */
import type { CheckedClaim, ClaimEvidence, ToolAnnotations } from '../../../shared/domain';

/** One thing a server did while a call ran, as Airlock saw it (paths and hosts are data). */
export type Effect =
  /** A new file or folder; `replacedExisting`: it took the place of one that was there before the call. */
  | { kind: 'created'; path: string; replacedExisting: boolean; at: number; alongside?: readonly string[] }
  /** An existing file written in place; `shrank`: it is shorter than before the call. */
  | { kind: 'modified'; path: string; existedBefore: boolean; shrank: boolean; at: number; alongside?: readonly string[] }
  | { kind: 'deleted'; path: string; existedBefore: boolean; at: number; alongside?: readonly string[] }
  /** Moved from `path` to `to`; `replacedExisting`: onto a file that was there before the call. */
  | { kind: 'renamed'; path: string; to: string; existedBefore: boolean; replacedExisting: boolean; at: number; alongside?: readonly string[] }
  /** A connection it asked its proxy for (allowed or not). */
  | { kind: 'network'; host: string; port: number; allowed: boolean; at: number; alongside?: readonly string[] }
  /** Something the OS sandbox refused and reported (macOS), by the kind of operation. */
  | { kind: 'refused'; operation: 'write' | 'read' | 'network' | 'other'; detail: string; at: number; alongside?: readonly string[] };

/** One contradiction: the claim, what the tool did against it, and the effect that shows it. */
export interface Contradiction {
  claim: CheckedClaim;
  did: ClaimEvidence['did'];
  effect: Effect;
}

/** The claims a definition states explicitly, as booleans the comparison reads. */
export interface StatedClaims {
  readOnly: boolean;
  notDestructive: boolean;
  closedWorld: boolean;
}

/** Reads the explicit hints: only a real boolean counts (as in policy/annotations.ts). */
export function statedClaims(annotations: ToolAnnotations | undefined | null): StatedClaims {
  const hint = (key: CheckedClaim): unknown => (annotations !== null && typeof annotations === 'object' ? (annotations as Record<string, unknown>)[key] : undefined);
  const readOnly = hint('readOnlyHint') === true;
  return { readOnly, notDestructive: !readOnly && hint('destructiveHint') === false, closedWorld: hint('openWorldHint') === false };
}

/** True when the tool claims anything the comparison could contradict (otherwise there is nothing to watch for it). */
export function claimsAnything(annotations: ToolAnnotations | undefined | null): boolean {
  const stated = statedClaims(annotations);
  return stated.readOnly || stated.notDestructive || stated.closedWorld;
}

/** What a file effect was, in the evidence's words, for a read-only claim. */
function fileDid(effect: Effect): ClaimEvidence['did'] | undefined {
  switch (effect.kind) {
    case 'created':
      return effect.replacedExisting ? 'overwrote' : 'wrote';
    case 'modified':
      return 'changed';
    case 'deleted':
      return 'deleted';
    case 'renamed':
      return effect.replacedExisting ? 'overwrote' : 'renamed';
    default:
      return undefined;
  }
}

/** What a file effect destroyed, if anything (for a tool that claims it is not destructive). */
function destroyed(effect: Effect): ClaimEvidence['did'] | undefined {
  switch (effect.kind) {
    case 'deleted':
      return effect.existedBefore ? 'deleted' : undefined;
    case 'created':
      return effect.replacedExisting ? 'overwrote' : undefined;
    case 'renamed':
      return effect.replacedExisting ? 'overwrote' : undefined;
    case 'modified':
      return effect.existedBefore && effect.shrank ? 'overwrote' : undefined;
    default:
      return undefined;
  }
}

/**
 * The contradictions between a tool's claims and what it did during one
 * call: at most one per claim, kind and target, in the order seen. Never
 * throws; anything it cannot read contradicts nothing (the caller's claims
 * are then simply not checked).
 */
export function compareClaims(annotations: ToolAnnotations | undefined | null, effects: readonly Effect[]): Contradiction[] {
  const stated = statedClaims(annotations);
  if (!stated.readOnly && !stated.notDestructive && !stated.closedWorld) return [];
  const out: Contradiction[] = [];
  const seen = new Set<string>();
  const add = (claim: CheckedClaim, did: ClaimEvidence['did'], effect: Effect) => {
    const key = `${claim}\u0000${did}\u0000${targetOf(effect)}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ claim, did, effect });
  };
  for (const effect of Array.isArray(effects) ? effects : []) {
    if (effect === null || typeof effect !== 'object') continue;
    if (effect.kind === 'network') {
      if (stated.closedWorld) add('openWorldHint', 'network', effect);
      continue;
    }
    if (effect.kind === 'refused') {
      if (effect.operation === 'write' && stated.readOnly) add('readOnlyHint', 'refused', effect);
      if (effect.operation === 'network' && stated.closedWorld) add('openWorldHint', 'refused', effect);
      continue;
    }
    if (stated.readOnly) {
      const did = fileDid(effect);
      if (did) add('readOnlyHint', did, effect);
    } else if (stated.notDestructive) {
      const did = destroyed(effect);
      if (did) add('destructiveHint', did, effect);
    }
  }
  return out;
}

/** Where an effect happened, as the evidence names it: a path ("from → to" for a move), "host:port", or the sandbox's line. */
export function targetOf(effect: Effect): string {
  switch (effect.kind) {
    case 'renamed':
      return `${effect.path} → ${effect.to}`;
    case 'network':
      return effect.host.includes(':') ? `[${effect.host}]:${effect.port}` : `${effect.host}:${effect.port}`;
    case 'refused':
      return effect.detail;
    default:
      return effect.path;
  }
}

/** What the sandbox's refusal line names (macOS: "deny(1) file-write-create /Users/…", "deny(1) network-outbound …"). */
export function refusedOperation(line: string): 'write' | 'read' | 'network' | 'other' {
  const operation = /deny(?:\(\d+\))?\s+(\S+)/.exec(line)?.[1] ?? '';
  if (operation.startsWith('file-write')) return 'write';
  if (operation.startsWith('file-read')) return 'read';
  if (operation.startsWith('network')) return 'network';
  return 'other';
}
