/**
 * The chat: conversations on the left (new, search by title and text), the
 * open conversation on the right. The model works with your servers; every
 * tool call passes Airlock's policy and shows up as a card in the
 * conversation, and calls that need you open the usual confirmation dialog.
 */
import { useEffect, useState } from 'react';
import { invoke, useAction, useQuery } from '../api';
import { ConversationPane } from '../components/chat/conversation-pane';
import { FieldError } from '../components/field-error';
import { InertText } from '../components/inert-text';
import { when } from '../format';
import { chatHref, go } from '../route';

function ConversationList({ current }: { current: string | undefined }) {
  const [query, setQuery] = useState('');
  const [debounced, setDebounced] = useState('');
  useEffect(() => {
    const timer = window.setTimeout(() => setDebounced(query), 200);
    return () => window.clearTimeout(timer);
  }, [query]);
  const [list] = useQuery('chat.list', debounced.trim() ? { query: debounced.trim() } : {}, 'chat.didChange');
  const action = useAction();

  return (
    <nav className="chat-list" aria-label="Conversations">
      <button
        type="button"
        className="primary"
        data-testid="new-conversation"
        onClick={async () => {
          const created = await action.run(() => invoke('chat.create', {}));
          if (created) go(chatHref(created.id));
        }}
      >
        New conversation
      </button>
      <FieldError message={action.error} />
      <label className="chat-search">
        <span className="visually-hidden">Search conversations</span>
        <input type="search" placeholder="Search titles and text" value={query} onChange={(event) => setQuery(event.target.value)} data-testid="chat-search" />
      </label>
      {list.status === 'error' && (
        <p className="field-error">
          <InertText text={list.message} />
        </p>
      )}
      {list.status === 'ok' && list.value.length === 0 && <p className="muted small">{debounced ? 'Nothing matches.' : 'No conversations yet.'}</p>}
      {list.status === 'ok' && (
        <ul data-testid="conversation-list">
          {list.value.map((conversation) => (
            <li key={conversation.id}>
              <a href={chatHref(conversation.id)} aria-current={conversation.id === current ? 'page' : undefined}>
                <span className="chat-list-title">
                  <InertText text={conversation.title} />
                </span>
                <span className="small muted">
                  {when(conversation.updatedAt)}
                  {conversation.running ? ' · answering…' : ''}
                </span>
                {conversation.snippet && (
                  <span className="small chat-list-snippet">
                    <InertText text={conversation.snippet} />
                  </span>
                )}
              </a>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}

export function ChatScreen({ id }: { id: string | undefined }) {
  const [models] = useQuery('models.get', {}, 'models.didChange');
  return (
    <div className="chat-screen">
      <ConversationList current={id} />
      {id ? (
        <ConversationPane key={id} id={id} />
      ) : (
        <section className="chat-pane" aria-labelledby="chat-title">
          <h1 id="chat-title" tabIndex={-1}>
            Chat
          </h1>
          <p className="lead">Talk with a model that can use your servers. Every tool call it makes passes Airlock’s policy and the audit log, and you confirm what needs confirming.</p>
          {models.status === 'ok' && !models.value.defaultModel ? (
            <p className="notice notice-info">
              First, add a model provider (Anthropic, OpenAI, or a local one like Ollama) in <a href="#/settings">Settings › Models</a>.
            </p>
          ) : (
            <p className="muted">Start a new conversation, or open one on the left.</p>
          )}
        </section>
      )}
    </div>
  );
}
