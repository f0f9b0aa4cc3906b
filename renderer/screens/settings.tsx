import { useState } from 'react';
import type { PolicyMode } from '../../shared/domain';
import { invoke, useAction, useAppInfo, useQuery } from '../api';
import { Badge } from '../components/badges';
import { InertText } from '../components/inert-text';
import { SandboxGuarantees } from '../components/sandbox-guarantees';
import { when } from '../format';
import { providedInstallHref, serverHref } from '../route';
import { ModelsSection } from './models';
import { OtherAppsSection } from './other-apps';
import { FieldError } from '../components/field-error';
import type { OrganisationView } from '../../shared/views';
import { LockNote } from '../components/organisation-lock';

const MODES: { id: PolicyMode; label: string; sentence: string }[] = [
  {
    id: 'default',
    label: 'Default',
    sentence:
      'Read-only tools of servers you trust, and of servers whose sandbox keeps them from changing anything, run without asking; everything else asks.',
  },
  { id: 'strict', label: 'Strict', sentence: 'Every call asks you first, whatever the server or the tool, unless you made a rule for it.' },
];

function PolicyModeSection() {
  const [settings, , setSettings] = useQuery('settings.get', {});
  const [organisation] = useQuery('organisation.get', {}, 'servers.didChange');
  const lock = organisation.status === 'ok' ? organisation.value.locks.find((item) => item.setting === 'mode') : undefined;
  const action = useAction();
  // Shown at once; set back if the core refuses.
  const [chosen, setChosen] = useState<PolicyMode | undefined>();
  const current = chosen ?? (settings.status === 'ok' ? settings.value.policyMode : undefined);
  return (
    <fieldset className="policy-mode" data-testid="policy-mode" disabled={settings.status !== 'ok' || lock !== undefined}>
      <legend>When Airlock asks</legend>
      {lock && <LockNote words={lock.words} />}
      {settings.status === 'error' && (
        <p role="alert" className="field-error">
          <InertText text={settings.message} />
        </p>
      )}
      {MODES.map((mode) => (
        <label key={mode.id} className="check mode-option">
          <input
            type="radio"
            name="policy-mode"
            value={mode.id}
            checked={current === mode.id}
            onChange={async () => {
              setChosen(mode.id);
              const value = await action.run(() => invoke('settings.setPolicyMode', { mode: mode.id }));
              if (value) setSettings(value);
              setChosen(undefined);
            }}
          />{' '}
          <strong>{mode.label}.</strong> {mode.sentence}
        </label>
      ))}
      <FieldError message={action.error} />
    </fieldset>
  );
}


const LOCK_LABEL: Record<OrganisationView['locks'][number]['setting'], string> = {
  mode: 'When Airlock asks',
  trust: 'Trusting a server',
  unsandboxed: 'Running a server without a sandbox',
  httpGateway: 'The HTTP gateway for other apps',
  alwaysForDestructive: '“Always allow” for tools that may delete or overwrite things',
  samplingWithoutReview: 'Servers’ model requests without review',
  registry: 'The registry Airlock searches',
  otlp: 'Where the activity log is streamed',
};

/** The organisation's managed policy: where it comes from, what it locks and blocks, and what is wrong with its files. */
function OrganisationSection() {
  const [organisation, reload] = useQuery('organisation.get', {}, 'servers.didChange');
  const action = useAction();
  if (organisation.status !== 'ok') return organisation.status === 'error' ? <p className="field-error"><InertText text={organisation.message} /></p> : null;
  const view = organisation.value;
  if (view.status === 'none' && view.ignored.length === 0) return null;
  return (
    <section aria-labelledby="organisation-title" className={`panel ${view.status === 'unreadable' || view.ignored.length ? 'panel-danger' : ''}`} data-testid="organisation">
      <h2 id="organisation-title">Your organisation</h2>
      {view.status === 'active' && (
        <p className="lead">
          Your organisation manages some of Airlock’s settings: <InertText text={(view.documents ?? []).map((doc) => doc.location).join(', ')} />.
        </p>
      )}
      {view.status === 'unreadable' && (
        <div role="alert" data-testid="organisation-problems">
          <p className="lead">Your organisation’s policy could not be read, so nothing it could forbid runs until it is fixed. Tell your administrator:</p>
          <ul>
            {(view.problems ?? []).map((problem) => (
              <li key={problem.message}>
                <InertText text={problem.message} />
              </li>
            ))}
          </ul>
        </div>
      )}
      {view.ignored.map((item) => (
        <p key={item.location} className="field-error" data-testid="organisation-ignored">
          Ignored <code><InertText text={item.location} /></code>: <InertText text={item.why} />. Only a file that only an administrator can change is a policy.
        </p>
      ))}
      {view.locks.length > 0 && (
        <dl className="facts" data-testid="organisation-locks">
          {view.locks.map((lock) => (
            <div key={lock.setting} className="facts-row" data-setting={lock.setting}>
              <dt>{LOCK_LABEL[lock.setting]}</dt>
              <dd>
                <InertText text={lock.words} />
              </dd>
            </div>
          ))}
        </dl>
      )}
      {view.network?.allowedDomains && <p>Servers may be granted only these domains: <code><InertText text={view.network.allowedDomains.join(', ')} /></code> (network.allowedDomains).</p>}
      {view.network?.deniedDomains && <p>Servers are never granted these domains: <code><InertText text={view.network.deniedDomains.join(', ')} /></code> (network.deniedDomains).</p>}
      {view.writesOnlyInHome && <p>Servers may be given write access only inside your home folder (allowWritesOutsideHome: false).</p>}
      {view.providedServers.length > 0 && (
        <>
          <h3>Servers your organisation provides</h3>
          <ul data-testid="organisation-provided">
            {view.providedServers.map((provided) => (
              <li key={provided.name} data-provided={provided.name}>
                <strong><InertText text={provided.name} /></strong> — <InertText text={provided.source} />
                {provided.description && <> — <InertText text={provided.description} /></>}{' '}
                {provided.installedAs ? (
                  <span className="muted">
                    (added as <a href={serverHref(provided.installedAs)}><InertText text={provided.installedAs} /></a>)
                  </span>
                ) : (
                  <>
                    {/* The usual install: what it would get is shown, and nothing runs until the person says so. */}
                    <a className="small-button" href={providedInstallHref(provided.name)} aria-label={`Add ${provided.name}`}>
                      Add…
                    </a>{' '}
                    <span className="muted small">or <code><InertText text={provided.install} /></code></span>
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {view.blocked.length > 0 && (
        <>
          <h3>Blocked by the policy</h3>
          <ul data-testid="organisation-blocked">
            {view.blocked.map((item) => (
              <li key={item.server}>
                <a href={serverHref(item.server)}><InertText text={item.server} /></a> — <code>{item.key}</code> <code><InertText text={item.rule} /></code>
              </li>
            ))}
          </ul>
        </>
      )}
      <button type="button" className="small-button" disabled={action.busy} onClick={async () => (await action.run(() => invoke('organisation.reload', {}))) && reload()}>
        Read the policy again
      </button>
      <FieldError message={action.error} />
    </section>
  );
}

/** Streaming the activity log to an OpenTelemetry collector (OTLP/HTTP): where, how far it got, its backlog. */
function AuditExportSection() {
  const [status, reload, setStatus] = useQuery('audit.exportStatus', {}, 'audit.didAppend');
  const action = useAction();
  const [endpoint, setEndpoint] = useState('');
  const [protocol, setProtocol] = useState<'http/protobuf' | 'http/json'>('http/protobuf');
  const [headerText, setHeaderText] = useState('');
  if (status.status !== 'ok') return status.status === 'error' ? <p className="field-error"><InertText text={status.message} /></p> : null;
  const view = status.value;
  const headers = parseHeaderLines(headerText);
  const save = async (next: string | null) => {
    if (next !== null && 'problem' in headers) return;
    const value = await action.run(() => invoke('audit.setExport', next === null ? { endpoint: null } : { endpoint: next, protocol, ...('headers' in headers ? { headers: headers.headers } : {}) }));
    if (value) {
      setStatus(value);
      // The values are secrets now: never kept on screen once saved.
      setHeaderText('');
    } else reload();
  };
  return (
    <div data-testid="audit-export">
      <p className="purpose">Send every entry of the activity log to an OpenTelemetry collector (OTLP over HTTP), as it is written. Nothing a call does waits for it; entries wait in the log while the collector is down.</p>
      {view.lock && <LockNote words={view.lock.words} />}
      <p data-testid="audit-export-status" className={view.state === 'paused' ? 'field-error' : undefined}>
        {view.state === 'off' ? (
          <>Not streamed.{view.lastError && <> <InertText text={view.lastError} /></>}</>
        ) : view.state === 'paused' ? (
          <InertText text={view.lastError ?? 'Paused: your organisation’s policy could not be read.'} />
        ) : (
          <>
            To <code><InertText text={view.endpoint ?? ''} /></code> ({view.protocol}{view.from === 'environment' ? ', from the OTEL_EXPORTER_OTLP_ variables' : view.from === 'policy' ? ', set by your organisation' : ''}): {view.state}, {view.backlog} waiting (sent up to #{view.acknowledged} of #{view.head}).
            {view.headerNames.length > 0 && <> Sent with the headers <InertText text={view.headerNames.join(', ')} /> (their values are kept as secrets and never shown).</>}
            {view.lastError && <> Last error: <InertText text={view.lastError} />.</>}
          </>
        )}
      </p>
      {view.warning && (
        <p className="notice notice-warning" role="status" data-testid="audit-export-warning">
          <InertText text={view.warning} />
        </p>
      )}
      <span className="add-row">
        <label htmlFor="audit-export-endpoint">Collector</label>
        <input id="audit-export-endpoint" type="text" spellCheck={false} placeholder="http://127.0.0.1:4318" value={endpoint} onChange={(e) => setEndpoint(e.target.value)} />
        <label className="visually-hidden" htmlFor="audit-export-protocol">Protocol</label>
        <select id="audit-export-protocol" value={protocol} onChange={(e) => setProtocol(e.target.value as 'http/protobuf' | 'http/json')}>
          <option value="http/protobuf">http/protobuf</option>
          <option value="http/json">http/json</option>
        </select>
        <button type="button" className="small-button" disabled={action.busy || !endpoint.trim() || 'problem' in headers} onClick={() => void save(endpoint.trim())}>Stream to it</button>
        {view.from === 'settings' && (
          <button type="button" className="small-button" disabled={action.busy} onClick={() => void save(null)}>Stop streaming</button>
        )}
      </span>
      <div className="field-row">
        <label htmlFor="audit-export-headers">Headers sent with every export (one per line, <code>NAME=VALUE</code>, e.g. an API key)</label>
        <textarea id="audit-export-headers" rows={2} spellCheck={false} autoComplete="off" placeholder="x-api-key=…" value={headerText} onChange={(e) => setHeaderText(e.target.value)} aria-invalid={'problem' in headers ? true : undefined} />
        <p className={'problem' in headers ? 'field-error' : 'muted small'}>
          {'problem' in headers ? headers.problem : 'The values are kept as secrets: never shown again, nor written to the activity log. Saving replaces the headers sent before.'}
        </p>
      </div>
      <FieldError message={action.error} />
    </div>
  );
}

/** `NAME=VALUE` lines (as `airlock settings audit-export --header NAME=VALUE` takes them) as headers, or what is wrong with one. */
function parseHeaderLines(text: string): { headers: Record<string, string> } | { problem: string } {
  const headers: Record<string, string> = {};
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const at = line.indexOf('=');
    const name = at > 0 ? line.slice(0, at).trim() : '';
    // The line itself is not quoted back: it may hold the secret.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/.test(name)) return { problem: `Line ${index + 1}: each line is NAME=VALUE, with a header name of letters, digits and -.` };
    headers[name] = line.slice(at + 1).trim();
  }
  return { headers };
}

/** How the audit log reaches the disk: within a short window (default), or before every call (strict). */
function DurabilitySection() {
  const [settings, , setSettings] = useQuery('settings.get', {});
  const action = useAction();
  // Shown at once; set back if the core refuses.
  const [chosen, setChosen] = useState<boolean | undefined>();
  const strict = chosen ?? (settings.status === 'ok' ? settings.value.strictDurability : false);
  const windowMs = settings.status === 'ok' ? settings.value.flushWindowMs : undefined;
  return (
    <fieldset className="durability" data-testid="durability" disabled={settings.status !== 'ok'}>
      <legend>How the activity log reaches the disk</legend>
      <p className="muted">
        Every decision is written before its call is sent, so a crash of Airlock loses nothing, and calls you answered are always flushed to disk first.
        {windowMs !== undefined && ` Other entries reach the disk within ${windowMs} ms: a power cut in that moment can lose them.`}
      </p>
      <label className="check">
        <input
          type="checkbox"
          checked={strict}
          onChange={async (event) => {
            const next = event.currentTarget.checked;
            setChosen(next);
            const value = await action.run(() => invoke('settings.setStrictDurability', { strict: next }));
            if (value) setSettings(value);
            setChosen(undefined);
          }}
        />{' '}
        <strong>Strict durability.</strong> Flush every decision to disk before its call is sent. Nothing is lost even in a power cut; each call waits for the disk.
      </label>
      <FieldError message={action.error} />
    </fieldset>
  );
}

/** Every standing rule on one page (UX 15), each revocable in one click. */
function RulesSection() {
  const [rules, reload] = useQuery('rules.list', {}, 'servers.didChange');
  const action = useAction();
  if (rules.status !== 'ok') return rules.status === 'error' ? <p className="field-error"><InertText text={rules.message} /></p> : null;
  if (rules.value.length === 0) return <p className="muted">No standing rules: every call that needs asking asks.</p>;
  return (
    <div className="table-wrap">
      <FieldError message={action.error} />
      <table data-testid="rules-table">
        <thead>
          <tr>
            <th scope="col">Server</th>
            <th scope="col">Tool</th>
            <th scope="col">Rule</th>
            <th scope="col">Made</th>
            <th scope="col"><span className="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {rules.value.map((rule) => (
            <tr key={`${rule.server}/${rule.tool}`}>
              <td>
                <a href={serverHref(rule.server)}>
                  <InertText text={rule.server} />
                </a>
              </td>
              <td>
                <code><InertText text={rule.tool} /></code>
              </td>
              <td>
                <Badge tone={rule.effect === 'allow' ? 'ok' : 'danger'}>{rule.effect === 'allow' ? 'Always allow' : 'Always deny'}</Badge>
                {!rule.current && <div className="small muted">The tool changed since: this rule no longer counts.</div>}
              </td>
              <td>{when(rule.createdAt)}</td>
              <td>
                <button
                  type="button"
                  className="small-button"
                  disabled={action.busy}
                  onClick={async () => {
                    if (await action.run(() => invoke('rules.remove', { server: rule.server, tool: rule.tool }))) reload();
                  }}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const RUNTIME_LABEL = { node: 'Node.js (JavaScript servers)', python: 'Python', uv: 'uv (servers started with uvx)' } as const;

/** Which node, python and uv servers run with, where each was found, and a way to point Airlock at another (the same truth as `airlock doctor`). */
function RuntimesSection() {
  const [runtimes, reload] = useQuery('runtimes.list', {});
  const action = useAction();
  const info = useAppInfo();
  const [editing, setEditing] = useState<{ name: 'node' | 'python' | 'uv'; path: string } | undefined>();
  /** The system's picker, as well as typing: the chosen program is shown, then saved with "Use this one" (the core checks it runs). */
  const browse = async (name: 'node' | 'python' | 'uv') => {
    const result = await invoke('dialog.openFile', { purpose: 'program' });
    if (result.ok && result.value.path) setEditing({ name, path: result.value.path });
  };
  if (runtimes.status === 'loading') return <p className="muted">Looking…</p>;
  if (runtimes.status === 'error') return <p className="field-error"><InertText text={runtimes.message} /></p>;
  const save = async (name: 'node' | 'python' | 'uv', path?: string) => {
    if (await action.run(() => invoke('settings.setRuntime', { name, ...(path ? { path } : {}) }))) {
      setEditing(undefined);
      reload();
    }
  };
  return (
    <div data-testid="runtimes">
      <p className="purpose">Apps started from the desktop often miss the programs your terminal finds (nvm, volta, Homebrew). Airlock looks in those places too; you can point it at one.</p>
      <dl className="facts">
        {runtimes.value.map((runtime) => (
          <div key={runtime.name} className="facts-row" data-testid={`runtime-${runtime.name}`}>
            <dt>{RUNTIME_LABEL[runtime.name]}</dt>
            <dd>
              {runtime.path && !runtime.problem ? (
                <>
                  <code><InertText text={runtime.path} /></code> {runtime.version && <span className="muted">{runtime.version}</span>} <span className="muted small">— from {runtime.from}</span>
                </>
              ) : (
                <span className="field-error"><InertText text={runtime.problem ?? 'Not found.'} /></span>
              )}{' '}
              {editing?.name === runtime.name ? (
                <span className="add-row">
                  <label className="visually-hidden" htmlFor={`runtime-path-${runtime.name}`}>Path to {runtime.name}</label>
                  <input id={`runtime-path-${runtime.name}`} type="text" value={editing.path} spellCheck={false} placeholder={`/path/to/${runtime.name === 'python' ? 'python3' : runtime.name}`} onChange={(e) => setEditing({ name: runtime.name, path: e.target.value })} />
                  {info?.canPickFiles && (
                    <button type="button" className="small-button" disabled={action.busy} onClick={() => void browse(runtime.name)}>
                      Browse…
                    </button>
                  )}
                  <button type="button" className="small-button" disabled={action.busy || !editing.path.trim()} onClick={() => void save(runtime.name, editing.path.trim())}>Use this one</button>
                  <button type="button" className="small-button" onClick={() => setEditing(undefined)}>Cancel</button>
                </span>
              ) : (
                <button type="button" className="small-button" onClick={() => setEditing({ name: runtime.name, path: runtime.from === 'your setting' ? runtime.path ?? '' : '' })}>
                  Choose…
                </button>
              )}
              {runtime.from === 'your setting' && (
                <button type="button" className="small-button" disabled={action.busy} onClick={() => void save(runtime.name)}>Look for it again</button>
              )}
            </dd>
          </div>
        ))}
      </dl>
      <FieldError message={action.error} />
    </div>
  );
}

/** Settings: the policy mode, standing rules, and the sandbox's status on this machine (the same truth as `airlock doctor`). */
export function SettingsScreen() {
  const [sandbox, , setSandbox] = useQuery('sandbox.status', {}, 'sandbox.didChange');
  const [info] = useQuery('app.info', {});

  const recheck = async () => {
    const result = await invoke('sandbox.recheck', {});
    if (result.ok) setSandbox(result.value);
  };

  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title" tabIndex={-1}>
        Settings
      </h1>
      <OrganisationSection />
      <h2>Policy</h2>
      <PolicyModeSection />
      <DurabilitySection />
      <h2>Streaming the activity log</h2>
      <AuditExportSection />
      <h2>Standing rules</h2>
      <RulesSection />
      <h2 id="models">Models</h2>
      <ModelsSection />
      <h2>Other AI apps</h2>
      <OtherAppsSection />
      <h2>Sandbox</h2>
      {sandbox.status === 'loading' && <p className="muted">Checking…</p>}
      {sandbox.status === 'error' && <p role="alert">{sandbox.message}</p>}
      {sandbox.status === 'ok' && (
        <div className={`panel ${sandbox.value.supported ? 'panel-ok' : 'panel-danger'}`} data-testid="sandbox-status">
          <p className="lead">{sandbox.value.summary}</p>
          {sandbox.value.missing.length > 0 && (
            <p>
              Missing: <strong>{sandbox.value.missing.join(', ')}</strong>
            </p>
          )}
          {sandbox.value.fix && (
            <p>
              To fix it, run <code>{sandbox.value.fix}</code>, then check again.
            </p>
          )}
          <button type="button" onClick={() => void recheck()}>
            Check again
          </button>
        </div>
      )}
      <SandboxGuarantees />
      <h2>Programs servers run with</h2>
      <RuntimesSection />
      <h2>About</h2>
      {info.status === 'ok' && (
        <dl className="facts">
          <dt>Version</dt>
          <dd>{info.value.version}</dd>
          <dt>Data folder</dt>
          <dd>
            <code>{info.value.dataDir}</code>
          </dd>
        </dl>
      )}
    </section>
  );
}
