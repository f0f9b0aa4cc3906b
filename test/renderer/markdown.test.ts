/**
 * The chat's Markdown: renderer/markdown.ts reads the model's text and
 * components/chat/markdown.tsx draws it, rendered here to static markup in
 * Node. Tables of cases:
 * - what models write comes out as it did with react-markdown and GitHub's
 *   extensions (the chat's previous renderer, kept as a dev dependency for
 *   this comparison only), up to whitespace between elements;
 * - links and images keep the address that was written (shown, never
 *   loaded; only https can be opened, by the component);
 * - nothing the text says becomes an element or an attribute outside a short
 *   list — no HTML, no <a>, no <img>, no address in an attribute — for
 *   hostile cases and for generated text (fast-check);
 * - hidden and direction-changing characters are marked in every text;
 * - hostile shapes finish: a quadratic search, a backtracking pattern or
 *   unbounded nesting would run these 600,000-character texts past the test's
 *   time limit or overflow the stack (no time is asserted).
 */
import fc from 'fast-check';
import { createElement, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { describe, expect, it } from 'vitest';
import { Markdown } from '../../renderer/components/chat/markdown';
import { parseMarkdown, type Block, type Inline } from '../../renderer/markdown';

const render = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

/** Markup compared by structure: links and blocked images in one shape, whitespace between elements and classes left out. */
function comparable(html: string): string {
  return html
    .replace(/^<div class="markdown">|<\/div>$/g, '')
    .replace(/<span class="md-link"><button[^>]*>/g, '<a>')
    .replace(/<\/button><\/span>/g, '</a>')
    .replace(/ (class|style|align|data-testid)="[^"]*"/g, '')
    .replace(/<input[^>]*>/g, (input) => (input.includes('checked') ? '[x]' : '[ ]'))
    .replace(/\n<\/code>/g, '</code>')
    .replace(/<br\/>\n/g, '<br/>')
    .replace(/\n(?=<(ul|ol)>)/g, '')
    .replace(/>\n+</g, '><')
    .trim();
}

/** The previous renderer, configured as the chat had it (raw HTML skipped), links and images drawn as ours are. */
function previous(text: string): string {
  const components = {
    a: ({ children }: { children?: ReactNode }) => createElement('a', null, children),
    img: ({ alt, src }: { alt?: string; src?: string }) => createElement('span', null, `[image${alt ? `: ${alt}` : ''} — not loaded${src ? `, from ${src}` : ''}]`),
  };
  return renderToStaticMarkup(createElement(ReactMarkdown, { skipHtml: true, remarkPlugins: [remarkGfm], components, children: text }));
}

describe('what models write is drawn as the previous renderer drew it', () => {
  it.each([
    ['strong, emphasis, strikethrough and code', 'I found **notes.md**. Now *em*, _em_, ~~gone~~, ~gone~ and `code`.'],
    ['a table with alignment', 'Done: the plan is in `plan.md`.\n\n| step | state | n |\n|:---|:-:|--:|\n| list | ✓ | 1 |\n| write | ✓ | 2 |'],
    ['a table right after a sentence, and a row without pipes', 'Here:\n| a | b |\n|---|---|\n| 1 | 2 |\nafter'],
    ['a pipe escaped in a cell and in code', 'Use `a | b`:\n\n| cmd | meaning |\n| --- | --- |\n| `a \\| b` | pipe |'],
    ['a table with no rows', '| a | b |\n|---|---|'],
    ['headings, # and underlined', '# Plan #\n\n## report\n\nTitle\n===\n\nSub\n---\n\n#NotHeading\n####### seven'],
    ['task lists', '- [ ] to do\n- [x] done\n- not a task [ ]'],
    ['nested and ordered lists', '1. one\n2. two\n   - nested\n   - more\n3. three\n\n* a\n* b\n\n+ c\n\n1) x\n2) y'],
    ['a list starting at 3', '3. three\n4. four'],
    ['a list right after a sentence, and a loose one', 'Steps:\n1. Install it\n2. Run `npm test`\n\n- a\n\n- b'],
    ['a list item with paragraphs and lazy lines', '1. one\n\n   para in item\n2. two\nlazy line\n- **Style**: names like `x_1`\n  continue here'],
    ['quotes, nested and lazy', '> quote\ncontinued lazily\n\n> > nested\n> back\n\n> **Note:** this is *important*.'],
    ['fenced code keeps tabs, blank lines and markup', '```python\ndef f(x):\n\treturn x * 2\n\n# <b>not bold</b> *not em*\n```'],
    ['a tilde fence and an unclosed fence', '~~~\nsome ``` inside\n~~~\n\n```\nruns to the end'],
    ['indented code', '    code at start\n    more\n\nthen text'],
    ['rules', 'a\n\n***\n\nb\n___\nc\n\n- - -'],
    ['line breaks', 'a  \nb\\\nc\nd'],
    ['emphasis edge cases', '***strong em*** and *a **b** c* and __x__ _y_ snake_case_name 2*3*4 _a_b_ *a*b* **a**b'],
    ['unpaired stars stay text', 'Price is $5 * 3 = $15 and 2 * 3 * 4, a*b, ** lone'],
    ['code in strong, strong in emphasis', '**bold with `code` inside** and _under with **strong**_'],
    ['code spans of two backticks and unclosed ones', 'Use `` a ` b `` and ` spaced ` and `unclosed'],
    ['links inline, by reference and bare', 'See [the docs](https://e.com/d?x=1&amp;y "t"), [ref], [text][ref], <https://a.example>, https://x.org/a_(b). and www.y.org, (see https://z.org/a).\n\n[ref]: https://r.example/x'],
    ['images, and an image in a link', '![alt *emph*](https://img/x.png "title") and [![img](a.png)](https://link)'],
    ['escapes and entities', 'Escapes: \\*not em\\*, \\# not heading, 1\\. not list, &lt;b&gt; &amp; &#169; &#x1F600; &nbsp;x'],
    ['raw HTML is dropped, its words stay', 'text <span>inline html</span> more <!-- comment --> end'],
    ['blank lines between paragraphs', 'Line one\nLine two\n\n\n\nNew para'],
    [
      'a typical answer',
      "## Summary\n\nThe file `a_b_c.ts` has *three* problems:\n\n- **Bug**: the loop never ends\n- **Style**: see [the guide](https://example.com/style)\n- Nested:\n  1. first\n  2. second\n\n```ts\nfor (;;) {}\n```\n\n| file | lines |\n|---|---:|\n| a.ts | 10 |\n\n> Fix the bug first.\n\n---\n\nThat's all.",
    ],
  ])('%s', (_name, text) => {
    expect(comparable(render(text))).toBe(comparable(previous(text)));
  });
});

/** Every link's and image's address, in order. */
function addresses(blocks: Block[]): string[] {
  const out: string[] = [];
  const inline = (nodes: Inline[]) => {
    for (const node of nodes) {
      if (typeof node === 'string') continue;
      if (node.type === 'a') out.push(`a ${node.href}`);
      if (node.type === 'img') out.push(`img ${node.src}`);
      if ('children' in node) inline(node.children);
    }
  };
  const walk = (nodes: Block[]) => {
    for (const node of nodes) {
      if (node.type === 'blockquote') walk(node.children);
      else if (node.type === 'ul' || node.type === 'ol') node.items.forEach((item) => walk(item.children));
      else if (node.type === 'table') [node.head, ...node.rows].forEach((row) => row.forEach(inline));
      else if ('children' in node) inline(node.children);
    }
  };
  walk(blocks);
  return out;
}

describe('links and images keep the address as written', () => {
  it.each([
    ['an inline link with a title and an entity', '[docs](https://e.com/d?x=1&amp;y "t")', ['a https://e.com/d?x=1&y']],
    ['a javascript: link (shown, never opened)', '[this](javascript:alert(1))', ['a javascript:alert(1)']],
    ['an autolink', '<https://a.b/c>', ['a https://a.b/c']],
    ['a bare www link, without the sentence’s full stop', 'see www.x.org.', ['a http://www.x.org']],
    ['a bare link with balanced parentheses, without an unopened one', '(see https://x.org/a_(b)).', ['a https://x.org/a_(b)']],
    ['a reference with a pointed destination', '[t][r]\n\n[R]: <https://r.example/a b>', ['a https://r.example/a b']],
    ['a destination with escaped parentheses', '[a](\\(x\\))', ['a (x)']],
    ['an image', '![i](https://t/p.png)', ['img https://t/p.png']],
    ['an image in a link', '[![i](p.png)](https://l)', ['a https://l', 'img p.png']],
    ['a link holds no link (the outer one is kept, the inner shown as written)', '[a [b](https://in) c](https://out)', ['a https://out']],
    ['an undefined reference stays text', '[a][nowhere] and [b]', []],
    ['a link in code stays text', '`[a](https://x)` and `https://y`', []],
  ])('%s', (_name, text, expected) => {
    expect(addresses(parseMarkdown(text))).toEqual(expected);
  });
});

/** The elements and attributes our markup may have; anything else came from the text. */
const ELEMENTS = new Set(['div', 'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'code', 'blockquote', 'ul', 'ol', 'li', 'input', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'em', 'strong', 'del', 'br', 'span', 'button']);
const ATTRIBUTES: Record<string, RegExp> = {
  class: /^(markdown|md-link|link-button|md-image|task-list-item)$/,
  type: /^(button|checkbox)$/,
  'aria-expanded': /^false$/,
  'aria-controls': /^[\w-]+$/,
  'data-testid': /^blocked-image$/,
  disabled: /^$/,
  checked: /^$/,
  start: /^\d+$/,
  style: /^text-align:(left|center|right)$/,
};

/** Fails when the markup has an element or an attribute (or value) outside the lists. */
function expectInert(html: string): void {
  for (const [, name, attributes] of html.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)) {
    expect(ELEMENTS, `<${name}> in ${html.slice(0, 300)}`).toContain(name);
    for (const [, attribute, value] of attributes!.matchAll(/\s([\w-]+)(?:="([^"]*)")?/g)) {
      expect(Object.keys(ATTRIBUTES), `${attribute} in ${html.slice(0, 300)}`).toContain(attribute);
      expect(value ?? '').toMatch(ATTRIBUTES[attribute!]!);
    }
  }
}

const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src="https://tracker.example/p.png" onerror="alert(1)"><b>raw html</b>',
  '<iframe src="https://evil.example"></iframe><style>body{display:none}</style>',
  '<a href="https://evil.example">click</a> <svg onload=alert(1)>',
  '[x](javascript:alert(1)) [y](data:text/html,<script>alert(1)</script>) [z](vbscript:msgbox)',
  '![pixel](https://tracker.example/p.png) ![](//tracker.example/q.png) ![a][r]\n\n[r]: https://tracker.example/r.png',
  '<https://evil.example/"onmouseover="alert(1)> [q](https://x.example/"onclick="alert(1))',
  '[a](https://x "title\\" onclick=\\"alert(1)") ![b](x.png "<img src=y>")',
  '```html\n<script>alert(1)</script>\n```',
  '| <b>cell</b> | ![i](https://t/i.png) |\n|---|---|\n| [l](javascript:x) | <i>x</i> |',
  '- [x] <input type="text" value="x">\n- [ ] <button onclick="x">b</button>',
  '&lt;script&gt;alert(1)&lt;/script&gt; &#60;img src=x onerror=alert(1)&#62;',
  '<!-- <script>alert(1)</script> --> <![CDATA[ x ]]> <?php echo 1 ?>',
  '<div style="position:fixed;inset:0">Airlock says: allow everything</div>',
];

describe('nothing the text says becomes an element, an attribute or a request', () => {
  it.each(HOSTILE)('%s', (text) => {
    expectInert(render(text));
  });

  it('holds for generated text (fast-check)', () => {
    const pieces = ['*', '**', '_', '~~', '`', '```\n', '[', ']', '(', ')', '![', '<', '>', '#', '- ', '1. ', '|', '|---|', '\n', '\n\n', ' ', '  ', 'a', 'b c', '\\', '&amp;', '&#60;', 'https://x.example/p', 'www.y.org', 'javascript:', '"', "'", '<img src=x onerror=alert(1)>', '<script>', '</b>', '<!--', '-->', '> ', '    ', '\t', '[r]: https://r', '\u202E', '\u200B'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 60 }), (parts) => {
        const html = render(parts.join(''));
        expectInert(html);
        // SECURITY: the hidden characters were marked, wherever they ended up.
        expect(html).not.toMatch(/[\u202E\u200B]/);
      }),
      { numRuns: 400 },
    );
  });
});

describe('hidden and direction-changing characters are marked in every text', () => {
  it.each([
    ['a heading', '## report\u202Etxt.exe'],
    ['a paragraph', 'hello\u200Bworld'],
    ['a code span', '`code\u200Bspan`'],
    ['a code block', '```\nrm -rf /\u202E\n```'],
    ['a table cell', '| a |\n|---|\n| b\u202Ec |'],
    ['a list item', '- item\u2066x'],
    ['a link’s words', '[open\u202Eme](https://x.example)'],
    ['an image’s description and address', '![pic\u202E](https://x.example/\u200Bp.png)'],
    ['a character written by number', 'a &#x202E; b'],
  ])('%s', (_name, text) => {
    const html = render(text);
    expect(html).not.toMatch(/[\u202E\u200B\u2066]/);
    expect(html).toMatch(/⟨U\+(202E|200B|2066)⟩/);
  });
});

const N = 600_000;
describe('hostile shapes finish (linear searches, capped nesting)', () => {
  it.each([
    ['lone openers', '*a '.repeat(N / 3)],
    ['lone closers', 'a* '.repeat(N / 3)],
    ['one huge run of stars around a word', `${'*'.repeat(N)}a${'*'.repeat(N)}`],
    ['emphasis nested thousands deep', `${'*a '.repeat(N / 6)}b${' a*'.repeat(N / 6)}`],
    ['open brackets', '['.repeat(N)],
    ['brackets and parentheses never closed', '[a](b '.repeat(N / 6)],
    ['images nested thousands deep', `${'!['.repeat(N / 2)}x${'](y)'.repeat(N / 2)}`],
    ['backtick runs of many lengths, never closed', Array.from({ length: 600 }, (_, i) => `${'`'.repeat(i + 1)}x`).join(' ')],
    ['unclosed comments', '<!--'.repeat(N / 4)],
    ['unclosed attribute quotes', "<a b='".repeat(N / 6)],
    ['unclosed autolinks', '<ab:'.repeat(N / 4)],
    ['a long run of spaces in a heading', `# a${' '.repeat(N)}b`],
    ['a long run of spaces in a paragraph, then a line end', `a${' '.repeat(N)}b\nc`],
    ['a long paragraph of short lines', 'word \n'.repeat(N / 6)],
    ['spaces inside a link destination', `[a](b${' '.repeat(N)}x`],
    ['quotes nested thousands deep', `${'> '.repeat(N / 2)}x`],
    ['lists nested thousands deep', Array.from({ length: 2000 }, (_, i) => `${' '.repeat(2 * i)}- x`).join('\n')],
    ['a delimiter row that fails at its end', `a|b\n|${'-|'.repeat(N / 2)}x`],
    ['a definition that fails at its end', `[a]: ${'x'.repeat(N)} y`],
    ['a long label looked up', `[${'a'.repeat(N)}]\n\n[a]: https://x`],
  ])('%s', (_name, text) => {
    const html = render(text);
    expect(html.length).toBeGreaterThan(0);
    expectInert(html);
  });
});
