/**
 * One tool call of the model, inline in the conversation: which server and
 * tool, the arguments (and the ones a person edited), Airlock's decision and
 * why, and the result — the server's text, inert, collapsed when long, marked
 * "content from <server>" when it comes from an untrusted server or an
 * open-world tool, with any poisoning signals right beside it — and the
 * tool's screen (MCP Apps), when it has one, under it.
 */
import { memo, useContext } from 'react';
import type { ToolCard } from '../../../shared/chat';
import { Badge } from '../badges';
import { InertText, safeJson } from '../inert-text';
import { ToolScreen, type ScreenToolResult } from '../tool-screen-lazy';
import { ConversationIdContext } from './conversation-id';

/** Results longer than this start collapsed. */
const COLLAPSE_AT = 600;

function decisionTone(card: ToolCard): 'ok' | 'warn' | 'danger' | 'neutral' {
  if (!card.decision) return card.outcome === 'not-sent' ? 'neutral' : 'neutral';
  if (!card.decision.allowed) return 'danger';
  return card.decision.verdict === 'ask' ? 'warn' : 'ok';
}

function stateLabel(card: ToolCard): string | undefined {
  if (card.state === 'running') return 'Running — or waiting for your answer in Airlock’s dialog';
  if (card.state === 'waiting') return 'Waiting for your answer';
  if (card.state === 'requested') return card.inputStreaming ? 'The model is still writing this call' : 'Waiting to run';
  return undefined;
}

const OUTCOME: Record<NonNullable<ToolCard['outcome']>, string> = {
  ok: 'Done',
  'tool-error': 'The tool reported an error',
  denied: 'Not sent',
  unknown: 'Outcome unknown',
  'not-sent': 'Not sent',
};

function Arguments({ value, label }: { value: Record<string, unknown>; label: string }) {
  const entries = Object.entries(value);
  return (
    <div className="chat-tool-args">
      <span className="chat-tool-label">{label}</span>
      {entries.length === 0 ? (
        <span className="muted"> none</span>
      ) : (
        <dl>
          {entries.map(([key, item]) => (
            <div key={key} className="chat-tool-arg">
              <dt>
                <InertText text={key} />
              </dt>
              <dd>
                <InertText text={typeof item === 'string' ? item : safeJson(item)} quoted fold={300} />
              </dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}

/**
 * The tool's screen (MCP Apps) in its card, from the moment the model starts
 * writing the call: its arguments as they are written, then whole, then its
 * result — or, for a call refused, not sent or stopped, that it was
 * cancelled and why (the screen stays, and is told).
 */
function CardScreen({ card, conversationId }: { card: ToolCard; conversationId: string }) {
  const done = card.state === 'done';
  const result: ScreenToolResult | undefined = !done
    ? undefined
    : (card.outcome === 'ok' || card.outcome === 'tool-error') && card.result
      ? { content: [{ type: 'text', text: card.result.text }], ...(card.screen?.structuredContent !== undefined ? { structuredContent: card.screen.structuredContent } : {}), ...(card.result.isError ? { isError: true } : {}) }
      : { cancelled: cancelledReason(card) };
  return (
    <ToolScreen
      server={card.server}
      tool={card.tool}
      input={card.sentArguments ?? card.arguments}
      inputPartial={card.inputStreaming === true}
      callAllowed={card.decision?.allowed === true}
      {...(result ? { result } : {})}
      conversationId={conversationId}
    />
  );
}

/** Why a call's screen gets no result, in Airlock's words. */
function cancelledReason(card: ToolCard): string {
  const why = (card.message ?? '').replace(/^Not sent: /, '');
  if (card.outcome === 'denied') return why || `${card.decision?.label ?? 'Denied'}.`;
  if (card.outcome === 'not-sent') return `Not sent: ${why || 'the call was not made.'}`;
  return why || 'The call ended without a result.';
}

export const ToolCardView = memo(function ToolCardView({ card }: { card: ToolCard }) {
  const conversationId = useContext(ConversationIdContext);
  const running = stateLabel(card);
  const long = (card.result?.text.length ?? 0) > COLLAPSE_AT;
  return (
    <section className={`chat-tool chat-tool-${card.outcome ?? card.state}`} aria-label={`Tool call: ${card.server || '?'} › ${card.tool}`} data-testid="tool-card">
      <header className="chat-tool-head">
        <h4>
          <span className="chat-tool-server">
            <InertText text={card.server || 'unknown server'} />
          </span>{' '}
          › <code><InertText text={card.tool} /></code>
        </h4>
        {card.decision ? (
          <Badge tone={decisionTone(card)} testId="tool-decision">
            {card.decision.label}
          </Badge>
        ) : card.outcome === 'not-sent' ? (
          <Badge tone="neutral" testId="tool-decision">
            Not sent
          </Badge>
        ) : null}
      </header>
      {running && (
        <p className="chat-tool-state" role="status">
          {running}
        </p>
      )}
      <Arguments value={card.arguments} label={card.inputStreaming ? 'What the model has written so far:' : 'The model asked with:'} />
      {card.sentArguments && <Arguments value={card.sentArguments} label="You edited them; Airlock sent:" />}
      {card.decision && card.decision.reasons.length > 0 && (
        <details className="reasons">
          <summary>Why Airlock {card.decision.verdict === 'allow' ? 'ran it without asking' : card.decision.verdict === 'ask' ? 'asked you' : 'denied it'}</summary>
          <ul>
            {card.decision.reasons.map((reason, index) => (
              <li key={index}>{reason}</li>
            ))}
          </ul>
        </details>
      )}
      {card.message && (
        <p className="chat-tool-message" data-testid="tool-message">
          {card.outcome ? `${OUTCOME[card.outcome]}. ` : ''}
          <InertText text={card.message.replace(/^Not sent: /, '')} />
        </p>
      )}
      {card.result && (
        <div className="chat-tool-result">
          {card.contentFrom && (
            <p className="content-from" data-testid="content-from">
              Content from <strong><InertText text={card.contentFrom} /></strong> — the server’s text, not Airlock’s. The model was told to treat it as data.
            </p>
          )}
          {card.warnings.length > 0 && (
            <ul className="result-warnings" aria-label="Warnings about this result" data-testid="result-warnings">
              {card.warnings.map((warning) => (
                <li key={warning.kind}>⚠ {warning.message}</li>
              ))}
            </ul>
          )}
          <details open={!long}>
            <summary>
              {card.result.isError ? 'The tool’s error' : 'Result'} ({card.result.text.length.toLocaleString('en')} characters{card.result.truncated ? ', cut short' : ''})
            </summary>
            <InertText text={card.result.text} quoted fold={4000} className="chat-tool-output" empty="(empty)" />
          </details>
        </div>
      )}
      {card.durationMs !== undefined && <p className="small muted">{card.durationMs} ms</p>}
      {card.screen && card.server && conversationId && <CardScreen card={card} conversationId={conversationId} />}
    </section>
  );
});
