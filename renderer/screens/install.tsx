/**
 * The install flow (UX 10–13): choose a source → see everything it would get
 * before anything runs → inspect it in a locked sandbox → grant, trust and
 * enable. Cancel at every step removes the draft in the core.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { ownEntry, ServerNameSchema } from '../../shared/domain';
import type { InstallSource, ResponseOf } from '../../shared/ipc';
import type { Disclosure, ImportEntryView, ProbeReport } from '../../shared/views';
import { invoke, useAction, useAppInfo } from '../api';
import { ArgvView } from '../components/argv-view';
import { Badge } from '../components/badges';
import { InertText, visible } from '../components/inert-text';
import { ProfileEditor, type EditableProfile } from '../components/profile-editor';
import { ProvenanceFacts } from '../components/provenance';
import { ToolCard } from '../components/tool-reading';
import { editable, profileSentences, splitCommandLine } from '../format';
import { go, serverHref } from '../route';
import { FieldError } from '../components/field-error';

type Step = 'source' | 'disclosure' | 'inspect' | 'grant';
const STEPS: { id: Step; label: string }[] = [
  { id: 'source', label: 'Choose a source' },
  { id: 'disclosure', label: 'What it would get' },
  { id: 'inspect', label: 'Inspect' },
  { id: 'grant', label: 'Grant and enable' },
];

export function InstallScreen({ example, update }: { example?: string; update?: string }) {
  const [step, setStep] = useState<Step>('source');
  const [disclosure, setDisclosure] = useState<Disclosure | undefined>();
  const [profile, setProfile] = useState<EditableProfile | undefined>();
  const [probe, setProbe] = useState<ProbeReport | undefined>();
  const [config, setConfig] = useState<ConfigValues>({});
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
    setProbe(undefined);
    setStep('disclosure');
    requestAnimationFrame(() => headingRef.current?.focus());
  };

  const prepare = async (source: InstallSource) => {
    const value = await action.run(() => invoke('install.prepare', { source }));
    if (value) show(value);
  };

  useEffect(() => {
    if (example) void prepare({ kind: 'example', folder: example });
    // An update is a new disclosure of the newest version, installed beside the running one.
    else if (update) void prepare({ kind: 'update', server: update, range: 'latest' });
  }, [example, update]);

  const cancel = () => {
    cancelDrafts();
    go('#/servers');
  };

  const inspect = async () => {
    if (!disclosure) return;
    const userConfig = configValues(disclosure, config);
    const value = await action.run(() => invoke('install.probe', { draftId: disclosure.draftId, ...(userConfig ? { userConfig } : {}) }));
    if (value) {
      setProbe(value);
      setStep('inspect');
      requestAnimationFrame(() => headingRef.current?.focus());
    }
  };

  const stepIndex = STEPS.findIndex((s) => s.id === step);
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
          <DisclosureView disclosure={disclosure} profile={profile} onProfile={setProfile} busy={action.busy} />
          {disclosure.userConfig.length > 0 && <UserConfigFields disclosure={disclosure} values={config} onChange={setConfig} />}
          <div className="actions sticky-actions">
            <button type="button" onClick={cancel}>
              Cancel
            </button>
            <button type="button" onClick={() => setStep('grant')} disabled={action.busy || configValues(disclosure, config) === undefined}>
              Skip inspection
            </button>
            <button type="button" className="primary" onClick={() => void inspect()} disabled={action.busy || configValues(disclosure, config) === undefined}>
              {action.busy ? 'Inspecting…' : 'Inspect in a locked sandbox'}
            </button>
          </div>
          <p className="muted small">
            Inspecting starts the server once with nothing granted — no network, no writes, your home folder hidden — asks it what it offers,
            and stops it.
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

// ── Step 1 ─────────────────────────────────────────────────────────────────

type SourceKind = 'npm' | 'mcpb' | 'local' | 'import';
const KIND_LABEL: Record<SourceKind, string> = {
  npm: 'npm package',
  mcpb: 'MCPB bundle',
  local: 'Command on this computer',
  import: 'Import from another app',
};

function SourceStep({
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
  const ids = { pkg: useId(), pkgArgs: useId(), bundle: useId() };

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
                          <Badge tone={entry.status === 'invalid' ? 'danger' : 'neutral'}>{entry.status === 'invalid' ? 'Invalid' : 'Not supported'}</Badge>
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

// ── Step 2 ─────────────────────────────────────────────────────────────────

export function ProfileSummary({ profile, testId }: { profile: EditableProfile; testId?: string }) {
  return (
    <div className="panel summary-panel" data-testid={testId ?? 'profile-summary'}>
      <p className="lead">This server:</p>
      <ul>
        {profileSentences(profile).map((sentence, i) => (
          <li key={i}>
            <InertText text={sentence} fold={2000} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function DisclosureView({ disclosure: d, profile, onProfile, busy }: { disclosure: Disclosure; profile: EditableProfile; onProfile: (p: EditableProfile) => void; busy: boolean }) {
  return (
    <div className="disclosure" data-testid="disclosure">
      <ProfileSummary profile={profile} />
      <h3>
        <InertText text={d.suggestedName} /> <span className="muted">· <InertText text={d.sourceLabel} /></span>
      </h3>
      {d.warnings.length > 0 && (
        <ul className="warnings">
          {d.warnings.map((warning, i) => (
            <li key={i}>
              <Badge tone="warn">Warning</Badge> <InertText text={warning} />
            </li>
          ))}
        </ul>
      )}
      <h3>Where it comes from</h3>
      <ProvenanceFacts provenance={d.provenance} importedFrom={d.importedFrom} />
      <h3>The exact command that will run</h3>
      <p className="muted small">This runs a program on your computer, inside the sandbox described on this page.</p>
      <ArgvView argv={d.argv} risks={d.risks} cwd={d.cwd} />
      <h3>Environment and secrets</h3>
      {d.envNames.length === 0 ? (
        <p className="muted">No environment variables beyond a minimal set.</p>
      ) : (
        <p>
          Environment variables it gets (names only): <InertText text={d.envNames.join(', ')} />
        </p>
      )}
      {d.secrets.length === 0 ? (
        <p className="muted">It asks for no secrets.</p>
      ) : (
        <ul>
          {d.secrets.map((secret) => (
            <li key={secret.name}>
              <code><InertText text={secret.name} /></code> {secret.required ? <Badge tone="warn">Required</Badge> : <Badge tone="neutral">Optional</Badge>}{' '}
              {secret.description && <InertText text={secret.description} />}
            </li>
          ))}
        </ul>
      )}
      <h3>Permissions</h3>
      <p className="muted small">These are the defaults. Change them here; you can change them again at any time on the server’s page.</p>
      <ProfileEditor profile={profile} onChange={onProfile} suggestedPaths={d.suggestedPaths} busy={busy} />
    </div>
  );
}

// ── Settings the server needs (MCPB user_config, VS Code inputs) ───────────

type ConfigField = Disclosure['userConfig'][number];
type ConfigValues = Record<string, string | boolean>;
type UserConfigValues = Record<string, string | number | boolean | string[]>;

function configDefaults(d: Disclosure): ConfigValues {
  const out = Object.create(null) as ConfigValues;
  for (const field of d.userConfig) {
    const value = field.default;
    if (field.type === 'boolean') out[field.key] = value === true;
    else if (Array.isArray(value)) out[field.key] = value.join('\n');
    else out[field.key] = value === undefined ? '' : String(value);
  }
  return out;
}

/** The values to send, or undefined while a required one is missing or a number is not a number. */
function configValues(d: Disclosure, values: ConfigValues): UserConfigValues | undefined {
  // Setting keys are the bundle's: a null-prototype object keeps every one as a plain entry.
  const out = Object.create(null) as UserConfigValues;
  for (const field of d.userConfig) {
    const value = ownEntry(values, field.key);
    if (field.type === 'boolean') {
      out[field.key] = value === true;
      continue;
    }
    const text = typeof value === 'string' ? value.trim() : '';
    if (text === '') {
      if (field.required) return undefined;
      continue;
    }
    if (field.type === 'number') {
      const n = Number(text);
      if (!Number.isFinite(n)) return undefined;
      out[field.key] = n;
    } else if (Array.isArray(field.default)) {
      out[field.key] = text.split('\n').map((line) => line.trim()).filter(Boolean);
    } else {
      out[field.key] = text;
    }
  }
  return out;
}

function UserConfigFields({ disclosure: d, values, onChange }: { disclosure: Disclosure; values: ConfigValues; onChange: (v: ConfigValues) => void }) {
  const info = useAppInfo();
  const baseId = useId();
  const field = (f: ConfigField) => {
    const id = `${baseId}-${f.key}`;
    const value = ownEntry(values, f.key);
    if (f.type === 'boolean') {
      return (
        <label className="check">
          <input type="checkbox" checked={value === true} onChange={(e) => onChange({ ...values, [f.key]: e.target.checked })} /> <InertText text={f.title} />
        </label>
      );
    }
    const many = Array.isArray(f.default);
    return (
      <>
        <label htmlFor={id}>
          <InertText text={f.title} />
          {f.required && <span className="required"> * (required)</span>}
          {many && <span className="muted small"> one per line</span>}
        </label>
        <div className="add-row">
          {many ? (
            <textarea id={id} rows={3} value={typeof value === 'string' ? value : ''} spellCheck={false} onChange={(e) => onChange({ ...values, [f.key]: e.target.value })} />
          ) : (
            <input id={id} type="text" inputMode={f.type === 'number' ? 'decimal' : 'text'} value={typeof value === 'string' ? value : ''} spellCheck={false} onChange={(e) => onChange({ ...values, [f.key]: e.target.value })} />
          )}
          {(f.type === 'directory' || f.type === 'file') && info?.canPickFiles && (
            <button
              type="button"
              onClick={async () => {
                const result = await invoke('dialog.openFile', { purpose: f.type === 'directory' ? 'folder' : 'config' });
                if (result.ok && result.value.path) onChange({ ...values, [f.key]: many && typeof value === 'string' && value ? `${value}\n${result.value.path}` : result.value.path });
              }}
            >
              Browse…
            </button>
          )}
        </div>
      </>
    );
  };
  return (
    <fieldset data-testid="user-config">
      <legend>Settings it needs</legend>
      <p className="muted small">The server asks for these values. A folder or file you give here is not granted by itself: grant it above if the server needs to use it.</p>
      {d.userConfig.map((f) => (
        <div key={f.key} className="field-row">
          {field(f)}
          {f.description && <InertText text={f.description} block fold={300} className="muted small" />}
        </div>
      ))}
      {configValues(d, values) === undefined && <p className="field-error">Fill in every required setting (numbers as numbers) to continue.</p>}
    </fieldset>
  );
}

// ── Step 3 ─────────────────────────────────────────────────────────────────

function ProbeView({ probe }: { probe: ProbeReport }) {
  return (
    <div className="probe" data-testid="probe-report">
      <dl className="facts">
        <dt>It calls itself</dt>
        <dd>
          <InertText text={probe.serverInfo.title ?? probe.serverInfo.name} /> <span className="muted">(<InertText text={`${probe.serverInfo.name} ${probe.serverInfo.version}`} />)</span>
        </dd>
      </dl>
      {probe.warnings.length > 0 && (
        <ul className="warnings">
          {probe.warnings.map((warning, i) => (
            <li key={i}>
              <Badge tone="warn">Warning</Badge> <InertText text={warning} />
            </li>
          ))}
        </ul>
      )}
      {probe.instructions && (
        <>
          <h3>Its instructions for AI apps</h3>
          <p className="muted small">Shown as the server wrote them. Airlock never follows them.</p>
          <InertText text={probe.instructions} block fold={800} className="quote" />
        </>
      )}
      <h3>
        Tools <span className="muted">({probe.tools.length})</span>
      </h3>
      <p className="muted small">
        “The server says” lists its own claims about each tool; they are hints. “Airlock’s reading” is what Airlock assumes, and the label is what happens
        when something calls the tool.
      </p>
      {probe.tools.length === 0 ? <p className="muted">It offers no tools.</p> : probe.tools.map((tool) => <ToolCard key={tool.name} tool={tool} />)}
      <h3>
        Prompts <span className="muted">({probe.prompts.length})</span>
      </h3>
      {probe.prompts.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul>
          {probe.prompts.map((prompt, i) => (
            <li key={i}>
              <code><InertText text={prompt.name} /></code> {prompt.description && <InertText text={prompt.description} fold={300} />}
            </li>
          ))}
        </ul>
      )}
      <h3>
        Resources <span className="muted">({probe.resources.length})</span>
      </h3>
      {probe.resources.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul>
          {probe.resources.map((resource, i) => (
            <li key={i}>
              <code><InertText text={resource.uri} /></code> {resource.name && <InertText text={resource.name} />}
            </li>
          ))}
        </ul>
      )}
      {probe.log.length > 0 && (
        <details>
          <summary>What it wrote to its log while inspected ({probe.log.length} lines)</summary>
          <InertText text={probe.log.join('\n')} block fold={4000} className="log" />
        </details>
      )}
    </div>
  );
}

// ── Step 4 ─────────────────────────────────────────────────────────────────

function GrantStep({
  disclosure: d,
  profile,
  onProfile,
  userConfig,
  onCancel,
  onBack,
  onCommitted,
}: {
  disclosure: Disclosure;
  profile: EditableProfile;
  onProfile: (p: EditableProfile) => void;
  userConfig: UserConfigValues | undefined;
  onCancel: () => void;
  onBack: () => void;
  onCommitted: (name: string) => void;
}) {
  const [name, setName] = useState(d.suggestedName);
  const [trusted, setTrusted] = useState(d.replaces?.trusted ?? false);
  const [enable, setEnable] = useState(d.replaces?.enabled ?? true);
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [showGrants, setShowGrants] = useState(false);
  const action = useAction();
  const ids = { name: useId(), nameError: useId(), trust: useId() };
  const nameCheck = ServerNameSchema.safeParse(name);
  const missing = d.secrets.filter((s) => s.required && !(secrets[s.name] ?? '').trim()).map((s) => s.name);

  const commit = async () => {
    const given = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v !== ''));
    const profileWithSecrets: EditableProfile = { ...profile, secrets: [...new Set([...profile.secrets, ...Object.keys(given)])] };
    const value = await action.run(() => invoke('install.commit', { draftId: d.draftId, name, profile: profileWithSecrets, trusted, secrets: given, enable, ...(userConfig ? { userConfig } : {}) }));
    if (value) onCommitted(value.name);
  };

  return (
    <div className="grant-step" data-testid="grant-step">
      <ProfileSummary profile={profile} />
      <button type="button" className="link-button" aria-expanded={showGrants} onClick={() => setShowGrants(!showGrants)}>
        {showGrants ? 'Hide permissions' : 'Change permissions'}
      </button>
      {showGrants && <ProfileEditor profile={profile} onChange={onProfile} suggestedPaths={d.suggestedPaths} />}

      <div className="field-row">
        <label htmlFor={ids.name}>Name in Airlock</label>
        <input
          id={ids.name}
          type="text"
          value={name}
          onChange={(e) => setName(e.target.value)}
          readOnly={d.replaces !== undefined}
          spellCheck={false}
          aria-invalid={!nameCheck.success}
          aria-describedby={ids.nameError}
        />
        <p id={ids.nameError} className={nameCheck.success ? 'muted small' : 'field-error'}>
          {nameCheck.success ? 'AI apps see its tools as NAME__tool.' : 'Use lowercase letters, digits and dashes, starting with a letter or digit (at most 48).'}
        </p>
      </div>

      {d.secrets.length > 0 && (
        <fieldset>
          <legend>Secrets</legend>
          <p className="muted small">Kept in your system’s secret store and given only to this server. Airlock never shows them again.</p>
          {d.secrets.map((secret) => (
            <div key={secret.name} className="field-row">
              <label>
                <code><InertText text={secret.name} /></code> {secret.required ? '(required)' : '(optional)'}{' '}
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
        <button type="button" className="primary" disabled={action.busy || !nameCheck.success || missing.length > 0} onClick={() => void commit()}>
          {action.busy ? 'Saving…' : enable ? 'Enable' : 'Save without starting'}
        </button>
      </div>
    </div>
  );
}
