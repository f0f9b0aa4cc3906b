/** The pieces of a server's page that act on one thing each: a pending change, its secrets, the consent to run unsandboxed, removal. */
import { useId, useState } from 'react';
import { ownEntry } from '../../../shared/plain';
import { signOutWords } from '../../../shared/plain';
import type { ServerDetail, ToolView } from '../../../shared/views';
import { invoke, useAction, useQuery } from '../../api';
import { Badge } from '../../components/badges';
import { DiffView } from '../../components/diff-view';
import { FieldError } from '../../components/field-error';
import { InertText, visible } from '../../components/inert-text';
import { editable, GRANT_PURPOSE } from '../../format';
import { go, goWithNotice } from '../../route';

/** The local server's code changed since it was approved: the old and new hashes, and approving the new code. */
export function CodeChanged({ server: s, onApproved }: { server: ServerDetail; onApproved: (d: ServerDetail) => void }) {
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

/** A tool the server listed after the person reviewed it: asks before it runs until approved. */
export function PendingNewTool({ server, tool, onApproved }: { server: string; tool: ToolView; onApproved: (d: ServerDetail) => void }) {
  const action = useAction();
  return (
    <article className="pending-change" data-testid={`new-${visible(tool.name)}`}>
      <h3>
        <code><InertText text={tool.name} /></code> <Badge tone="warn">Added after install</Badge>
      </h3>
      {tool.description && <InertText text={tool.description} quoted fold={400} className="small" />}
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

export function PendingChange({ server, tool, onApproved }: { server: string; tool: ToolView; onApproved: (d: ServerDetail) => void }) {
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

export function SecretsEditor({ server: s, onChange }: { server: ServerDetail; onChange: (d: ServerDetail) => void }) {
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
export function UnsandboxedConsent({ name, onChange }: { name: string; onChange: (d: ServerDetail) => void }) {
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

export function RemoveServer({ name, remote }: { name: string; remote: boolean }) {
  const [typed, setTyped] = useState('');
  const action = useAction();
  const inputId = useId();
  const remove = async () => {
    const removed = await action.run(() => invoke('servers.remove', { name, confirm: true }));
    if (!removed) return;
    if (removed.signIn) goWithNotice('#/servers', { tone: removed.signIn.revoked === 'yes' ? 'ok' : 'warning', text: `${name} was removed. ${signOutWords(removed.signIn)}` });
    else go('#/servers');
  };
  return (
    <div className="panel panel-danger" data-testid="remove-server">
      <p>
        Removing stops the server and deletes its installed files, its secrets and its rules.
        {remote && ' A sign-in it holds is revoked at its server first, where the server offers that.'} The activity log keeps its calls.
      </p>
      <label htmlFor={inputId}>
        Type <code>{name}</code> to confirm
      </label>
      <div className="add-row">
        <input id={inputId} type="text" value={typed} onChange={(e) => setTyped(e.target.value)} spellCheck={false} autoComplete="off" />
        <button
          type="button"
          className="danger"
          disabled={typed !== name || action.busy}
          onClick={() => void remove()}
        >
          {action.busy ? (remote ? 'Removing (revoking its sign-in)…' : 'Removing…') : `Remove ${name}`}
        </button>
      </div>
      <FieldError message={action.error} />
    </div>
  );
}
