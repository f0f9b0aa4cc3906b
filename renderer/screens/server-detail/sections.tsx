/**
 * The sections of a server's page, one tab each: Overview · Tools · Try a
 * tool · Screens (when its tools have any) · Resources · Prompts ·
 * Permissions · Asks back · Activity · Log.
 * `serverSections()` returns them as a list, so a feature that adds a section
 * adds an entry here and nothing else changes.
 */
import { useEffect, useState } from 'react';
import type { CatalogView, GrantUseView, ServerDetail, ToolView } from '../../../shared/views';
import { invoke, useAction, type Query } from '../../api';
import { ArgvView } from '../../components/argv-view';
import { Badge } from '../../components/badges';
import { EnvEditor } from '../../components/env-editor';
import { FieldError } from '../../components/field-error';
import { InertText } from '../../components/inert-text';
import { ProfileEditor } from '../../components/profile-editor';
import { OrganisationLock } from '../../components/organisation-lock';
import { ProfileSummary } from '../../components/profile-summary';
import { ProvenanceFacts } from '../../components/provenance';
import { ResourceLimits } from '../../components/resource-limits';
import { SandboxGuarantees } from '../../components/sandbox-guarantees';
import type { TabSpec } from '../../components/tabs';
import { ToolConsole } from '../../components/tool-console';
import { ClaimsEvidence, ToolsTable } from '../../components/tool-reading';
import { editable, when } from '../../format';
import { AuditTable } from '../../components/audit-table';
import { AsksBack } from './asks-back';
import { pendingCount } from './catalog-parts';
import { CodeChanged, PendingChange, PendingNewTool, RemoveServer, SecretsEditor, UnsandboxedConsent } from './parts';
import { Prompts } from './prompts';
import { Resources } from './resources';
import { ServerScreens } from './server-screens';

/** What every section gets: the server, a way to show the core's newer answer, and to reload. */
export interface SectionContext {
  server: ServerDetail;
  onChange: (detail: ServerDetail) => void;
  reload: () => void;
  /** What it offers besides tools (resources, prompts), and a way to show the core's newer answer. */
  catalog: Query<CatalogView>;
  onCatalogChange: (view: CatalogView) => void;
}

/** The page's sections, in the order a person reads them. */
export function serverSections(context: SectionContext): TabSpec[] {
  const s = context.server;
  const pending = s.tools.filter((tool) => tool.pendingChange || tool.isNew || tool.claimsCheck?.state === 'withdrawn').length;
  const attention = pending > 0 || s.codeChange !== undefined;
  const catalog = context.catalog.status === 'ok' ? context.catalog.value : undefined;
  return [
    { id: 'overview', label: 'Overview', attention, render: () => <Overview {...context} /> },
    { id: 'tools', label: 'Tools', badge: s.tools.length, attention: pending > 0, render: () => <Tools {...context} /> },
    { id: 'try', label: 'Try a tool', render: () => <ToolConsole server={s.name} tools={s.tools} /> },
    // Its tools' screens (MCP Apps), when any tool names one.
    ...(s.tools.some((tool) => tool.screen) ? [{ id: 'screens', label: 'Screens', render: () => <ServerScreens server={s.name} /> }] : []),
    {
      id: 'resources',
      label: 'Resources',
      ...(catalog ? { badge: catalog.resources.length + catalog.resourceTemplates.length, attention: pendingCount(catalog.resourceTemplates) > 0 } : {}),
      render: () => <CatalogSection context={context} show={(view) => <Resources catalog={view} onChange={context.onCatalogChange} />} />,
    },
    {
      id: 'prompts',
      label: 'Prompts',
      ...(catalog ? { badge: catalog.prompts.length, attention: pendingCount(catalog.prompts) > 0 } : {}),
      render: () => <CatalogSection context={context} show={(view) => <Prompts catalog={view} onChange={context.onCatalogChange} />} />,
    },
    { id: 'permissions', label: 'Permissions', render: () => <Permissions {...context} /> },
    { id: 'asks', label: 'Asks back', render: () => <AsksBack server={s} /> },
    { id: 'activity', label: 'Activity', badge: s.recentCalls.length ? s.recentCalls.length : undefined, render: () => <Activity {...context} /> },
    { id: 'log', label: 'Log', render: () => <Log {...context} /> },
  ];
}

/** The catalog as loaded for the page: loading, a problem, or the section. */
function CatalogSection({ context, show }: { context: SectionContext; show: (view: CatalogView) => React.ReactNode }) {
  if (context.catalog.status === 'loading') return <p className="muted">Loading…</p>;
  if (context.catalog.status === 'error') {
    return (
      <p role="alert" className="notice notice-error">
        <InertText text={context.catalog.message} />
      </p>
    );
  }
  return <>{show(context.catalog.value)}</>;
}

function Overview({ server: s, onChange }: SectionContext) {
  const pending = s.tools.filter((tool) => tool.pendingChange);
  const added = s.tools.filter((tool) => tool.isNew);
  const contradicted = s.tools.filter((tool) => tool.claimsCheck?.state === 'withdrawn');
  return (
    <>
      {s.codeChange && <CodeChanged server={s} onApproved={onChange} />}
      {contradicted.length > 0 && <ClaimsToReview server={s} tools={contradicted} onChange={onChange} />}
      {pending.length > 0 && (
        <section className="panel panel-warn" aria-labelledby="pending-title" data-testid="pending-changes">
          <h2 id="pending-title">Changed since you approved it</h2>
          <p>These tools changed their definition. They stay paused — no call reaches them — until you approve the new definition.</p>
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
      <h2>What it may do</h2>
      {s.provenance.kind === 'remote' ? (
        <p data-testid="overview-summary">
          It runs on another computer, not under Airlock: no sandbox is around it, and whatever it does there is up to its owner. Airlock decides
          which calls reach it, reads every one of its tools as reaching outside your machine, and records each call.
          {s.profile.secrets.length > 0 && <> It is sent the secrets {s.profile.secrets.join(', ')} (in its headers), and only it.</>}
        </p>
      ) : (
        <ProfileSummary profile={editable(s.profile)} testId="overview-summary" />
      )}
      <h2>{s.provenance.kind === 'remote' ? 'Where it runs' : 'Where it comes from'}</h2>
      <ProvenanceFacts provenance={s.provenance} importedFrom={s.importedFrom} />
      {s.provenance.kind !== 'remote' && (
        <>
          <h3>The exact command</h3>
          <ArgvView argv={[s.spec.command, ...s.spec.args]} risks={[]} cwd={s.spec.cwd} />
        </>
      )}
      <p className="muted small">Added {when(s.createdAt)}.</p>
      <h2>Remove</h2>
      <RemoveServer name={s.name} remote={s.provenance.kind === 'remote'} />
    </>
  );
}

/** Asks the core to record the person's review of what a tool did against its claims (the evidence they saw: its `last`). */
function useClaimsReview(s: ServerDetail, onChange: (detail: ServerDetail) => void) {
  const action = useAction();
  const review = async (tool: ToolView, decision: 'keep' | 'distrust') => {
    const last = tool.claimsCheck?.last;
    if (!last) return;
    const value = await action.run(() => invoke('servers.reviewClaims', { name: s.name, tool: tool.name, decision, last }));
    if (value) onChange(value);
  };
  return { action, review };
}

/** Tools that did what their claims say they do not, at the top of the page until the person reviews them. */
function ClaimsToReview({ server: s, tools, onChange }: { server: ServerDetail; tools: ToolView[]; onChange: (detail: ServerDetail) => void }) {
  const { action, review } = useClaimsReview(s, onChange);
  return (
    <section className="panel panel-warn" aria-labelledby="claims-title" data-testid="claims-to-review">
      <h2 id="claims-title">Did what {tools.length === 1 ? 'its claims say it does' : 'their claims say they do'} not</h2>
      <p>
        While these tools ran, Airlock saw them do something their own claims rule out. Airlock no longer relies on those claims: each call asks
        first, whatever the server’s trust or sandbox, and an “always allow” you gave before asks again — until you look at what they did and decide.
      </p>
      <FieldError message={action.error} />
      {tools.map((tool) => (
        <div key={tool.name} className="claims-tool">
          <h3>
            <code>
              <InertText text={tool.name} />
            </code>
          </h3>
          <ClaimsEvidence tool={tool} onReview={(t, decision) => void review(t, decision)} busy={action.busy} />
        </div>
      ))}
    </section>
  );
}

function Tools({ server: s, reload, onChange }: SectionContext) {
  const action = useAction();
  const claims = useClaimsReview(s, onChange);
  return (
    <>
      <OrganisationLock setting="alwaysForDestructive" />
      <FieldError message={action.error ?? claims.action.error} />
      <ToolsTable
        tools={s.tools}
        onReviewClaims={(tool, decision) => void claims.review(tool, decision)}
        busy={claims.action.busy}
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
          onClick={async () => {
            const value = await action.run(() => invoke('servers.revokeRules', { name: s.name }));
            if (value) onChange(value);
          }}
        >
          Revoke all rules
        </button>
        <span className="muted small">Every call then asks again, as on the first day.</span>
      </div>
    </>
  );
}

function Permissions({ server: s, onChange, reload }: SectionContext) {
  const action = useAction();
  const saved = editable(s.profile);
  const savedKey = JSON.stringify(saved);
  // Edits show at once; the core's answer (or a refusal) puts back what is saved.
  const [edited, setEdited] = useState<typeof saved | undefined>();
  const [trustChoice, setTrustChoice] = useState<boolean | undefined>();
  useEffect(() => setEdited(undefined), [savedKey]);
  useEffect(() => setTrustChoice(undefined), [s.trusted]);
  const profile = edited ?? saved;
  const save = async (request: () => ReturnType<typeof invoke<'servers.updateProfile'>>) => {
    const value = await action.run(request);
    if (value) onChange(value);
  };
  const remote = s.provenance.kind === 'remote';
  return (
    <>
      {remote ? (
        <p className="notice notice-warning" data-testid="detail-summary">
          This server runs on another computer: Airlock has no sandbox around it, so there are no file or network grants to choose. What it
          gets from you is what calls send it, and the secrets below (in its headers).
        </p>
      ) : (
        <LocalGrants s={s} profile={profile} action={action} save={save} setEdited={setEdited} onChange={onChange} />
      )}
      {remote && action.error && (
        <div role="alert" className="notice notice-error" data-testid="detail-error">
          <InertText text={action.error} block />
        </div>
      )}
      <h2>Secrets</h2>
      <SecretsEditor server={s} onChange={onChange} />
      {s.grants.length > 0 && <GrantsInUse server={s} onChange={onChange} />}
      <h2>Trust</h2>
      <OrganisationLock setting="trust" />
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
        {remote
          ? 'Trusting it lets its tools that say they only read run without asking; nothing contains a remote server, so its claims are the only thing that would skip the question. Calls that change things still ask.'
          : 'Trusting it lets its tools that say they only read run without asking; calls that change things still ask, and the sandbox limits hold either way.'}
      </p>
      {!remote && <ResourceLimits limits={s.limits} note={s.limitsNote} />}
      {!remote && <SandboxGuarantees />}
    </>
  );
}

/** The sandbox grants of a server Airlock runs: summary, the unsandboxed consent, the grants and settings editors. */
function LocalGrants({
  s,
  profile,
  action,
  save,
  setEdited,
  onChange,
}: {
  s: SectionContext['server'];
  profile: ReturnType<typeof editable>;
  action: ReturnType<typeof useAction>;
  save: (request: () => ReturnType<typeof invoke<'servers.updateProfile'>>) => Promise<void>;
  setEdited: (profile: ReturnType<typeof editable> | undefined) => void;
  onChange: SectionContext['onChange'];
}) {
  return (
    <>
      <ProfileSummary profile={profile} testId="detail-summary" />
      {!s.sandboxed && (
        <div className="notice notice-error">
          <strong>This server runs without a sandbox.</strong> You allowed it on {when(s.profile.unsandboxed?.consentedAt)}.{' '}
          <button type="button" className="small-button" onClick={() => void save(() => invoke('servers.setUnsandboxed', { name: s.name, consent: false }))}>
            Take that back
          </button>
        </div>
      )}
      {s.sandboxed && <OrganisationLock setting="unsandboxed" />}
      {s.sandboxed && <UnsandboxedConsent name={s.name} onChange={onChange} />}
      {action.error && (
        <div role="alert" className="notice notice-error" data-testid="detail-error">
          <InertText text={action.error} block />
        </div>
      )}
      <p className="muted small">Changes are saved at once; a running server restarts under the new rules.</p>
      <ProfileEditor
        profile={profile}
        busy={action.busy}
        onChange={async (next) => {
          setEdited(next);
          await save(() => invoke('servers.updateProfile', { name: s.name, profile: next }));
          setEdited(undefined);
        }}
      />
      <EnvEditor env={s.spec.env} busy={action.busy} onChange={(env) => void save(() => invoke('servers.setEnv', { name: s.name, env }))} />
    </>
  );
}

const GRANT_KIND: Record<GrantUseView['kind'], string> = { read: 'Reads', write: 'Writes', domain: 'Reaches', secret: 'Secret' };

/**
 * Each grant with when Airlock last saw it used; one unused for 30 days is
 * suggested for removal, with a button — never removed without the person.
 */
function GrantsInUse({ server: s, onChange }: { server: ServerDetail; onChange: (detail: ServerDetail) => void }) {
  const action = useAction();
  const remove = async (grant: GrantUseView) => {
    if (grant.kind === 'secret') {
      const value = await action.run(() => invoke('servers.clearSecret', { name: s.name, key: grant.value }));
      if (value) onChange(value);
      return;
    }
    const profile = editable(s.profile);
    const under = (path: string) => path === grant.value || path.startsWith(`${grant.value.replace(/\/+$/, '')}/`);
    if (grant.kind === 'read') profile.filesystem.read = profile.filesystem.read.filter((path) => path !== grant.value);
    if (grant.kind === 'write') {
      profile.filesystem.write = profile.filesystem.write.filter((path) => path !== grant.value);
      // Its trusted-files exceptions go with it (they mean nothing outside a write grant).
      if (profile.filesystem.writeTrusted) profile.filesystem.writeTrusted = profile.filesystem.writeTrusted.filter((path) => !under(path));
    }
    if (grant.kind === 'domain') profile.network.allowedDomains = profile.network.allowedDomains.filter((domain) => domain !== grant.value);
    const value = await action.run(() => invoke('servers.updateProfile', { name: s.name, profile }));
    if (value) onChange(value);
  };
  return (
    <section aria-labelledby="grants-use-title" data-testid="grants-in-use">
      <h2 id="grants-use-title">When each grant was last used</h2>
      <p className="muted small">
        From what Airlock sees while the server runs: a change in a folder it may write, a connection its grant let through, a call it handled
        holding a secret. Reads cannot be seen. A grant unused for 30 days is suggested for removal; nothing is removed unless you remove it.
      </p>
      <FieldError message={action.error} />
      <ul className="plain grant-use">
        {s.grants.map((grant) => (
          <li key={`${grant.kind}:${grant.value}`} data-testid={`grant-use-${grant.kind}`} className={grant.suggestRemoval ? 'grant-unused' : undefined}>
            <span className="muted small">{GRANT_KIND[grant.kind]}</span> <code><InertText text={grant.value} /></code>{' '}
            <span className="small">{grant.note}</span>
            {grant.suggestRemoval && (
              <>
                {' '}
                <Badge tone="warn">Unused for 30 days — consider removing it</Badge>{' '}
                <button type="button" className="small-button" disabled={action.busy} onClick={() => void remove(grant)}>
                  Remove this grant
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Activity({ server: s, reload }: SectionContext) {
  return s.recentCalls.length === 0 ? <p className="muted">No calls yet.</p> : <AuditTable entries={s.recentCalls} showServer={false} onChanged={reload} />;
}

function Log({ server: s }: SectionContext) {
  if (s.logs.length === 0) return <p className="muted">Nothing logged.</p>;
  return (
    <div className="log" data-testid="server-log" tabIndex={0} aria-label="Server log">
      {s.logs.map((line, i) => (
        <div key={i} className="log-line">
          <span className="muted">{when(line.time)}</span> <span className="log-source">[<InertText text={line.source} />]</span> <InertText text={line.text} fold={400} />
        </div>
      ))}
    </div>
  );
}
