import { diffLines, diffWords } from 'diff';
import type { ToolAnnotations, ToolDefinition } from '../../../shared/domain';
import { canonicalJson } from '../tools/canonical-json';
import { readTool, type ToolReading } from './annotations';

/** One piece of a text diff (jsdiff's change object, narrowed). */
export interface TextDiffPart {
  value: string;
  added: boolean;
  removed: boolean;
}

/** One changed field of a tool definition. */
export interface FieldChange {
  /** Where, as a path: `description`, `inputSchema.properties.path.description`, `annotations.readOnlyHint`. */
  path: string;
  /** The same in words, written by Airlock: "Description of parameter “path”". */
  label: string;
  kind: 'added' | 'removed' | 'changed';
  /** The old and new value as text (server text: show inert). Absent when added/removed. */
  before?: string;
  after?: string;
  /** A word diff for prose, a line diff for JSON. */
  parts: TextDiffPart[];
}

/** A loosening of what the tool claims: it now asks for less caution than before. */
export interface Loosening {
  hint: 'readOnly' | 'destructive' | 'openWorld' | 'idempotent';
  /** Airlock's words, e.g. "It was destructive; it now says it is not". */
  message: string;
}

/** A readable diff between two definitions of one tool. */
export interface DefinitionDiff {
  identical: boolean;
  changes: FieldChange[];
  /** Annotation changes that relax caution; any is suspicious after approval. */
  loosening: Loosening[];
  suspicious: boolean;
  before: ToolReading;
  after: ToolReading;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
const KNOWN_TOP = new Set(['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', '_meta']);

/**
 * Compares two definitions of a tool field by field — name, title,
 * description, each parameter's description and type, required parameters,
 * the rest of each schema, every annotation, `_meta` and any other field —
 * using jsdiff for the text. Flags any loosening of the annotations
 * (destructive → not, not read-only → read-only, open world → closed, not
 * idempotent → idempotent) as suspicious.
 *
 * SECURITY: invariant 3 — a rug pull must be shown whole, so every field the
 * fingerprint covers appears here (anything not named explicitly falls into
 * a generic JSON comparison).
 */
export function diffToolDefinitions(before: ToolDefinition, after: ToolDefinition): DefinitionDiff {
  const changes: FieldChange[] = [];
  compareText(changes, 'name', 'Name', before.name, after.name);
  compareText(changes, 'title', 'Title', before.title, after.title);
  compareText(changes, 'description', 'Description', before.description, after.description);
  compareSchema(changes, 'inputSchema', 'parameter', before.inputSchema, after.inputSchema);
  compareSchema(changes, 'outputSchema', 'output field', before.outputSchema, after.outputSchema);
  compareAnnotations(changes, before.annotations, after.annotations);
  compareJson(changes, '_meta', 'Metadata (_meta)', before._meta, after._meta);
  const extraKeys = new Set([...Object.keys(before), ...Object.keys(after)].filter((k) => !KNOWN_TOP.has(k)));
  for (const key of [...extraKeys].sort()) {
    compareJson(changes, key, `Other field “${key}”`, (before as Record<string, unknown>)[key], (after as Record<string, unknown>)[key]);
  }
  const readingBefore = readTool(before.annotations);
  const readingAfter = readTool(after.annotations);
  const loosening = findLoosening(readingBefore, readingAfter);
  return {
    identical: changes.length === 0,
    changes,
    loosening,
    suspicious: loosening.length > 0,
    before: readingBefore,
    after: readingAfter,
  };
}

/**
 * What relaxed between two readings: destructive → not destructive (or
 * read-only), not read-only → read-only, open world → closed, not idempotent
 * → idempotent. Compared after normalisation, so dropping `destructiveHint:
 * false` (back to the default) is a tightening, not a loosening.
 */
export function findLoosening(before: ToolReading, after: ToolReading): Loosening[] {
  const out: Loosening[] = [];
  const wasDestructive = before.toolClass === 'destructive';
  const isDestructive = after.toolClass === 'destructive';
  if (wasDestructive && !isDestructive) {
    out.push({ hint: 'destructive', message: `It was destructive; it now says it ${after.toolClass === 'read-only' ? 'is read-only' : 'is not destructive'}` });
  }
  if (before.toolClass !== 'read-only' && after.toolClass === 'read-only') {
    out.push({ hint: 'readOnly', message: 'It could change things; it now says it is read-only' });
  }
  if (before.openWorld && !after.openWorld) {
    out.push({ hint: 'openWorld', message: 'It could reach outside your machine; it now says it stays on your machine' });
  }
  if (!before.idempotent && after.idempotent) {
    out.push({ hint: 'idempotent', message: 'It was not safe to repeat; it now says it is' });
  }
  return out;
}

/** Plain-text rendering of a diff for a terminal or a log (one block per field). */
export function formatDefinitionDiff(diff: DefinitionDiff): string {
  if (diff.identical) return 'No changes.';
  const lines: string[] = [];
  if (diff.suspicious) {
    lines.push('SUSPICIOUS: the tool now claims to need less caution:');
    for (const l of diff.loosening) lines.push(`  - ${l.message}`);
  }
  for (const c of diff.changes) {
    lines.push(`${c.label} (${c.kind}):`);
    for (const part of c.parts) {
      const sign = part.added ? '+ ' : part.removed ? '- ' : '  ';
      for (const line of part.value.replace(/\n$/, '').split('\n')) lines.push(`  ${sign}${line}`);
    }
  }
  return lines.join('\n');
}

function kindOf(before: unknown, after: unknown): FieldChange['kind'] {
  if (before === undefined) return 'added';
  if (after === undefined) return 'removed';
  return 'changed';
}

function narrow(parts: { value: string; added?: boolean; removed?: boolean }[]): TextDiffPart[] {
  return parts.map((p) => ({ value: p.value, added: p.added === true, removed: p.removed === true }));
}

function asText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : prettyJson(value);
}

function prettyJson(value: unknown): string {
  // Canonical first (sorted keys) so key order alone never shows as a change.
  return JSON.stringify(JSON.parse(canonicalJson(value) ?? 'null'), null, 2);
}

// Bounds on the text diff. A server controls both texts (a 1 MB description is
// hostile behaviour 5), and decide() runs on the main process: past these the
// change is shown whole (old removed, new added) instead of word by word.
// Deterministic limits, not a timeout, so decide() stays pure.
const MAX_DIFF_INPUT = 64 * 1024;
const MAX_EDIT_LENGTH = 400;

function wholeChange(a: string, b: string): TextDiffPart[] {
  const parts: TextDiffPart[] = [];
  if (a !== '') parts.push({ value: a, added: false, removed: true });
  if (b !== '') parts.push({ value: b, added: true, removed: false });
  return parts;
}

function boundedDiff(a: string, b: string, mode: 'words' | 'lines'): TextDiffPart[] {
  if (a.length + b.length > MAX_DIFF_INPUT) return wholeChange(a, b);
  const result = mode === 'words' ? diffWords(a, b, { maxEditLength: MAX_EDIT_LENGTH }) : diffLines(a, b, { maxEditLength: MAX_EDIT_LENGTH });
  return result ? narrow(result) : wholeChange(a, b);
}

function compareText(out: FieldChange[], path: string, label: string, before: unknown, after: unknown): void {
  const a = asText(before);
  const b = asText(after);
  if (a === b) return;
  const change: FieldChange = { path, label, kind: kindOf(a, b), parts: boundedDiff(a ?? '', b ?? '', 'words') };
  if (a !== undefined) change.before = a;
  if (b !== undefined) change.after = b;
  out.push(change);
}

function compareJson(out: FieldChange[], path: string, label: string, before: unknown, after: unknown): void {
  const a = before === undefined ? undefined : prettyJson(before);
  const b = after === undefined ? undefined : prettyJson(after);
  if (a === b) return;
  const change: FieldChange = { path, label, kind: kindOf(a, b), parts: boundedDiff(a ?? '', b ?? '', 'lines') };
  if (a !== undefined) change.before = a;
  if (b !== undefined) change.after = b;
  out.push(change);
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function compareSchema(out: FieldChange[], path: string, noun: string, before: unknown, after: unknown): void {
  const title = path === 'inputSchema' ? 'Input schema' : 'Output schema';
  if (before === undefined || after === undefined || !record(before) || !record(after)) {
    compareJson(out, path, title, before, after);
    return;
  }
  const a = record(before)!;
  const b = record(after)!;
  const propsA = record(a.properties) ?? {};
  const propsB = record(b.properties) ?? {};
  const names = [...new Set([...Object.keys(propsA), ...Object.keys(propsB)])].sort();
  for (const name of names) {
    const pa = propsA[name];
    const pb = propsB[name];
    const base = `${path}.properties.${name}`;
    if (pa === undefined || pb === undefined) {
      compareJson(out, base, `${capitalise(noun)} “${name}”`, pa, pb);
      continue;
    }
    const ra = record(pa) ?? {};
    const rb = record(pb) ?? {};
    compareText(out, `${base}.description`, `Description of ${noun} “${name}”`, ra.description, rb.description);
    compareJson(out, `${base}.type`, `Type of ${noun} “${name}”`, ra.type, rb.type);
    const restA = omit(ra, ['description', 'type']);
    const restB = omit(rb, ['description', 'type']);
    compareJson(out, base, `Other rules of ${noun} “${name}”`, restA, restB);
  }
  compareJson(out, `${path}.required`, `Required ${noun}s`, a.required, b.required);
  compareJson(out, path, `${title} (other parts)`, omit(a, ['properties', 'required']), omit(b, ['properties', 'required']));
}

function compareAnnotations(out: FieldChange[], before: ToolAnnotations | undefined, after: ToolAnnotations | undefined): void {
  const a = record(before) ?? {};
  const b = record(after) ?? {};
  for (const h of HINTS) {
    const va = a[h];
    const vb = b[h];
    if (canonicalJson(va) === canonicalJson(vb)) continue;
    const show = (v: unknown) => (v === undefined ? 'not stated' : JSON.stringify(v));
    out.push({
      path: `annotations.${h}`,
      label: `Claimed ${h}`,
      kind: kindOf(va, vb),
      before: show(va),
      after: show(vb),
      parts: [
        { value: show(va), added: false, removed: true },
        { value: show(vb), added: true, removed: false },
      ],
    });
  }
  compareText(out, 'annotations.title', 'Title in annotations', a.title, b.title);
  const restA = omit(a, [...HINTS, 'title']);
  const restB = omit(b, [...HINTS, 'title']);
  compareJson(out, 'annotations', 'Other annotations', Object.keys(restA).length ? restA : undefined, Object.keys(restB).length ? restB : undefined);
}

function omit(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!keys.includes(k)) out[k] = v;
  return out;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
