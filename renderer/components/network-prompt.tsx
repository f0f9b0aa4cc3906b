import { useState } from 'react';
import type { NetworkQuestionView } from '../../shared/views';
import { invoke, useAction, useQuery } from '../api';
import { useSwapHold, useSwapWatch } from './dialog-guard';
import { FieldError } from './field-error';
import { InertText } from './inert-text';

/**
 * A running server asked to reach a host it has no grant for. Shown as a
 * banner (it never steals focus from a form); Deny is the first button, and
 * no answer by the deadline is a deny. Only servers that are not contained
 * are ever asked about — the core decides that.
 *
 * SECURITY: invariant 1 — like every question (dialog-guard.ts), when one
 * question takes another's place its buttons sleep for a moment and the
 * change is announced, so a click aimed at the question before cannot
 * answer this one.
 */
export function NetworkPrompt() {
  const [pending] = useQuery('network.pending', {}, 'network.didChange');
  const question = pending.status === 'ok' ? pending.value[0] : undefined;
  const { swapped, announcement } = useSwapWatch(question?.id, question ? `${question.server} wants to reach ${question.host}:${question.port}` : '');
  const live = (
    <div className="visually-hidden" aria-live="assertive" data-testid="network-announcement">
      {announcement}
    </div>
  );
  if (!question || pending.status !== 'ok') return live;
  return (
    <>
      {live}
      <NetworkQuestion key={question.id} question={question} more={pending.value.length - 1} swapped={swapped} />
    </>
  );
}

function NetworkQuestion({ question, more, swapped }: { question: NetworkQuestionView; more: number; swapped: boolean }) {
  const action = useAction();
  const { holding, asleep } = useSwapHold();
  const [wasSwapped] = useState(swapped);
  const answer = (allow: boolean, remember: boolean) => {
    if (asleep()) return;
    void action.run(() => invoke('network.answer', { id: question.id, allow, remember }));
  };
  const sleepy = holding ? true : undefined;
  return (
    <div className="notice notice-warning network-prompt" role="alertdialog" aria-labelledby="network-prompt-title" data-testid="network-prompt" data-question-id={question.id}>
      {wasSwapped && holding && (
        <p className="swap-note small" data-testid="network-swapped">
          A different request took this place. Read it before answering.
        </p>
      )}
      <p id="network-prompt-title">
        <strong>
          <InertText text={question.server} />
        </strong>{' '}
        wants to reach{' '}
        <code>
          <InertText text={`${question.host}:${question.port}`} />
        </code>
        , which it has no permission for.
        {more > 0 ? ` (${more} more waiting)` : ''}
      </p>
      <div className="actions">
        <button type="button" onClick={() => answer(false, false)} disabled={action.busy} aria-disabled={sleepy} data-testid="network-deny">
          Deny
        </button>
        <button type="button" onClick={() => answer(true, false)} disabled={action.busy} aria-disabled={sleepy} data-testid="network-allow">
          Allow this time
        </button>
        <button type="button" onClick={() => answer(true, true)} disabled={action.busy} aria-disabled={sleepy} data-testid="network-always">
          Always allow for <InertText text={question.server} />
        </button>
      </div>
      <FieldError message={action.error} />
    </div>
  );
}
