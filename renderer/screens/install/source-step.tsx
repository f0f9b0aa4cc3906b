/** Install step 1: where the server comes from — npm, an MCPB bundle, a command on this computer, or another app's config. Nothing runs here. */
import { useId, useState } from 'react';
import type { InstallSource, ResponseOf } from '../../../shared/ipc';
import type { Disclosure, ImportEntryView } from '../../../shared/views';
import { invoke, useAction, useAppInfo } from '../../api';
import { Badge } from '../../components/badges';
import { FieldError } from '../../components/field-error';
import { InertText, visible } from '../../components/inert-text';
import { splitCommandLine } from '../../format';

type SourceKind = 'npm' | 'pypi' | 'mcpb' | 'local' | 'url' | 'import';
const KIND_LABEL: Record<SourceKind, string> = {
  npm: 'npm package',
  pypi: 'Python package (PyPI)',
  mcpb: 'MCPB bundle',
  local: 'Command on this computer',
  url: 'Server by URL',
  import: 'Import from another app',
};

export function SourceStep({
  busy,
  onPrepare,
  onImported,
  onDrafts,
}: {
  busy: boolean;
  onPrepare: (source: InstallSource) => Promise<void>;
  onImported: (disclosure: Disclosure) => void;
  onDrafts: (draftIds: string[]) => void;
}) {
  const [kind, setKind] = useState<SourceKind>('npm');
  const info = useAppInfo();
  const [pkg, setPkg] = useState('');
  const [pkgArgs, setPkgArgs] = useState('');
  const [bundle, setBundle] = useState('');
  const [py, setPy] = useState('');
  const [pyArgs, setPyArgs] = useState('');
  const ids = { pkg: useId(), pkgArgs: useId(), bundle: useId(), py: useId(), pyArgs: useId() };

  return (
    <div className="source-step">
      <fieldset className="source-kinds">
        <legend>Where does it come from?</legend>
        {(Object.keys(KIND_LABEL) as SourceKind[]).map((k) => (
          <label key={k} className="check source-kind">
            <input type="radio" name="source-kind" value={k} checked={kind === k} onChange={() => setKind(k)} /> {KIND_LABEL[k]}
          </label>
        ))}
      </fieldset>
      <p className="muted">Nothing runs at this step: Airlock only reads the source and shows you what it would get.</p>

      {kind === 'npm' && (
        <form
          className="panel"
          onSubmit={(e) => {
            e.preventDefault();
            const args = pkgArgs.split('\n').filter((line) => line.trim() !== '');
            if (pkg.trim()) void onPrepare({ kind: 'npm', package: pkg.trim(), ...(args.length > 0 ? { args } : {}) });
          }}
        >
          <label htmlFor={ids.pkg}>Package name, optionally with a version</label>
          <div className="add-row">
            <input id={ids.pkg} type="text" value={pkg} onChange={(e) => setPkg(e.target.value)} placeholder="@modelcontextprotocol/server-filesystem" spellCheck={false} />
            <button type="submit" className="primary" disabled={busy || pkg.trim() === ''}>
              {busy ? 'Reading…' : 'Continue'}
            </button>
          </div>
          <label htmlFor={ids.pkgArgs} className="block-label">
            Arguments for the server, one per line (optional)
          </label>
          <textarea id={ids.pkgArgs} rows={2} value={pkgArgs} onChange={(e) => setPkgArgs(e.target.value)} spellCheck={false} placeholder="/home/you/Documents/notes" />
          <p className="muted small">Airlock installs it once into its own folder with install scripts off, and runs it from there.</p>
        </form>
      )}

      {kind === 'pypi' && (
        <form
          className="panel"
          onSubmit={(e) => {
            e.preventDefault();
            const args = pyArgs.split('\n').filter((line) => line.trim() !== '');
            if (py.trim()) void onPrepare({ kind: 'pypi', package: py.trim(), ...(args.length > 0 ? { args } : {}) });
          }}
        >
          <label htmlFor={ids.py}>Python package name, optionally with a version</label>
          <div className="add-row">
            <input id={ids.py} type="text" value={py} onChange={(e) => setPy(e.target.value)} placeholder="mcp-server-time==2026.1.26" spellCheck={false} />
            <button type="submit" className="primary" disabled={busy || py.trim() === ''}>
              {busy ? 'Reading…' : 'Continue'}
            </button>
          </div>
          <label htmlFor={ids.pyArgs} className="block-label">
            Arguments for the server, one per line (optional)
          </label>
          <textarea id={ids.pyArgs} rows={2} value={pyArgs} onChange={(e) => setPyArgs(e.target.value)} spellCheck={false} placeholder="--local-timezone=Europe/Paris" />
          <p className="muted small">
            Airlock pins it and everything it needs, each file by its hash, and installs it once into a virtual environment of its own (wheels only: nothing is
            built here). It runs from there, with no download at start. Servers listed in the MCP Registry are under Find servers.
          </p>
        </form>
      )}

      {kind === 'mcpb' && (
        <form
          className="panel"
          onSubmit={(e) => {
            e.preventDefault();
            if (bundle.trim()) void onPrepare({ kind: 'mcpb', path: bundle.trim() });
          }}
        >
          <label htmlFor={ids.bundle}>Path of the .mcpb file</label>
          <div className="add-row">
            <input id={ids.bundle} type="text" value={bundle} onChange={(e) => setBundle(e.target.value)} placeholder="/home/you/Downloads/server.mcpb" spellCheck={false} />
            {info?.canPickFiles && (
              <button
                type="button"
                onClick={async () => {
                  const result = await invoke('dialog.openFile', { purpose: 'mcpb' });
                  if (result.ok && result.value.path) setBundle(result.value.path);
                }}
              >
                Browse…
              </button>
            )}
            <button type="submit" className="primary" disabled={busy || bundle.trim() === ''}>
              Continue
            </button>
          </div>
        </form>
      )}

      {kind === 'local' && <LocalCommandForm busy={busy} onPrepare={onPrepare} />}
      {kind === 'url' && <UrlForm busy={busy} onPrepare={onPrepare} />}
      {kind === 'import' && <ImportForm busy={busy} onImported={onImported} onDrafts={onDrafts} />}
    </div>
  );
}

function LocalCommandForm({ busy, onPrepare }: { busy: boolean; onPrepare: (source: InstallSource) => Promise<void> }) {
  const [argv, setArgv] = useState<string[]>(['']);
  const [line, setLine] = useState('');
  const [lineError, setLineError] = useState<string | undefined>();
  const lineId = useId();
  const ready = argv.length > 0 && (argv[0] ?? '').trim() !== '';
  const setArg = (i: number, value: string) => setArgv(argv.map((a, j) => (j === i ? value : a)));
  return (
    <form
      className="panel"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) void onPrepare({ kind: 'local', argv });
      }}
    >
      <div className="paste-line">
        <label htmlFor={lineId}>Paste a command line (optional)</label>
        <div className="add-row">
          <input id={lineId} type="text" value={line} onChange={(e) => setLine(e.target.value)} placeholder="node /path/to/server.js --root ~/notes" spellCheck={false} />
          <button
            type="button"
            onClick={() => {
              const split = splitCommandLine(line);
              setLineError(split.error);
              if (!split.error && split.argv.length > 0) setArgv(split.argv);
            }}
          >
            Split into arguments
          </button>
        </div>
        {lineError && (
          <p role="alert" className="field-error">
            {lineError}
          </p>
        )}
        <p className="muted small">Airlock never runs it through a shell: no pipes, variables or wildcards. Check the exact arguments below.</p>
      </div>
      <fieldset>
        <legend>The exact arguments</legend>
        <ol className="argv-editor" data-testid="argv-editor">
          {argv.map((arg, i) => (
            <li key={i}>
              <label>
                <span className="argv-label">{i === 0 ? 'Program' : `Argument ${i}`}</span>
                <input type="text" value={arg} onChange={(e) => setArg(i, e.target.value)} spellCheck={false} />
              </label>
              {argv.length > 1 && (
                <button type="button" className="small-button" onClick={() => setArgv(argv.filter((_, j) => j !== i))} aria-label={`Remove ${i === 0 ? 'program' : `argument ${i}`}`}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ol>
        <button type="button" className="small-button" onClick={() => setArgv([...argv, ''])}>
          Add an argument
        </button>
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || !ready}>
          Continue
        </button>
      </div>
    </form>
  );
}

type ScanResult = ResponseOf<'install.scanImports'>;
/** What each status of an entry that cannot be imported is called on its badge. */
const IMPORT_STATUS_WORDS: Record<Exclude<ImportEntryView['status'], 'importable'>, string> = {
  invalid: 'Invalid',
  unsupported: 'Not supported',
  'in-airlock': 'Already in Airlock',
  airlock: "Airlock's own entry",
};
const APPS = [
  { id: 'all', label: 'Every app Airlock knows' },
  { id: 'claude', label: 'Claude Desktop' },
  { id: 'vscode', label: 'VS Code' },
  { id: 'cursor', label: 'Cursor' },
] as const;

function ImportForm({ busy: outerBusy, onImported, onDrafts }: { busy: boolean; onImported: (d: Disclosure) => void; onDrafts: (ids: string[]) => void }) {
  const [app, setApp] = useState<(typeof APPS)[number]['id']>('all');
  const [path, setPath] = useState('');
  const [found, setFound] = useState<ScanResult | undefined>();
  const [chosen, setChosen] = useState<string | undefined>();
  const action = useAction();
  const info = useAppInfo();
  const ids = { app: useId(), path: useId() };
  const busy = outerBusy || action.busy;

  const scan = async () => {
    setChosen(undefined);
    const value = await action.run(() =>
      invoke('install.scanImports', { ...(app !== 'all' ? { app } : {}), ...(path.trim() ? { path: path.trim() } : {}) }),
    );
    if (value) {
      setFound(value);
      onDrafts(value.flatMap((file) => file.entries.flatMap((entry) => (entry.disclosure ? [entry.disclosure.draftId] : []))));
    }
  };

  const all: { key: string; entry: ImportEntryView }[] = (found ?? []).flatMap((file, f) => file.entries.map((entry, e) => ({ key: `${f}:${e}`, entry })));
  const selected = all.find((item) => item.key === chosen)?.entry;

  return (
    <div className="panel">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void scan();
        }}
      >
        <div className="field-row">
          <label htmlFor={ids.app}>App</label>
          <select id={ids.app} value={app} onChange={(e) => setApp(e.target.value as typeof app)}>
            {APPS.map((a) => (
              <option key={a.id} value={a.id}>
                {a.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field-row">
          <label htmlFor={ids.path}>Or a config file (optional)</label>
          <div className="add-row">
            <input id={ids.path} type="text" value={path} onChange={(e) => setPath(e.target.value)} placeholder="~/.config/Claude/claude_desktop_config.json" spellCheck={false} />
            {info?.canPickFiles && (
              <button
                type="button"
                onClick={async () => {
                  const result = await invoke('dialog.openFile', { purpose: 'config' });
                  if (result.ok && result.value.path) setPath(result.value.path);
                }}
              >
                Browse…
              </button>
            )}
          </div>
        </div>
        <button type="submit" className="primary" disabled={busy}>
          {action.busy ? 'Looking…' : 'Look for servers'}
        </button>
      </form>
      <FieldError message={action.error} />
      {found && (
        <div className="import-results" data-testid="import-results">
          {found.length === 0 && <p className="muted">No configs found.</p>}
          {found.map((file, f) => (
            <fieldset key={f} className="import-file">
              <legend>
                <InertText text={file.app} />: <code><InertText text={file.path} /></code>
              </legend>
              {file.error && (
                <p className="field-error">
                  <InertText text={file.error} />
                </p>
              )}
              {file.entries.length === 0 && !file.error && <p className="muted">No servers in this file.</p>}
              <ul className="plain">
                {file.entries.map((entry, e) => {
                  const key = `${f}:${e}`;
                  const importable = entry.status === 'importable' && entry.disclosure;
                  return (
                    <li key={key} className="import-entry" data-testid={`import-entry-${visible(entry.name)}`}>
                      <label className="check">
                        <input type="radio" name="import-entry" value={key} disabled={!importable} checked={chosen === key} onChange={() => setChosen(key)} />{' '}
                        <strong>
                          <InertText text={entry.name} />
                        </strong>{' '}
                        {entry.status === 'importable' ? (
                          <Badge tone="ok">Can be imported</Badge>
                        ) : (
                          <Badge tone={entry.status === 'invalid' ? 'danger' : 'neutral'}>{IMPORT_STATUS_WORDS[entry.status]}</Badge>
                        )}
                      </label>
                      {entry.disclosure && (
                        <div className="small muted">
                          <InertText text={entry.disclosure.argv.join(' ')} fold={160} />
                        </div>
                      )}
                      {entry.reason && (
                        <div className="small">
                          <InertText text={entry.reason} />
                        </div>
                      )}
                    </li>
                  );
                })}
              </ul>
            </fieldset>
          ))}
          <button type="button" className="primary" disabled={!selected?.disclosure} onClick={() => selected?.disclosure && onImported(selected.disclosure)}>
            Review the selected server
          </button>
        </div>
      )}
    </div>
  );
}

/** A server that runs elsewhere: its URL and the headers to send (values are sealed as secrets). Nothing is sent here. */
function UrlForm({ busy, onPrepare }: { busy: boolean; onPrepare: (source: InstallSource) => Promise<void> }) {
  const [url, setUrl] = useState('');
  const [headers, setHeaders] = useState<Array<{ name: string; value: string }>>([]);
  const [client, setClient] = useState({ id: '', secret: '' });
  const ids = { url: useId(), header: useId(), clientId: useId(), clientSecret: useId() };
  const setHeader = (i: number, change: Partial<{ name: string; value: string }>) => setHeaders(headers.map((h, j) => (j === i ? { ...h, ...change } : h)));
  const given = headers.filter((h) => h.name.trim() !== '');
  const oauthClient = client.id.trim() ? { oauthClient: { id: client.id.trim(), ...(client.secret ? { secret: client.secret } : {}) } } : {};
  return (
    <form
      className="panel"
      onSubmit={(e) => {
        e.preventDefault();
        if (url.trim()) void onPrepare({ kind: 'remote', url: url.trim(), ...(given.length > 0 ? { headers: given.map((h) => ({ name: h.name.trim(), value: h.value })) } : {}), ...oauthClient });
      }}
    >
      <label htmlFor={ids.url}>The server’s address (https, or http on this computer)</label>
      <div className="add-row">
        <input id={ids.url} type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://mcp.example.com/mcp" spellCheck={false} />
        <button type="submit" className="primary" disabled={busy || url.trim() === ''}>
          {busy ? 'Reading…' : 'Continue'}
        </button>
      </div>
      {headers.map((header, i) => (
        <div className="add-row" key={i}>
          <input aria-label={`Header ${i + 1} name`} type="text" value={header.name} onChange={(e) => setHeader(i, { name: e.target.value })} placeholder="X-Api-Key" spellCheck={false} />
          <input aria-label={`Header ${i + 1} value`} type="password" value={header.value} onChange={(e) => setHeader(i, { value: e.target.value })} autoComplete="off" />
          <button type="button" onClick={() => setHeaders(headers.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => setHeaders([...headers, { name: '', value: '' }])}>
        Add a header
      </button>
      <details className="sign-in-client" data-testid="sign-in-client">
        <summary>Sign-in client (only when its sign-in service does not let apps register themselves)</summary>
        <p className="muted small">
          Register an OAuth client at the server’s sign-in service with the redirect address <code>http://127.0.0.1/callback</code>, then give its id here, and its secret if it has one. The
          service must accept any port there (as RFC 8252 asks): Airlock’s changes each time. Airlock signs in as that client; the secret is kept in Airlock’s secret store.
        </p>
        <div className="field-row">
          <label htmlFor={ids.clientId}>Client id</label>
          <input id={ids.clientId} type="text" value={client.id} onChange={(e) => setClient({ ...client, id: e.target.value })} spellCheck={false} autoComplete="off" />
        </div>
        <div className="field-row">
          <label htmlFor={ids.clientSecret}>Client secret (if it has one)</label>
          <input id={ids.clientSecret} type="password" value={client.secret} onChange={(e) => setClient({ ...client, secret: e.target.value })} autoComplete="off" />
        </div>
      </details>
      <p className="muted small">Nothing is sent to the server at this step. Header values and a client secret are kept in Airlock’s secret store; a sign-in, if the server asks for one, happens when Airlock connects.</p>
    </form>
  );
}
