/**
 * MCP content blocks (a prompt's messages, a sampling request's messages, a
 * model's answer) as a person reads them. SECURITY: the text is someone
 * else's — a server's or a model's — and is shown through <InertText> only;
 * images and audio are described (type and size), never decoded or shown;
 * resource links are named, never followed; nothing here makes a request.
 */
import { base64Bytes, blocksOf, formatBytes } from '../server-requests';
import { InertText, safeJson } from './inert-text';

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A message's content: one block or several, each shown inert. */
export function ContentBlocks({ content, fold = 2000 }: { content: unknown; fold?: number }) {
  return (
    <div className="content-blocks">
      {blocksOf(content).map((block, i) => (
        <ContentBlock key={i} block={block} fold={fold} />
      ))}
    </div>
  );
}

function Described({ children, data }: { children: React.ReactNode; data?: unknown }) {
  return (
    <div className="content-described small" data-testid="content-described">
      {children}
      {data !== undefined && (
        <details>
          <summary>As data</summary>
          <InertText text={safeJson(data)} quoted fold={1000} className="output" />
        </details>
      )}
    </div>
  );
}

function ContentBlock({ block, fold }: { block: unknown; fold: number }) {
  if (!isObject(block)) return <InertText text={safeJson(block)} quoted fold={fold} className="output" />;
  switch (block.type) {
    case 'text':
      return <InertText text={str(block.text) ?? ''} quoted fold={fold} className="content-text" empty="(empty text)" />;
    case 'image':
    case 'audio':
      return (
        <Described>
          {block.type === 'image' ? 'An image' : 'A sound'} (<InertText text={str(block.mimeType) ?? 'type not given'} />, {formatBytes(base64Bytes(block.data))}) — not shown: Airlock never
          displays images or plays sounds a server or model sent.
        </Described>
      );
    case 'resource': {
      const resource = isObject(block.resource) ? block.resource : {};
      const text = str(resource.text);
      return (
        <div className="content-resource">
          <p className="small muted">
            Embedded resource <code><InertText text={str(resource.uri) ?? ''} fold={200} /></code>
            {str(resource.mimeType) && (
              <>
                {' '}
                (<InertText text={str(resource.mimeType)} />)
              </>
            )}
          </p>
          {text !== undefined ? (
            <InertText text={text} quoted fold={fold} className="content-text" />
          ) : (
            <Described>Binary data, {formatBytes(base64Bytes(resource.blob))} — not shown and not saved.</Described>
          )}
        </div>
      );
    }
    case 'resource_link':
      return (
        <Described>
          A link to the resource <code><InertText text={str(block.uri) ?? ''} fold={200} /></code>
          {str(block.name) && (
            <>
              {' '}
              (“<InertText text={str(block.name)} fold={120} />”)
            </>
          )}{' '}
          — named, not opened.
        </Described>
      );
    default:
      return (
        <Described data={block}>
          Content of type <code><InertText text={String(block.type ?? 'unknown')} fold={60} /></code>, shown as data.
        </Described>
      );
  }
}
