/**
 * What a remote server's MCP transport fetches through: the checked fetch,
 * plus the server's own headers and its bearer token — sent only to the
 * server's own origin — and the answers to its challenges. One job: turn a
 * 401 into a sign-in (or a refresh), a 403 insufficient_scope into a step-up,
 * an expired session's 404 into a reconnect, each at most once per request.
 *
 * Invariants guarded: the server's headers and token never go to another
 * origin (its authorization server gets neither); no request loops on a
 * challenge (one answer each, then a plain error: SEP-835's retry limit).
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ChannelError } from '../servers/connection-channel';
import type { RemoteOAuth, SignInBroker } from './oauth';

/** What the middleware needs for one server. */
export interface AuthorizedFetchOptions {
  base: FetchLike;
  serverUrl: URL;
  /** The server's headers, secrets filled in (read at each request: a changed secret applies at once). */
  headers: () => Record<string, string>;
  /** Its OAuth sign-in; absent when the person gave an Authorization header of their own. */
  oauth?: RemoteOAuth;
  /** A person's sign-in, when one started this connection (the add flow); absent: challenges that need a person fail plainly. */
  broker?: SignInBroker;
  /** Aborts a sign-in in progress (the connection is being closed). */
  signal?: AbortSignal;
  /** Notes for the server's log (never a token or a header value). */
  note?: (text: string) => void;
}

/** Wraps the checked fetch for one remote server's transport. */
export function authorizedFetch(options: AuthorizedFetchOptions): FetchLike {
  const origin = options.serverUrl.origin;
  return async (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : String(input));
    const ownOrigin = url.origin === origin;
    const send = async (): Promise<Response> => {
      const headers = new Headers(init?.headers);
      // SECURITY: the server's headers and token go to its own origin only.
      if (ownOrigin) {
        for (const [name, value] of Object.entries(options.headers())) headers.set(name, value);
        const token = options.oauth?.accessToken();
        if (token && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
      }
      return options.base(url, { ...init, headers });
    };
    let response = await send();
    if (!ownOrigin) return response;
    const hadSession = new Headers(init?.headers).has('mcp-session-id');

    if (response.status === 401 && options.oauth) {
      const challenge = await challengeOf(response);
      await response.body?.cancel();
      options.note?.(`the server asked for a sign-in (401)${challenge.scope ? `, scope “${challenge.scope}”` : ''}`);
      await options.oauth.authorize(challenge, options.broker, options.signal);
      response = await send();
      if (response.status === 401) {
        await response.body?.cancel();
        throw new ChannelError('The server still refused Airlock after signing in (401): the sign-in server and the MCP server do not agree. Sign in again, or check the server’s address.', 'sign-in', false);
      }
    } else if (response.status === 401) {
      await response.body?.cancel();
      throw new ChannelError('The server refused the credentials Airlock sent (401 Unauthorized): check the header or key you gave it.', 'sign-in', false);
    }

    if (response.status === 403 && options.oauth) {
      const challenge = await challengeOf(response);
      if (challenge.error === 'insufficient_scope') {
        await response.body?.cancel();
        options.note?.(`the server asked for more access (403 insufficient_scope)${challenge.scope ? `: “${challenge.scope}”` : ''}`);
        await options.oauth.authorize({ ...challenge, stepUp: true }, options.broker, options.signal);
        response = await send();
        if (response.status === 403) {
          await response.body?.cancel();
          // One step-up per request: a server that keeps asking does not get a loop of sign-ins.
          throw new ChannelError(`The server still refused after you granted more access (403${challenge.scope ? `, it wants “${challenge.scope}”` : ''}); Airlock does not ask again for this request.`, 'step-up', false);
        }
      }
    }
    if (response.status === 403) {
      const text = await safeText(response);
      throw new ChannelError(`The server refused the request (403 Forbidden)${text ? `: ${text}` : ''}.`, 'forbidden', false);
    }
    if (response.status === 404 && hadSession) {
      await response.body?.cancel();
      // The spec's signal that the session is gone: the server did not process the request.
      throw new ChannelError('The server no longer knows this session (404): it ended it. Airlock reconnects; nothing was done.', 'session-expired', false);
    }
    return response;
  };
}

/** The parameters of a Bearer challenge (RFC 6750 §3), with the metadata URL (RFC 9728). */
async function challengeOf(response: Response): Promise<{ resourceMetadataUrl?: URL; scope?: string; error?: string }> {
  // The SDK's sign-in code is loaded when a server first asks for it, not when Airlock starts.
  const { extractWWWAuthenticateParams } = await import('@modelcontextprotocol/sdk/client/auth.js');
  const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(response);
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}), ...(error ? { error } : {}) };
}

/** The start of an error answer's text, as one plain line (the server's words, shown inert). */
async function safeText(response: Response): Promise<string> {
  try {
    const text = await response.text();
    return text.replace(/\s+/g, ' ').trim().slice(0, 200);
  } catch {
    return '';
  }
}
