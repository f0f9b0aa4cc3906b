/** The Servers screen: one row per server with its summary and badges, or an empty state that teaches. */
import { useEffect, useId, useState } from 'react';
import { invoke, useAppInfo, useLiveQuery } from '../api';
import { Badge, ServerBadges } from '../components/badges';
import { InertText } from '../components/inert-text';
import { carriedNotice, forgetNotice, go, serverHref } from '../route';

export function ServersScreen() {
  const [servers] = useLiveQuery('servers.list', {}, 'servers.didChange', (payload) => payload);
  // What happened on a page that is gone (a removed server's sign-in): shown once, here.
  const [notice] = useState(carriedNotice);
  useEffect(() => {
    if (notice) forgetNotice(notice);
  }, [notice]);
  return (
    <section aria-labelledby="servers-title">
      <div className="screen-head">
        <h1 id="servers-title" tabIndex={-1}>
          Servers
        </h1>
        {servers.status === 'ok' && servers.value.length > 0 && (
          <a className="button primary" href="#/install">
            Add a server
          </a>
        )}
      </div>
      {notice && (
        <p role="status" className={`notice notice-${notice.tone}`} data-testid="carried-notice">
          <InertText text={notice.text} />
        </p>
      )}
      {servers.status === 'loading' && <p className="muted">Loading…</p>}
      {servers.status === 'error' && (
        <p role="alert" className="notice notice-error">
          {servers.message}
        </p>
      )}
      {servers.status === 'ok' && servers.value.length === 0 && <EmptyServers />}
      {servers.status === 'ok' && servers.value.length > 0 && (
        <ul className="server-list" data-testid="server-list">
          {servers.value.map((server) => (
            <li key={server.name} className={`server-row ${server.sandboxed ? '' : 'server-row-unsandboxed'}`} data-testid={`server-${server.name}`}>
              <div className="server-row-main">
                <a href={serverHref(server.name)} className="server-name">
                  <InertText text={server.name} />
                </a>
                <span className="muted small">
                  <InertText text={server.source} /> · {server.toolCount} tool{server.toolCount === 1 ? '' : 's'}
                </span>
              </div>
              <p className="server-summary" data-testid="server-summary">
                <InertText text={server.summary} />
              </p>
              <ServerBadges server={server} />
              {server.stateNote ? (
                <p className={`small ${server.lastError ? 'field-error' : 'muted'}`} data-testid="state-note">
                  <InertText text={server.stateNote} fold={300} />
                </p>
              ) : (
                server.lastError && (
                  <p className="small field-error">
                    <InertText text={server.lastError} fold={200} />
                  </p>
                )
              )}
              {!server.enabled && server.state === 'stopped' && !server.stateNote && (
                <p className="small muted">
                  <Badge tone="neutral">Off</Badge> Not started with Airlock.
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** First run: what a server is here, and a one-click example confined to a folder the person picks. */
function EmptyServers() {
  const info = useAppInfo();
  const [folder, setFolder] = useState('');
  const folderId = useId();
  const browse = async () => {
    const result = await invoke('dialog.openFile', { purpose: 'folder' });
    if (result.ok && result.value.path) setFolder(result.value.path);
  };
  return (
    <div className="empty" data-testid="servers-empty">
      <p className="lead">No servers yet.</p>
      <p>
        An MCP server gives AI apps tools: reading files, searching, calling services. Airlock runs each one in its own sandbox —
        no network, no writes outside its own temporary folder and no secrets unless you grant them — and asks you before a call
        could change something.
      </p>
      <h2>Try it with an example</h2>
      <p>
        The official <strong>filesystem</strong> server, confined to one folder you choose. You will see everything it would get
        before anything runs.
      </p>
      <form
        className="example-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (folder.trim()) go(`#/install?example=${encodeURIComponent(folder.trim())}`);
        }}
      >
        <label htmlFor={folderId}>Folder it may use</label>
        <div className="add-row">
          <input id={folderId} type="text" value={folder} onChange={(e) => setFolder(e.target.value)} placeholder="/home/you/Documents/airlock-demo" spellCheck={false} />
          {info?.canPickFiles && (
            <button type="button" onClick={() => void browse()}>
              Choose folder…
            </button>
          )}
          <button type="submit" className="primary" disabled={folder.trim() === ''}>
            Set up the example
          </button>
        </div>
      </form>
      <h2>Or add your own</h2>
      <p>
        From npm, an MCPB bundle, a command on this computer, or the servers already set up in Claude Desktop, VS Code or Cursor.
      </p>
      <p>
        <a className="button" href="#/install">
          Add a server
        </a>
      </p>
      <p className="muted small">
        From a terminal: <code>airlock add NAME --npm PACKAGE</code>.
      </p>
    </div>
  );
}
