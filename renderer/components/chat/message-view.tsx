/**
 * One message of a conversation: the person's own words as plain text, or
 * one step of the model — its Markdown text and tool cards in order, with
 * how it ended (incomplete, stopped, an error told plainly) and its tokens.
 */
import { memo } from 'react';
import type { AssistantMessage, ChatMessage, UsageView } from '../../../shared/chat';
import { InertText } from '../inert-text';
import { Markdown } from './markdown';
import { ToolCardView } from './tool-card';

/** "1,234 in · 56 out · $0.0042". */
export function usageText(usage: UsageView): string {
  const cost = usage.costUsd !== undefined ? ` · $${usage.costUsd < 0.01 ? usage.costUsd.toFixed(4) : usage.costUsd.toFixed(2)}` : '';
  return `${usage.inputTokens.toLocaleString('en')} in · ${usage.outputTokens.toLocaleString('en')} out${cost}`;
}

const PROBLEM_TITLE: Record<NonNullable<AssistantMessage['error']>['kind'], string> = {
  auth: 'The key was refused',
  'rate-limit': 'Rate limited',
  overloaded: 'The provider is overloaded',
  server: 'The provider had an error',
  network: 'Could not reach the provider',
  'broken-stream': 'Incomplete — the answer broke off',
  'no-tools': 'This model cannot use tools',
  'not-found': 'Model or address not found',
  'bad-request': 'The provider refused the request',
  'no-model': 'No model chosen',
  other: 'Something went wrong',
};

function AssistantView({ message, onRetry }: { message: AssistantMessage; onRetry?: () => void }) {
  const streaming = message.status === 'streaming';
  return (
    <article className={`chat-message chat-assistant${streaming ? ' chat-streaming' : ''}`} aria-label={`${message.model.model} says`} data-testid="assistant-message" data-status={message.status}>
      <div className="chat-who">{message.model.model}</div>
      {message.parts.map((part, index) =>
        part.type === 'text' ? <Markdown key={index} text={part.text} /> : <ToolCardView key={part.card.id} card={part.card} />,
      )}
      {streaming && message.parts.length === 0 && <p className="muted chat-thinking">Thinking…</p>}
      {message.status === 'incomplete' && message.error?.kind !== 'broken-stream' && (
        <p className="chat-note chat-note-warn" data-testid="message-incomplete">
          Incomplete — the answer broke off. What arrived is kept above.
        </p>
      )}
      {message.status === 'stopped' && (
        <p className="chat-note" data-testid="message-stopped">
          Stopped by you{message.parts.length ? '; what arrived is kept above' : ''}.
        </p>
      )}
      {message.error && (
        <div className="panel panel-danger chat-error" role="alert" data-testid="message-error" data-kind={message.error.kind}>
          <p>
            <strong>{PROBLEM_TITLE[message.error.kind]}.</strong> <InertText text={message.error.message} />
          </p>
          <p className="small">Your messages are kept{onRetry ? '; try again when it is fixed' : ''}.</p>
          {onRetry && (
            <button type="button" onClick={onRetry}>
              Try again
            </button>
          )}
        </div>
      )}
      {message.notice && (
        <p className="chat-note chat-note-warn" data-testid="message-notice">
          {message.notice}
        </p>
      )}
      {message.usage && (
        <p className="small muted chat-usage" data-testid="message-usage">
          {usageText(message.usage)}
        </p>
      )}
    </article>
  );
}

export const MessageView = memo(function MessageView({ message, onRetry }: { message: ChatMessage; onRetry?: () => void }) {
  if (message.role === 'assistant') return <AssistantView message={message} {...(onRetry ? { onRetry } : {})} />;
  if (message.role === 'screen') {
    // A server's screen wrote this: the server's words, quoted as such — never "You".
    return (
      <article className="chat-message chat-screen" aria-label={`${message.server}’s screen says`} data-testid="screen-message" data-kind={message.kind}>
        <div className="chat-who">
          <InertText text={message.server} />’s screen {message.kind === 'context' ? '(context for the model)' : ''}
        </div>
        <p className="content-from small">The server’s words, not yours: the model is told so, and they approve nothing.</p>
        {message.warnings && message.warnings.length > 0 && (
          <ul className="result-warnings" aria-label="Warnings about this text" data-testid="screen-message-warnings">
            {message.warnings.map((warning) => (
              <li key={warning.kind}>⚠ {warning.message}</li>
            ))}
          </ul>
        )}
        <InertText text={message.text} block fold={4000} className="chat-user-text" />
      </article>
    );
  }
  return (
    <article className="chat-message chat-user" aria-label="You said" data-testid="user-message">
      <div className="chat-who">You</div>
      <p className="chat-user-text">{message.text}</p>
    </article>
  );
});
