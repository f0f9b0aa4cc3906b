/**
 * The Prompts section of a server's page: each prompt the server offers,
 * its approval state (a change after approval shown as a diff, withheld from
 * apps until approved), and a form for its arguments — the server's
 * completion suggestions offered — that gets the messages the server writes
 * for it. Those messages are the server's words, shown inert, never as
 * instructions from Airlock.
 */
import { useState } from 'react';
import type { CatalogView, PromptResultView, PromptView } from '../../../shared/views';
import { invoke, useAction } from '../../api';
import { ContentBlocks } from '../../components/content-view';
import { ServerWords } from '../../components/dialog-parts';
import { FieldError } from '../../components/field-error';
import { InertText } from '../../components/inert-text';
import { ArgumentFields, CatalogNotes, PinState, Warnings } from './catalog-parts';

export function Prompts({ catalog, onChange }: { catalog: CatalogView; onChange: (view: CatalogView) => void }) {
  return (
    <div data-testid="prompts-section">
      <CatalogNotes catalog={catalog} />
      {!catalog.offers.prompts && !catalog.problem && <p className="muted">{catalog.server} offers no prompts.</p>}
      {catalog.offers.prompts && (
        <>
          <p className="muted small">
            Prompts are messages the server writes for a model, filled in with your arguments. Their names, descriptions and messages are the server’s words.
          </p>
          {catalog.prompts.length === 0 ? (
            <p className="muted">It offers none right now.</p>
          ) : (
            <ul className="plain catalog-list" data-testid="prompt-list">
              {catalog.prompts.map((prompt) => (
                <PromptItem key={prompt.name} catalog={catalog} prompt={prompt} onChange={onChange} />
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}

function PromptItem({ catalog, prompt, onChange }: { catalog: CatalogView; prompt: PromptView; onChange: (view: CatalogView) => void }) {
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState<ReadonlyMap<string, string>>(new Map());
  const [result, setResult] = useState<PromptResultView | undefined>();
  const action = useAction();
  const withheld = prompt.pendingChange !== undefined || prompt.isNew;
  const missing = prompt.arguments.filter((arg) => arg.required && !(values.get(arg.name) ?? ''));
  const get = async () => {
    setResult(undefined);
    // Argument names are the server's: a null-prototype object keeps `__proto__` and friends as plain entries.
    const args = Object.create(null) as Record<string, string>;
    for (const [name, value] of values) if (value !== '') args[name] = value;
    const value = await action.run(() => invoke('prompts.get', { server: catalog.server, name: prompt.name, arguments: args }));
    if (value) setResult(value);
  };
  return (
    <li className="catalog-item" data-testid="prompt-item">
      <div className="catalog-item-head">
        <code>
          <InertText text={prompt.name} fold={120} />
        </code>
        {prompt.title !== undefined && prompt.title !== prompt.name && (
          <span>
            {' '}
            — the server calls it “<InertText text={prompt.title} fold={120} />”
          </span>
        )}
        <span className="muted small">
          {' '}
          · apps see it as <code><InertText text={prompt.namespacedName} fold={160} /></code>
        </span>
        <button type="button" className="small-button" aria-expanded={open} onClick={() => setOpen(!open)} disabled={withheld} data-testid="prompt-open">
          {open ? 'Close' : 'Fill in and get…'}
        </button>
      </div>
      {prompt.description && (
        <blockquote className="server-quote small">
          <InertText text={prompt.description} block fold={400} />
        </blockquote>
      )}
      {prompt.arguments.length > 0 && (
        <p className="small muted">
          Arguments:{' '}
          {prompt.arguments.map((arg, i) => (
            <span key={arg.name}>
              {i > 0 && ', '}
              <code>
                <InertText text={arg.name} fold={60} />
              </code>
              {arg.required ? ' (required)' : ''}
            </span>
          ))}
        </p>
      )}
      <Warnings warnings={prompt.warnings} />
      <PinState server={catalog.server} kind="prompt" item={prompt} keyOf={prompt.name} onApproved={onChange} />
      {open && !withheld && (
        <div className="panel prompt-form" data-testid="prompt-form">
          <ArgumentFields
            server={catalog.server}
            completionRef={{ type: 'ref/prompt', name: prompt.name }}
            completions={catalog.offers.completions}
            args={prompt.arguments}
            values={values}
            onChange={(name, value) => setValues((prev) => new Map(prev).set(name, value))}
            testId="prompt-arguments"
          />
          <div className="actions">
            <button type="button" className="primary" disabled={action.busy || missing.length > 0} onClick={() => void get()} data-testid="prompt-get">
              {action.busy ? 'Getting…' : 'Get its messages'}
            </button>
            {missing.length > 0 && <span className="muted small">Fill in the required arguments first.</span>}
          </div>
          <FieldError message={action.error} />
          {result && <PromptResult result={result} />}
        </div>
      )}
    </li>
  );
}

/** The messages the server wrote for a prompt: its words, quoted, each flagged as the core found it. */
function PromptResult({ result }: { result: PromptResultView }) {
  return (
    <div className="prompt-result" data-testid="prompt-result" aria-live="polite">
      <ServerWords server={<InertText text={result.server} />} label="The messages it wrote">
        {result.description && <InertText text={result.description} quoted fold={400} className="small muted" />}
        {result.messages.length === 0 && <p className="muted">No messages.</p>}
        {result.messages.map((message, i) => (
          <div key={i} className="sampling-message" data-testid="prompt-message" data-role={message.role}>
            <span className="role-tag">{message.role === 'user' ? 'as the user' : 'as the assistant'}</span>
            <Warnings warnings={message.warnings} />
            <ContentBlocks content={message.content} fold={2000} />
          </div>
        ))}
      </ServerWords>
    </div>
  );
}
