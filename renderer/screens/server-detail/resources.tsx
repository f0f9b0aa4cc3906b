/**
 * The Resources section of a server's page: what it lists (paged, filtered),
 * reading one, and its templates with a form for their variables (the
 * server's completion suggestions offered) and their approval state.
 *
 * SECURITY: a resource's contents are the server's data (SECURITY.md rule 1):
 * text is shown inert — never as HTML, hidden characters made visible —
 * binary is described by type and size, never rendered, decoded or offered as
 * a download; the core caps the size and flags what looks wrong.
 */
import { useEffect, useId, useMemo, useState } from 'react';
import type { CatalogView, ResourceReadView, ResourceTemplateView } from '../../../shared/views';
import { invoke, on, useAction } from '../../api';
import { FieldError } from '../../components/field-error';
import { InertText } from '../../components/inert-text';
import { when } from '../../format';
import { formatBytes } from '../../server-requests';
import { expandTemplate, templateVariables } from '../../uri-template';
import { ArgumentFields, CatalogNotes, PinState, usePages, Warnings } from './catalog-parts';

const PAGE_SIZE = 20;

export function Resources({ catalog, onChange }: { catalog: CatalogView; onChange: (view: CatalogView) => void }) {
  const [filter, setFilter] = useState('');
  const [reading, setReading] = useState<string | undefined>();
  const filterId = useId();
  const matching = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    if (!needle) return catalog.resources;
    return catalog.resources.filter((r) => [r.name, r.title ?? '', r.uri, r.description ?? ''].some((text) => text.toLowerCase().includes(needle)));
  }, [catalog.resources, filter]);
  const { shown, pager, reset } = usePages(matching, PAGE_SIZE);
  return (
    <div data-testid="resources-section">
      <CatalogNotes catalog={catalog} />
      {!catalog.offers.resources && !catalog.problem && <p className="muted">{catalog.server} offers no resources.</p>}
      {catalog.offers.resources && (
        <>
          <p className="muted small">
            Resources are data the server offers to read: names, descriptions and contents are the server’s. Reading one here asks the server for it; nothing is
            shown as a web page or saved.
          </p>
          <h2>Listed ({catalog.resources.length})</h2>
          {catalog.resources.length > PAGE_SIZE && (
            <div className="field-row">
              <label htmlFor={filterId}>Find a resource</label>
              <input
                id={filterId}
                type="search"
                value={filter}
                spellCheck={false}
                placeholder="Name or address"
                onChange={(e) => {
                  setFilter(e.target.value);
                  reset();
                }}
              />
            </div>
          )}
          {catalog.resources.length === 0 ? (
            <p className="muted">It lists none right now.</p>
          ) : (
            <ul className="plain catalog-list" data-testid="resource-list">
              {shown.map((resource) => (
                <li key={resource.uri} className="catalog-item" data-testid="resource-item">
                  <div className="catalog-item-head">
                    <strong>
                      <InertText text={resource.title ?? resource.name} fold={120} />
                    </strong>{' '}
                    <code className="small">
                      <InertText text={resource.uri} fold={200} />
                    </code>
                    <span className="muted small">
                      {resource.mimeType && (
                        <>
                          {' '}
                          · <InertText text={resource.mimeType} fold={80} />
                        </>
                      )}
                      {resource.size !== undefined && <> · {formatBytes(resource.size)} (as the server says)</>}
                    </span>
                    <button
                      type="button"
                      className="small-button"
                      aria-expanded={reading === resource.uri}
                      onClick={() => setReading(reading === resource.uri ? undefined : resource.uri)}
                      data-testid="resource-read"
                    >
                      {reading === resource.uri ? 'Close' : 'Read'}
                    </button>
                  </div>
                  {resource.description && <InertText text={resource.description} quoted fold={300} className="small muted" />}
                  <Warnings warnings={resource.warnings} />
                  {reading === resource.uri && <ResourceReader server={catalog.server} uri={resource.uri} canWatch={catalog.offers.subscribe} />}
                </li>
              ))}
            </ul>
          )}
          {matching.length === 0 && filter && <p className="muted">Nothing matches.</p>}
          {pager}
          <h2>Templates ({catalog.resourceTemplates.length})</h2>
          {catalog.resourceTemplates.length === 0 ? (
            <p className="muted">It offers no resource templates.</p>
          ) : (
            <ul className="plain catalog-list" data-testid="template-list">
              {catalog.resourceTemplates.map((template) => (
                <TemplateItem key={template.uriTemplate} catalog={catalog} template={template} onChange={onChange} />
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}

function TemplateItem({ catalog, template, onChange }: { catalog: CatalogView; template: ResourceTemplateView; onChange: (view: CatalogView) => void }) {
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState<ReadonlyMap<string, string>>(new Map());
  const [reading, setReading] = useState<string | undefined>();
  const variables = useMemo(() => templateVariables(template.uriTemplate), [template.uriTemplate]);
  const expanded = useMemo(() => expandTemplate(template.uriTemplate, values), [template.uriTemplate, values]);
  const missing = variables.names.filter((name) => !variables.optional.has(name) && !(values.get(name) ?? ''));
  const withheld = template.pendingChange !== undefined || template.isNew;
  return (
    <li className="catalog-item" data-testid="template-item">
      <div className="catalog-item-head">
        <strong>
          <InertText text={template.title ?? template.name} fold={120} />
        </strong>{' '}
        <code className="small">
          <InertText text={template.uriTemplate} fold={200} />
        </code>
        {template.mimeType && (
          <span className="muted small">
            {' '}
            · <InertText text={template.mimeType} fold={80} />
          </span>
        )}
        <button type="button" className="small-button" aria-expanded={open} onClick={() => setOpen(!open)} disabled={withheld} data-testid="template-open">
          {open ? 'Close' : 'Fill in and read…'}
        </button>
      </div>
      {template.description && <InertText text={template.description} quoted fold={300} className="small muted" />}
      <Warnings warnings={template.warnings} />
      <PinState server={catalog.server} kind="resource-template" item={template} keyOf={template.uriTemplate} onApproved={onChange} />
      {open && !withheld && (
        <div className="panel template-form" data-testid="template-form">
          {variables.error && <FieldError message={variables.error} />}
          <ArgumentFields
            server={catalog.server}
            completionRef={{ type: 'ref/resource', uri: template.uriTemplate }}
            completions={catalog.offers.completions}
            args={variables.names.map((name) => ({ name, required: !variables.optional.has(name) }))}
            values={values}
            onChange={(name, value) => setValues((prev) => new Map(prev).set(name, value))}
            testId="template-variables"
          />
          <p className="small">
            It will read: <code data-testid="template-uri">{expanded.uri !== undefined ? <InertText text={expanded.uri} fold={300} /> : '—'}</code>
          </p>
          <FieldError message={expanded.error} />
          <div className="actions">
            <button
              type="button"
              className="primary"
              disabled={expanded.uri === undefined || missing.length > 0}
              onClick={() => setReading(expanded.uri)}
              data-testid="template-read"
            >
              Read
            </button>
            {missing.length > 0 && <span className="muted small">Fill in every variable first.</span>}
          </div>
          {reading !== undefined && <ResourceReader key={reading} server={catalog.server} uri={reading} canWatch={false} />}
        </div>
      )}
    </li>
  );
}

/** Reads one resource when shown; optionally watches it (the server says when it changes). */
function ResourceReader({ server, uri, canWatch }: { server: string; uri: string; canWatch: boolean }) {
  const action = useAction();
  const [read, setRead] = useState<ResourceReadView | undefined>();
  const [readAt, setReadAt] = useState<number | undefined>();
  const [watching, setWatching] = useState(false);
  const [updates, setUpdates] = useState(0);
  const { run } = action;
  useEffect(() => {
    let live = true;
    void run(() => invoke('resources.read', { server, uri })).then((value) => {
      if (!live || !value) return;
      setRead(value);
      setReadAt(Date.now());
    });
    return () => {
      live = false;
    };
  }, [server, uri, updates, run]);
  useEffect(() => {
    if (!watching) return undefined;
    const off = on('catalog.didChange', (change) => {
      if (change.server === server && change.kind === 'resource-updated' && change.uri === uri) setUpdates((n) => n + 1);
    });
    return () => {
      off();
      void invoke('resources.subscribe', { server, uri, subscribe: false });
    };
  }, [watching, server, uri]);
  return (
    <div className="resource-reader" data-testid="resource-reader" aria-live="polite">
      {canWatch && (
        <label className="check small">
          <input
            type="checkbox"
            checked={watching}
            onChange={async (e) => {
              const subscribe = e.target.checked;
              const result = await action.run(() => invoke('resources.subscribe', { server, uri, subscribe }));
              if (result) setWatching(subscribe);
            }}
          />{' '}
          Watch it: read it again when the server says it changed
        </label>
      )}
      {action.busy && !read && <p className="muted small">Reading…</p>}
      <FieldError message={action.error} />
      {read && (
        <>
          {readAt !== undefined && (
            <p className="muted small">
              Read {when(readAt)}
              {updates > 0 ? ` · updated ${updates} time${updates === 1 ? '' : 's'} since you started watching` : ''}.
            </p>
          )}
          {read.contents.length === 0 && <p className="muted">The server sent nothing for it.</p>}
          {read.contents.map((content, i) => (
            <div key={i} className="resource-content" data-testid="resource-content" data-kind={content.kind}>
              <p className="small muted">
                {read.contents.length > 1 && (
                  <>
                    <code>
                      <InertText text={content.uri} fold={200} />
                    </code>{' '}
                    ·{' '}
                  </>
                )}
                {content.kind === 'text' ? 'Text' : 'Binary data'}
                {content.mimeType && (
                  <>
                    , <InertText text={content.mimeType} fold={80} />
                  </>
                )}
                , {formatBytes(content.bytes)} — the server’s, shown as plain text
              </p>
              <Warnings warnings={content.warnings} />
              {content.kind === 'text' ? (
                <InertText text={content.text ?? ''} quoted fold={4000} className="output" empty="(empty)" />
              ) : (
                <p className="content-described small" data-testid="binary-summary">
                  {formatBytes(content.bytes)} of binary data
                  {content.mimeType && (
                    <>
                      {' '}
                      said to be <InertText text={content.mimeType} fold={80} />
                    </>
                  )}
                  . Not shown, not saved, and nothing to download: Airlock never opens a server’s files.
                </p>
              )}
            </div>
          ))}
        </>
      )}
    </div>
  );
}
