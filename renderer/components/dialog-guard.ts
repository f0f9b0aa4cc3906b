/**
 * What every question Airlock puts to a person shares, whatever it asks (a
 * tool call, a server's sampling request or question, a network request):
 * the pause after one question takes another's place, the announcement of
 * that swap, the countdown, the "you are reading, give me more time" signal,
 * and not taking the focus from someone who is typing.
 *
 * SECURITY: invariant 1 — a click or key press aimed at the question that was
 * shown must never answer the one that replaced it (issue 10, item 4). Every
 * answer control sleeps for SWAP_HOLD_MS after its question is shown; the
 * controls stay focusable (aria-disabled), so the safe choice can hold the
 * focus, and Escape still refuses at once.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';

/** How long a question that just appeared keeps its answer controls asleep. */
export const SWAP_HOLD_MS = 500;

/** How long after the last keystroke in a text field a new question waits before taking the focus (UX 9). */
export const TYPING_PAUSE_MS = 1200;

/**
 * The answer controls of one shown question sleep for SWAP_HOLD_MS after it
 * mounts (key the component by the question's id, so each question gets its
 * own pause). `asleep()` is the check to make when an answer arrives;
 * `holding` drives `aria-disabled` on the controls.
 */
export function useSwapHold(): { holding: boolean; asleep: () => boolean } {
  const shownAt = useRef(performance.now());
  const [holding, setHolding] = useState(true);
  useEffect(() => {
    const timer = window.setTimeout(() => setHolding(false), SWAP_HOLD_MS);
    return () => window.clearTimeout(timer);
  }, []);
  const asleep = useCallback(() => performance.now() - shownAt.current < SWAP_HOLD_MS, []);
  return { holding, asleep };
}

/**
 * Watches which question is shown. `swapped` is true during the render in
 * which one question takes another's place (a question shown when none was is
 * not a swap); `announcement` says so for screen readers, naming the new one.
 */
export function useSwapWatch(id: string | undefined, describe: string): { swapped: boolean; announcement: string } {
  const previous = useRef<string | undefined>(undefined);
  const description = useRef(describe);
  description.current = describe;
  const [announcement, setAnnouncement] = useState('');
  const swapped = id !== undefined && previous.current !== undefined && previous.current !== id;
  useEffect(() => {
    // Nothing shown any more: the next question is a fresh one, not a swap.
    if (id === undefined) {
      previous.current = undefined;
      return;
    }
    if (id === previous.current) return;
    const was = previous.current !== undefined;
    previous.current = id;
    setAnnouncement(was ? `A different request is now shown: ${description.current}. Read it before answering.` : '');
  }, [id]);
  return { swapped, announcement };
}

/** True while the person is typing in a text field outside a dialog (a keystroke within the pause). */
export function useTyping(): boolean {
  const [typing, setTyping] = useState(false);
  useEffect(() => {
    let timer: number | undefined;
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (!target || !(target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target.isContentEditable)) return;
      if (target.closest('dialog')) return;
      setTyping(true);
      window.clearTimeout(timer);
      timer = window.setTimeout(() => setTyping(false), TYPING_PAUSE_MS);
    };
    window.addEventListener('keydown', onKey, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      window.clearTimeout(timer);
    };
  }, []);
  return typing;
}

/** Seconds left until the deadline, ticking. */
export function useSecondsLeft(deadline: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 250);
    return () => window.clearInterval(timer);
  }, []);
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}

/**
 * UX 6: the countdown pauses while the person engages — each interaction asks
 * the core to move the deadline ahead (it bounds how far), at most every few
 * seconds. `done()` says the question is answered (no more extensions).
 */
export function useEngage(extend: () => void, done: () => boolean): { engaged: boolean; engage: () => void } {
  const lastExtend = useRef(0);
  const [engaged, setEngaged] = useState(false);
  const latest = useRef(extend);
  latest.current = extend;
  const engage = useCallback(() => {
    const now = Date.now();
    if (done() || now - lastExtend.current < 5_000) return;
    lastExtend.current = now;
    setEngaged(true);
    latest.current();
  }, [done]);
  return { engaged, engage };
}

/**
 * Opens a <dialog> as a modal when it mounts (the browser then makes
 * everything behind it inert and turns Escape into `cancel`), moves the focus
 * to `focus()`'s element, and closes it when it unmounts.
 */
export function useModal(dialog: RefObject<HTMLDialogElement | null>, focus: () => HTMLElement | null | undefined, deps: unknown[] = []): void {
  useEffect(() => {
    const el = dialog.current;
    if (!el) return undefined;
    if (!el.open) el.showModal();
    focus()?.focus();
    return () => {
      if (el.open) el.close();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
}
