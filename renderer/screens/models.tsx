/**
 * Settings › Models: the providers the chat can use (Anthropic, OpenAI, or
 * any OpenAI-compatible endpoint such as Ollama or LM Studio), each with a
 * connection test that lists its models; the default model; and how many
 * tool steps a turn may take. Keys go to the secret store and are never
 * shown again — only whether one is set.
 */
import { useState } from 'react';
import type { ModelsView, ProviderKind, ProviderView } from '../../shared/chat';
import { invoke, useAction, useQuery } from '../api';
import { Badge } from '../components/badges';
import { FieldError } from '../components/field-error';
import { InertText } from '../components/inert-text';
import { when } from '../format';

const KINDS: Array<{ kind: ProviderKind; label: string; hint: string }> = [
  { kind: 'anthropic', label: 'Anthropic', hint: 'Claude models, with your Anthropic API key.' },
  { kind: 'openai', label: 'OpenAI', hint: 'GPT models, with your OpenAI API key.' },
  { kind: 'openai-compatible', label: 'OpenAI-compatible', hint: 'Ollama, LM Studio, llama.cpp, vLLM, OpenRouter… by address (for example http://localhost:11434/v1). A key only if it needs one.' },
];

function AddProvider({ onAdded }: { onAdded: (provider: ProviderView) => void }) {
  const [kind, setKind] = useState<ProviderKind>('anthropic');
  const [label, setLabel] = useState('Anthropic');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const action = useAction();
  const info = KINDS.find((entry) => entry.kind === kind)!;
  return (
    <form
      className="panel models-add"
      data-testid="add-provider"
      onSubmit={async (event) => {
        event.preventDefault();
        const added = await action.run(() =>
          invoke('models.addProvider', { kind, label: label.trim(), ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}), ...(apiKey.trim() ? { apiKey: apiKey.trim() } : {}) }),
        );
        if (added) {
          // The key leaves the page at once; it is never shown again.
          setApiKey('');
          setBaseUrl('');
          onAdded(added);
        }
      }}
    >
      <fieldset>
        <legend>Add a provider</legend>
        {KINDS.map((entry) => (
          <label key={entry.kind} className="check">
            <input
              type="radio"
              name="provider-kind"
              value={entry.kind}
              checked={kind === entry.kind}
              onChange={() => {
                setKind(entry.kind);
                setLabel(entry.kind === 'openai-compatible' ? 'Ollama' : entry.label);
              }}
            />{' '}
            <strong>{entry.label}</strong>
          </label>
        ))}
        <p className="small muted">{info.hint}</p>
        <div className="field-row">
          <label className="block-label" htmlFor="provider-label">
            Name
          </label>
          <input id="provider-label" type="text" value={label} maxLength={100} onChange={(event) => setLabel(event.target.value)} />
        </div>
        <div className="field-row">
          <label className="block-label" htmlFor="provider-url">
            Address {kind === 'openai-compatible' ? <span className="required">(required)</span> : <span className="muted">(optional, for a proxy)</span>}
          </label>
          <input id="provider-url" type="url" value={baseUrl} placeholder={kind === 'openai-compatible' ? 'http://localhost:11434/v1' : ''} onChange={(event) => setBaseUrl(event.target.value)} />
        </div>
        <div className="field-row">
          <label className="block-label" htmlFor="provider-key">
            Key {kind === 'openai-compatible' ? <span className="muted">(only if the server needs one)</span> : <span className="required">(required)</span>}
          </label>
          <input id="provider-key" type="password" autoComplete="off" value={apiKey} onChange={(event) => setApiKey(event.target.value)} />
          <p className="small muted">Kept in your system’s secret store, like server secrets. Airlock never shows it again.</p>
        </div>
        <FieldError message={action.error} />
        <button type="submit" className="primary" disabled={action.busy || !label.trim()}>
          Add and test
        </button>
      </fieldset>
    </form>
  );
}

function ProviderRow({ provider, models }: { provider: ProviderView; models: ModelsView }) {
  const action = useAction();
  const [replacing, setReplacing] = useState<string | undefined>();
  const [removing, setRemoving] = useState(false);
  const [typed, setTyped] = useState('');
  const isDefault = (model: string) => models.defaultModel?.provider === provider.id && models.defaultModel.model === model;
  const kind = KINDS.find((entry) => entry.kind === provider.kind)!.label;
  return (
    <li className="panel models-provider" data-testid="provider">
      <div className="section-head">
        <h3>
          <InertText text={provider.label} /> <span className="muted small">{kind}</span>
        </h3>
        <span className="badges">
          {provider.hasKey ? <Badge tone="ok">Key set</Badge> : provider.kind === 'openai-compatible' ? <Badge tone="neutral">No key</Badge> : <Badge tone="danger">No key</Badge>}
          {provider.lastTest && <Badge tone={provider.lastTest.ok ? 'ok' : 'danger'}>{provider.lastTest.ok ? 'Connected' : 'Not connected'}</Badge>}
        </span>
      </div>
      {provider.baseUrl && (
        <p className="small">
          Address: <code>{provider.baseUrl}</code>
        </p>
      )}
      {provider.lastTest && (
        <p className="small" data-testid="provider-test">
          <InertText text={provider.lastTest.message} /> <span className="muted">({when(provider.lastTest.at)})</span>
        </p>
      )}
      <FieldError message={action.error} />
      <div className="actions">
        <button type="button" className="small-button" disabled={action.busy} onClick={() => void action.run(() => invoke('models.test', { id: provider.id }))}>
          {action.busy ? 'Testing…' : 'Test connection'}
        </button>
        {replacing === undefined ? (
          <button type="button" className="small-button" onClick={() => setReplacing('')}>
            {provider.hasKey ? 'Replace key…' : 'Add key…'}
          </button>
        ) : (
          <form
            className="inline-form"
            onSubmit={async (event) => {
              event.preventDefault();
              if (await action.run(() => invoke('models.updateProvider', { id: provider.id, apiKey: replacing.trim() }))) setReplacing(undefined);
            }}
          >
            <label>
              <span className="visually-hidden">New key</span>
              <input type="password" autoComplete="off" value={replacing} onChange={(event) => setReplacing(event.target.value)} autoFocus />
            </label>
            <button type="submit" className="small-button primary" disabled={!replacing.trim()}>
              Save key
            </button>
            <button type="button" className="small-button" onClick={() => setReplacing(undefined)}>
              Cancel
            </button>
          </form>
        )}
        {!removing ? (
          <button type="button" className="small-button" onClick={() => setRemoving(true)}>
            Remove…
          </button>
        ) : (
          <span role="group" aria-label="Remove provider">
            Remove <InertText text={provider.label} /> and its key?{' '}
            <button type="button" className="small-button danger" onClick={() => void action.run(() => invoke('models.removeProvider', { id: provider.id, confirm: true }))}>
              Remove
            </button>{' '}
            <button type="button" className="small-button" onClick={() => setRemoving(false)} autoFocus>
              Keep
            </button>
          </span>
        )}
      </div>
      <details open={provider.models.length > 0 && provider.models.length <= 12}>
        <summary>Models ({provider.models.length})</summary>
        {provider.models.length === 0 && <p className="small muted">None listed. Test the connection, or type a model’s name below.</p>}
        <ul className="models-list">
          {provider.models.map((model) => (
            <li key={model}>
              <code>
                <InertText text={model} />
              </code>{' '}
              {isDefault(model) ? (
                <Badge tone="ok">Default</Badge>
              ) : (
                <button type="button" className="link-button" onClick={() => void action.run(() => invoke('models.setDefault', { provider: provider.id, model }))}>
                  Make default
                </button>
              )}
            </li>
          ))}
        </ul>
        <form
          className="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            const model = typed.trim();
            if (!model) return;
            if (await action.run(() => invoke('models.setDefault', { provider: provider.id, model }))) setTyped('');
          }}
        >
          <label>
            <span className="small">Another model, by name:</span> <input type="text" value={typed} onChange={(event) => setTyped(event.target.value)} maxLength={200} />
          </label>{' '}
          <button type="submit" className="small-button" disabled={!typed.trim()}>
            Make default
          </button>
        </form>
      </details>
    </li>
  );
}

/** Settings › Models. */
export function ModelsSection() {
  const [models] = useQuery('models.get', {}, 'models.didChange');
  const [adding, setAdding] = useState(false);
  const steps = useAction();
  if (models.status === 'loading') return <p className="muted">Loading…</p>;
  if (models.status === 'error')
    return (
      <p className="field-error">
        <InertText text={models.message} />
      </p>
    );
  const value = models.value;
  return (
    <div className="models" data-testid="models">
      {value.notices.map((notice, index) => (
        <p key={index} className="notice notice-warning" role="alert">
          {notice}
        </p>
      ))}
      <p>
        Default model:{' '}
        <strong data-testid="default-model">{value.defaultModel ? `${value.providers.find((p) => p.id === value.defaultModel!.provider)?.label ?? value.defaultModel.provider} · ${value.defaultModel.model}` : 'none yet'}</strong>
      </p>
      {value.providers.length === 0 && !adding && <p className="muted">No providers yet: the chat needs one.</p>}
      <ul className="plain">
        {value.providers.map((provider) => (
          <ProviderRow key={provider.id} provider={provider} models={value} />
        ))}
      </ul>
      {adding ? (
        <AddProvider
          onAdded={(provider) => {
            setAdding(false);
            void invoke('models.test', { id: provider.id });
          }}
        />
      ) : (
        <button type="button" onClick={() => setAdding(true)}>
          Add a provider…
        </button>
      )}
      <div className="field-row">
        <label className="block-label" htmlFor="step-limit">
          Tool steps per turn
        </label>
        <input
          id="step-limit"
          type="number"
          min={1}
          max={100}
          defaultValue={value.stepLimit}
          onBlur={(event) => {
            const limit = Number(event.target.value);
            if (Number.isInteger(limit) && limit !== value.stepLimit) void steps.run(() => invoke('models.setStepLimit', { limit }));
          }}
        />
        <p className="small muted">After this many steps with tool calls, the model must stop and ask you whether to continue.</p>
        <FieldError message={steps.error} />
      </div>
      <p className="small muted">Costs are estimates from list prices checked on {value.pricesCheckedOn}; local and compatible models show tokens only.</p>
    </div>
  );
}
