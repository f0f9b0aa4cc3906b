import { useState } from 'react';
import type { PolicyMode } from '../../shared/domain';
import { invoke, useAction, useQuery } from '../api';
import { Badge } from '../components/badges';
import { InertText } from '../components/inert-text';
import { when } from '../format';
import { serverHref } from '../route';
import { ModelsSection } from './models';
import { OtherAppsSection } from './other-apps';
import { FieldError } from '../components/field-error';

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
  const action = useAction();
  // Shown at once; set back if the core refuses.
  const [chosen, setChosen] = useState<PolicyMode | undefined>();
  const current = chosen ?? (settings.status === 'ok' ? settings.value.policyMode : undefined);
  return (
    <fieldset className="policy-mode" data-testid="policy-mode" disabled={settings.status !== 'ok'}>
      <legend>When Airlock asks</legend>
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
      <h2>Policy</h2>
      <PolicyModeSection />
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
