/**
 * Serves the built renderer from `airlock://app/` with a strict Content
 * Security Policy. Only files inside the renderer's folder are served.
 */
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, relative, sep } from 'node:path';
import type { Protocol } from 'electron';
import { SCREEN_SCHEME } from '../core/screens';
import { APP_SCHEME } from './window';

/**
 * The page's CSP: scripts and styles only from the app, no network, no
 * plugins, and frames only from the screens' origins (`frameSource`: each
 * server's screens on an origin of their own, never the app's). Server-provided
 * text is rendered as text, so nothing needs more.
 */
export function appContentSecurityPolicy(frameSource: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'none'",
    "media-src 'none'",
    "object-src 'none'",
    `frame-src ${frameSource}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The app's CSP: frames only from `airlock-screen:` (servers' screens). */
export const CONTENT_SECURITY_POLICY = appContentSecurityPolicy(`${SCREEN_SCHEME}:`);

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** Headers on every response from the app's scheme, with frames from `frameSource`. */
export function appResponseHeaders(frameSource: string) {
  return {
    'Content-Security-Policy': appContentSecurityPolicy(frameSource),
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Referrer-Policy': 'no-referrer',
  } as const;
}

/** Headers on every response from the app's scheme. */
export const APP_RESPONSE_HEADERS = appResponseHeaders(`${SCREEN_SCHEME}:`);

/**
 * Maps a request URL to a file inside `rootDir`, or undefined when it points
 * anywhere else (another host, `..` escapes, encoded separators).
 */
export function resolveRendererFile(url: string, rootDir: string): { path: string; mimeType: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.host !== 'app') return undefined;
  let pathname: string;
  try {
    pathname = decodeURIComponent(parsed.pathname);
  } catch {
    return undefined;
  }
  if (pathname.includes('\0') || pathname.includes('\\')) return undefined;
  const requested = pathname === '/' ? '/index.html' : pathname;
  const path = normalize(join(rootDir, requested));
  const inside = relative(rootDir, path);
  if (inside.startsWith('..') || inside.startsWith(sep) || inside === '') return undefined;
  const mimeType = MIME[extname(path)];
  return mimeType ? { path, mimeType } : undefined;
}

/** Registers the handler for `airlock://` (call after `app` is ready). */
export function registerAppProtocol(protocol: Pick<Protocol, 'handle'>, rootDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = resolveRendererFile(request.url, rootDir);
    if (!file) return new Response('Not found', { status: 404, headers: APP_RESPONSE_HEADERS });
    try {
      const body = await readFile(file.path);
      return new Response(body, { status: 200, headers: { ...APP_RESPONSE_HEADERS, 'Content-Type': file.mimeType } });
    } catch {
      return new Response('Not found', { status: 404, headers: APP_RESPONSE_HEADERS });
    }
  });
}
