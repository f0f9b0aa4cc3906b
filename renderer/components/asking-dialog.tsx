/**
 * The one frame every question Airlock puts to a person in a dialog shares —
 * a tool call's confirmation (confirmation-dialog.tsx) and a server's
 * questions (server-request-dialogs.tsx): the native <dialog> opened with
 * showModal() (the browser makes everything behind it inert, gives it
 * role="dialog" and aria-modal, and turns Escape into `cancel`, which here
 * refuses), the queue count and countdown, the swap note, Airlock's headline
 * and meta line, a scrolling body, "Why Airlock asks", and the answer area.
 *
 * `useAsking` holds what an answer needs: it is sent once; a refusing answer
 * closes the dialog even when the core refuses it (the question is then
 * already closed); the buttons sleep after a swap; engaging extends the
 * deadline. No library, no inline <style> or eval: it works under the CSP.
 */
import { useCallback, useId, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import type { IpcResult } from '../../shared/ipc';
import { useEngage, useModal, useSecondsLeft, useSwapHold } from './dialog-guard';
import { DialogTop, SwapNote } from './dialog-parts';
import { InertText } from './inert-text';

/** How the core took an answer. */
type Taken = IpcResult<{ accepted: boolean; reason?: string }>;

/**
 * State and actions every asking dialog shares: the answer (once), the swap
 * pause, the countdown and its extension while the person engages.
 */
export function useAsking(q: { id: string; deadline: number }, onAnswered: (id: string) => void, swapped: boolean, extend: () => void) {
  const answeredRef = useRef(false);
  const [sending, setSending] = useState(false);
  const [refusal, setRefusal] = useState<string | undefined>();
  const [wasSwapped] = useState(swapped);
  // SECURITY: invariant 1 — the answer buttons sleep for a moment after this question is shown,
  // so a click aimed at the question before it cannot answer this one (see dialog-guard.ts).
  const { holding, asleep } = useSwapHold();
  const secondsLeft = useSecondsLeft(q.deadline);
  const { engaged, engage } = useEngage(
    extend,
    useCallback(() => answeredRef.current, []),
  );
  /**
   * Sends an answer once. `closing` answers (deny, refuse, decline, cancel)
   * close the dialog even when the core refuses them: the question is then
   * already closed (expired or answered elsewhere).
   */
  const send = useCallback(
    async (submit: () => Promise<Taken>, closing: boolean): Promise<boolean> => {
      if (answeredRef.current) return false;
      answeredRef.current = true;
      setSending(true);
      setRefusal(undefined);
      const result = await submit();
      setSending(false);
      if (result.ok && result.value.accepted) {
        onAnswered(q.id);
        return true;
      }
      if (closing) {
        onAnswered(q.id);
        return false;
      }
      answeredRef.current = false;
      setRefusal(result.ok ? (result.value.reason ?? 'Airlock did not accept this answer.') : result.message);
      return false;
    },
    [q.id, onAnswered],
  );
  return { answeredRef, sending, refusal, setRefusal, wasSwapped, holding, asleep, secondsLeft, expired: secondsLeft <= 0, engaged, engage, send };
}

export type AskingState = ReturnType<typeof useAsking>;
/** What the frame reads of an asking state. */
type FrameState = Pick<AskingState, 'answeredRef' | 'engage' | 'engaged' | 'secondsLeft' | 'wasSwapped' | 'holding'>;
/** What an answer button reads of it. */
type ButtonState = Pick<AskingState, 'asleep' | 'sending' | 'holding'>;

/** The frame of an asking dialog; each dialog gives its own words, test ids and answer area. */
export function AskingDialog({
  state,
  waiting,
  outcome,
  onRefuse,
  className,
  data,
  initialFocus,
  onKeyDown,
  headline,
  headlineTestId,
  underHeadline,
  meta,
  metaTestId,
  reasons,
  reasonsTestId,
  children,
  foot,
}: {
  state: FrameState;
  waiting: number;
  /** What no answer means: "Denied", "Refused", "Cancelled". */
  outcome: string;
  /** Escape or closing: deny, refuse or decline — at once, even while the buttons sleep. */
  onRefuse: () => void;
  className: string;
  /** The dialog's data attributes (`data-testid`, the question's id). */
  data: Record<`data-${string}`, string>;
  /** What takes the focus when it opens (the heading when absent). */
  initialFocus?: RefObject<HTMLElement | null> | undefined;
  onKeyDown?: (event: KeyboardEvent<HTMLDialogElement>) => void;
  headline: ReactNode;
  headlineTestId: string;
  /** Between the headline and the meta line (a consequence, a note about the caller). */
  underHeadline?: ReactNode;
  meta: ReactNode;
  metaTestId?: string;
  reasons: readonly string[];
  reasonsTestId: string;
  children: ReactNode;
  foot: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const ids = { title: useId(), desc: useId(), why: useId() };
  const focusFirst = initialFocus !== undefined;
  useModal(dialog, () => initialFocus?.current ?? heading.current, [focusFirst]);
  return (
    <dialog
      ref={dialog}
      className={className}
      aria-labelledby={ids.title}
      aria-describedby={ids.desc}
      {...data}
      onCancel={(event) => {
        // Escape refuses.
        event.preventDefault();
        onRefuse();
      }}
      onClose={() => {
        // Closed by the browser (not re-opened, not answered): that refuses too.
        if (!state.answeredRef.current && !dialog.current?.open) onRefuse();
      }}
      onKeyDown={(event) => {
        state.engage();
        onKeyDown?.(event);
      }}
      onPointerDown={state.engage}
      onInput={state.engage}
    >
      <div className="confirm-head">
        <DialogTop waiting={waiting} secondsLeft={state.secondsLeft} engaged={state.engaged} outcome={outcome} />
        <SwapNote show={state.wasSwapped && state.holding} />
        <h2 id={ids.title} ref={heading} tabIndex={-1} className="confirm-headline" data-testid={headlineTestId}>
          {headline}
        </h2>
        {underHeadline}
        <p id={ids.desc} className="confirm-meta small muted" data-testid={metaTestId}>
          {meta}
        </p>
      </div>
      <div className="confirm-body">{children}</div>
      <div className="confirm-foot">
        {reasons.length > 0 && (
          <div className="reasons confirm-why small" data-testid={reasonsTestId} aria-labelledby={ids.why}>
            <span id={ids.why} className="why-label">
              Why Airlock asks:
            </span>{' '}
            {reasons.map((reason, i) => (
              <span key={i}>
                {i > 0 && ' '}
                <InertText text={reason} />
              </span>
            ))}
          </div>
        )}
        {foot}
      </div>
    </dialog>
  );
}

/** An answer button: asleep (aria-disabled) for a moment after the question is shown; a press then does nothing. */
export function AnswerButton({
  state,
  onPress,
  disabled = false,
  className,
  testId,
  buttonRef,
  allow = false,
  children,
}: {
  state: ButtonState;
  onPress: () => void;
  disabled?: boolean;
  className?: string;
  testId: string;
  buttonRef?: RefObject<HTMLButtonElement | null>;
  /** The button that allows (Enter never presses it for a destructive call). */
  allow?: boolean;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      ref={buttonRef}
      className={className}
      onClick={() => {
        if (state.asleep()) return;
        onPress();
      }}
      disabled={disabled || state.sending}
      aria-disabled={state.holding ? true : undefined}
      data-allow={allow ? '' : undefined}
      data-testid={testId}
    >
      {children}
    </button>
  );
}

export type Remember = 'once' | 'session' | 'always';

/** "Remember: only this time / for this session / always, for …": how long an answer holds. */
export function RememberChoice({ name, value, onChange, always, testId }: { name: string; value: Remember; onChange: (value: Remember) => void; always: ReactNode; testId: string }) {
  return (
    <fieldset className="remember" data-testid={testId}>
      <legend>Remember:</legend>
      {(['once', 'session', 'always'] as const).map((option) => (
        <label key={option} className="check">
          <input type="radio" name={name} value={option} checked={value === option} onChange={() => onChange(option)} />{' '}
          {option === 'once' ? 'Only this time' : option === 'session' ? 'For this session (until Airlock quits)' : always}
        </label>
      ))}
    </fieldset>
  );
}

/** Why the core did not take an answer, said where the person looks. */
export function Refusal({ text, testId }: { text: string | undefined; testId?: string }) {
  if (!text) return null;
  return (
    <p role="alert" className="notice notice-error" data-testid={testId}>
      <InertText text={text} />
    </p>
  );
}

/** "Undo my edits": back to what was asked, unedited. */
export function UndoEdits({ onUndo }: { onUndo: () => void }) {
  return (
    <button type="button" className="small-button" onClick={onUndo}>
      Undo my edits
    </button>
  );
}
