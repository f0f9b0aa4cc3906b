/**
 * A server's (or a client's) text made inert for display: what every shell
 * shows of text Airlock did not write. Kept apart from the servers room so a
 * command that prints can use it without loading the supervisor.
 */

// C0/C1 controls (tab aside), bidi overrides/isolates, and characters that are
// invisible or break lines on some screens (zero-width, soft hyphen, line and
// paragraph separators, tags): text shown in a terminal (`airlock logs`, a
// confirmation) must not carry escape sequences, reorder or hide what the user reads.
const UNSAFE_CHARS =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/** A server's text made inert for display: unsafe characters become visible `\u{…}` escapes. */
export function inertText(text: string): string {
  return text.replace(UNSAFE_CHARS, (c) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`);
}

/**
 * A server's text for one line of someone else's: inert, and its line feeds
 * and tabs shown as `\\n` and `\\t` (every other line break is already a
 * visible escape) — so it can never start a line of its own.
 */
export function inertLine(text: string): string {
  return inertText(text).replace(/[\n\t]/g, (c) => (c === '\n' ? '\\n' : '\\t'));
}
