import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../approvals/clock';
import { Deadline } from '../approvals/deadline';
import { deepFreeze } from '../deep-freeze';
import { messageOf } from '../errors';

/**
 * Questions about requests *from* servers that wait for a person: a sampling
 * request (and later the model's answer), an elicitation form, a URL to
 * open. The sibling of the tool-call ConfirmationRegistry, with the same
 * promises: ids are minted here and unguessable; only an id this queue
 * issued can be answered, once, before its deadline; no answer by the
 * deadline ends it as `expired`; the first valid answer wins.
 *
 * What a valid answer is depends on the question, so each question brings
 * its own `accept` function; a refused answer leaves the question open.
 *
 * SECURITY: invariant 1 in reverse and hostile behaviour 10 — a shell can
 * only answer what the core asked, and only while it is asked.
 */

/** How a question ended. */
export type QueueOutcome<A> =
  | { kind: 'answered'; answer: A; by: QueueAnswerer; at: number }
  | { kind: 'expired'; at: number }
  | { kind: 'cancelled'; at: number; reason: string };

/**
 * Which shell answers: the window, a terminal (with the origin the owner
 * knows it by, never one it claims), or a test.
 */
export interface QueueAnswerer {
  shell: 'window' | 'terminal' | 'test';
  /** A terminal's origin (`local` for the owner's own terminal, `peer-N` for a client process). */
  origin?: string;
}

/** A question as the shells it was routed to see it (frozen). */
export interface QueuedQuestion<Q> {
  id: string;
  question: Q;
  openedAt: number;
  deadline: number;
  /**
   * The terminals it was shown on (their origins). The window is shown every
   * question; a terminal only those routed to it.
   */
  routedTo: readonly string[];
}

/**
 * True when `by` was shown `entry` and may answer it: the window (and a
 * test) every question, a terminal only one routed to its origin.
 * SECURITY: invariant 1 in reverse — an answer comes from a shell that was
 * shown the question; any other process's reads as one Airlock never asked.
 */
export function isRoutedTo(entry: Pick<QueuedQuestion<unknown>, 'routedTo'>, by: QueueAnswerer): boolean {
  if (by.shell === 'window' || by.shell === 'test') return true;
  return by.shell === 'terminal' && typeof by.origin === 'string' && entry.routedTo.includes(by.origin);
}

/** What `accept` says about an answer: take it (possibly normalised), or refuse it with a reason. */
export type Acceptance<A> = { ok: true; answer: A } | { ok: false; message: string };

interface Pending<Q, A> {
  entry: QueuedQuestion<Q>;
  accept: (answer: unknown) => Acceptance<A>;
  resolve: (outcome: QueueOutcome<A>) => void;
  /** Enforced on the steady clock; `entry.deadline` is the wall-clock time shown. */
  deadline: Deadline;
}

/** Construction options. */
export interface RequestQueueOptions {
  clock?: Clock;
  defaultTimeoutMs?: number;
  /** Upper bound on any deadline, from opening (also bounds `extend`). */
  maxTimeoutMs?: number;
  /** Most questions waiting at once; more are cancelled at once (a server flooding questions). */
  maxPending?: number;
}

const RECENT_LIMIT = 1000;

/** The queue. `Q` is what is shown; answers are checked by each question's `accept`. */
export class RequestQueue<Q> {
  readonly #clock: Clock;
  readonly #defaultTimeoutMs: number;
  readonly #maxTimeoutMs: number;
  readonly #maxPending: number;
  readonly #pending = new Map<string, Pending<Q, unknown>>();
  readonly #recent = new Map<string, 'answered' | 'expired' | 'cancelled'>();
  readonly #listeners = new Set<() => void>();
  readonly #openListeners = new Set<(entry: QueuedQuestion<Q>) => void>();

  constructor(options: RequestQueueOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? 120_000;
    this.#maxTimeoutMs = options.maxTimeoutMs ?? 15 * 60_000;
    this.#maxPending = options.maxPending ?? 20;
  }

  /**
   * Opens a question; the promise settles when it is answered, expires or is
   * cancelled (it never rejects). An aborted `signal` cancels it.
   */
  open<A>(
    question: Q,
    accept: (answer: unknown) => Acceptance<A>,
    options: { timeoutMs?: number; signal?: AbortSignal; routedTo?: readonly string[] } = {},
  ): { id: string; outcome: Promise<QueueOutcome<A>> } {
    const now = this.#clock.now();
    const wanted = options.timeoutMs ?? this.#defaultTimeoutMs;
    const timeout = Math.min(Number.isFinite(wanted) ? Math.max(0, wanted) : 0, this.#maxTimeoutMs);
    const routedTo = [...new Set(options.routedTo ?? [])].filter((origin) => origin !== 'window');
    const entry: QueuedQuestion<Q> = deepFreeze({ id: randomBytes(18).toString('base64url'), question, openedAt: now, deadline: now + timeout, routedTo });
    let resolve!: (outcome: QueueOutcome<A>) => void;
    const outcome = new Promise<QueueOutcome<A>>((r) => (resolve = r));
    const pending: Pending<Q, A> = { entry, accept, resolve, deadline: new Deadline(this.#clock, timeout, this.#maxTimeoutMs, () => this.#expire(entry.id)) };
    this.#pending.set(entry.id, pending as unknown as Pending<Q, unknown>);
    if (this.#pending.size > this.#maxPending) {
      this.#close(entry.id, { kind: 'cancelled', at: now, reason: 'Too many questions are waiting.' });
      return { id: entry.id, outcome };
    }
    if (options.signal?.aborted) {
      this.#close(entry.id, { kind: 'cancelled', at: now, reason: 'The server withdrew its request.' });
      return { id: entry.id, outcome };
    }
    pending.deadline.start(timeout);
    options.signal?.addEventListener('abort', () => this.cancel(entry.id, 'The server withdrew its request.'), { once: true });
    for (const listener of this.#openListeners) safely(() => listener(entry));
    this.#changed();
    return { id: entry.id, outcome };
  }

  /**
   * Answers a question. Refused: an id this queue did not issue, one already
   * answered, expired or cancelled, one not routed to the answering shell
   * (it reads as one Airlock never asked), an answer at or after the
   * deadline, or an answer the question's `accept` refuses (the question
   * then stays open).
   */
  answer(id: unknown, answer: unknown, by: QueueAnswerer): { ok: true } | { ok: false; message: string } {
    if (typeof id !== 'string') return { ok: false, message: 'Airlock did not ask this.' };
    const pending = this.#pending.get(id);
    if (pending && !isRoutedTo(pending.entry, by)) return { ok: false, message: 'Airlock did not ask this.' };
    if (!pending) {
      const past = this.#recent.get(id);
      if (!past) return { ok: false, message: 'Airlock did not ask this.' };
      return { ok: false, message: past === 'expired' ? 'The time to answer has passed.' : 'This was already answered or withdrawn.' };
    }
    const now = this.#clock.now();
    // SECURITY: hostile behaviour 10 — a late answer is refused even before the timer fires; late by
    // the steady clock (issue 16.3), so a wall clock set forward does not refuse an answer in time.
    if (pending.deadline.passed) {
      this.#expire(id);
      return { ok: false, message: 'The time to answer has passed.' };
    }
    if (!by || !['window', 'terminal', 'test'].includes(by.shell)) return { ok: false, message: 'The answer does not say where it came from.' };
    let accepted: Acceptance<unknown>;
    try {
      accepted = pending.accept(answer);
    } catch (error) {
      accepted = { ok: false, message: `That answer could not be read: ${messageOf(error)}` };
    }
    if (!accepted.ok) return accepted;
    this.#close(id, { kind: 'answered', answer: accepted.answer, by: { shell: by.shell, ...(by.shell === 'terminal' ? { origin: by.origin! } : {}) }, at: now });
    return { ok: true };
  }

  /** Gives the person more time while they engage (bounded by the maximum from opening); only from a shell it was routed to. */
  extend(id: unknown, byMs: number, by: QueueAnswerer = { shell: 'window' }): number | undefined {
    if (typeof id !== 'string') return undefined;
    const pending = this.#pending.get(id);
    if (!pending || !isRoutedTo(pending.entry, by)) return undefined;
    const extended = pending.deadline.extend(byMs);
    if (extended === undefined) return undefined;
    if (extended === 'unchanged') return pending.entry.deadline;
    pending.entry = deepFreeze({ ...pending.entry, deadline: extended.shown });
    this.#changed();
    return pending.entry.deadline;
  }

  /** Replaces what a pending question shows (e.g. "the person opened the link"); false when not pending. */
  update(id: string, change: (question: Q) => Q): boolean {
    const pending = this.#pending.get(id);
    if (!pending) return false;
    pending.entry = deepFreeze({ ...pending.entry, question: change(pending.entry.question) });
    this.#changed();
    return true;
  }

  /** The questions waiting, oldest first: all of them, or those `by` was shown. */
  pending(by?: QueueAnswerer): QueuedQuestion<Q>[] {
    const all = [...this.#pending.values()].map((p) => p.entry);
    return by ? all.filter((entry) => isRoutedTo(entry, by)) : all;
  }

  /** A waiting question: any, or only one `by` was shown. */
  get(id: string, by?: QueueAnswerer): QueuedQuestion<Q> | undefined {
    const entry = this.#pending.get(id)?.entry;
    return entry && (!by || isRoutedTo(entry, by)) ? entry : undefined;
  }

  cancel(id: string, reason: string): boolean {
    if (!this.#pending.has(id)) return false;
    this.#close(id, { kind: 'cancelled', at: this.#clock.now(), reason });
    return true;
  }

  cancelAll(reason: string): void {
    for (const id of [...this.#pending.keys()]) this.cancel(id, reason);
  }

  /** Called when a question opens (terminal shells ask it); returns an unsubscribe function. */
  onDidOpen(listener: (entry: QueuedQuestion<Q>) => void): () => void {
    this.#openListeners.add(listener);
    return () => this.#openListeners.delete(listener);
  }

  /** Called whenever the list of waiting questions changes. */
  onDidChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #expire(id: string): void {
    if (this.#pending.has(id)) this.#close(id, { kind: 'expired', at: this.#clock.now() });
  }

  #close(id: string, outcome: QueueOutcome<unknown>): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    pending.deadline.stop();
    this.#recent.set(id, outcome.kind);
    if (this.#recent.size > RECENT_LIMIT) this.#recent.delete(this.#recent.keys().next().value as string);
    pending.resolve(outcome);
    this.#changed();
  }

  #changed(): void {
    for (const listener of this.#listeners) safely(listener);
  }
}

function safely(run: () => void): void {
  try {
    run();
  } catch {
    // A broken shell must not break the queue.
  }
}

