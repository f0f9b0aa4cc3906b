/**
 * One queue for every question Airlock puts to the person in the window: a
 * tool call to confirm (`approvals.*`) and a server's request to answer
 * (`requests.*`: sampling, the model's answer, a form, a web page to open).
 * One dialog at a time, the oldest first, the count visible (UX 9); a question
 * that arrives while the person types waits for a pause; when one question
 * takes another's place the change is announced and the new one's buttons
 * sleep for a moment (dialog-guard.ts).
 *
 * SECURITY: invariant 1 — every answer goes to the id main minted for the
 * question shown; the queue never answers anything by itself.
 */
import { useCallback, useMemo, useState } from 'react';
import type { ConfirmationView, ServerRequestView } from '../../shared/views';
import { useLiveQuery } from '../api';
import { describeRequest } from '../server-requests';
import { ConfirmationDialog } from './confirmation-dialog';
import { useSwapWatch, useTyping } from './dialog-guard';
import { ServerRequestDialog } from './server-request-dialogs';

/** A question waiting in the queue: a tool confirmation or a server's request. */
type Question = { kind: 'tool'; id: string; createdAt: number; view: ConfirmationView } | { kind: 'request'; id: string; createdAt: number; view: ServerRequestView };

function describe(question: Question): string {
  return question.kind === 'tool' ? question.view.restatement : describeRequest(question.view);
}

/** Every question waiting for the person, shown one at a time over any screen. */
export function DialogQueue() {
  const [approvals] = useLiveQuery('approvals.list', {}, 'approvals.didChange', (payload) => payload);
  const [requests] = useLiveQuery('requests.pending', {}, 'requests.didChange', (payload) => payload);
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());
  const pending = useMemo(() => {
    const all: Question[] = [
      ...(approvals.status === 'ok' ? approvals.value.map((view): Question => ({ kind: 'tool', id: view.id, createdAt: view.createdAt, view })) : []),
      ...(requests.status === 'ok' ? requests.value.map((view): Question => ({ kind: 'request', id: view.id, createdAt: view.createdAt, view })) : []),
    ];
    return all.filter((q) => !answered.has(q.id)).sort((a, b) => a.createdAt - b.createdAt || (a.kind === b.kind ? 0 : a.kind === 'tool' ? -1 : 1));
  }, [approvals, requests, answered]);
  const onAnswered = useCallback((id: string) => setAnswered((prev) => new Set(prev).add(id)), []);
  const typing = useTyping();
  const [shownId, setShownId] = useState<string | undefined>();
  const current = pending[0];
  if (current && !typing && shownId !== current.id) setShownId(current.id);
  // Announced to screen readers (and shown) when one request takes another's place.
  const { swapped, announcement } = useSwapWatch(current?.id, current ? describe(current) : '');
  const live = (
    <div className="visually-hidden" aria-live="assertive" data-testid="confirmation-announcement">
      {announcement}
    </div>
  );
  if (!current) return live;
  // Never take the focus mid-word: a request that arrives while the person types waits for a pause, announced.
  if (shownId !== current.id && typing) {
    return (
      <>
        {live}
        <div className="pending-banner" role="status" data-testid="confirmation-waiting">
          A request is waiting for your answer; it opens when you stop typing.
        </div>
      </>
    );
  }
  return (
    <>
      {live}
      {current.kind === 'tool' ? (
        <ConfirmationDialog key={current.id} confirmation={current.view} waiting={pending.length} onAnswered={onAnswered} swapped={swapped} />
      ) : (
        <ServerRequestDialog key={current.id} question={current.view} waiting={pending.length} onAnswered={onAnswered} swapped={swapped} />
      )}
    </>
  );
}
