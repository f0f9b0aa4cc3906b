/**
 * The chrome every question dialog shares: the queue count and the countdown
 * on top, the note shown while a swapped-in question's buttons sleep, and
 * the row of answer buttons. Each dialog says what its own words are.
 */
import type { ReactNode } from 'react';

/** "1 of 3 requests waiting" and "Denied automatically in 42 s" (or paused while the person reads). */
export function DialogTop({ waiting, secondsLeft, engaged, outcome }: { waiting: number; secondsLeft: number; engaged: boolean; outcome: string }) {
  const expired = secondsLeft <= 0;
  return (
    <div className="confirm-top">
      <span className="muted" data-testid="confirmation-queue">
        {waiting > 1 ? `1 of ${waiting} requests waiting` : '1 request waiting'}
      </span>
      <span className={`countdown ${secondsLeft <= 10 ? 'countdown-soon' : ''}`} data-testid="countdown" role="timer" aria-live="off">
        {expired ? `Time is up: ${outcome.toLowerCase()}` : engaged ? `Paused while you read · ${outcome.toLowerCase()} ${secondsLeft} s after you stop` : `${outcome} automatically in ${secondsLeft} s`}
      </span>
    </div>
  );
}

/** Shown while the buttons of a question that took another's place sleep. */
export function SwapNote({ show }: { show: boolean }) {
  if (!show) return null;
  return (
    <p className="swap-note small" data-testid="confirmation-swapped">
      A different request took this place. Read it before answering.
    </p>
  );
}

/** Who is speaking: a labelled quote of a server's own text, visibly not Airlock's. */
export function ServerWords({ server, label, children, testId }: { server: ReactNode; label?: string; children: ReactNode; testId?: string }) {
  return (
    <figure className="server-said" data-testid={testId}>
      <figcaption className="server-said-label">
        {label ?? 'In the server’s words'} — <span className="server-said-who">{server}</span>, not Airlock
      </figcaption>
      <blockquote className="server-quote">{children}</blockquote>
    </figure>
  );
}
