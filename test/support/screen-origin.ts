/**
 * The screens' origins for the browser tests. The app serves each server's
 * screens from `airlock-screen://<key>/` (Electron's custom protocol, which
 * Chromium alone cannot serve); here a loopback HTTP server answers for
 * `http://<key>.localhost:<port>/` — one origin per server, as in the app,
 * and never the harness's own origin — with the very same function and
 * headers the app's protocol handler uses (`screenFrameResponse`, reading the
 * core's policy for each session).
 *
 * Also: canary listeners, counting what reaches them from outside the frame.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { screenFrameResponse, type ScreenFrames } from '../../electron/core/screens/screen-frames';
import type { AirlockHost } from '../../electron/core/host';
import { HARNESS_ORIGIN } from './browser-harness';

/**
 * Chromium refuses a page that is not on loopback (the harness's
 * `http://airlock.test`) anything on loopback (its Local Network Access
 * checks). In the app, screens come from a custom protocol — not the network
 * — so those checks never decide anything there; the screen tests turn them
 * off, so that what stops a screen's request here is what stops it in the
 * app: the CSP Airlock built.
 */
export const SCREEN_TEST_BROWSER_ARGS = ['--disable-features=LocalNetworkAccessChecks'];

export interface ScreenOrigin {
  /** What the host is built with: frames on this server's port, embedded by the harness's origin. */
  frames: ScreenFrames;
  /** The app's `frame-src` for the harness. */
  frameSource: string;
  /** Requests the harness lets through to this server. */
  isScreenUrl(url: string): boolean;
  /** Set once the host exists (the server answers 404 until then). */
  bind(host: AirlockHost): void;
  /** Every request it answered: method, URL, status. */
  served: Array<{ method: string; url: string; status: number }>;
  close(): Promise<void>;
}

export async function startScreenOrigin(): Promise<ScreenOrigin> {
  let host: AirlockHost | undefined;
  const served: ScreenOrigin['served'] = [];
  let port = 0;
  const server: Server = createServer((request, response) => {
    const hostHeader = request.headers.host ?? '';
    const key = /^(s[0-9a-f]{24})\.localhost:\d+$/.exec(hostHeader)?.[1];
    const url = new URL(request.url ?? '/', `http://${hostHeader || 'invalid'}`);
    void screenFrameResponse(request.method ?? 'GET', url, key, {
      appOrigin: HARNESS_ORIGIN,
      policy: async (id, k) => host?.screens.framePolicy(id, k),
    }).then((answer) => {
      served.push({ method: request.method ?? '', url: url.href, status: answer.status });
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    frames: { origin: (key) => `http://${key}.localhost:${port}`, appOrigin: HARNESS_ORIGIN },
    frameSource: `http://*.localhost:${port}`,
    isScreenUrl: (url) => new RegExp(`^http://s[0-9a-f]{24}\\.localhost:${port}/`).test(url),
    bind: (next) => {
      host = next;
    },
    served,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A loopback listener that counts the requests reaching it (a screen's fetch, seen from outside). */
export interface Canary {
  origin: string;
  hits: string[];
  close(): Promise<void>;
}

export async function startCanary(): Promise<Canary> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    response.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' });
    response.end('canary');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
