/**
 * One server's page (issue 5), in sections a person would name — Overview ·
 * Tools · Resources · Prompts · Permissions · Asks back · Activity · Log (see
 * ./server-detail/sections.tsx) —
 * under a header that always shows its state, why it is in that state, and
 * start / stop / restart. The section is part of the address
 * (`#/servers/NAME/tools`), so it can be linked and survives a reload.
 */
import { useState } from 'react';
import type { ServerDetail } from '../../shared/views';
import { invoke, useAction, useQuery, useRefreshOn } from '../api';
import { ServerBadges } from '../components/badges';
import { InertText } from '../components/inert-text';
import { Tabs } from '../components/tabs';
import { go, serverHref } from '../route';
import { useCatalog } from './server-detail/catalog-parts';
import { serverSections } from './server-detail/sections';
import { SignInPanel } from './server-detail/sign-in';

export function ServerDetailScreen({ name, tab }: { name: string; tab?: string }) {
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
  return <Detail server={detail.value} onChange={setDetail} reload={reload} initialTab={tab} />;
}

function Detail({ server: s, onChange, reload, initialTab }: { server: ServerDetail; onChange: (d: ServerDetail) => void; reload: () => void; initialTab?: string }) {
  const action = useAction();
  const [tab, setTab] = useState(initialTab ?? 'overview');
  const [catalog, onCatalogChange] = useCatalog(s.name);
  const sections = serverSections({ server: s, onChange, reload, catalog, onCatalogChange });
  const select = (id: string) => {
    setTab(id);
    // The address follows the section without a navigation (focus stays on the tab).
    window.history.replaceState(null, '', serverHref(s.name, id === 'overview' ? undefined : id));
  };
  const lifecycle = async (channel: 'servers.start' | 'servers.stop' | 'servers.restart') => {
    if (await action.run(() => invoke(channel, { name: s.name }))) reload();
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
          {(s.provenance.kind === 'npm' || s.provenance.kind === 'pypi') && (
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
      {s.blockedByOrganisation && (
        <div className="notice notice-error" data-testid="organisation-block" role="status">
          <p>
            <strong>Blocked by your organisation&apos;s policy.</strong> It does not run while the policy forbids it; its settings are kept, and it runs again if the
            policy changes.
          </p>
          <p className="small">
            Rule: <code>{s.blockedByOrganisation.key}</code> <code><InertText text={s.blockedByOrganisation.rule} /></code>
          </p>
        </div>
      )}
      {s.stateNote && !s.blockedByOrganisation ? (
        <p className={`notice ${s.state === 'crashed' || s.state === 'quarantined' || s.lastError ? 'notice-error' : 'notice-warning'}`} data-testid="state-note">
          <InertText text={s.stateNote} block />
        </p>
      ) : (
        s.lastError &&
        !s.blockedByOrganisation && (
          <div className="notice notice-error">
            <p>Its last error, in its own words where it gave them:</p>
            <InertText text={s.lastError} quoted />
          </div>
        )
      )}
      {action.error && (
        <div role="alert" className="notice notice-error" data-testid="detail-error">
          <InertText text={action.error} block />
        </div>
      )}
      {s.provenance.kind === 'remote' && <SignInPanel name={s.name} onChange={reload} />}
      <Tabs tabs={sections} selected={tab} onSelect={select} label={`${s.name}: sections`} testId="detail-tabs" />
    </section>
  );
}
