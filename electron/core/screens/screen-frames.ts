/**
 * How the screens' origin answers: one origin per server
 * (`airlock-screen://<key>` in the app), which serves only Airlock's relay
 * page — with the Content-Security-Policy and Permissions-Policy the core
 * built for the screen session it names — and the relay's script. Anything
 * else, an unknown session or a session of another server's key, is a 404
 * on which nothing can run.
 *
 * The Electron shell's protocol handler and the browser tests' loopback
 * server both answer with `screenFrameResponse`, so the tests exercise the
 * very headers the app sends.
 */
import { createHash } from 'node:crypto';
import { RELAY_SCRIPT, relayPage } from './screen-relay';
import { SCREEN_REFUSAL_HEADERS, screenResponseHeaders } from './screen-policy';

/** The scheme of the screens' origins in the app (never the app's own `airlock://`). */
export const SCREEN_SCHEME = 'airlock-screen';

/**
 * A server's screen-origin key: a DNS label made from its name and when it
 * was added, so a server removed and added again under the same name gets a
 * new origin (nothing the old one's screens left behind carries over).
 */
export function screenOriginKey(server: string, createdAt: string): string {
  return `s${createHash('sha256').update(`${server}\u0000${createdAt}`).digest('hex').slice(0, 24)}`;
}

/** Where screens are served from, as the shell that shows them says. */
export interface ScreenFrames {
  /** The origin of a server's screens, from its key (`airlock-screen://<key>` in the app). */
  origin(key: string): string;
  /** The one origin that may embed a screen and that screens talk to (Airlock's page). */
  appOrigin: string;
}

/** The app's: a custom scheme main serves, one host per server. */
export const APP_SCREEN_FRAMES: ScreenFrames = {
  origin: (key) => `${SCREEN_SCHEME}://${key}`,
  appOrigin: 'airlock://app',
};

/** A response of the screens' origin, as plain data (Electron and Node's http both send it). */
export interface ScreenFrameResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What answering needs: the session's policy, by its id and the key of the origin asked. */
export interface ScreenFrameLookup {
  policy(id: string, key: string): Promise<{ csp: string; permissionsPolicy: string } | undefined>;
  appOrigin: string;
}

const NOT_FOUND: ScreenFrameResponse = { status: 404, headers: SCREEN_REFUSAL_HEADERS, body: 'Not found' };

/**
 * Answers one request to a screen origin. `key` is the origin's key (the
 * host in the app); only `GET /relay.html?screen=<id>` of a live session of
 * that key and `GET /relay.js` are served.
 */
export async function screenFrameResponse(method: string, url: URL, key: string | undefined, lookup: ScreenFrameLookup): Promise<ScreenFrameResponse> {
  if (method !== 'GET' || !key || !/^s[0-9a-f]{24}$/.test(key)) return NOT_FOUND;
  if (url.pathname === '/relay.js') {
    return { status: 200, headers: { ...screenResponseHeaders({ csp: "default-src 'none'", permissionsPolicy: '' }), 'Content-Type': 'text/javascript; charset=utf-8' }, body: RELAY_SCRIPT };
  }
  if (url.pathname !== '/relay.html') return NOT_FOUND;
  const id = url.searchParams.get('screen');
  if (!id || !/^[0-9a-f]{32}$/.test(id)) return NOT_FOUND;
  const policy = await lookup.policy(id, key).catch(() => undefined); // An unknown or closed screen gets the not-found page (fail closed).
  if (!policy) return NOT_FOUND;
  return { status: 200, headers: { ...screenResponseHeaders(policy), 'Content-Type': 'text/html; charset=utf-8' }, body: relayPage(lookup.appOrigin) };
}
