/**
 * The one way server-provided text reaches the screen. SECURITY: everything a
 * server says (names, titles, descriptions, instructions, output, logs) is
 * data. It is rendered as React text nodes only — never as HTML, never as a
 * link or an image — and characters that hide or reorder text (C0/C1
 * controls, bidi overrides and isolates, zero-width characters) are replaced
 * by visible markers such as ⟨U+202E⟩, so what a person reads is what the
 * server sent.
 */
import { useState, type ReactNode } from 'react';
import { HIDDEN, HIDDEN_INLINE, markerFor, safeJson } from '../inert';

export { hasHiddenCharacters, safeJson, visible } from '../inert';

/** Splits text into plain runs and marker elements (`inline`: line breaks and tabs are markers too). */
function withMarkers(text: string, inline: boolean): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let key = 0;
  for (const match of text.matchAll(inline ? HIDDEN_INLINE : HIDDEN)) {
    const at = match.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    out.push(
      <span key={key++} className="ctrl-char" title="A hidden or direction-changing character, made visible by Airlock">
        {markerFor(match[0])}
      </span>,
    );
    last = at + match[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export interface InertTextProps {
  /** The text as the server sent it (anything that is not a string is shown as JSON). */
  text: unknown;
  /** Show at most this many characters until the person asks for the rest. */
  fold?: number;
  /**
   * Keep line breaks and spacing (Airlock's own messages that carry a
   * server's words). Without it the text stays on the line it is in: a line
   * break or tab shows as a marker.
   */
  block?: boolean;
  /**
   * A server's (or a registry publisher's) own words on lines of their own —
   * descriptions, instructions, output, errors: a quoted block behind a
   * visible gutter, never styled like Airlock's words. Implies `block`.
   */
  quoted?: boolean;
  className?: string;
  /** Shown when there is no text. */
  empty?: string;
}

/** Server-provided text, inert, with hidden characters made visible and long text folded. */
export function InertText({ text, fold = 600, block = false, quoted = false, className, empty }: InertTextProps) {
  const [open, setOpen] = useState(false);
  const raw = typeof text === 'string' ? text : text === undefined ? '' : safeJson(text);
  const multiline = block || quoted;
  // SECURITY (issue 25 item 4): a server's lines are quoted, behind a gutter; inside Airlock's lines they stay on that line.
  const Tag = quoted ? 'blockquote' : block ? 'div' : 'span';
  const classes = ['inert', multiline ? 'inert-block' : '', quoted ? 'server-quote' : '', className ?? ''].filter(Boolean).join(' ');
  if (raw.length === 0) {
    return empty ? <span className="muted">{empty}</span> : null;
  }
  const folded = !open && raw.length > fold;
  const shown = folded ? raw.slice(0, fold) : raw;
  return (
    <Tag className={classes} {...(quoted ? { 'data-server-words': '' } : {})}>
      {withMarkers(shown, !multiline)}
      {folded && '…'}
      {raw.length > fold && (
        <>
          {' '}
          <button type="button" className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Show less' : `Show all ${raw.length.toLocaleString('en')} characters`}
          </button>
        </>
      )}
    </Tag>
  );
}
