/**
 * The screens' origins in the app: `airlock-screen://<key>/`, one host per
 * server, never the app's own `airlock://app`. Main serves only Airlock's
 * relay page there, with the headers the core built for the screen session
 * the page names (screen-frames.ts), and decides the permission requests
 * that come from screen frames.
 *
 * SECURITY: "Server-written code inside the host is a server" — a screen
 * runs on an origin of its own, in a frame with no preload (preloads run in
 * the main frame only: `nodeIntegrationInSubFrames` is off), so it has no
 * `window.airlock`, no Node, and no IPC (the IPC wrapper refuses subframes).
 */
import type { Protocol } from 'electron';
import { SCREEN_SCHEME, screenFrameResponse, type ScreenFrameLookup } from '../core/screens';

export { SCREEN_SCHEME } from '../core/screens';

/** The privileges of the screens' scheme: a standard, secure scheme, so each host is an origin and gets its CSP. */
export const SCREEN_SCHEME_PRIVILEGES = { standard: true, secure: true } as const;

/** Registers the handler for `airlock-screen://` (call after `app` is ready). */
export function registerScreenProtocol(protocol: Pick<Protocol, 'handle'>, lookup: ScreenFrameLookup): void {
  protocol.handle(SCREEN_SCHEME, async (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return new Response('Not found', { status: 404 });
    }
    const answer = await screenFrameResponse(request.method, url, url.host, lookup);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
}

/** The Chromium permission names that stand for each screen permission. */
const SCREEN_PERMISSIONS: Record<string, 'camera' | 'microphone' | 'geolocation' | 'clipboardWrite'> = {
  geolocation: 'geolocation',
  'clipboard-sanitized-write': 'clipboardWrite',
};

/** What a permission request is, as Electron's handler is told it. */
export interface PermissionAsk {
  permission: string;
  /** The URL of the frame that asks. */
  requestingUrl: string | undefined;
  isMainFrame: boolean;
  /** For `media`: which devices. */
  mediaTypes?: readonly string[];
}

/**
 * Whether a permission may be granted: never to Airlock's own page or any
 * main frame; to a screen's frame only the device permissions its server
 * was granted — and Blink grants a frame a device only when every frame
 * above it allows it (the relay's Permissions-Policy header and the frames'
 * `allow` attributes, which list only that server's grants). `granted`
 * answers for the permission, across the servers whose screens may use it.
 */
export function allowScreenPermission(ask: PermissionAsk, granted: (permission: 'camera' | 'microphone' | 'geolocation' | 'clipboardWrite') => boolean): boolean {
  if (ask.isMainFrame) return false;
  const url = ask.requestingUrl ?? '';
  const fromScreen = url.startsWith(`${SCREEN_SCHEME}://`) || url === 'about:srcdoc';
  if (!fromScreen) return false;
  if (ask.permission === 'media') {
    const types = ask.mediaTypes ?? [];
    if (types.length === 0) return false;
    return types.every((type) => (type === 'video' ? granted('camera') : type === 'audio' ? granted('microphone') : false));
  }
  const mapped = Object.hasOwn(SCREEN_PERMISSIONS, ask.permission) ? SCREEN_PERMISSIONS[ask.permission] : undefined;
  return mapped !== undefined && granted(mapped);
}

type ScreenPermissionName = 'camera' | 'microphone' | 'geolocation' | 'clipboardWrite';

/**
 * The device permissions of the screens open in the window now, learnt from
 * the core's answers to `screens.open` (and forgotten at `screens.close`):
 * what main's permission handler may grant a screen frame at most.
 */
export class OpenScreenPermissions {
  readonly #open = new Map<string, readonly ScreenPermissionName[]>();

  /** Wraps the two handlers so that every screen opened and closed is noted. */
  wrap<H extends { 'screens.open': (request: never) => unknown; 'screens.close': (request: never) => unknown }>(handlers: H): Pick<H, 'screens.open' | 'screens.close'> {
    const open = handlers['screens.open'] as (request: unknown) => Promise<{ ready: boolean; id?: string; permissions?: ScreenPermissionName[] }>;
    const close = handlers['screens.close'] as (request: { id: string }) => Promise<unknown>;
    return {
      'screens.open': (async (request: unknown) => {
        const view = await open(request);
        if (view.ready && view.id) this.#open.set(view.id, [...(view.permissions ?? [])]);
        return view;
      }),
      'screens.close': (async (request: { id: string }) => {
        this.#open.delete(request.id);
        return close(request);
      }),
    };
  }

  /** Whether any open screen was granted `permission`. */
  granted(permission: ScreenPermissionName): boolean {
    for (const permissions of this.#open.values()) if (permissions.includes(permission)) return true;
    return false;
  }
}
