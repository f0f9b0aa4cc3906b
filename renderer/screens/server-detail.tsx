/**
 * One server's review page (issue 5): status and log, provenance, the sandbox
 * profile with grants to remove and add, secrets (never shown back), trust,
 * the tools with claims, reading and decision, pending changes with their
 * diff, recent calls, and stop / restart / remove.
 */
import { useEffect, useId, useState } from 'react';
import { ownEntry } from '../../shared/domain';
import type { ServerDetail, ToolView } from '../../shared/views';
import { invoke, useAction, useQuery, useRefreshOn } from '../api';
import { ArgvView } from '../components/argv-view';
import { Badge, ServerBadges } from '../components/badges';
import { DiffView } from '../components/diff-view';
import { InertText, visible } from '../components/inert-text';
import { ProfileEditor } from '../components/profile-editor';
import { ProvenanceFacts } from '../components/provenance';
import { ToolConsole } from '../components/tool-console';
import { ToolsTable } from '../components/tool-reading';
import { AuditTable } from './activity';
import { editable, GRANT_PURPOSE, when } from '../format';
import { go } from '../route';
import { ProfileSummary } from './install';
import { FieldError } from '../components/field-error';

export function ServerDetailScreen({ name }: { name: string }) {
  const [detail, reload, setDetail] = useQuery('servers.get', { name });
  useRefreshOn(['servers.didChange', 'audit.didAppend'], reload);

  if (detail.status === 'loading') return <p className="muted">Loading…</p>;
  if (detail.status === 'error') {
    return (
      <section aria-labelledby="detail-title">
        <h1 id="detail-title" tabIndex={-1}>
          <InertText text={name} />
        </h1>
        <p role="alert" className="notice notice-error">
          <InertText text={detail.message} />
        </p>
        <a href="#/servers">Back to Servers</a>
      </section>
    );
  }
  return <Detail server={detail.value} onChange={setDetail} reload={reload} />;
}

function Detail({ server: s, onChange, reload }: { server: ServerDetail; onChange: (d: ServerDetail) => void; reload: () => void }) {
  const action = useAction();
  const pending = s.tools.filter((t) => t.pendingChange);
  const added = s.tools.filter((t) => t.isNew);
  const saved = editable(s.profile);
  const savedKey = JSON.stringify(saved);
  // Edits show at once; the core's answer (or a refusal) puts back what is saved.
  const [edited, setEdited] = useState<typeof saved | undefined>();
  const [trustChoice, setTrustChoice] = useState<boolean | undefined>();
  useEffect(() => setEdited(undefined), [savedKey]);
  useEffect(() => setTrustChoice(undefined), [s.trusted]);
  const profile = edited ?? saved;
  const command = [s.spec.command, ...s.spec.args];

  const lifecycle = async (channel: 'servers.start' | 'servers.stop' | 'servers.restart') => {
    if (await action.run(() => invoke(channel, { name: s.name }))) reload();
  };
  const saveDetail = async (request: () => ReturnType<typeof invoke<'servers.updateProfile'>>) => {
    const value = await action.run(request);
    if (value) onChange(value);
  };

  return (
    <section aria-labelledby="detail-title" className="detail" data-testid="server-detail">
      <p className="breadcrumb">
        <a href="#/servers">Servers</a> ›
      </p>
      <div className="screen-head">
        <h1 id="detail-title" tabIndex={-1}>
          <InertText text={s.name} />
        </h1>
        <div className="actions">
          {s.state === 'stopped' || s.state === 'crashed' || s.state === 'quarantined' ? (
            <button type="button" className="primary" disabled={action.busy} onClick={() => void lifecycle('servers.start')}>
              Start
            </button>
          ) : (
            <button type="button" disabled={action.busy} onClick={() => void lifecycle('servers.stop')}>
              Stop
            </button>
          )}
          <button type="button" disabled={action.busy} onClick={() => void lifecycle('servers.restart')}>
            Restart
          </button>
          {s.provenance.kind === 'npm' && (
            <button type="button" disabled={action.busy} onClick={() => go(`#/install?update=${encodeURIComponent(s.name)}`)}>
              Look for a newer version
            </button>
          )}
        </div>
      </div>
      <ServerBadges server={s} />
      <p className="server-summary">
        <InertText text={s.summary} />
      </p>
      {s.state === 'quarantined' && (
        <p className="notice notice-warning" role="note">
          Airlock stopped restarting this server after it crashed again and again. Its log below may say why. Restart clears the quarantine.
        </p>
      )}
      {s.lastError && (
        <p className="notice notice-error">
          <InertText text={s.lastError} block />
        </p>
      )}
      {action.error && (
        <div role="alert" className="notice notice-error" data-testid="detail-error">
          <InertText text={action.error} block />
        </div>
      )}

      {s.codeChange && <CodeChanged server={s} onApproved={onChange} />}

      {pending.length > 0 && (
        <section className="panel panel-warn" aria-labelledby="pending-title" data-testid="pending-changes">
          <h2 id="pending-title">Changed since you approved it</h2>
          <p>
            These tools changed their definition. They stay paused — no call reaches them — until you approve the new definition.
          </p>
          {pending.map((tool) => (
            <PendingChange key={tool.name} server={s.name} tool={tool} onApproved={onChange} />
          ))}
        </section>
      )}

      {added.length > 0 && (
        <section className="panel panel-warn" aria-labelledby="new-tools-title" data-testid="new-tools">
          <h2 id="new-tools-title">New since you added it</h2>
          <p>
            The server listed these tools after you reviewed it. Each asks before it runs — whatever the server’s trust or sandbox — until you
            review and approve it. The server wrote their names and descriptions.
          </p>
          {added.map((tool) => (
            <PendingNewTool key={tool.name} server={s.name} tool={tool} onApproved={onChange} />
          ))}
        </section>
      )}

      <h2>Tools</h2>
      <ToolsTable
        tools={s.tools}
        onRevokeRule={async (tool) => {
          if (await action.run(() => invoke('rules.remove', { server: s.name, tool }))) reload();
        }}
        onAddRule={async (tool, effect, confirmDestructive) => {
          const request = { server: s.name, tool: tool.name, effect, fingerprint: tool.fingerprint, ...(confirmDestructive ? { confirmDestructive } : {}) };
          if (await action.run(() => invoke('rules.add', request))) reload();
        }}
      />
      <div className="actions">
        <button
          type="button"
          disabled={action.busy || !s.tools.some((t) => t.rule)}
          onClick={() => void saveDetail(() => invoke('servers.revokeRules', { name: s.name }))}
        >
          Revoke all rules
        </button>
        <span className="muted small">Every call then asks again, as on the first day.</span>
      </div>

      <h2>Permissions</h2>
      <ProfileSummary profile={profile} testId="detail-summary" />
      {!s.sandboxed && (
        <div className="notice notice-error">
          <strong>This server runs without a sandbox.</strong> You allowed it on {when(s.profile.unsandboxed?.consentedAt)}.{' '}
          <button type="button" className="small-button" onClick={() => void saveDetail(() => invoke('servers.setUnsandboxed', { name: s.name, consent: false }))}>
            Take that back
          </button>
        </div>
      )}
      {s.sandboxed && <UnsandboxedConsent name={s.name} onChange={onChange} />}
      <p className="muted small">Changes are saved at once; a running server restarts under the new rules.</p>
      <ProfileEditor
        profile={profile}
        busy={action.busy}
        onChange={async (next) => {
          setEdited(next);
          await saveDetail(() => invoke('servers.updateProfile', { name: s.name, profile: next }));
          setEdited(undefined);
        }}
      />

      <h2>Secrets</h2>
      <SecretsEditor server={s} onChange={onChange} />

      <h2>Trust</h2>
      <label className="check">
        <input
          type="checkbox"
          checked={trustChoice ?? s.trusted}
          disabled={action.busy}
          data-testid="trust-toggle"
          onChange={async (e) => {
            const trusted = e.target.checked;
            setTrustChoice(trusted);
            if (await action.run(() => invoke('servers.setTrust', { name: s.name, trusted }))) reload();
            else setTrustChoice(undefined);
          }}
        />{' '}
        Trust this server’s descriptions of its tools
      </label>
      <p className="purpose">
        Trusting it lets its tools that say they only read run without asking; calls that change things still ask, and the sandbox limits hold either way.
      </p>

      <h2>Try a tool</h2>
      <ToolConsole server={s.name} tools={s.tools} />

      <h2>Recent calls</h2>
      {s.recentCalls.length === 0 ? <p className="muted">No calls yet.</p> : <AuditTable entries={s.recentCalls} showServer={false} onChanged={reload} />}

      <h2>Where it comes from</h2>
      <ProvenanceFacts provenance={s.provenance} importedFrom={s.importedFrom} />
      <h3>The exact command</h3>
      <ArgvView argv={command} risks={[]} cwd={s.spec.cwd} />
      {Object.keys(s.spec.env).length > 0 && (
        <p>
          Environment variables (names only): <InertText text={Object.keys(s.spec.env).join(', ')} />
        </p>
      )}
      <p className="muted small">Added {when(s.createdAt)}.</p>

      <h2>Log</h2>
      {s.logs.length === 0 ? (
        <p className="muted">Nothing logged.</p>
      ) : (
        <div className="log" data-testid="server-log" tabIndex={0} aria-label="Server log">
          {s.logs.map((line, i) => (
            <div key={i} className="log-line">
              <span className="muted">{when(line.time)}</span> <span className="log-source">[<InertText text={line.source} />]</span>{' '}
              <InertText text={line.text} fold={400} />
            </div>
          ))}
        </div>
      )}

      <h2>Remove</h2>
      <RemoveServer name={s.name} />
    </section>
  );
}

function CodeChanged({ server: s, onApproved }: { server: ServerDetail; onApproved: (d: ServerDetail) => void }) {
  const action = useAction();
  const change = s.codeChange!;
  const changed = change.files.filter((file) => file.current !== file.approved);
  const readable = change.files.every((file) => file.current !== null);
  return (
    <section className="panel panel-warn" aria-labelledby="code-changed-title" data-testid="code-changed">
      <h2 id="code-changed-title">Its code changed since you approved it</h2>
      <p>
        Airlock checks this server’s files each time it starts. They differ from what you approved, so every call asks, and the “always allow” rules
        and session permissions you made before do not count. Approving the new code pins it and removes those rules; your “always deny” rules stay.
      </p>
      <dl className="facts">
        {changed.map((file) => (
          <div key={`${file.role}:${file.path}`}>
            <dt>
              {file.role === 'script' ? 'Script' : 'Program'} <code>{file.path}</code>
            </dt>
            <dd>
              approved sha256 <code className="hash">{file.approved}</code>
              <br />
              now {file.current === null ? <strong>cannot be read</strong> : <>sha256 <code className="hash">{file.current}</code></>}
            </dd>
          </div>
        ))}
      </dl>
      <FieldError message={action.error} />
      {readable ? (
        <div className="actions">
          <button
            type="button"
            disabled={action.busy}
            onClick={async () => {
              const files = change.files.map((file) => ({ path: file.path, sha256: file.current! }));
              const value = await action.run(() => invoke('servers.approveCode', { name: s.name, files }));
              if (value) onApproved(value);
            }}
          >
            Approve the new code
          </button>
        </div>
      ) : (
        <p className="muted">A file cannot be read, so there is nothing to approve. Restore it, or remove the server.</p>
      )}
    </section>
  );
}

function PendingNewTool({ server, tool, onApproved }: { server: string; tool: ToolView; onApproved: (d: ServerDetail) => void }) {
  const action = useAction();
  return (
    <article className="pending-change" data-testid={`new-${visible(tool.name)}`}>
      <h3>
        <code><InertText text={tool.name} /></code> <Badge tone="warn">Added after install</Badge>
      </h3>
      {tool.description && <InertText text={tool.description} block fold={400} className="small" />}
      <p className="small">
        Airlock reads it as <strong>{tool.reading.class}</strong>, from its claims: <InertText text={tool.reading.claims.join('; ')} />
      </p>
      <p className="small">
        Fingerprint: <code className="hash">{tool.fingerprint}</code>
      </p>
      <FieldError message={action.error} />
      <div className="actions">
        <button
          type="button"
          disabled={action.busy}
          onClick={async () => {
            const value = await action.run(() => invoke('servers.approveChange', { name: server, tool: tool.name, fingerprint: tool.fingerprint }));
            if (value) onApproved(value);
          }}
        >
          Approve this tool
        </button>
      </div>
    </article>
  );
}

function PendingChange({ server, tool, onApproved }: { server: string; tool: ToolView; onApproved: (d: ServerDetail) => void }) {
  const action = useAction();
  const [kept, setKept] = useState(false);
  const change = tool.pendingChange;
  if (!change) return null;
  return (
    <article className="pending-change" data-testid={`pending-${visible(tool.name)}`}>
      <h3>
        <code><InertText text={tool.name} /></code> {change.suspicious && <Badge tone="danger">Suspicious</Badge>}
      </h3>
      <DiffView diff={change.diff} />
      <p className="small">
        New definition’s fingerprint: <code className="hash">{tool.fingerprint}</code>
      </p>
      <FieldError message={action.error} />
      {kept ? (
        <p className="muted">Kept blocked. It stays paused until you approve it.</p>
      ) : (
        <div className="actions">
          <button type="button" onClick={() => setKept(true)}>
            Keep blocked
          </button>
          <button
            type="button"
            className="primary"
            disabled={action.busy}
            onClick={async () => {
              const value = await action.run(() => invoke('servers.approveChange', { name: server, tool: tool.name, fingerprint: tool.fingerprint }));
              if (value) onApproved(value);
            }}
          >
            Approve this definition
          </button>
        </div>
      )}
    </article>
  );
}

function SecretsEditor({ server: s, onChange }: { server: ServerDetail; onChange: (d: ServerDetail) => void }) {
  const action = useAction();
  const names = [...new Set([...s.profile.secrets, ...s.secretsSet])];
  const [values, setValues] = useState<Record<string, string>>({});
  const [newName, setNewName] = useState('');
  const newId = useId();
  const set = async (key: string) => {
    const value = ownEntry(values, key) ?? '';
    const result = await action.run(() => invoke('servers.setSecret', { name: s.name, key, value }));
    if (result) {
      setValues({ ...values, [key]: '' });
      onChange(result);
    }
  };
  return (
    <div className="secrets" data-testid="secrets">
      <p className="purpose">{GRANT_PURPOSE.secret} Values are never shown again; Clear deletes the value and stops passing it.</p>
      {names.length === 0 && <p className="muted">None.</p>}
      <ul className="plain">
        {names.map((key) => {
          const isSet = s.secretsSet.includes(key);
          return (
            <li key={key} className="secret-row">
              <code><InertText text={key} /></code> {isSet ? <Badge tone="ok">Set</Badge> : <Badge tone="warn">Not set</Badge>}
              <label className="visually-hidden" htmlFor={`secret-${key}`}>
                New value for {key}
              </label>
              <input id={`secret-${key}`} type="password" autoComplete="off" value={ownEntry(values, key) ?? ''} onChange={(e) => setValues({ ...values, [key]: e.target.value })} />
              <button type="button" className="small-button" disabled={action.busy || !(ownEntry(values, key) ?? '')} onClick={() => void set(key)}>
                {isSet ? 'Replace' : 'Set'}
              </button>
              {isSet && (
                <button
                  type="button"
                  className="small-button"
                  disabled={action.busy}
                  onClick={async () => {
                    const result = await action.run(() => invoke('servers.clearSecret', { name: s.name, key }));
                    if (result) onChange(result);
                  }}
                >
                  Clear
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <div className="add-row">
        <label htmlFor={newId}>Add a secret named</label>
        <input id={newId} type="text" value={newName} placeholder="API_KEY" spellCheck={false} onChange={(e) => setNewName(e.target.value.trim())} />
        <button
          type="button"
          className="small-button"
          disabled={!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(newName) || names.includes(newName)}
          onClick={async () => {
            const result = await action.run(() =>
              invoke('servers.updateProfile', { name: s.name, profile: { ...editable(s.profile), secrets: [...s.profile.secrets, newName] } }),
            );
            if (result) {
              onChange(result);
              setNewName('');
            }
          }}
        >
          Add
        </button>
      </div>
      <FieldError message={action.error} />
    </div>
  );
}

/**
 * Only when this machine cannot sandbox: the explicit, recorded consent to run
 * this one server without a sandbox (ARCHITECTURE.md, Sandbox profiles).
 */
function UnsandboxedConsent({ name, onChange }: { name: string; onChange: (d: ServerDetail) => void }) {
  const [sandbox] = useQuery('sandbox.status', {}, 'sandbox.didChange');
  const [understood, setUnderstood] = useState(false);
  const action = useAction();
  if (sandbox.status !== 'ok' || sandbox.value.supported) return null;
  return (
    <div className="panel panel-danger" data-testid="unsandboxed-consent">
      <p>
        <strong>This computer cannot sandbox servers right now</strong>, so this server will not start. <InertText text={sandbox.value.summary} />
      </p>
      {sandbox.value.fix && (
        <p>
          The fix: <code>{sandbox.value.fix}</code>, then “Check again” in Settings.
        </p>
      )}
      <label className="check">
        <input type="checkbox" checked={understood} onChange={(e) => setUnderstood(e.target.checked)} /> I understand that without a sandbox {name} can read,
        change and send anything I can.
      </label>
      <button
        type="button"
        className="danger"
        disabled={!understood || action.busy}
        onClick={async () => {
          const value = await action.run(() => invoke('servers.setUnsandboxed', { name, consent: true }));
          if (value) onChange(value);
        }}
      >
        Run {name} without a sandbox
      </button>
      <FieldError message={action.error} />
    </div>
  );
}

function RemoveServer({ name }: { name: string }) {
  const [typed, setTyped] = useState('');
  const action = useAction();
  const inputId = useId();
  return (
    <div className="panel panel-danger" data-testid="remove-server">
      <p>Removing stops the server and deletes its installed files, its secrets and its rules. The activity log keeps its calls.</p>
      <label htmlFor={inputId}>
        Type <code>{name}</code> to confirm
      </label>
      <div className="add-row">
        <input id={inputId} type="text" value={typed} onChange={(e) => setTyped(e.target.value)} spellCheck={false} autoComplete="off" />
        <button
          type="button"
          className="danger"
          disabled={typed !== name || action.busy}
          onClick={async () => {
            if (await action.run(() => invoke('servers.remove', { name, confirm: true }))) go('#/servers');
          }}
        >
          Remove {name}
        </button>
      </div>
      <FieldError message={action.error} />
    </div>
  );
}
