/**
 * Find servers: search the MCP Registry (or an organisation's sub-registry),
 * page by cursor, and pick one listing to review in the install flow. Nothing
 * is installed here. SECURITY: everything a listing carries — name, title,
 * description, repository, identifiers — is its publisher's words: rendered
 * through InertText, inside a quote marked as the publisher's, and a
 * repository address is text, never a link the page follows. What Airlock
 * worked out (supported or not, local or remote, deprecated) is said in
 * Airlock's own words beside it.
 */
import { useId, useState } from 'react';
import type { RegistryListingView, RegistrySearchView } from '../../shared/registry';
import { invoke, useAction, useQuery } from '../api';
import { Badge } from '../components/badges';
import { InertText, visible } from '../components/inert-text';
import { OrganisationLock } from '../components/organisation-lock';
import { when } from '../format';
import { registryInstallHref } from '../route';

function Listing({ listing }: { listing: RegistryListingView }) {
  const installable = listing.options.filter((option) => option.supported);
  const [choice, setChoice] = useState(installable[0]?.index);
  const choiceId = useId();
  return (
    <li className="panel registry-listing" data-testid={`listing-${listing.name}`}>
      <h3 className="listing-name">
        <code>
          <InertText text={listing.name} />
        </code>{' '}
        <span className="muted">
          <InertText text={listing.version} />
        </span>
      </h3>
      <p className="listing-facts" data-testid="listing-facts">
        {listing.status === 'active' ? <Badge tone="neutral">Active</Badge> : <Badge tone="danger">{listing.status === 'deprecated' ? 'Deprecated by its publisher' : 'Deleted by its publisher'}</Badge>}{' '}
        {listing.hasLocal && <Badge tone="ok">Runs here, in the sandbox</Badge>} {listing.hasRemote && <Badge tone="neutral">Remote</Badge>}{' '}
        <span className="muted small">
          {listing.sources.length ? listing.sources.join(', ') : 'no sources'}
          {listing.publishedAt && ` · published ${when(listing.publishedAt)}`}
        </span>
      </p>
      <div className="publisher-words" data-testid="publisher-words">
        <p className="muted small">In the publisher’s words, not Airlock’s:</p>
        <blockquote className="server-quote">
          {listing.title && (
            <strong>
              <InertText text={listing.title} fold={120} />
            </strong>
          )}
          <InertText text={listing.description} block fold={400} empty="No description." />
          {listing.repository && (
            <span className="small">
              Repository: <code><InertText text={listing.repository} fold={200} /></code>
            </span>
          )}
        </blockquote>
      </div>
      {listing.warnings.length > 0 && (
        <ul className="warnings">
          {listing.warnings.map((warning, i) => (
            <li key={i}>
              <Badge tone="warn">Warning</Badge> <InertText text={warning} />
            </li>
          ))}
        </ul>
      )}
      <ul className="listing-options" data-testid="listing-options" aria-label="Ways to run it">
        {listing.options.map((option) => (
          <li key={option.index}>
            <InertText text={option.label} fold={160} /> — {option.supported ? <span>Airlock can install this</span> : <span className="muted"><InertText text={option.reason ?? 'not supported'} /></span>}
          </li>
        ))}
      </ul>
      {installable.length === 0 ? (
        <p className="muted">Airlock cannot install this listing yet.</p>
      ) : (
        <div className="add-row">
          {installable.length > 1 && (
            <>
              <label htmlFor={choiceId}>Install</label>
              <select id={choiceId} value={choice} onChange={(e) => setChoice(Number(e.target.value))}>
                {installable.map((option) => (
                  <option key={option.index} value={option.index}>
                    {visible(option.label)}
                  </option>
                ))}
              </select>
            </>
          )}
          <a className="button primary" href={registryInstallHref({ name: listing.name, version: listing.version, ...(choice !== undefined ? { option: choice } : {}) })}>
            Review {listing.name}
          </a>
        </div>
      )}
    </li>
  );
}

export function FindServersScreen() {
  const [settings, , setSettings] = useQuery('registry.settings', {});
  const [text, setText] = useState('');
  const [pages, setPages] = useState<RegistrySearchView[]>([]);
  const [searched, setSearched] = useState<string | undefined>();
  const [address, setAddress] = useState('');
  const [editing, setEditing] = useState(false);
  const search = useAction();
  const setting = useAction();
  const ids = { text: useId(), address: useId() };

  const run = async (query: string, cursor?: string) => {
    const page = await search.run(() => invoke('registry.search', { ...(query ? { search: query } : {}), ...(cursor ? { cursor } : {}) }));
    if (!page) return;
    setSearched(query);
    setPages((before) => (cursor ? [...before, page] : [page]));
  };
  const last = pages.at(-1);
  const listings = pages.flatMap((page) => page.servers);
  const skipped = pages.reduce((sum, page) => sum + page.skipped, 0);

  const saveAddress = async (baseUrl: string | null) => {
    const value = await setting.run(() => invoke('registry.setBaseUrl', { baseUrl }));
    if (!value) return;
    setSettings(value);
    setEditing(false);
    setPages([]);
    setSearched(undefined);
  };

  return (
    <section aria-labelledby="find-title" className="find-servers" data-testid="find-servers">
      <h1 id="find-title" tabIndex={-1}>
        Find servers
      </h1>
      <p className="muted">
        Search the MCP Registry. A listing is its publisher’s description, not a review: whatever you pick is shown in full — where it comes from, the exact command,
        the settings and secrets it asks for — before anything is installed, and then runs in the sandbox.
      </p>
      <div className="panel" data-testid="registry-setting">
        <OrganisationLock setting="registry" />
        {settings.status === 'ok' && !editing && (
          <p>
            Searching <code>{settings.value.baseUrl}</code> {settings.value.official ? '(the official MCP Registry)' : '(your organisation’s registry)'}.{' '}
            <button type="button" className="link-button" onClick={() => { setAddress(settings.value.official ? '' : settings.value.baseUrl); setEditing(true); }}>
              Change
            </button>
          </p>
        )}
        {settings.status === 'error' && <p role="alert">{settings.message}</p>}
        {editing && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void saveAddress(address.trim() === '' ? null : address.trim());
            }}
          >
            <label htmlFor={ids.address}>Registry address (https; empty: the official one)</label>
            <div className="add-row">
              <input id={ids.address} type="text" value={address} onChange={(e) => setAddress(e.target.value)} placeholder="https://registry.modelcontextprotocol.io" spellCheck={false} />
              <button type="submit" className="primary" disabled={setting.busy}>
                Save
              </button>
              <button type="button" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </div>
            {setting.error && (
              <p className="field-error" role="alert">
                <InertText text={setting.error} />
              </p>
            )}
          </form>
        )}
      </div>
      <form
        className="add-row"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void run(text.trim());
        }}
      >
        <label htmlFor={ids.text} className="visually-hidden">
          Search servers by name
        </label>
        <input id={ids.text} type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="Search by name, e.g. filesystem" spellCheck={false} />
        <button type="submit" className="primary" disabled={search.busy}>
          {search.busy && !last ? 'Searching…' : 'Search'}
        </button>
      </form>
      {search.error && (
        <div role="alert" className="notice notice-error" data-testid="find-error">
          <InertText text={search.error} block />
        </div>
      )}
      {searched !== undefined && (
        <p className="muted small" aria-live="polite" data-testid="find-summary">
          {listings.length === 0 ? (searched ? `No servers match “${searched}”.` : 'The registry lists no servers.') : `${listings.length} listing${listings.length === 1 ? '' : 's'}${last?.nextCursor ? ' so far' : ''}`}
          {last?.cached && ' (shown from Airlock’s brief cache)'}
        </p>
      )}
      {skipped > 0 && (
        <div className="notice notice-warning">
          {skipped} listing(s) could not be read and are not shown:
          <ul>
            {pages.flatMap((page) => page.problems).map((problem, i) => (
              <li key={i}>
                <InertText text={problem} />
              </li>
            ))}
          </ul>
        </div>
      )}
      <ul className="registry-results" data-testid="registry-results">
        {listings.map((listing) => (
          <Listing key={`${listing.name}@${listing.version}`} listing={listing} />
        ))}
      </ul>
      {last?.nextCursor && (
        <div className="actions">
          <button type="button" onClick={() => void run(searched ?? '', last.nextCursor)} disabled={search.busy}>
            {search.busy ? 'Loading…' : 'More results'}
          </button>
        </div>
      )}
    </section>
  );
}
