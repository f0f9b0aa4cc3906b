/**
 * How many terminal columns text takes. Exact (string-width: wide East Asian
 * characters, emoji, zero-width marks) once `loadTextWidth` has run — which
 * the command does at start whenever it has a terminal, where Airlock lays
 * rows out itself (server-text.ts, confirmation-prompt.ts). Printable ASCII
 * is its length either way. Without a terminal (a pipe, an app's stdio)
 * nothing is laid out for a screen, and string-width is not loaded: there a
 * character counts one column (only a tab inside a server's text is spaced
 * by it).
 */
type Width = (text: string) => number;

let exact: Width | undefined;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
// Made at first use: building one costs a few milliseconds that a command printing plain ASCII never needs.
let segmenter: Intl.Segmenter | undefined;

/** Loads the exact measure (idempotent). */
export async function loadTextWidth(): Promise<void> {
  exact ??= (await import('string-width')).default;
}

/** True once the exact measure is loaded. */
export function textWidthIsExact(): boolean {
  return exact !== undefined;
}

/** The columns `text` takes on a terminal. */
export function textWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  if (exact) return exact(text);
  let count = 0;
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  for (const _ of segmenter.segment(text)) count += 1;
  return count;
}
