/**
 * The model's text as Markdown, rendered safely: react-markdown builds React
 * elements (never an HTML string), raw HTML in the text is dropped, images
 * are never loaded (the address is shown as text instead), and a link is a
 * button that first shows its full address — only then, and only for https,
 * can the person open it, in the system browser. Hidden and direction-changing
 * characters are made visible, as everywhere else.
 */
import { memo, useId, useState, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { invoke } from '../../api';
import { visible } from '../inert-text';

/** A link the person must look at before it opens. */
function LinkButton({ href, children }: { href: string | undefined; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const id = useId();
  const url = href ?? '';
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

const components: Components = {
  a: ({ href, children }) => <LinkButton href={href}>{children}</LinkButton>,
  // SECURITY: no image is ever fetched; the person sees where it would have come from.
  img: ({ src, alt }) => (
    <span className="md-image" data-testid="blocked-image">
      [image{alt ? `: ${visible(String(alt))}` : ''} — not loaded{src ? `, from ${visible(String(src))}` : ''}]
    </span>
  ),
};

interface TextTree {
  type?: string;
  value?: unknown;
  children?: TextTree[];
}

/** Every text of the document — paragraphs, headings, cells, code — gets the same visible markers as inert server text. */
function rehypeVisibleCharacters() {
  return (tree: TextTree) => {
    const walk = (node: TextTree) => {
      if (node.type === 'text' && typeof node.value === 'string') node.value = visible(node.value);
      node.children?.forEach(walk);
    };
    walk(tree);
  };
}

/** GitHub's extensions models write: tables, strikethrough, task lists, bare links (which become the same link buttons). */
const PLUGINS = [remarkGfm];
const REHYPE = [rehypeVisibleCharacters];

/** Markdown written by the model. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown skipHtml remarkPlugins={PLUGINS} rehypePlugins={REHYPE} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
