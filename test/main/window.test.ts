import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { CONTENT_SECURITY_POLICY, resolveRendererFile } from '../../electron/main/app-protocol';
import { hardenedWebPreferences, hardenSession, hardenWebContents, isAppUrl, mainWindowOptions } from '../../electron/main/window';

const ROOT = join(import.meta.dirname, '../..');

describe('every window is hardened', () => {
  it('has the checklist webPreferences', () => {
    const prefs = mainWindowOptions('/app/out/preload/index.cjs').webPreferences;
    expect(prefs).toEqual(hardenedWebPreferences('/app/out/preload/index.cjs'));
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      enableBlinkFeatures: '',
      preload: '/app/out/preload/index.cjs',
    });
  });

  it('is created only from mainWindowOptions, and every webContents is hardened', () => {
    const mainDir = join(ROOT, 'electron/main');
    const sources = readdirSync(mainDir, { recursive: true })
      .filter((file) => String(file).endsWith('.ts'))
      .map((file) => readFileSync(join(mainDir, String(file)), 'utf8'));
    const constructions = sources.flatMap((source) => source.match(/new BrowserWindow\([^)]*\)/g) ?? []);
    expect(constructions.length).toBeGreaterThan(0);
    for (const call of constructions) expect(call).toMatch(/^new BrowserWindow\(mainWindowOptions\(/);
    const index = readFileSync(join(mainDir, 'index.ts'), 'utf8');
    expect(index).toMatch(/app\.on\('web-contents-created', \(_event, contents\) => hardenWebContents\(contents\)\)/);
    expect(index).toMatch(/hardenSession\(session\.defaultSession[,)]/);
  });
});

describe('hardenWebContents', () => {
  function fakeContents() {
    const emitter = new EventEmitter();
    let openHandler: ((details: unknown) => unknown) | undefined;
    return {
      emitter,
      on: (event: string, listener: (...args: unknown[]) => void) => emitter.on(event, listener),
      setWindowOpenHandler: (handler: (details: unknown) => unknown) => {
        openHandler = handler;
      },
      open: (url: string) => openHandler?.({ url }),
    };
  }
  const fire = (contents: ReturnType<typeof fakeContents>, event: string, url?: string) => {
    const preventDefault = vi.fn();
    contents.emitter.emit(event, { preventDefault }, url);
    return preventDefault;
  };

  it.each(['will-navigate', 'will-redirect'])('%s away from the app is prevented; inside the app is allowed', (event) => {
    const contents = fakeContents();
    hardenWebContents(contents as never);
    expect(fire(contents, event, 'https://evil.example/')).toHaveBeenCalled();
    expect(fire(contents, event, 'file:///etc/passwd')).toHaveBeenCalled();
    expect(fire(contents, event, 'airlock://evil/index.html')).toHaveBeenCalled();
    expect(fire(contents, event, 'airlock://app/index.html#/settings')).not.toHaveBeenCalled();
  });

  it('denies window.open for every URL and prevents webviews', () => {
    const contents = fakeContents();
    hardenWebContents(contents as never);
    expect(contents.open('https://example.com')).toEqual({ action: 'deny' });
    expect(contents.open('airlock://app/index.html')).toEqual({ action: 'deny' });
    expect(fire(contents, 'will-attach-webview')).toHaveBeenCalled();
  });

  it('denies every permission request and check', () => {
    let request: ((c: unknown, p: string, cb: (granted: boolean) => void) => void) | undefined;
    let check: ((...args: unknown[]) => boolean) | undefined;
    hardenSession({
      setPermissionRequestHandler: (handler: never) => {
        request = handler;
      },
      setPermissionCheckHandler: (handler: never) => {
        check = handler;
      },
    } as never);
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read']) {
      const callback = vi.fn();
      request!(undefined, permission, callback);
      expect(callback).toHaveBeenCalledWith(false);
      expect(check!(undefined, permission)).toBe(false);
    }
  });

  it('recognises only airlock://app as the app', () => {
    expect(isAppUrl('airlock://app/index.html')).toBe(true);
    expect(isAppUrl('airlock://app.evil/')).toBe(false);
    expect(isAppUrl('http://app/')).toBe(false);
  });
});

describe('the app scheme serves only the renderer folder, with a strict CSP', () => {
  const root = '/srv/renderer';
  it.each([
    ['airlock://app/', '/srv/renderer/index.html'],
    ['airlock://app/index.html', '/srv/renderer/index.html'],
    ['airlock://app/assets/index-abc.js', '/srv/renderer/assets/index-abc.js'],
  ])('%s → %s', (url, path) => {
    expect(resolveRendererFile(url, root)?.path).toBe(path);
  });

  it.each([
    ['airlock://app/../../etc/passwd'],
    ['airlock://app/%2e%2e/%2e%2e/etc/passwd'],
    ['airlock://app/assets/..%2f..%2f..%2fetc/passwd.js'],
    ['airlock://app/a%5c..%5c..%5cx.js'],
    ['airlock://app/x%00.js'],
    ['airlock://other/index.html'],
    ['airlock://app/secret.txt'],
    ['airlock://app/%E0%A4%A'],
  ])('refuses %s', (url) => {
    expect(resolveRendererFile(url, root)).toBeUndefined();
  });

  it('allows nothing the page does not need', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-(inline|eval)/);
    // Frames only from servers' screens, on their own scheme: never the app's own origin, never the web.
    expect(CONTENT_SECURITY_POLICY).toContain('frame-src airlock-screen:;');
  });

  it('says the same in the page’s own CSP (its meta tag), which also applies', () => {
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(readFileSync(join(ROOT, 'renderer/index.html'), 'utf8'))![1]!;
    expect(meta).toContain('frame-src airlock-screen:;');
    expect(meta).toContain("default-src 'none'");
  });
});
