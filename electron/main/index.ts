/**
 * The Electron shell: app lifecycle, the hardened window, the app's scheme,
 * and the IPC wiring. Everything else lives in the core (`electron/core`).
 */
import { join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, Notification, protocol, safeStorage, session, shell } from 'electron';
import ElectronStore from 'electron-store';
import { channelNames, type EmitEvent, type FilePickPurpose, type PayloadOf } from '../../shared/ipc';
import { pickPath } from './file-picker';
import { defaultDataDir, isChosenDataDir } from '../core/data-dir';
import { AirlockHost } from '../core/host';
import { SharedHost } from '../core/ipc/shared-host';
import { findExecutable } from '../core/sandbox';
import type { SecretCipher } from '../core/secrets';
import { registerAppProtocol } from './app-protocol';
import { registerIpcHandlers, sendEvent } from './ipc';
import { openUrlHandler } from './open-external';
import { openLink } from './open-link';
import { allowScreenPermission, OpenScreenPermissions, registerScreenProtocol, SCREEN_SCHEME, SCREEN_SCHEME_PRIVILEGES } from './screen-protocol';
import { APP_ORIGIN, APP_SCHEME, APP_URL, hardenSession, hardenWebContents, mainWindowOptions } from './window';

// Must run before `ready`: the app's scheme is standard and secure, so the
// page gets a real origin and a CSP, and Chromium treats it like https.
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  // Servers' screens (MCP Apps): one origin per server, never the app's own.
  { scheme: SCREEN_SCHEME, privileges: SCREEN_SCHEME_PRIVILEGES },
]);

// One data folder for the app and the CLI (see core/data-dir.ts).
app.setPath('userData', defaultDataDir());
app.enableSandbox();

let mainWindow: BrowserWindow | undefined;

const emit: EmitEvent = (event, payload) => {
  if (mainWindow && !mainWindow.isDestroyed()) sendEvent(mainWindow.webContents, event, payload);
};

function createMainWindow(): BrowserWindow {
  const window = new BrowserWindow(mainWindowOptions(join(app.getAppPath(), 'out/preload/index.cjs')));
  window.once('ready-to-show', () => window.show());
  void window.loadURL(APP_URL);
  return window;
}

async function main(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  // Every webContents, including any a bug or a page might create, gets the same denials.
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents));
  await app.whenReady();
  // A screen frame gets a device permission only while a screen granted it is open (and Blink's
  // Permissions Policy, built per server, lets only that server's frames ask).
  const openScreens = new OpenScreenPermissions();
  hardenSession(session.defaultSession, (ask) => allowScreenPermission(ask, (permission) => openScreens.granted(permission)));
  registerAppProtocol(protocol, join(app.getAppPath(), 'out/renderer'));

  const dataDir = app.getPath('userData');
  // The app can always ask: its window opens right after this, and the app quits when it closes.
  const canAsk = () => true;
  const nodePath = findExecutable('node', process.env.PATH);
  const seen = new Set<string>();
  // The app runs the servers. When another Airlock process (a gateway an AI app started) owns the
  // data folder, it hands them over: the window is the person's own shell and must be in the owner
  // to answer every confirmation (a client process only ever answers its own calls').
  const shared = await SharedHost.open({
    dataDir,
    role: 'app',
    takeOver: true,
    label: 'Airlock app',
    canAsk,
    onEvent: (event, payload) => {
      emit(event, payload);
      if (event === 'approvals.didChange') notifyConfirmations(payload as PayloadOf<'approvals.didChange'>, seen);
      if (event === 'claims.didContradict') notifyContradiction(payload as PayloadOf<'claims.didContradict'>);
    },
    createHost: (hooks) =>
      new AirlockHost({
        dataDir,
        // AIRLOCK_DATA_DIR: a folder the person chose (other than the app's own) keeps everything inside it.
        ...(isChosenDataDir(dataDir) ? { selfContained: true } : {}),
        version: app.getVersion(),
        hooks: { ...hooks, log: (message, error) => console.error(message, error) },
        storeBackend: (options) => new ElectronStore(options),
        ...(cipher() ? { secretCipher: cipher() } : {}),
        // Electron's own binary cannot run Node servers (the RunAsNode fuse is off): use the user's node.
        ...(nodePath ? { nodePath } : {}),
        // A remote server's sign-in page, in the system browser. The core checked it before (an
        // authorization endpoint on https, or http only between loopback addresses — RemoteOAuth).
        signInPage: (url) => {
          const parsed = new URL(url);
          if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && (parsed.hostname === '127.0.0.1' || parsed.hostname === 'localhost' || parsed.hostname === '[::1]'))) return;
          void shell.openExternal(parsed.toString(), { activate: true }).catch((error: unknown) => console.error('opening the sign-in page failed', error));
        },
      }),
    onOwner: (host) => {
      for (const notice of host.app.info().notices) {
        if (Notification.isSupported()) new Notification({ title: 'Airlock', body: notice.message }).show();
      }
      void host.servers.startEnabled();
    },
  });
  const handlers = shared.handlers(channelNames);
  // The screens' origins serve Airlock's relay page with the headers the core built for each screen.
  registerScreenProtocol(protocol, { appOrigin: APP_ORIGIN, policy: (id, key) => handlers['screens.frame']({ id, key }) as Promise<{ csp: string; permissionsPolicy: string }> });
  registerIpcHandlers(
    ipcMain,
    {
      ...handlers,
      // The file picker is this window's, wherever the servers run.
      'app.info': async (request) => ({ ...(await handlers['app.info'](request)), canPickFiles: true }),
      'dialog.openFile': async ({ purpose }) => {
        const path = await pickFile(purpose);
        return path ? { path } : {};
      },
      // A server's URL opens in the system browser after the person's click, https only.
      'requests.openUrl': openUrlHandler(handlers['requests.openUrl'], shell),
      // The system browser of the person at this window, wherever the servers run.
      'links.open': async ({ url }) => (await openLink(shell, url), {}),
      // A screen's link, after the person saw its address and chose Open (the core recorded both).
      'screens.answerLink': async (request) => {
        const answer = await handlers['screens.answerLink'](request);
        if (answer.url) await openLink(shell, answer.url);
        return answer;
      },
      ...openScreens.wrap(handlers),
    },
    { appOrigin: APP_ORIGIN, logError: (channel, error) => console.error(`[ipc] ${channel}`, error) },
  );

  mainWindow = createMainWindow();
  app.on('second-instance', () => {
    if (mainWindow?.isMinimized()) mainWindow.restore();
    mainWindow?.focus();
  });
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', () => void shared.close());
}

/** Raises an OS notification for each new confirmation while the window is not focused. */
function notifyConfirmations(pending: PayloadOf<'approvals.didChange'>, seen: Set<string>): void {
  for (const request of pending) {
    if (seen.has(request.id)) continue;
    seen.add(request.id);
    if (mainWindow?.isFocused() || !Notification.isSupported()) continue;
    const notification = new Notification({ title: 'Airlock needs your answer', body: request.headline });
    notification.on('click', () => mainWindow?.show());
    notification.show();
  }
}

/** Tells the person at once that a tool did something its claims say it does not (the window shows it too). */
function notifyContradiction(notice: PayloadOf<'claims.didContradict'>): void {
  if (!Notification.isSupported()) return;
  const notification = new Notification({ title: `Airlock: ${notice.server} › ${notice.tool} did what its claims say it does not`, body: notice.message });
  notification.on('click', () => mainWindow?.show());
  notification.show();
}

/** Electron's safeStorage seals secrets with the OS keychain, when one is available. */
function cipher(): SecretCipher | undefined {
  if (!safeStorage.isEncryptionAvailable()) return undefined;
  return {
    id: 'electron-safeStorage',
    encrypt: (plain) => safeStorage.encryptString(plain).toString('base64'),
    decrypt: (sealed) => safeStorage.decryptString(Buffer.from(sealed, 'base64')),
  };
}

/** The window's file picker (file-picker.ts). */
function pickFile(purpose: FilePickPurpose): Promise<string | undefined> {
  return pickPath(dialog, mainWindow, purpose);
}

void main();
