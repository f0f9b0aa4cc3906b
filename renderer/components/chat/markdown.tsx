/**
 * The model's text as Markdown, rendered safely: renderer/markdown.ts reads
 * it into a tree of plain objects, drawn here as React elements (never an
 * HTML string). Raw HTML in the text is dropped, images are never loaded
 * (the address is shown as text instead), and a link is a button that first
 * shows its full address — only then, and only for https, can the person
 * open it, in the system browser. Hidden and direction-changing characters
 * are made visible in every text, as everywhere else.
 */
import { createElement, memo, useId, useState, type ReactNode } from 'react';
import { invoke } from '../../api';
import { parseMarkdown, type Block, type Inline } from '../../markdown';
import { visible } from '../inert-text';

/** A link the person must look at before it opens. */
function LinkButton({ href, children }: { href: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const id = useId();
  const url = href;
  const https = /^https:\/\//i.test(url);
  return (
    <span className="md-link">
      <button type="button" className="link-button" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        {children}
      </button>
      {open && (
        <span className="md-link-confirm" id={id} role="group" aria-label="Open link" data-testid="link-confirm">
          <span className="md-link-url">
            {https ? 'Opens in your browser:' : 'Airlock opens only https links. The address is:'} <code>{visible(url) || '(no address)'}</code>
          </span>
          {https && (
            <button
              type="button"
              className="small-button"
              onClick={async () => {
                const result = await invoke('links.open', { url });
                if (result.ok) setOpen(false);
                else setProblem(result.message);
              }}
            >
              Open in browser
            </button>
          )}
          <button type="button" className="small-button" onClick={() => setOpen(false)}>
            Cancel
          </button>
          {problem && (
            <span role="alert" className="field-error">
              {problem}
            </span>
          )}
        </span>
      )}
    </span>
  );
}

/** Inline nodes as elements; every text goes through `visible`. */
function inlines(nodes: Inline[]): ReactNode[] {
  return nodes.map((node, key) => {
    if (typeof node === 'string') return visible(node);
    switch (node.type) {
      case 'code':
        return <code key={key}>{visible(node.text)}</code>;
      case 'br':
        return <br key={key} />;
      case 'a':
        return (
          <LinkButton key={key} href={node.href}>
            {inlines(node.children)}
          </LinkButton>
        );
      case 'img':
        // SECURITY: no image is ever fetched; the person sees where it would have come from.
        return (
          <span key={key} className="md-image" data-testid="blocked-image">
            [image{node.alt ? `: ${visible(node.alt)}` : ''} — not loaded{node.src ? `, from ${visible(node.src)}` : ''}]
          </span>
        );
      default:
        return createElement(node.type, { key }, inlines(node.children));
    }
  });
}

/** Blocks as elements; in a tight list an item's paragraphs are its text alone. */
function blocks(nodes: Block[], tight = false): ReactNode[] {
  return nodes.map((node, key) => {
    switch (node.type) {
      case 'pre':
        return (
          <pre key={key}>
            <code>{visible(node.text)}</code>
          </pre>
        );
      case 'hr':
        return <hr key={key} />;
      case 'blockquote':
        return <blockquote key={key}>{blocks(node.children)}</blockquote>;
      case 'ul':
      case 'ol':
        return createElement(
          node.type,
          { key, start: node.start === 1 ? undefined : node.start },
          node.items.map((item, index) => (
            <li key={index} className={item.checked === undefined ? undefined : 'task-list-item'}>
              {item.checked !== undefined && <input type="checkbox" checked={item.checked} disabled />}
              {item.checked !== undefined && ' '}
              {blocks(item.children, node.tight)}
            </li>
          )),
        );
      case 'table': {
        const row = (cells: Inline[][], Cell: 'th' | 'td') =>
          cells.map((cell, column) => (
            <Cell key={column} style={node.align[column] && { textAlign: node.align[column] }}>
              {inlines(cell)}
            </Cell>
          ));
        return (
          <table key={key}>
            <thead>
              <tr>{row(node.head, 'th')}</tr>
            </thead>
            {node.rows.length > 0 && (
              <tbody>
                {node.rows.map((cells, index) => (
                  <tr key={index}>{row(cells, 'td')}</tr>
                ))}
              </tbody>
            )}
          </table>
        );
      }
      default:
        return tight && node.type === 'p' ? inlines(node.children) : createElement(node.type, { key }, inlines(node.children));
    }
  });
}

/** Markdown written by the model. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return <div className="markdown">{blocks(parseMarkdown(text))}</div>;
});
