// The loopback listener that takes the browser's answer to a sign-in: only this sign-in's state
// counts, one answer, then the port closes; a timeout or a cancel ends the wait plainly.
import { describe, expect, it } from 'vitest';
import { openRedirectListener, SignInEnded } from '../../../electron/core/remote/redirect-listener';

describe('redirect listener', () => {
  it('listens on 127.0.0.1 only, refuses an answer with another state without ending the wait, takes the right one once', async () => {
    const listener = await openRedirectListener({ expectedState: () => 'the-state' });
    expect(listener.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    const forged = await fetch(`${listener.redirectUrl}?code=attacker&state=guess`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).not.toContain('attacker'); // nothing from the request is echoed

    const real = await fetch(`${listener.redirectUrl}?code=the-code&state=the-state`);
    expect(real.status).toBe(200);
    await expect(listener.code).resolves.toBe('the-code');

    // One use: the port is closed now.
    await expect(fetch(`${listener.redirectUrl}?code=again&state=the-state`)).rejects.toThrow();
  });

  it('tells a declined sign-in plainly', async () => {
    const listener = await openRedirectListener({ expectedState: () => 's' });
    await fetch(`${listener.redirectUrl}?error=access_denied&state=s`);
    await expect(listener.code).rejects.toMatchObject({ reason: 'denied', message: expect.stringMatching(/declined the sign-in.*nothing was saved/) });
  });

  it('ends on timeout and on cancel', async () => {
    const slow = await openRedirectListener({ expectedState: () => 's', timeoutMs: 50 });
    await expect(slow.code).rejects.toBeInstanceOf(SignInEnded);
    await expect(slow.code).rejects.toMatchObject({ reason: 'timeout' });

    const cancelled = await openRedirectListener({ expectedState: () => 's' });
    cancelled.close();
    await expect(cancelled.code).rejects.toMatchObject({ reason: 'cancelled' });
  });
});
