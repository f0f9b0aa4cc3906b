/** Install step 2: everything it would get, before anything runs — summary, warnings, source, the exact command, settings, secrets and permissions. */
import type { RegistryDisclosure } from '../../../shared/registry';
import type { Disclosure } from '../../../shared/views';
import { ArgvView } from '../../components/argv-view';
import { Badge } from '../../components/badges';
import { EnvEditor } from '../../components/env-editor';
import { InertText } from '../../components/inert-text';
import { ProfileEditor, type EditableProfile } from '../../components/profile-editor';
import { ProfileSummary } from '../../components/profile-summary';
import { ProvenanceFacts } from '../../components/provenance';
import { PlatformWeaker } from '../../components/sandbox-guarantees';

/** The listing this draft came from: the registry's facts, then the publisher's words for the server and each input it declares. */
function RegistryListing({ listing: r }: { listing: RegistryDisclosure }) {
  return (
    <div className="registry-origin" data-testid="registry-listing">
      <p className="muted small">
        Chosen from {r.optionCount} way{r.optionCount === 1 ? '' : 's'} to run it: <InertText text={r.option.label} />. In the publisher’s words, not Airlock’s:
      </p>
      <blockquote className="server-quote">
        {r.title && (
          <strong>
            <InertText text={r.title} fold={120} />
          </strong>
        )}
        <InertText text={r.description} block fold={400} empty="No description." />
        {r.repository && (
          <span className="small">
            Repository: <code><InertText text={r.repository} fold={200} /></code>
          </span>
        )}
        {r.inputs.length > 0 && (
          <ul data-testid="registry-inputs">
            {r.inputs.map((input) => (
              <li key={`${input.kind}:${input.name}`}>
                {input.kind} <code><InertText text={input.name} /></code>
                {input.description && (
                  <>
                    : <InertText text={input.description} fold={200} />
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </blockquote>
    </div>
  );
}

/**
 * Arguments that make node or python run code from outside the program
 * Airlock pinned: refused (inspect and add are off) until the person allows
 * them, then still shown, as allowed.
 */
function CodeArguments({ d, busy, onAllow }: { d: Disclosure; busy: boolean; onAllow?: () => void }) {
  const allowed = d.codeArgumentsAllowed === true;
  return (
    <div className={`notice ${allowed ? 'notice-warning' : 'notice-error'}`} data-testid="code-arguments">
      <p>
        <strong>It runs code from outside what Airlock pinned and checked.</strong>{' '}
        {allowed
          ? 'You allowed these arguments: they run with the server, and Airlock did not check what they load.'
          : 'Airlock will not inspect or add it with these arguments, as it refuses NODE_OPTIONS, unless you allow them.'}
      </p>
      <ul>
        {d.codeArguments!.map((item) => (
          <li key={`${item.arg}:${item.text}`}>
            <code>
              <InertText text={item.text} fold={300} />
            </code>{' '}
            — {item.reason}
          </li>
        ))}
      </ul>
      {!allowed &&
        (onAllow ? (
          <button type="button" className="danger" onClick={onAllow} disabled={busy}>
            Allow these arguments
          </button>
        ) : (
          <p className="small">To allow them, add it by hand with its command line (`airlock add … --allow-code-arguments`).</p>
        ))}
    </div>
  );
}

export function DisclosureView({
  disclosure: d,
  profile,
  onProfile,
  env,
  onEnv,
  headerSecrets,
  onHeaderSecrets,
  busy,
  onAllowCodeArguments,
}: {
  disclosure: Disclosure;
  profile: EditableProfile;
  onProfile: (p: EditableProfile) => void;
  env: Record<string, string>;
  onEnv: (env: Record<string, string>) => void;
  /** A remote server's header secrets typed here, before connecting (it is reached with them). */
  headerSecrets: Record<string, string>;
  onHeaderSecrets: (values: Record<string, string>) => void;
  busy: boolean;
  /** Reads the source again with the person's consent to its code arguments (absent: it cannot be allowed here, e.g. an import). */
  onAllowCodeArguments?: () => void;
}) {
  return (
    <div className="disclosure" data-testid="disclosure">
      {d.codeArguments && d.codeArguments.length > 0 && <CodeArguments d={d} busy={busy} {...(onAllowCodeArguments ? { onAllow: onAllowCodeArguments } : {})} />}
      {d.provenance.kind !== 'remote' && <ProfileSummary profile={profile} />}
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
      <h3>{d.provenance.kind === 'remote' ? 'Where it runs' : 'Where it comes from'}</h3>
      <ProvenanceFacts provenance={d.provenance} importedFrom={d.importedFrom} />
      {d.registry && <RegistryListing listing={d.registry} />}
      {d.provenance.kind === 'remote' ? (
        <>
          <p className="muted small">
            Nothing has been sent to this server yet. Airlock does not run it: no sandbox is around it, Airlock decides which calls reach it and reads every one of its tools as reaching outside your machine.
          </p>
          <h3>Secrets sent to it</h3>
          {d.secrets.length === 0 ? (
            <p className="muted">No headers with secrets. If it asks you to sign in, its sign-in page opens in your browser when Airlock connects.</p>
          ) : (
            <ul className="plain header-secrets" data-testid="header-secrets">
              {d.secrets.map((secret) => (
                <li key={secret.name} className="field-row">
                  <span>
                    <code><InertText text={secret.name} /></code> {secret.description && <InertText text={secret.description} />}
                  </span>
                  {secret.held ? (
                    <span className="muted small">Given; kept in Airlock’s secret store.</span>
                  ) : (
                    <input
                      type="password"
                      autoComplete="off"
                      aria-label={`Value of ${secret.name}`}
                      aria-required={secret.required}
                      value={headerSecrets[secret.name] ?? ''}
                      onChange={(e) => onHeaderSecrets({ ...headerSecrets, [secret.name]: e.target.value })}
                      disabled={busy}
                    />
                  )}
                </li>
              ))}
            </ul>
          )}
        </>
      ) : (
        <LocalParts d={d} profile={profile} onProfile={onProfile} env={env} onEnv={onEnv} busy={busy} />
      )}
    </div>
  );
}

function LocalParts({
  d,
  profile,
  onProfile,
  env,
  onEnv,
  busy,
}: {
  d: Disclosure;
  profile: EditableProfile;
  onProfile: (p: EditableProfile) => void;
  env: Record<string, string>;
  onEnv: (env: Record<string, string>) => void;
  busy: boolean;
}) {
  return (
    <>
      <h3>The exact command that will run</h3>
      <p className="muted small">This runs a program on your computer, inside the sandbox described on this page.</p>
      <ArgvView argv={d.argv} risks={d.risks} cwd={d.cwd} />
      <h3>Settings and secrets</h3>
      <EnvEditor env={env} onChange={onEnv} busy={busy} />
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
      <p className="muted small">Nothing beyond the defaults is granted until you choose it here; you can change it again at any time on the server’s page.</p>
      <PlatformWeaker rows={d.platformWeaker} profile={profile} />
      <ProfileEditor profile={profile} onChange={onProfile} proposals={d.proposals} busy={busy} />
    </>
  );
}
