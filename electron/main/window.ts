/**
 * Every setting that makes an Airlock window safe to show untrusted text in,
 * kept in one place so a test can assert that every window gets them
 * (ARCHITECTURE.md invariant 6; SECURITY.md, the Electron checklist).
 */
import type { BrowserWindowConstructorOptions, Event, Session, WebContents, WebPreferences } from 'electron';

/** The privileged scheme the renderer is served from (never `file://`). */
export const APP_SCHEME = 'airlock';
/** The app's origin: the only sender the IPC wrapper accepts. */
export const APP_ORIGIN = `${APP_SCHEME}://app`;
/** The page every window loads. */
export const APP_URL = `${APP_ORIGIN}/index.html`;

/** The webPreferences of every window. */
export function hardenedWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
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
    navigateOnDragDrop: false,
    spellcheck: false,
    safeDialogs: true,
  };
}

/** The options of Airlock's main window. */
export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 520,
    title: 'Airlock',
    show: false,
    backgroundColor: '#101418',
    webPreferences: hardenedWebPreferences(preloadPath),
  };
}

/** True when a URL stays inside the app (the only place a window may be). */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === 'app';
  } catch {
    return false;
  }
}

type HardenableContents = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

/**
 * Denies everything a page could use to leave the app: navigation and
 * redirects away from it, new windows, and webviews. Applied to every
 * webContents the app creates (main wires it to `web-contents-created`).
 */
export function hardenWebContents(contents: HardenableContents): void {
  const denyExternal = (event: Event, url: string) => {
    if (!isAppUrl(url)) event.preventDefault();
  };
  contents.on('will-navigate', (event, url) => denyExternal(event, url));
  contents.on('will-redirect', (event, url) => denyExternal(event, url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/**
 * Refuses every permission a page can ask for (Electron grants them when no
 * handler is set) — except, when `screens` is given, a device permission a
 * server's screen frame asks for that its server was granted (see
 * screen-protocol.ts `allowScreenPermission`). Checks (`navigator.permissions`)
 * always answer no.
 */
export function hardenSession(
  session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>,
  screens?: (ask: { permission: string; requestingUrl: string | undefined; isMainFrame: boolean; mediaTypes?: readonly string[] }) => boolean,
): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    const media = (details as { mediaTypes?: readonly string[] } | undefined)?.mediaTypes;
    callback(screens ? screens({ permission, requestingUrl: details?.requestingUrl, isMainFrame: details?.isMainFrame ?? true, ...(media ? { mediaTypes: media } : {}) }) : false);
  });
  session.setPermissionCheckHandler(() => false);
}
