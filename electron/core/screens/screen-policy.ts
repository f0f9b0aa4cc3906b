/**
 * What a screen's frame is allowed, written by Airlock: the
 * Content-Security-Policy and Permissions-Policy headers of the page a
 * screen runs in, and the iframe `allow` list — built only from parsed
 * addresses (shared/screens.ts `parseScreenDomain`) that the screen declared
 * *and* the person allowed, never from the server's text.
 *
 * The page is Airlock's small relay (the spec's "sandbox proxy"); the
 * screen's HTML runs in an inner frame without `allow-same-origin` that
 * inherits this policy, so the header binds the screen too. The defaults
 * are the spec's restrictive ones: no network, no frames, no plugins, and
 * no form posts, workers or navigation targets of its own.
 *
 * SECURITY: "Server-written code inside the host is a server" — a screen
 * reaches no address the person did not allow, and only Airlock's own page
 * may embed it (`frame-ancestors`).
 */
import { SCREEN_PERMISSIONS, type ScreenDomains, type ScreenPermission } from '../../../shared/screens';

/** The `sandbox` attribute of the inner frame, the screen's own: scripts, nothing else (no same-origin, forms, popups, top navigation). */
export const SCREEN_SANDBOX = 'allow-scripts';
/** The `sandbox` attribute of the outer frame (Airlock's relay page): it needs its own origin to relay. */
export const RELAY_SANDBOX = 'allow-scripts allow-same-origin';

/** The Permission Policy feature of each screen permission. */
const FEATURE: Record<ScreenPermission, string> = {
  camera: 'camera',
  microphone: 'microphone',
  geolocation: 'geolocation',
  clipboardWrite: 'clipboard-write',
};

/** Features no screen gets, whatever it asks (each is another way to reach the person or their devices). */
const ALWAYS_DENIED = ['clipboard-read', 'display-capture', 'usb', 'serial', 'hid', 'bluetooth', 'payment', 'publickey-credentials-get', 'fullscreen', 'midi', 'screen-wake-lock', 'idle-detection', 'local-fonts', 'window-management'];

/**
 * The Content-Security-Policy for a screen's frame. `domains` are the
 * addresses it may use (declared ∩ allowed); `appOrigin` is the one page that
 * may embed it (Airlock's window).
 */
export function screenContentSecurityPolicy(domains: ScreenDomains, appOrigin: string): string {
  const sources = (list: readonly string[]) => (list.length ? ` ${list.join(' ')}` : '');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${sources(domains.resource)}`,
    `style-src 'self' 'unsafe-inline'${sources(domains.resource)}`,
    `img-src 'self' data:${sources(domains.resource)}`,
    `font-src 'self' data:${sources(domains.resource)}`,
    `media-src 'self' data:${sources(domains.resource)}`,
    `connect-src ${domains.connect.length ? domains.connect.join(' ') : "'none'"}`,
    `frame-src ${domains.frame.length ? domains.frame.join(' ') : "'none'"}`,
    `base-uri ${domains.baseUri.length ? domains.baseUri.join(' ') : "'self'"}`,
    "object-src 'none'",
    "worker-src 'none'",
    "manifest-src 'none'",
    "form-action 'none'",
    `frame-ancestors ${appOrigin}`,
  ].join('; ');
}

/** The Permissions-Policy header: the permissions granted to this server's screens, every other one off. */
export function screenPermissionsPolicy(granted: readonly ScreenPermission[]): string {
  const entries = SCREEN_PERMISSIONS.map((permission) => `${FEATURE[permission]}=${granted.includes(permission) ? 'self' : '()'}`);
  return [...entries, ...ALWAYS_DENIED.map((feature) => `${feature}=()`)].join(', ');
}

/** The iframe `allow` list for the granted permissions ('' when none), for both frames. */
export function screenAllowAttribute(granted: readonly ScreenPermission[]): string {
  return SCREEN_PERMISSIONS.filter((permission) => granted.includes(permission))
    .map((permission) => FEATURE[permission])
    .join('; ');
}

/** Headers on every response of the screens' origin (the relay page and its script). */
export function screenResponseHeaders(policy: { csp: string; permissionsPolicy: string }): Record<string, string> {
  return {
    'Content-Security-Policy': policy.csp,
    ...(policy.permissionsPolicy ? { 'Permissions-Policy': policy.permissionsPolicy } : {}),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}

/** The headers of a refusal on the screens' origin: nothing may run there. */
export const SCREEN_REFUSAL_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Content-Type': 'text/plain; charset=utf-8',
  'Cache-Control': 'no-store',
};
