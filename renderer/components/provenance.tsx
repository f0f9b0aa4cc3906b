/** Where a server comes from: facts Airlock checked (UX 11), not what the server says. */
import type { ImportOrigin, Provenance } from '../../shared/domain';
import { when } from '../format';
import { Badge } from './badges';
import { InertText } from './inert-text';

const APP_NAME: Record<ImportOrigin['app'], string> = { claude: 'Claude Desktop', vscode: 'VS Code', cursor: 'Cursor', file: 'a config file' };

function Hash({ value }: { value: string }) {
  return (
    <code className="hash">
      <InertText text={value} fold={200} />
    </code>
  );
}

export function ProvenanceFacts({ provenance: p, importedFrom }: { provenance: Provenance; importedFrom?: ImportOrigin }) {
  return (
    <dl className="facts" data-testid="provenance">
      {p.kind === 'npm' && (
        <>
          <dt>Source</dt>
          <dd>
            npm package <code><InertText text={`${p.name}@${p.version}`} /></code>
          </dd>
          <dt>Integrity</dt>
          <dd>
            <Hash value={p.integrity} />
          </dd>
          <dt>Published</dt>
          <dd>{p.publishedAt ? when(p.publishedAt) : <span className="muted">The registry did not say.</span>}</dd>
          <dt>Maintainers</dt>
          <dd>{p.maintainers && p.maintainers.length > 0 ? <InertText text={p.maintainers.join(', ')} /> : <span className="muted">The registry did not say.</span>}</dd>
          <dt>Installed in</dt>
          <dd>
            <code><InertText text={p.installDir} /></code>
          </dd>
        </>
      )}
      {p.kind === 'mcpb' && (
        <>
          <dt>Source</dt>
          <dd>
            MCPB bundle <code><InertText text={`${p.name}@${p.version}`} /></code>
          </dd>
          <dt>Author</dt>
          <dd>{p.author ? <InertText text={p.author} /> : <span className="muted">Not stated.</span>}</dd>
          <dt>Signature</dt>
          <dd>
            {p.signature === 'verified' ? (
              <Badge tone="ok">Signature verified</Badge>
            ) : p.signature === 'present-unverified' ? (
              <Badge tone="warn">Signed, but the signature could not be verified</Badge>
            ) : (
              <Badge tone="warn">Unsigned</Badge>
            )}
          </dd>
          <dt>Bundle sha256</dt>
          <dd>
            <Hash value={p.bundleSha256} />
          </dd>
          <dt>Installed in</dt>
          <dd>
            <code><InertText text={p.installDir} /></code>
          </dd>
        </>
      )}
      {p.kind === 'pypi' && (
        <>
          <dt>Source</dt>
          <dd>
            Python package (PyPI) <code><InertText text={`${p.name}==${p.version}`} /></code>
          </dd>
          <dt>Wheel</dt>
          <dd>
            <code><InertText text={p.file} /></code>
          </dd>
          <dt>Wheel sha256</dt>
          <dd>
            <Hash value={p.sha256} />
          </dd>
          <dt>Pinned</dt>
          <dd>
            {p.packageCount} package(s), every file checked against its hash (lock sha256 <Hash value={p.lockSha256} />)
          </dd>
          {p.index && (
            <>
              <dt>Index</dt>
              <dd>
                <code><InertText text={p.index} /></code>
              </dd>
            </>
          )}
          <dt>Installed in</dt>
          <dd>
            <code><InertText text={p.installDir} /></code> (its own virtual environment, read-only to the server)
          </dd>
        </>
      )}
      {p.kind !== 'local' && p.kind !== 'remote' && p.registry && (
        <>
          <dt>MCP Registry</dt>
          <dd data-testid="registry-origin">
            listed as <code><InertText text={p.registry.name} /></code> <InertText text={p.registry.version} />
            {p.registry.publishedAt && <>, published {when(p.registry.publishedAt)}</>} in <code><InertText text={p.registry.baseUrl} /></code>{' '}
            {p.registry.status === 'active' ? null : <Badge tone="danger">{p.registry.status === 'deprecated' ? 'Deprecated by its publisher' : 'Deleted by its publisher'}</Badge>}
          </dd>
        </>
      )}
      {p.kind === 'local' && (
        <>
          <dt>Source</dt>
          <dd>A command on this computer</dd>
          <dt>Program</dt>
          <dd>
            <code><InertText text={p.executable} /></code>
          </dd>
          <dt>Program sha256</dt>
          <dd>
            <Hash value={p.executableSha256} />
          </dd>
          {p.script && (
            <>
              <dt>Script</dt>
              <dd>
                <code><InertText text={p.script.path} /></code>
              </dd>
              <dt>Script sha256</dt>
              <dd>
                <Hash value={p.script.sha256} />
              </dd>
            </>
          )}
        </>
      )}
      {p.kind === 'remote' && (
        <>
          <dt>Source</dt>
          <dd>A server that runs elsewhere, reached over the network</dd>
          <dt>Address</dt>
          <dd>
            <RemoteUrl url={p.url} host={p.host} />
          </dd>
          <dt>Where</dt>
          <dd>
            {p.zone === 'loopback' ? 'This computer (loopback)' : p.zone === 'private' ? <Badge tone="warn">A private network address</Badge> : 'The internet'}
            {' · '}
            {p.url.startsWith('https:') ? 'encrypted (https)' : <Badge tone="warn">Plain http (this computer only)</Badge>}
          </dd>
          <dt>Transport</dt>
          <dd>{p.transport === 'sse' ? 'HTTP+SSE (the older transport)' : 'Streamable HTTP'}</dd>
        </>
      )}
      {importedFrom && (
        <>
          <dt>Imported from</dt>
          <dd>
            {APP_NAME[importedFrom.app]}: entry <code><InertText text={importedFrom.entry} /></code> in <code><InertText text={importedFrom.path} /></code>
          </dd>
        </>
      )}
    </dl>
  );
}

/** A remote server's full URL with its host highlighted (the part that says whose server it is). */
export function RemoteUrl({ url, host }: { url: string; host: string }) {
  const at = url.indexOf(host);
  if (at < 0) return <code><InertText text={url} /></code>;
  return (
    <code data-testid="remote-url">
      <InertText text={url.slice(0, at)} />
      <mark className="remote-host">
        <InertText text={host} />
      </mark>
      <InertText text={url.slice(at + host.length)} />
    </code>
  );
}
