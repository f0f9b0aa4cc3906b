/**
 * What the dialogs for a server's questions share (server-request-dialogs.tsx):
 * the server's name and the app it asks during, in Airlock's sentence; the
 * question's state (an answer sent once through `requests.answer`, the
 * deadline extended while the person engages); the frame with the test
 * ids and words of a question, and the one a server's question to the
 * person (a form, a web page) adds to it. The frame itself is every asking
 * dialog's (asking-dialog.tsx).
 */
import type { ReactNode } from 'react';
import type { RequestOf } from '../../shared/ipc';
import type { ServerRequestView } from '../../shared/views';
import { invoke } from '../api';
import { AnswerButton, AskingDialog, Refusal, useAsking, type AskingState } from './asking-dialog';
import { ServerWords } from './dialog-parts';
import { InertText } from './inert-text';

export type Answer = RequestOf<'requests.answer'>['answer'];
export type View<K extends ServerRequestView['kind']> = Extract<ServerRequestView, { kind: K }>;

export interface DialogProps<Q> {
  question: Q;
  waiting: number;
  onAnswered: (id: string) => void;
  /** This question just took another's place in the dialog. */
  swapped?: boolean;
}

/** The server's name in Airlock's sentence: data, in code style. */
export function ServerName({ name }: { name: string }) {
  return (
    <code className="tool-ref">
      <InertText text={name} fold={60} />
    </code>
  );
}

/** "(while app “Claude Desktop” runs one of its tools)" — the app is data. */
export function During({ during }: { during?: string }) {
  if (!during) return null;
  return (
    <>
      {' '}
      · while app “<InertText text={during} fold={60} />” runs one of its tools
    </>
  );
}

/** A question's state: the shared asking state, and `send` for its answer. */
export function useQuestion(q: ServerRequestView, onAnswered: (id: string) => void, swapped: boolean) {
  const asking = useAsking(q, onAnswered, swapped, () => void invoke('requests.extend', { id: q.id }));
  const { send: submit } = asking;
  const send = (answer: Answer, closing: boolean): Promise<boolean> => submit(() => invoke('requests.answer', { id: q.id, answer }), closing);
  return { ...asking, send };
}

export type QuestionState = Omit<AskingState, 'send'> & { send: (answer: Answer, closing: boolean) => Promise<boolean> };

/** What no answer in time means, by kind of question (the dialog's countdown says it). */
const NO_ANSWER: Record<ServerRequestView['kind'], string> = {
  'sampling-request': 'Refused',
  'sampling-response': 'Refused',
  'elicitation-form': 'Cancelled',
  'elicitation-url': 'Cancelled',
};

/**
 * The frame of a question dialog: the queue and countdown, Airlock's
 * headline, a scrolling body, and the answer area — any choices, the
 * restatement of what answering does, the buttons, and why an answer was refused.
 */
export function QuestionFrame({
  q,
  state,
  waiting,
  onRefuse,
  headline,
  meta,
  children,
  choices,
  restatement,
  buttons,
}: {
  q: ServerRequestView;
  state: QuestionState;
  waiting: number;
  /** Escape or closing: deny, refuse or decline — at once, even while the buttons sleep. */
  onRefuse: () => void;
  headline: ReactNode;
  meta: ReactNode;
  children: ReactNode;
  /** What the person may choose before answering (how long an answer holds), above the restatement. */
  choices?: ReactNode;
  /** The question the answer area asks, in Airlock's words. */
  restatement: ReactNode;
  buttons: ReactNode;
}) {
  return (
    <AskingDialog
      state={state}
      waiting={waiting}
      outcome={NO_ANSWER[q.kind]}
      onRefuse={onRefuse}
      className="confirm confirm-question"
      data={{ 'data-testid': 'server-request', 'data-request-id': q.id, 'data-kind': q.kind }}
      headline={headline}
      headlineTestId="request-headline"
      meta={meta}
      metaTestId="request-meta"
      reasons={q.reasons}
      reasonsTestId="request-reasons"
      foot={
        <>
          {choices}
          <p className="confirm-restatement" data-testid="request-restatement">
            {restatement}
          </p>
          <div className="confirm-buttons">{buttons}</div>
          <Refusal text={state.refusal} testId="request-refusal" />
        </>
      }
    >
      {children}
    </AskingDialog>
  );
}

/** What the server wrote with its question, quoted as its own. */
function ServerMessage({ q }: { q: { server: string; message: string } }) {
  return (
    <section className="confirm-section">
      <ServerWords server={<InertText text={q.server} />} testId="request-message">
        <InertText text={q.message} block fold={1200} empty="(no message)" />
      </ServerWords>
    </section>
  );
}

/**
 * The frame of a server's question to the person (a form, a web page to
 * open): the server's message first, then the body; in the answer area the
 * restatement, Decline and Cancel — always there — and the one way to accept.
 * Escape or closing declines; no answer in time is a cancel.
 */
export function ElicitationFrame({
  q,
  state,
  waiting,
  headline,
  meta,
  restatement,
  accept,
  children,
}: {
  q: View<'elicitation-form' | 'elicitation-url'>;
  state: QuestionState;
  waiting: number;
  headline: ReactNode;
  meta: ReactNode;
  restatement: ReactNode;
  /** The accepting button (an `AnswerButton`, class `primary`). */
  accept: ReactNode;
  children: ReactNode;
}) {
  const decline = () => void state.send({ action: 'decline' }, true);
  const cancel = () => void state.send({ action: 'cancel' }, true);
  return (
    <QuestionFrame
      q={q}
      state={state}
      waiting={waiting}
      onRefuse={decline}
      headline={headline}
      meta={meta}
      restatement={restatement}
      buttons={
        <>
          <AnswerButton state={state} onPress={decline} className="deny" testId="request-decline">
            Decline
          </AnswerButton>
          <AnswerButton state={state} onPress={cancel} testId="request-cancel">
            Cancel
          </AnswerButton>
          {accept}
        </>
      }
    >
      <ServerMessage q={q} />
      {children}
    </QuestionFrame>
  );
}
