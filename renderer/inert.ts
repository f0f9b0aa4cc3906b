/**
 * Making server text safe to read (the pure half of <InertText>): which
 * characters hide or reorder text, and their visible markers.
 */

/**
 * Characters shown as markers: every control except tab and newline, bidi
 * controls, zero-width and other invisible formatting characters, and the
 * line and paragraph separators (U+2028, U+2029), which break a line as
 * newline does but look like nothing.
 */
 
export const HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060-\u2069\u206A-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFF9-\uFFFB]|\uDB40[\uDC00-\uDC7F]/g;

/**
 * The same, and tab and newline too: for server text inside one of Airlock's
 * lines, where a line break must never start a line of its own (whatever
 * white-space the surrounding text has).
 */
export const HIDDEN_INLINE = new RegExp(`${HIDDEN.source}|[\\t\\n]`, 'g');

/** The marker for one hidden character, e.g. `⟨U+202E⟩`. */
export function markerFor(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** True when `text` holds characters that would be hidden or reorder what is shown. */
export function hasHiddenCharacters(text: string): boolean {
  HIDDEN.lastIndex = 0;
  const found = HIDDEN.test(text);
  HIDDEN.lastIndex = 0;
  return found;
}

/** `text` with every hidden character replaced by its visible marker (for titles, attributes, plain strings). */
export function visible(text: string): string {
  return text.replace(HIDDEN, markerFor);
}

/** JSON for display; never throws (cycles and BigInts become a note). */
export function safeJson(value: unknown, indent = 2): string {
  try {
    return JSON.stringify(value, null, indent) ?? String(value);
  } catch {
    return '(a value that cannot be shown as JSON)';
  }
}
