/**
 * The screens' origins in the app's main process, through narrow
 * interfaces (no Electron binary here): the protocol handler answers with the
 * core's headers for a live session of that host only; a device permission
 * goes only to a screen frame, and only while a screen granted it is open.
 */
import { describe, expect, it } from 'vitest';
import { screenOriginKey } from '../../electron/core/screens/screen-frames';
import { allowScreenPermission, OpenScreenPermissions, registerScreenProtocol, SCREEN_SCHEME } from '../../electron/main/screen-protocol';
import { hardenSession } from '../../electron/main/window';

describe('airlock-screen://', () => {
  const key = screenOriginKey('apps', '2026-01-01T00:00:00.000Z');
  const id = 'c'.repeat(32);

  async function serve(url: string, method = 'GET'): Promise<Response> {
    let handler: ((request: Request) => Promise<Response>) | undefined;
    registerScreenProtocol({ handle: (scheme: string, h: never) => (expect(scheme).toBe(SCREEN_SCHEME), (handler = h)) } as never, {
      appOrigin: 'airlock://app',
      policy: async (asked, k) => (asked === id && k === key ? { csp: "default-src 'none'; frame-ancestors airlock://app", permissionsPolicy: 'camera=()' } : undefined),
    });
    return handler!(new Request(url, { method }));
  }

  it('serves the relay page of a live session on its own host, with the core’s CSP', async () => {
    const response = await serve(`${SCREEN_SCHEME}://${key}/relay.html?screen=${id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors airlock://app");
    expect(response.headers.get('permissions-policy')).toBe('camera=()');
    expect(await response.text()).toContain('<script src="/relay.js"></script>');
  });

  it('serves nothing else: another host, another session, another path, another method', async () => {
    for (const url of [`${SCREEN_SCHEME}://${screenOriginKey('x', 'y')}/relay.html?screen=${id}`, `${SCREEN_SCHEME}://${key}/relay.html?screen=${'d'.repeat(32)}`, `${SCREEN_SCHEME}://${key}/index.html`, `${SCREEN_SCHEME}://app/relay.html?screen=${id}`]) {
      const response = await serve(url);
      expect(response.status, url).toBe(404);
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
    expect((await serve(`${SCREEN_SCHEME}://${key}/relay.html?screen=${id}`, 'POST')).status).toBe(404);
  });
});

describe('device permissions for screens', () => {
  it('go only to a screen frame, only for what an open screen was granted', async () => {
    const open = new OpenScreenPermissions();
    const handlers = open.wrap({
      'screens.open': async () => ({ ready: true, id: 'one', permissions: ['microphone'] }),
      'screens.close': async () => ({}),
    } as never);
    const ask = (permission: string, requestingUrl: string, isMainFrame: boolean, mediaTypes?: string[]) =>
      allowScreenPermission({ permission, requestingUrl, isMainFrame, ...(mediaTypes ? { mediaTypes } : {}) }, (p) => open.granted(p));
    expect(ask('media', 'about:srcdoc', false, ['audio'])).toBe(false);
    await (handlers['screens.open'] as (r: unknown) => Promise<unknown>)({});
    expect(ask('media', 'about:srcdoc', false, ['audio'])).toBe(true);
    expect(ask('media', 'about:srcdoc', false, ['audio', 'video'])).toBe(false);
    expect(ask('media', 'about:srcdoc', false, [])).toBe(false);
    expect(ask('geolocation', 'about:srcdoc', false)).toBe(false);
    // Never Airlock's own page, never a main frame, never a frame from elsewhere.
    expect(ask('media', 'airlock://app/index.html', true, ['audio'])).toBe(false);
    expect(ask('media', 'https://evil.example/', false, ['audio'])).toBe(false);
    expect(ask('constructor', 'about:srcdoc', false)).toBe(false);
    await (handlers['screens.close'] as (r: unknown) => Promise<unknown>)({ id: 'one' });
    expect(ask('media', 'about:srcdoc', false, ['audio'])).toBe(false);
  });

  it('are decided by the session handler Airlock installs (checks always say no)', () => {
    let request: ((c: unknown, p: string, cb: (granted: boolean) => void, details: unknown) => void) | undefined;
    let check: ((...args: unknown[]) => boolean) | undefined;
    hardenSession(
      {
        setPermissionRequestHandler: (handler: never) => {
          request = handler;
        },
        setPermissionCheckHandler: (handler: never) => {
          check = handler;
        },
      } as never,
      (ask) => ask.permission === 'media' && !ask.isMainFrame,
    );
    const answers: boolean[] = [];
    request!(undefined, 'media', (granted) => answers.push(granted), { requestingUrl: 'about:srcdoc', isMainFrame: false, mediaTypes: ['audio'] });
    request!(undefined, 'media', (granted) => answers.push(granted), { requestingUrl: 'airlock://app/', isMainFrame: true });
    request!(undefined, 'media', (granted) => answers.push(granted), undefined);
    expect(answers).toEqual([true, false, false]);
    expect(check!(undefined, 'media')).toBe(false);
  });
});
