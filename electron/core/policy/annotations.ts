import type { ToolAnnotations } from '../../../shared/domain';

/**
 * Airlock's reading of what a tool does, after the spec's defaults:
 * `read-only` only when the server says so explicitly (and does not also say
 * destructive), `destructive` unless the server explicitly says it is not,
 * `changes-things` for the rest.
 */
export type ToolClass = 'read-only' | 'changes-things' | 'destructive';

/** The four MCP hints with the spec's defaults filled in. */
export interface NormalisedAnnotations {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  openWorld: boolean;
}

/** Which hints the server actually stated (the rest are defaults, shown as "not stated"). */
export interface StatedHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Airlock's own reading of a tool, derived only from its annotations. */
export interface ToolReading {
  toolClass: ToolClass;
  /** May reach outside the machine (the spec's default when not stated). */
  openWorld: boolean;
  /** Stated idempotent (the spec's default is not idempotent). */
  idempotent: boolean;
  /** Read-only together with an explicit `destructiveHint: true`: counted as destructive. */
  contradictory: boolean;
  normalised: NormalisedAnnotations;
  stated: StatedHints;
}

/** The spec's defaults for a hint the server did not state (MCP 2025-11-25, ToolAnnotations). */
export const SPEC_DEFAULTS: Readonly<NormalisedAnnotations> = Object.freeze({
  readOnly: false,
  destructive: true,
  idempotent: false,
  openWorld: true,
});

// A hint counts as stated only when it is a real boolean: a server that sends
// `"true"` or `1` has stated nothing Airlock will act on.
function hint(annotations: ToolAnnotations | undefined | null, key: keyof StatedHints): boolean | undefined {
  if (annotations === null || typeof annotations !== 'object') return undefined;
  const value: unknown = (annotations as Record<string, unknown>)[key];
  return typeof value === 'boolean' ? value : undefined;
}

/**
 * Fills in the spec's defaults: `readOnlyHint` false, `destructiveHint` true,
 * `idempotentHint` false, `openWorldHint` true. Values that are not booleans
 * are treated as not stated.
 */
export function normaliseAnnotations(annotations: ToolAnnotations | undefined | null): NormalisedAnnotations {
  return {
    readOnly: hint(annotations, 'readOnlyHint') ?? SPEC_DEFAULTS.readOnly,
    destructive: hint(annotations, 'destructiveHint') ?? SPEC_DEFAULTS.destructive,
    idempotent: hint(annotations, 'idempotentHint') ?? SPEC_DEFAULTS.idempotent,
    openWorld: hint(annotations, 'openWorldHint') ?? SPEC_DEFAULTS.openWorld,
  };
}

/**
 * Airlock's reading of a tool from its claimed annotations.
 *
 * - read-only only when `readOnlyHint: true` is explicit;
 * - `readOnlyHint: true` with an explicit `destructiveHint: true` is
 *   contradictory: it counts as destructive and is flagged;
 * - otherwise destructive unless `destructiveHint: false` is explicit.
 *
 * SECURITY: invariant 2 — this is only a reading of claims. Whether a claim
 * may relax a prompt is decided in `decide()` from trust and containment.
 */
export function readTool(annotations: ToolAnnotations | undefined | null): ToolReading {
  const normalised = normaliseAnnotations(annotations);
  const stated: StatedHints = {
    readOnlyHint: hint(annotations, 'readOnlyHint') !== undefined,
    destructiveHint: hint(annotations, 'destructiveHint') !== undefined,
    idempotentHint: hint(annotations, 'idempotentHint') !== undefined,
    openWorldHint: hint(annotations, 'openWorldHint') !== undefined,
  };
  const explicitReadOnly = hint(annotations, 'readOnlyHint') === true;
  const explicitDestructive = hint(annotations, 'destructiveHint') === true;
  const contradictory = explicitReadOnly && explicitDestructive;

  let toolClass: ToolClass;
  if (explicitReadOnly && !contradictory) toolClass = 'read-only';
  else if (contradictory || normalised.destructive) toolClass = 'destructive';
  else toolClass = 'changes-things';

  return {
    toolClass,
    openWorld: normalised.openWorld,
    idempotent: normalised.idempotent,
    contradictory,
    normalised,
    stated,
  };
}

/**
 * One line per hint for a person: what the server claims, or "Not stated —
 * treated as …" (UX.md 12). Written by Airlock; no server text.
 */
export function describeClaims(annotations: ToolAnnotations | undefined | null): string[] {
  const r = readTool(annotations);
  const lines: string[] = [];
  lines.push(
    r.stated.readOnlyHint
      ? `The server says: ${r.normalised.readOnly ? 'read-only' : 'not read-only'}`
      : 'Read-only: not stated — treated as may change things',
  );
  // For a tool that claims to only read, "destructive" and "safe to repeat" mean nothing (the spec
  // reads them only when readOnlyHint is false): a missing one is no news; a stated one still shows.
  const readOnlyClaim = r.stated.readOnlyHint && r.normalised.readOnly && !r.contradictory;
  if (r.stated.destructiveHint || !readOnlyClaim) {
    lines.push(
      r.stated.destructiveHint
        ? `The server says: ${r.normalised.destructive ? 'destructive' : 'not destructive'}`
        : 'Destructive: not stated — treated as destructive',
    );
  }
  if (r.stated.idempotentHint || !readOnlyClaim) {
    lines.push(
      r.stated.idempotentHint
        ? `The server says: ${r.normalised.idempotent ? 'safe to repeat' : 'not safe to repeat'}`
        : 'Safe to repeat: not stated — treated as not safe to repeat',
    );
  }
  lines.push(
    r.stated.openWorldHint
      ? `The server says: ${r.normalised.openWorld ? 'reaches outside your machine' : 'stays on your machine'}`
      : 'Reaches outside your machine: not stated — treated as it may',
  );
  if (r.contradictory) lines.push('Contradictory: it says both read-only and destructive — treated as destructive');
  return lines;
}
