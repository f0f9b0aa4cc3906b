/**
 * The page a screen's frame loads from the screens' origin: Airlock's own
 * relay (the spec's "sandbox proxy"), never server text. It puts the
 * screen's HTML into an inner frame sandboxed with `allow-scripts` only —
 * no `allow-same-origin`, so the screen has an opaque origin of its own,
 * no storage, no way into the relay or Airlock's window — and passes
 * JSON-RPC messages between that frame and Airlock's window (the
 * `AppBridge`), in both directions, except the relay's own
 * `ui/notifications/sandbox-*` ones, which a screen may neither send nor
 * receive.
 *
 * It talks only to the window of `hostOrigin` (Airlock's page), takes the
 * HTML once, ignores a `sandbox` the message proposes (the sandbox is
 * Airlock's), and sets the inner frame's `allow` only from the permission
 * names it knows — the page's Permissions-Policy header (screen-policy.ts)
 * caps it anyway.
 */

/** The relay's script, served at `/relay.js` (CSP `script-src 'self'`: no inline code of Airlock's own). */
export const RELAY_SCRIPT = `(() => {
  'use strict';
  const meta = document.querySelector('meta[name="airlock-host"]');
  const hostOrigin = meta ? meta.getAttribute('content') : null;
  if (!hostOrigin || window.parent === window) return;
  const RESOURCE_READY = 'ui/notifications/sandbox-resource-ready';
  const PROXY_READY = 'ui/notifications/sandbox-proxy-ready';
  const FEATURES = { camera: 'camera', microphone: 'microphone', geolocation: 'geolocation', clipboardWrite: 'clipboard-write' };
  const relayOwn = (data) => data !== null && typeof data === 'object' && typeof data.method === 'string' && data.method.startsWith('ui/notifications/sandbox-');
  const inner = document.createElement('iframe');
  inner.setAttribute('sandbox', 'allow-scripts');
  inner.setAttribute('title', 'The server’s screen');
  inner.setAttribute('referrerpolicy', 'no-referrer');
  inner.style.cssText = 'display:block;border:0;width:100%;height:100%;';
  let loaded = false;
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (event.source === window.parent) {
      if (event.origin !== hostOrigin) return;
      if (relayOwn(data)) {
        if (data.method !== RESOURCE_READY || loaded) return;
        const params = data.params !== null && typeof data.params === 'object' ? data.params : {};
        if (typeof params.html !== 'string') return;
        loaded = true;
        const asked = params.permissions !== null && typeof params.permissions === 'object' ? params.permissions : {};
        const allow = Object.keys(FEATURES).filter((name) => Object.prototype.hasOwnProperty.call(asked, name)).map((name) => FEATURES[name]);
        if (allow.length) inner.setAttribute('allow', allow.join('; '));
        inner.srcdoc = params.html;
        document.body.appendChild(inner);
        return;
      }
      if (inner.contentWindow) inner.contentWindow.postMessage(data, '*');
      return;
    }
    if (event.source === inner.contentWindow && event.source !== null) {
      if (relayOwn(data)) return;
      window.parent.postMessage(data, hostOrigin);
    }
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: PROXY_READY, params: {} }, hostOrigin);
})();
`;

/** The relay page, with the one origin it talks to. */
export function relayPage(hostOrigin: string): string {
  const attribute = hostOrigin.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="airlock-host" content="${attribute}">
<title>Screen</title>
<style>html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}</style>
<script src="/relay.js"></script>
</head>
<body></body>
</html>
`;
}
