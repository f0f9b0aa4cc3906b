/**
 * The loopback listener that receives the browser's answer to a sign-in
 * (RFC 8252, OAuth for native apps). One job: listen on 127.0.0.1 at a
 * random port, accept exactly one answer carrying the `state` Airlock sent,
 * and stop — or stop when it times out or the sign-in is cancelled.
 *
 * Invariants guarded: an answer with another `state` (a page or program
 * trying to slip its own code in) is refused and does not end the wait; a
 * second answer is never read; nothing the request carries is written back
 * into the page (the page is fixed text).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One sign-in's listener. */
export interface RedirectListener {
  /** The redirect URI to register and send: http://127.0.0.1:PORT/callback. */
  readonly redirectUrl: string;
  /** Resolves with the authorization code; rejects on the server's error answer, a timeout, or cancel. */
  readonly code: Promise<string>;
  /** Stops listening now (a cancelled sign-in); `code` rejects if still waiting. */
  close(reason?: string): void;
}

/** Why a sign-in ended without a code, in words for the person. */
export class SignInEnded extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'cancelled' | 'denied' | 'error',
  ) {
    super(message);
    this.name = 'SignInEnded';
  }
}

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  // No connection kept: a browser reusing it would carry a later sign-in's answer to this listener, closed by then.
  connection: 'close',
};

function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}</style></head><body><h1>${title}</h1><p>${text}</p></body></html>`;
}

/**
 * Opens the listener. `expectedState` is the `state` Airlock puts in the
 * authorization URL; only an answer carrying it counts.
 */
export async function openRedirectListener(options: { expectedState: () => string | undefined; timeoutMs?: number; preferredPorts?: readonly number[] }): Promise<RedirectListener> {
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  let settle!: { resolve: (code: string) => void; reject: (error: Error) => void };
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  code.catch(() => undefined); // Observed so an abandoned sign-in is not an unhandled rejection; whoever awaits it gets the error.
  let done = false;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== '/callback') {
      response.writeHead(404, PAGE_HEADERS).end(page('Not found', 'This address only takes Airlock’s sign-in answer.'));
      return;
    }
    const state = url.searchParams.get('state');
    const expected = options.expectedState();
    // SECURITY: the answer must carry the state of this sign-in; anything else is not ours and
    // does not end the wait (a program on this computer cannot cancel or hijack the sign-in).
    if (done || !expected || state !== expected) {
      response.writeHead(400, PAGE_HEADERS).end(page('Not this sign-in', 'This answer does not belong to the sign-in Airlock is waiting for. Nothing was done.'));
      return;
    }
    done = true;
    const error = url.searchParams.get('error');
    const value = url.searchParams.get('code');
    if (error) {
      response.writeHead(200, PAGE_HEADERS).end(page('Sign-in not completed', 'The sign-in was not completed. You can close this tab and return to Airlock.'));
      const description = url.searchParams.get('error_description');
      finish(new SignInEnded(error === 'access_denied' ? 'You declined the sign-in (or the server did): nothing was saved.' : `The sign-in server answered with an error: ${error.slice(0, 100)}${description ? ` — ${description.slice(0, 300)}` : ''}.`, error === 'access_denied' ? 'denied' : 'error'));
      return;
    }
    if (!value) {
      response.writeHead(400, PAGE_HEADERS).end(page('Sign-in not completed', 'The answer carried no code. You can close this tab and return to Airlock.'));
      finish(new SignInEnded('The sign-in server’s answer carried no code; nothing was saved.', 'error'));
      return;
    }
    response.writeHead(200, PAGE_HEADERS).end(page('Signed in', 'You can close this tab and return to Airlock.'));
    finish(undefined, value);
  });
  const timer = setTimeout(() => finish(new SignInEnded(`The sign-in was not completed within ${Math.round(timeoutMs / 60_000) || 1} minutes; nothing was saved. Try again.`, 'timeout')), timeoutMs);
  timer.unref();
  function finish(error: Error | undefined, value?: string): void {
    clearTimeout(timer);
    done = true;
    // One answer: the port closes at once (connections still open finish their page).
    server.close();
    server.closeIdleConnections?.();
    if (error) settle.reject(error);
    else settle.resolve(value!);
  }
  // The port registered with the authorization server before, when it is free (a server that matches
  // redirect addresses exactly, against RFC 8252, then still knows this one); else any free port.
  for (const port of [...(options.preferredPorts ?? []), 0]) {
    const listening = await new Promise<boolean>((resolve, reject) => {
      // Any failure on a preferred port falls back to the next, and at last to any free port.
      const onError = (error: NodeJS.ErrnoException) => (port !== 0 ? resolve(false) : reject(error));
      server.once('error', onError);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', onError);
        resolve(true);
      });
    });
    if (listening) break;
  }
  // Listening: a later socket error (no descriptors left to accept with) ends this sign-in, not Airlock.
  server.on('error', (error: Error) => finish(new SignInEnded(`The sign-in could not go on: ${error.message}. Try again.`, 'error')));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    code,
    close(reason = 'The sign-in was cancelled; nothing was saved.') {
      if (!done || server.listening) finish(new SignInEnded(reason, 'cancelled'));
    },
  };
}
