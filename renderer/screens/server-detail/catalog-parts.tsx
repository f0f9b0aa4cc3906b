/**
 * Pieces the Resources and Prompts sections share: the catalog query (kept
 * fresh when the server's lists change), a definition's approval state with
 * its diff, the server's flags, an argument form with the server's
 * completion suggestions, and a pager. Everything the server wrote is shown
 * through <InertText>.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { RequestOf } from '../../../shared/ipc';
import type { CatalogView, CatalogWarning, PromptView, ResourceTemplateView } from '../../../shared/views';
import { invoke, on, useAction, useQuery, useRefreshOn, type Query } from '../../api';
import { Badge } from '../../components/badges';
import { DiffView } from '../../components/diff-view';
import { FieldError } from '../../components/field-error';
import { InertText, visible } from '../../components/inert-text';
import { when } from '../../format';

/** One server's catalog, reloaded when its resources or prompts change. */
export function useCatalog(name: string): [Query<CatalogView>, (view: CatalogView) => void] {
  const [catalog, reload, set] = useQuery('catalog.get', { name });
  useEffect(
    () =>
      on('catalog.didChange', (change) => {
        if (change.server === name && change.kind !== 'resource-updated') reload();
      }),
    [name, reload],
  );
  // A server that starts (or stops) lists its catalog anew.
  useRefreshOn(['servers.didChange'], reload);
  return [catalog, set];
}

/** Definitions waiting for the person: changed since approved, or new since install. */
export function pendingCount(items: ReadonlyArray<Pick<PromptView, 'pendingChange' | 'isNew'>>): number {
  return items.filter((item) => item.pendingChange || item.isNew).length;
}

/** The server's flags on something it offers (never a verdict). */
export function Warnings({ warnings }: { warnings: CatalogWarning[] }) {
  if (warnings.length === 0) return null;
  return (
    <ul className="result-warnings" data-testid="catalog-warnings">
      {warnings.map((warning, i) => (
        <li key={i} data-kind={warning.kind}>
          ⚠ {warning.message}
        </li>
      ))}
    </ul>
  );
}

/** Why the lists are empty, or that they were cut short. */
export function CatalogNotes({ catalog }: { catalog: CatalogView }) {
  return (
    <>
      {catalog.problem && (
        <p className="notice notice-warning" data-testid="catalog-problem">
          <InertText text={catalog.problem} />
        </p>
      )}
      {catalog.truncated.length > 0 && (
        <p className="notice notice-warning" data-testid="catalog-truncated">
          Airlock stopped reading early (a limit was reached): <InertText text={catalog.truncated.join(', ')} />. Some items may be missing.
        </p>
      )}
    </>
  );
}

/**
 * A prompt's or template's approval (UX 14): approved when; new since install
 * (approve it); or changed since approved — the diff, and it is withheld from
 * apps using Airlock until approved again.
 */
export function PinState({
  server,
  kind,
  item,
  keyOf,
  onApproved,
}: {
  server: string;
  kind: 'prompt' | 'resource-template';
  item: PromptView | ResourceTemplateView;
  keyOf: string;
  onApproved: (view: CatalogView) => void;
}) {
  const action = useAction();
  const [kept, setKept] = useState(false);
  const approve = async () => {
    const value = await action.run(() => invoke('catalog.approve', { name: server, kind, key: keyOf, fingerprint: item.fingerprint }));
    if (value) onApproved(value);
  };
  if (item.pendingChange) {
    return (
      <div className="panel panel-warn pin-state" data-testid="pin-changed">
        <p>
          <strong>Changed since you approved it.</strong> Apps using Airlock do not get it{kind === 'prompt' ? ', and it cannot be filled in here,' : ''} until you approve the new
          definition.
        </p>
        <DiffView diff={item.pendingChange.diff} />
        <p className="small">
          New definition’s fingerprint: <code className="hash">{item.fingerprint}</code>
        </p>
        <FieldError message={action.error} />
        {kept ? (
          <p className="muted">Kept withheld. It stays that way until you approve it.</p>
        ) : (
          <div className="actions">
            <button type="button" onClick={() => setKept(true)}>
              Keep withheld
            </button>
            <button type="button" className="primary" disabled={action.busy} onClick={() => void approve()}>
              Approve this definition
            </button>
          </div>
        )}
      </div>
    );
  }
  if (item.isNew) {
    return (
      <div className="pin-state small" data-testid="pin-new">
        <Badge tone="warn">Added after install</Badge> Not reviewed yet: the server listed it after you added it. Apps using Airlock do not get it
        {kind === 'prompt' ? ', and it cannot be filled in here,' : ''} until you approve it.{' '}
        <button type="button" className="small-button" disabled={action.busy} onClick={() => void approve()}>
          Approve it
        </button>
        <FieldError message={action.error} />
      </div>
    );
  }
  return (
    <p className="pin-state small muted" data-testid="pin-approved">
      Approved {when(item.approvedAt)}; a change to it will be shown here first.
    </p>
  );
}

type CompletionRef = RequestOf<'completion.complete'>['ref'];

/** The server's suggestions for one argument as it is typed (debounced; errors show nothing). */
function useCompletion(server: string, ref: CompletionRef, name: string, value: string, context: ReadonlyMap<string, string>, enabled: boolean) {
  const [values, setValues] = useState<string[]>([]);
  const [more, setMore] = useState(false);
  const contextKey = JSON.stringify([...context]);
  const refKey = JSON.stringify(ref);
  useEffect(() => {
    if (!enabled) return undefined;
    let live = true;
    const timer = window.setTimeout(() => {
      const args = Object.fromEntries(JSON.parse(contextKey) as Array<[string, string]>);
      void invoke('completion.complete', { server, ref: JSON.parse(refKey) as CompletionRef, argument: { name, value }, context: { arguments: args } }).then((result) => {
        if (!live) return;
        setValues(result.ok ? result.value.values : []);
        setMore(result.ok ? result.value.hasMore === true || (result.value.total ?? 0) > result.value.values.length : false);
      });
    }, 200);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [server, refKey, name, value, contextKey, enabled]);
  return { values, more };
}

const SUGGESTIONS_SHOWN = 8;

/**
 * A form for a prompt's arguments or a template's variables. Labels and
 * descriptions are the server's; its completion suggestions are offered as
 * buttons (server text, inert), never filled in by themselves.
 */
export function ArgumentFields({
  server,
  completionRef,
  completions,
  args,
  values,
  onChange,
  testId,
}: {
  server: string;
  completionRef: CompletionRef;
  /** The server offers completion. */
  completions: boolean;
  args: ReadonlyArray<{ name: string; description?: string; required?: boolean }>;
  values: ReadonlyMap<string, string>;
  onChange: (name: string, value: string) => void;
  testId?: string;
}) {
  if (args.length === 0) return <p className="muted small">It takes no arguments.</p>;
  return (
    <div className="argument-fields" data-testid={testId}>
      {args.map((arg) => (
        <ArgumentField key={arg.name} server={server} completionRef={completionRef} completions={completions} arg={arg} values={values} onChange={onChange} />
      ))}
    </div>
  );
}

function ArgumentField({
  server,
  completionRef,
  completions,
  arg,
  values,
  onChange,
}: {
  server: string;
  completionRef: CompletionRef;
  completions: boolean;
  arg: { name: string; description?: string; required?: boolean };
  values: ReadonlyMap<string, string>;
  onChange: (name: string, value: string) => void;
}) {
  const id = useId();
  const value = values.get(arg.name) ?? '';
  const [focused, setFocused] = useState(false);
  const touched = useRef(false);
  const others = new Map([...values].filter(([name]) => name !== arg.name));
  const suggestions = useCompletion(server, completionRef, arg.name, value, others, completions && (focused || touched.current));
  const shown = suggestions.values.filter((v) => v !== value).slice(0, SUGGESTIONS_SHOWN);
  return (
    <div className="field-row argument-field" data-testid="argument-field" data-name={visible(arg.name)}>
      <label htmlFor={id}>
        <code>
          <InertText text={arg.name} fold={80} />
        </code>
        {arg.required && (
          <span className="required" aria-label="required">
            {' '}
            *
          </span>
        )}
      </label>
      <input
        id={id}
        type="text"
        value={value}
        spellCheck={false}
        autoComplete="off"
        onFocus={() => {
          touched.current = true;
          setFocused(true);
        }}
        onBlur={() => setFocused(false)}
        onChange={(e) => onChange(arg.name, e.target.value)}
        aria-describedby={arg.description ? `${id}-desc` : undefined}
      />
      {arg.description && (
        <div id={`${id}-desc`} className="muted small">
          <InertText text={arg.description} fold={200} />
        </div>
      )}
      {shown.length > 0 && (
        <div className="suggestions small" data-testid="suggestions" aria-label={`Suggestions for ${visible(arg.name)}`}>
          <span className="muted">The server suggests:</span>{' '}
          {shown.map((suggestion) => (
            <button key={suggestion} type="button" className="small-button suggestion" onClick={() => onChange(arg.name, suggestion)}>
              <InertText text={suggestion} fold={60} />
            </button>
          ))}
          {(suggestions.more || suggestions.values.length > shown.length + (suggestions.values.includes(value) ? 1 : 0)) && <span className="muted"> and more — type to narrow them</span>}
        </div>
      )}
    </div>
  );
}

/** Page `page` (from 0) of `items`, `size` at a time, and the controls to move between pages. */
export function usePages<T>(items: readonly T[], size: number): { shown: readonly T[]; pager: ReactNode; reset: () => void } {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(page, pages - 1);
  const shown = items.slice(current * size, current * size + size);
  const pager =
    items.length > size ? (
      <nav className="pager" aria-label="Pages" data-testid="pager">
        <button type="button" className="small-button" disabled={current === 0} onClick={() => setPage(current - 1)}>
          Previous
        </button>
        <span className="small" data-testid="pager-status" aria-live="polite">
          {current * size + 1}–{Math.min(items.length, current * size + size)} of {items.length}
        </span>
        <button type="button" className="small-button" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
          Next
        </button>
      </nav>
    ) : null;
  return { shown, pager, reset: () => setPage(0) };
}
