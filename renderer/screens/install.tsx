/**
 * The install flow (UX 10–13): choose a source → see everything it would get
 * before anything runs → inspect it in a locked sandbox (the grants being given,
 * read-only) → grant, trust and
 * enable. Cancel at every step removes the draft in the core. Each step is
 * its own file under ./install/; this one holds the flow.
 */
import { useEffect, useRef, useState } from 'react';
import type { InstallSource } from '../../shared/ipc';
import type { Disclosure, ProbeReport } from '../../shared/views';
import { invoke, useAction } from '../api';
import { InertText } from '../components/inert-text';
import type { EditableProfile } from '../components/profile-editor';
import { editable } from '../format';
import { go, serverHref, type RegistryPick } from '../route';
import { DisclosureView } from './install/disclosure-step';
import { GrantStep } from './install/grant-step';
import { ProbeView } from './install/inspect-step';
import { SourceStep } from './install/source-step';
import { configDefaults, configValues, UserConfigFields, type ConfigValues } from './install/user-config';

export { ProfileSummary } from '../components/profile-summary';

type Step = 'source' | 'disclosure' | 'inspect' | 'grant';
const STEPS: { id: Step; label: string }[] = [
  { id: 'source', label: 'Choose a source' },
  { id: 'disclosure', label: 'What it would get' },
  { id: 'inspect', label: 'Inspect' },
  { id: 'grant', label: 'Grant and enable' },
];

export function InstallScreen({ example, update, registry, provided }: { example?: string; update?: string; registry?: RegistryPick; provided?: string }) {
  const [step, setStep] = useState<Step>('source');
  const [disclosure, setDisclosure] = useState<Disclosure | undefined>();
  const [profile, setProfile] = useState<EditableProfile | undefined>();
  const [probe, setProbe] = useState<ProbeReport | undefined>();
  const [config, setConfig] = useState<ConfigValues>({});
  const [env, setEnv] = useState<Record<string, string>>({});
  const [headerSecrets, setHeaderSecrets] = useState<Record<string, string>>({});
  const action = useAction();
  /** Every draft the core made for this flow (an import scan makes several): all are removed unless committed. */
  const drafts = useRef(new Set<string>());
  const committed = useRef<string | undefined>(undefined);
  const headingRef = useRef<HTMLHeadingElement>(null);

  const cancelDrafts = (keep?: string) => {
    for (const draftId of drafts.current) {
      if (draftId !== keep) void invoke('install.cancel', { draftId });
    }
    drafts.current.clear();
  };

  // Leaving the screen without enabling leaves nothing behind — including drafts that arrive after it closed.
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      cancelDrafts(committed.current);
    };
  }, []);
  const keepDrafts = (ids: string[]) => {
    if (mounted.current) ids.forEach((id) => drafts.current.add(id));
    else ids.forEach((draftId) => void invoke('install.cancel', { draftId }));
  };

  const show = (next: Disclosure) => {
    keepDrafts([next.draftId]);
    if (!mounted.current) return;
    setDisclosure(next);
    setProfile(editable(next.profile));
    setConfig(configDefaults(next));
    setEnv({ ...next.env });
    setHeaderSecrets({});
    setProbe(undefined);
    setStep('disclosure');
    requestAnimationFrame(() => headingRef.current?.focus());
  };

  /** The source of the disclosure shown (absent for an import): asked again, allowed, when the person allows its code arguments. */
  const shownSource = useRef<InstallSource | undefined>(undefined);
  const prepare = async (source: InstallSource, name?: string) => {
    const value = await action.run(() => invoke('install.prepare', { source }));
    if (value) {
      shownSource.current = source;
      show(name ? { ...value, suggestedName: name } : value);
    }
  };
  // SECURITY (invariant 7): arguments that run code from outside the pinned program are refused unless
  // the person allows them here — the source is read again with that consent (a new draft; the old one goes).
  const source = shownSource.current;
  const allowCodeArguments =
    disclosure?.codeArguments?.length && !disclosure.codeArgumentsAllowed && source && source.kind !== 'remote' && source.kind !== 'example'
      ? async () => {
          const old = disclosure.draftId;
          await prepare({ ...source, allowCodeArguments: true });
          drafts.current.delete(old);
          void invoke('install.cancel', { draftId: old });
        }
      : undefined;
  const codeRefused = (disclosure?.codeArguments?.length ?? 0) > 0 && disclosure?.codeArgumentsAllowed !== true;

  useEffect(() => {
    if (example) void prepare({ kind: 'example', folder: example });
    // An update is a new disclosure of the newest version, installed beside the running one.
    else if (update) void prepare({ kind: 'update', server: update, range: 'latest' });
    // A listing picked on Find servers: disclosed like any other source.
    else if (registry) void prepare({ kind: 'registry', name: registry.name, ...(registry.version ? { version: registry.version } : {}), ...(registry.option !== undefined ? { option: registry.option } : {}) });
    // A server the organisation provides: its source from the policy, disclosed like any other (never installed unseen).
    else if (provided) void prepareProvided(provided);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- prepared once per source the route names; `prepare` is a new function each render and must not prepare again.
  }, [example, update, registry?.name, registry?.version, registry?.option, provided]);

  async function prepareProvided(name: string) {
    const organisation = await action.run(() => invoke('organisation.get', {}));
    const found = organisation?.providedServers.find((server) => server.name === name);
    if (organisation && !found) action.setError(`Your organisation's policy provides no server named “${name}” (any more).`);
    if (found) await prepare(found.installSource, name);
  }

  const cancel = () => {
    cancelDrafts();
    go('#/servers');
  };

  const inspect = async () => {
    if (!disclosure) return;
    const userConfig = configValues(disclosure, config);
    // The previews it returns are computed for the grants chosen so far (and untrusted: trust is chosen next).
    const typed = Object.fromEntries(Object.entries(headerSecrets).filter(([, value]) => value !== ''));
    const secrets = disclosure.provenance.kind === 'remote' && Object.keys(typed).length > 0 ? { secrets: typed } : {};
    const value = await action.run(() => invoke('install.probe', { draftId: disclosure.draftId, env, profile: profile ?? editable(disclosure.profile), trusted: false, ...(userConfig ? { userConfig } : {}), ...secrets }));
    if (value) {
      // What was typed is now held with the draft (the commit saves it): shown as given from here on.
      if (secrets.secrets) setDisclosure({ ...disclosure, secrets: disclosure.secrets.map((secret) => (typed[secret.name] ? { ...secret, held: true } : secret)) });
      setHeaderSecrets({});
      setProbe(value);
      setStep('inspect');
      requestAnimationFrame(() => headingRef.current?.focus());
    }
  };

  const stepIndex = STEPS.findIndex((s) => s.id === step);
  // A remote server's required header secrets neither given nor typed: it cannot be reached to be inspected.
  const unsetHeaderSecrets =
    disclosure?.provenance.kind === 'remote' ? disclosure.secrets.filter((secret) => secret.required && !secret.held && !(headerSecrets[secret.name] ?? '').trim()).map((secret) => secret.name) : [];
  return (
    <section aria-labelledby="install-title" className="install">
      <h1 id="install-title" tabIndex={-1}>
        Add a server
      </h1>
      <ol className="steps" aria-label="Steps">
        {STEPS.map((s, i) => (
          <li key={s.id} aria-current={s.id === step ? 'step' : undefined} className={i < stepIndex ? 'step-done' : ''}>
            <span className="step-number">{i + 1}</span> {s.label}
          </li>
        ))}
      </ol>
      {action.error && (
        <div role="alert" className="notice notice-error" data-testid="install-error">
          <InertText text={action.error} block />
        </div>
      )}
      <h2 ref={headingRef} tabIndex={-1} className="step-title">
        {STEPS[stepIndex]?.label}
      </h2>
      {step === 'source' && (
        <>
          <SourceStep busy={action.busy} onPrepare={prepare} onImported={show} onDrafts={keepDrafts} />
          <div className="actions">
            <button type="button" onClick={cancel}>
              Cancel
            </button>
          </div>
        </>
      )}
      {step === 'disclosure' && disclosure && profile && (
        <>
          <DisclosureView
            disclosure={disclosure}
            profile={profile}
            onProfile={setProfile}
            env={env}
            onEnv={setEnv}
            headerSecrets={headerSecrets}
            onHeaderSecrets={setHeaderSecrets}
            busy={action.busy}
            {...(allowCodeArguments ? { onAllowCodeArguments: () => void allowCodeArguments() } : {})}
          />
          {disclosure.userConfig.length > 0 && <UserConfigFields disclosure={disclosure} values={config} onChange={setConfig} />}
          <div className="actions sticky-actions">
            <button type="button" onClick={cancel}>
              Cancel
            </button>
            <button type="button" onClick={() => setStep('grant')} disabled={action.busy || configValues(disclosure, config) === undefined || codeRefused}>
              Skip inspection
            </button>
            <button type="button" className="primary" onClick={() => void inspect()} disabled={action.busy || configValues(disclosure, config) === undefined || unsetHeaderSecrets.length > 0 || codeRefused}>
              {action.busy ? 'Inspecting…' : disclosure.provenance.kind === 'remote' ? 'Connect and list its tools' : 'Inspect in a locked sandbox'}
            </button>
          </div>
          <p className="muted small" data-testid="inspect-note">
            {disclosure.provenance.kind === 'remote' ? (
              `${unsetHeaderSecrets.length > 0 ? `Type ${unsetHeaderSecrets.join(', ')} above to connect: the server gets ${unsetHeaderSecrets.length === 1 ? 'it' : 'them'} in its headers. ` : ''}Connecting sends the first request to this server (with the headers shown), signs in if it asks — its sign-in page opens in your browser — lists what it offers, and disconnects.`
            ) : (
              <InspectNote folders={[...new Set([...profile.filesystem.read, ...profile.filesystem.write])]} />
            )}
          </p>
        </>
      )}
      {step === 'inspect' && probe && (
        <>
          <ProbeView probe={probe} />
          <div className="actions sticky-actions">
            <button type="button" onClick={cancel}>
              Cancel
            </button>
            <button type="button" onClick={() => setStep('disclosure')}>
              Back
            </button>
            <button type="button" className="primary" onClick={() => setStep('grant')}>
              Continue
            </button>
          </div>
        </>
      )}
      {step === 'grant' && disclosure && profile && (
        <GrantStep
          disclosure={disclosure}
          profile={profile}
          onProfile={setProfile}
          userConfig={configValues(disclosure, config)}
          env={env}
          probed={probe !== undefined}
          {...(probe?.screens ? { screens: probe.screens } : {})}
          onCancel={cancel}
          onBack={() => setStep(probe ? 'inspect' : 'disclosure')}
          onCommitted={(name) => {
            committed.current = disclosure.draftId;
            cancelDrafts(disclosure.draftId);
            go(serverHref(name));
          }}
        />
      )}
    </section>
  );
}

/**
 * What the inspection runs with: the grants being given, read-only — its
 * folders readable so it can start, nothing written but a throwaway
 * temporary folder, no network, no secrets, the rest of home hidden.
 */
function InspectNote({ folders }: { folders: string[] }) {
  return (
    <>
      Inspecting starts the server once with the grants you are giving it, read-only:{' '}
      {folders.length ? (
        <>
          it can read <InertText text={folders.join(', ')} /> but change nothing
        </>
      ) : (
        'it changes nothing'
      )}{' '}
      (a throwaway temporary folder aside), with no network and no secrets, the rest of your home folder hidden. Airlock asks it what it offers, then stops it.
    </>
  );
}
