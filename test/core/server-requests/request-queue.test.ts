/** The question queue answers only what it asked, once, before the deadline (hostile behaviour 10). */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../electron/core/approvals/clock';
import { RequestQueue } from '../../../electron/core/server-requests/request-queue';

const accept = (raw: unknown) => (raw === 'yes' || raw === 'no' ? { ok: true as const, answer: raw } : { ok: false as const, message: 'say yes or no' });

describe('RequestQueue', () => {
  it('takes the first valid answer; refuses forged ids, a second answer and invalid answers', async () => {
    const queue = new RequestQueue<string>({ clock: new ManualClock() });
    const { id, outcome } = queue.open('question?', accept);
    expect(queue.answer('forged', 'yes', { shell: 'test' })).toMatchObject({ ok: false, message: 'Airlock did not ask this.' });
    expect(queue.answer(id, 'maybe', { shell: 'test' })).toMatchObject({ ok: false, message: 'say yes or no' });
    expect(queue.pending()).toHaveLength(1);
    expect(queue.answer(id, 'no', { shell: 'window' })).toEqual({ ok: true });
    expect(queue.answer(id, 'yes', { shell: 'window' })).toMatchObject({ ok: false, message: /already answered/ });
    expect(await outcome).toMatchObject({ kind: 'answered', answer: 'no', by: { shell: 'window' } });
  });

  it('refuses an answer at the deadline even before the timer fired, and ends as expired', async () => {
    const clock = new ManualClock();
    const queue = new RequestQueue<string>({ clock, defaultTimeoutMs: 1000 });
    const { id, outcome } = queue.open('q', accept);
    // Time has passed (the steady clock, which deadlines go by), but the timer has not fired yet.
    clock.monotonic = () => 1000;
    expect(queue.answer(id, 'yes', { shell: 'test' })).toMatchObject({ ok: false, message: /time to answer has passed/ });
    expect(await outcome).toMatchObject({ kind: 'expired' });
  });

  it('a withdrawn request (the server cancelled) closes its question', async () => {
    const queue = new RequestQueue<string>({ clock: new ManualClock() });
    const controller = new AbortController();
    const { outcome } = queue.open('q', accept, { signal: controller.signal });
    controller.abort();
    expect(await outcome).toMatchObject({ kind: 'cancelled' });
    expect(queue.pending()).toHaveLength(0);
  });

  it('caps how many wait at once', async () => {
    const queue = new RequestQueue<number>({ clock: new ManualClock(), maxPending: 2 });
    queue.open(1, accept);
    queue.open(2, accept);
    expect(await queue.open(3, accept).outcome).toMatchObject({ kind: 'cancelled', reason: 'Too many questions are waiting.' });
  });

  it('an answer must say which shell it came from', () => {
    const queue = new RequestQueue<string>({ clock: new ManualClock() });
    const { id } = queue.open('q', accept);
    expect(queue.answer(id, 'yes', { shell: 'renderer' } as never).ok).toBe(false);
  });
});
