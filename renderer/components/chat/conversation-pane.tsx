/**
 * An open conversation: its title (rename, delete), the model it uses, the
 * tools it may see, the messages as they stream in, what the turn is doing
 * (thinking, running a tool, waiting out a rate limit), the composer, and
 * Stop. It holds no policy: decisions arrive in the tool cards from the core.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ChatMessage, ConversationView, ModelRef, ModelsView, TurnStatus } from '../../../shared/chat';
import { applyChatEvent } from '../../../shared/chat-events';
import { invoke, on, useAction, useQuery } from '../../api';
import { go } from '../../route';
import { FieldError } from '../field-error';
import { InertText } from '../inert-text';
import { ConversationIdContext } from './conversation-id';
import { MessageView, usageText } from './message-view';
import { useComposerContext } from './composer-context';
import { ToolsPicker } from './tools-picker';

function refKey(ref: ModelRef): string {
  return `${ref.provider}\u0000${ref.model}`;
}

/** The model picker: the default, or any model a provider listed. */
function ModelPicker({ view, models, onChange }: { view: ConversationView; models: ModelsView; onChange: (model: ModelRef | null) => void }) {
  const options = models.providers.flatMap((provider) => provider.models.map((model) => ({ ref: { provider: provider.id, model }, label: `${provider.label} · ${model}` })));
  if (view.model && !options.some((option) => refKey(option.ref) === refKey(view.model!))) options.unshift({ ref: view.model, label: `${view.model.provider} · ${view.model.model}` });
  const fallback = models.defaultModel ? `Default (${models.defaultModel.model})` : 'Default (none chosen)';
  return (
    <label className="chat-model-picker">
      <span className="visually-hidden">Model</span>
      <select
        value={view.model ? refKey(view.model) : ''}
        onChange={(event) => {
          const chosen = options.find((option) => refKey(option.ref) === event.target.value);
          onChange(chosen ? chosen.ref : null);
        }}
        data-testid="model-picker"
      >
        <option value="">{fallback}</option>
        {options.map((option) => (
          <option key={refKey(option.ref)} value={refKey(option.ref)}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Seconds until `until`, ticking. */
function useCountdown(until: number | undefined): number | undefined {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === undefined) return undefined;
    const timer = window.setInterval(() => setNow(Date.now()), 250);
    return () => window.clearInterval(timer);
  }, [until]);
  return until === undefined ? undefined : Math.max(0, Math.ceil((until - now) / 1000));
}

function StatusLine({ status, running }: { status: TurnStatus; running: boolean }) {
  const seconds = useCountdown(status.kind === 'retrying' ? status.until : undefined);
  if (!running) return <p className="visually-hidden" role="status" />;
  const text =
    status.kind === 'retrying'
      ? `${status.message ?? 'Waiting.'}${seconds !== undefined ? ` (${seconds} s left)` : ''}`
      : status.kind === 'tool'
        ? `Running ${status.message ?? 'a tool'} — if Airlock asks you, the dialog is open.`
        : 'The model is answering…';
  return (
    <p className={`chat-status${status.kind === 'retrying' ? ' chat-status-wait' : ''}`} role="status" data-testid="turn-status">
      <InertText text={text} />
    </p>
  );
}

export function ConversationPane({ id }: { id: string }) {
  const [view, setView] = useState<ConversationView | undefined>();
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [running, setRunning] = useState(false);
  const [status, setStatus] = useState<TurnStatus>({ kind: 'idle' });
  const [loadError, setLoadError] = useState<string | undefined>();
  const [draft, setDraft] = useState('');
  const [renaming, setRenaming] = useState<string | undefined>();
  const [deleting, setDeleting] = useState(false);
  const [models] = useQuery('models.get', {}, 'models.didChange');
  const [commands, reloadCommands] = useQuery('chat.commands', { id }, 'catalog.didChange');
  const action = useAction();
  const bottom = useRef<HTMLDivElement>(null);
  const composer = useRef<HTMLTextAreaElement>(null);
  const context = useComposerContext(commands.status === 'ok' ? commands.value : undefined, draft, setDraft);
  const slash = draft.startsWith('/') || /(^|\s)@\S*$/.test(draft);
  // Read afresh each time a `/` or `@` starts (servers started, the selection changed since).
  useEffect(() => {
    if (slash) reloadCommands();
  }, [slash, reloadCommands]);

  const load = useCallback(async () => {
    const result = await invoke('chat.get', { id });
    if (!result.ok) {
      setLoadError(result.message);
      return;
    }
    setView(result.value);
    setMessages(result.value.messages);
    setRunning(result.value.running);
  }, [id]);

  useEffect(() => {
    // Subscribe first, then load: the snapshot already holds everything sent before it.
    const off = on('chat.didUpdate', (update) => {
      if (update.conversationId !== id) return;
      const { event } = update;
      if (event.type === 'status') setStatus(event.status);
      else if (event.type === 'turn') {
        setRunning(event.running);
        if (!event.running) {
          setStatus({ kind: 'idle' });
          void load();
        }
      } else setMessages((current) => applyChatEvent(current, event));
    });
    void load();
    return off;
  }, [id, load]);

  // Keep the newest message in view while it streams.
  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [messages]);

  const send = async () => {
    const text = draft;
    if ((!text.trim() && !context.hasContext) || running || context.problem) return;
    const result = await action.run(() => invoke('chat.send', { id, text, ...context.payload() }));
    // The draft (and the chosen prompt and attachments) stay when sending was refused: nothing the person typed is lost.
    if (result) {
      setDraft('');
      context.clear();
    }
  };

  if (loadError) {
    return (
      <section className="chat-pane">
        <p role="alert" className="field-error">
          <InertText text={loadError} />
        </p>
      </section>
    );
  }
  if (!view) return <section className="chat-pane muted">Loading…</section>;

  const usage = view.usage;
  const noModel = models.status === 'ok' && !models.value.defaultModel && !view.model;
  const lastId = messages.at(-1)?.id;
  const retry = () => void action.run(() => invoke('chat.retry', { id }));
  const canSend = (draft.trim() !== '' || context.hasContext) && !context.problem;

  return (
    <section className="chat-pane" aria-labelledby="chat-title">
      <header className="chat-head">
        {renaming === undefined ? (
          <h1 id="chat-title" tabIndex={-1}>
            <InertText text={view.title} />
          </h1>
        ) : (
          <form
            className="chat-rename"
            onSubmit={async (event) => {
              event.preventDefault();
              const value = await action.run(() => invoke('chat.rename', { id, title: renaming }));
              if (value) {
                setView(value);
                setRenaming(undefined);
              }
            }}
          >
            <label>
              <span className="visually-hidden">Title</span>
              <input type="text" value={renaming} maxLength={200} onChange={(event) => setRenaming(event.target.value)} autoFocus data-testid="rename-input" />
            </label>
            <button type="submit" className="primary small-button">
              Save
            </button>
            <button type="button" className="small-button" onClick={() => setRenaming(undefined)}>
              Cancel
            </button>
          </form>
        )}
        <div className="chat-head-actions">
          {renaming === undefined && (
            <button type="button" className="small-button" onClick={() => setRenaming(view.title)}>
              Rename
            </button>
          )}
          {!deleting ? (
            <button type="button" className="small-button" onClick={() => setDeleting(true)}>
              Delete…
            </button>
          ) : (
            <span className="chat-delete-confirm" role="group" aria-label="Delete this conversation">
              Delete this conversation for good?{' '}
              <button
                type="button"
                className="small-button danger"
                onClick={async () => {
                  if (await action.run(() => invoke('chat.delete', { id, confirm: true }))) go('#/chat');
                }}
              >
                Delete
              </button>{' '}
              <button type="button" className="small-button" onClick={() => setDeleting(false)} autoFocus>
                Keep it
              </button>
            </span>
          )}
        </div>
      </header>
      <div className="chat-settings">
        {models.status === 'ok' && (
          <ModelPicker
            view={view}
            models={models.value}
            onChange={async (model) => {
              const value = await action.run(() => invoke('chat.setModel', { id, model }));
              if (value) setView(value);
            }}
          />
        )}
        <ToolsPicker id={id} selection={view.tools} onChange={(tools) => setView({ ...view, tools })} />
        <span className="small muted" data-testid="conversation-usage">
          {usage.inputTokens + usage.outputTokens > 0 ? `This conversation: ${usageText(usage)}` : ''}
          {usage.costUsd !== undefined && models.status === 'ok' ? ` (estimate; prices of ${models.value.pricesCheckedOn})` : ''}
        </span>
      </div>
      {view.problems.map((problem, index) => (
        <p key={index} className="notice notice-warning">
          {problem}
        </p>
      ))}
      <div className="chat-messages" data-testid="chat-messages">
        {messages.length === 0 && <p className="muted">Ask something. The model can use the tools of your servers; every call passes Airlock’s policy, and you confirm what needs confirming.</p>}
        <ConversationIdContext.Provider value={id}>
          {messages.map((message) => (
            <MessageView key={message.id} message={message} {...(!running && message.id === lastId ? { onRetry: retry } : {})} />
          ))}
        </ConversationIdContext.Provider>
        <div ref={bottom} />
      </div>
      <StatusLine status={status} running={running} />
      <FieldError message={action.error} />
      {noModel && (
        <p className="notice notice-info">
          Choose a model first: add a provider in <a href="#/settings">Settings › Models</a>.
        </p>
      )}
      <form
        className="chat-composer"
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <label className="block-label" htmlFor="chat-input">
          Message
        </label>
        <textarea
          id="chat-input"
          ref={composer}
          rows={3}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          role="combobox"
          aria-expanded={context.menuOpen}
          aria-autocomplete="list"
          {...(context.menuOpen ? { 'aria-controls': 'composer-menu' } : {})}
          {...(context.activeOption ? { 'aria-activedescendant': context.activeOption } : {})}
          onKeyDown={(event) => {
            if (!event.nativeEvent.isComposing && context.onKeyDown(event)) {
              event.preventDefault();
              return;
            }
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              void send();
            }
          }}
          placeholder="Write a message. Enter sends, Shift+Enter starts a new line. / for a server's prompt, @ to attach a resource."
          data-testid="chat-input"
        />
        {context.menuView}
        {context.chips}
        {context.problem && <p className="small muted">{context.problem}</p>}
        {slash && commands.status === 'ok' && !commands.value.available && (
          <p className="small muted" data-testid="commands-hint">
            Server prompts (/) and resources (@) are not available in this version of Airlock yet; your text is sent as written.
          </p>
        )}
        <div className="actions">
          {running ? (
            <button type="button" className="danger" onClick={() => void invoke('chat.stop', { id })} data-testid="stop">
              Stop
            </button>
          ) : (
            <button type="submit" className="primary" disabled={!canSend || action.busy}>
              Send
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
