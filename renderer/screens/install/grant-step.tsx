/** Install step 4: name, secrets, trust, what a call of each tool will do with these choices, then save (and start). */
import { useEffect, useId, useState } from 'react';
import type { Disclosure, ScreenView, ToolView } from '../../../shared/views';
import { isServerName, noScreenDomains, SCREEN_DOMAIN_KINDS, type ScreenDomains, type ScreenPermission } from '../../../shared/plain';
import { Asks } from '../server-detail/server-screens';
import { invoke, useAction } from '../../api';
import { InertText } from '../../components/inert-text';
import { ProfileEditor, type EditableProfile } from '../../components/profile-editor';
import { ProfileSummary } from '../../components/profile-summary';
import type { UserConfigValues } from './user-config';

export function GrantStep({
  disclosure: d,
  profile,
  onProfile,
  userConfig,
  env,
  probed,
  screens,
  onCancel,
  onBack,
  onCommitted,
}: {
  disclosure: Disclosure;
  profile: EditableProfile;
  onProfile: (p: EditableProfile) => void;
  userConfig: UserConfigValues | undefined;
  env: Record<string, string>;
  /** It was inspected: what each tool's call will do can be shown for these choices. */
  probed: boolean;
  /** Its screens as read at the inspection (MCP Apps): what they ask for, to allow or leave refused. */
  screens?: ScreenView[];
  onCancel: () => void;
  onBack: () => void;
  onCommitted: (name: string) => void;
}) {
  const [name, setName] = useState(d.suggestedName);
  const [trusted, setTrusted] = useState(d.replaces?.trusted ?? false);
  const [enable, setEnable] = useState(d.replaces?.enabled ?? true);
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [showGrants, setShowGrants] = useState(false);
  // An update starts from what the person allowed the version it replaces (the core kept what is still asked for); a new server from nothing.
  const [screenAllowed, setScreenAllowed] = useState<ScreenDomains>(() => allowedOf(screens));
  const [screenPermissions, setScreenPermissions] = useState<ScreenPermission[]>(() => [...new Set((screens ?? []).flatMap((screen) => screen.permissions.granted))].sort());
  const action = useAction();
  const ids = { name: useId(), nameError: useId(), trust: useId() };
  const nameValid = isServerName(name);
  const missing = d.secrets.filter((s) => s.required && !s.held && !(secrets[s.name] ?? '').trim()).map((s) => s.name);

  const commit = async () => {
    const given = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v !== ''));
    const profileWithSecrets: EditableProfile = { ...profile, secrets: [...new Set([...profile.secrets, ...Object.keys(given)])] };
    const value = await action.run(() =>
      invoke('install.commit', {
        draftId: d.draftId,
        name,
        profile: profileWithSecrets,
        trusted,
        secrets: given,
        enable,
        env,
        ...(userConfig ? { userConfig } : {}),
        ...(screens?.length ? { screens: { allowed: screenAllowed, permissions: screenPermissions } } : {}),
      }),
    );
    if (value) onCommitted(value.name);
  };

  // What a call of each tool will do with exactly these grants and this trust (computed by the core).
  const [preview, setPreview] = useState<ToolView[] | undefined>();
  const previewKey = JSON.stringify([profile, trusted, Object.keys(secrets).filter((key) => secrets[key])]);
  useEffect(() => {
    if (!probed) return;
    let live = true;
    const withSecrets = { ...profile, secrets: [...new Set([...profile.secrets, ...Object.keys(secrets).filter((key) => secrets[key])])] };
    void invoke('install.preview', { draftId: d.draftId, profile: withSecrets, trusted }).then((result) => live && result.ok && setPreview(result.value.tools));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `previewKey` stands for the profile, trust and secrets set (compared by value, not by identity).
  }, [previewKey, probed]);

  return (
    <div className="grant-step" data-testid="grant-step">
      <ProfileSummary profile={profile} />
      <button type="button" className="link-button" aria-expanded={showGrants} onClick={() => setShowGrants(!showGrants)}>
        {showGrants ? 'Hide permissions' : 'Change permissions'}
      </button>
      {showGrants && <ProfileEditor profile={profile} onChange={onProfile} proposals={d.proposals} />}
      {screens && screens.some((screen) => screen.state !== 'unreadable') && (
        <fieldset className="install-screens" data-testid="install-screens">
          <legend>What its screens ask for</legend>
          <p className="muted small">Pages the server wrote, shown with its tools’ results. Each address or permission stays refused unless you tick it.</p>
          {screens.map((screen) => (
            <div key={screen.uri}>
              <p className="small">
                <code>
                  <InertText text={screen.uri} />
                </code>
              </p>
              <Asks
                screen={screen}
                allowed={screenAllowed}
                permissions={screenPermissions}
                onToggle={(kind, origin, on) => setScreenAllowed({ ...screenAllowed, [kind]: on ? [...new Set([...screenAllowed[kind], origin])].sort() : screenAllowed[kind].filter((item) => item !== origin) })}
                onTogglePermission={(permission, on) => setScreenPermissions(on ? [...new Set([...screenPermissions, permission])].sort() : screenPermissions.filter((item) => item !== permission))}
              />
            </div>
          ))}
        </fieldset>
      )}

      <div className="field-row">
        <label htmlFor={ids.name}>Name in Airlock</label>
        <input
          id={ids.name}
          type="text"
          value={name}
          onChange={(e) => setName(e.target.value)}
          readOnly={d.replaces !== undefined}
          spellCheck={false}
          aria-invalid={!nameValid}
          aria-describedby={ids.nameError}
        />
        <p id={ids.nameError} className={nameValid ? 'muted small' : 'field-error'}>
          {nameValid ? 'AI apps see its tools as NAME__tool.' : 'Use lowercase letters, digits and dashes, starting with a letter or digit (at most 48).'}
        </p>
      </div>

      {d.secrets.length > 0 && (
        <fieldset>
          <legend>Secrets</legend>
          <p className="muted small">Kept in your system’s secret store and given only to this server. Airlock never shows them again.</p>
          {d.secrets.map((secret) => (
            <div key={secret.name} className="field-row">
              <label>
                <code><InertText text={secret.name} /></code> {secret.held ? '(given already; type a new one only to replace it)' : secret.required ? '(required)' : '(optional)'}{' '}
                {secret.description && <span className="muted small"><InertText text={secret.description} /></span>}
                <input type="password" autoComplete="off" value={secrets[secret.name] ?? ''} onChange={(e) => setSecrets({ ...secrets, [secret.name]: e.target.value })} />
              </label>
            </div>
          ))}
        </fieldset>
      )}

      <fieldset>
        <legend>Trust</legend>
        <label className="check">
          <input id={ids.trust} type="checkbox" checked={trusted} onChange={(e) => setTrusted(e.target.checked)} data-testid="trust-checkbox" /> Trust this server’s
          descriptions of its tools
        </label>
        <p className="purpose">
          Trusting it lets its tools that say they only read run without asking; calls that change things still ask, and the sandbox limits hold either way.
        </p>
      </fieldset>

      {preview && <CallPreview tools={preview} />}

      <label className="check">
        <input type="checkbox" checked={enable} onChange={(e) => setEnable(e.target.checked)} /> Start it now, and whenever Airlock starts
      </label>

      {action.error && (
        <div role="alert" className="notice notice-error">
          <InertText text={action.error} block />
        </div>
      )}
      {missing.length > 0 && <p className="field-error">Fill in the required secrets: {missing.join(', ')}.</p>}
      <div className="actions sticky-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" onClick={onBack}>
          Back
        </button>
        <button type="button" className="primary" disabled={action.busy || !nameValid || missing.length > 0} onClick={() => void commit()}>
          {action.busy ? 'Saving…' : enable ? 'Enable' : 'Save without starting'}
        </button>
      </div>
    </div>
  );
}

/** What the screens' views say is allowed now, all kinds, merged. */
function allowedOf(screens: readonly ScreenView[] | undefined): ScreenDomains {
  const allowed = noScreenDomains();
  for (const kind of SCREEN_DOMAIN_KINDS) allowed[kind] = [...new Set((screens ?? []).flatMap((screen) => screen.allowed[kind]))].sort();
  return allowed;
}

/** With the choices above: which tools run without asking, which ask — the same answer the policy will give. */
function CallPreview({ tools }: { tools: ToolView[] }) {
  const groups = [
    { label: 'Run without asking', tools: tools.filter((tool) => tool.preview.verdict === 'allow') },
    { label: 'Ask you first', tools: tools.filter((tool) => tool.preview.verdict === 'ask') },
    { label: 'Blocked', tools: tools.filter((tool) => tool.preview.verdict === 'deny') },
  ].filter((group) => group.tools.length > 0);
  return (
    <div className="panel" data-testid="call-preview">
      <p className="lead">With these choices, when an AI app calls its tools:</p>
      <ul className="plain">
        {groups.map((group) => (
          <li key={group.label}>
            <strong>{group.label}</strong> ({group.tools.length}):{' '}
            <InertText text={group.tools.map((tool) => tool.name).join(', ')} fold={400} />
          </li>
        ))}
      </ul>
    </div>
  );
}
