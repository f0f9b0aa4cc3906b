import type { ToolAnnotations } from '../../../shared/domain';
import type { DefinitionDiffView, PolicyPreview, ToolReadingView } from '../../../shared/views';
import { describeClaims, type ToolReading } from './annotations';
import type { Decision } from './decide';
import type { DefinitionDiff } from './diff';

/** The renderer's view of Airlock's reading of a tool (`ToolReadingViewSchema`). */
export function toReadingView(reading: ToolReading, claimed: ToolAnnotations | undefined | null): ToolReadingView {
  return {
    class: reading.toolClass,
    openWorld: reading.openWorld,
    idempotent: reading.idempotent,
    contradictory: reading.contradictory,
    claims: describeClaims(claimed),
  };
}

/** The renderer's view of a definition diff (`DefinitionDiffViewSchema`); `field` is the label in words. */
export function toDiffView(diff: DefinitionDiff): DefinitionDiffView {
  return {
    changes: diff.changes.map((c) => ({
      field: c.label,
      ...(c.before !== undefined ? { before: c.before } : {}),
      ...(c.after !== undefined ? { after: c.after } : {}),
      parts: c.parts.map((p) => ({ value: p.value, added: p.added, removed: p.removed })),
    })),
    loosenings: diff.loosening.map((l) => l.message),
  };
}

/**
 * What the policy would do for a call of a tool right now, for the review
 * pages (`PolicyPreviewSchema`): "Runs without asking", "Asks", "Always asks"
 * (destructive), "Blocked" (any deny).
 */
export function toPolicyPreview(decision: Decision): PolicyPreview {
  const label =
    decision.verdict === 'allow'
      ? 'Runs without asking'
      : decision.verdict === 'deny'
        ? 'Blocked'
        : decision.confirmationKind === 'destructive'
          ? 'Always asks'
          : 'Asks';
  return { verdict: decision.verdict, label, reasons: [...decision.reasons] };
}
