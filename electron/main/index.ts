/**
 * The Electron shell: app lifecycle, the hardened window, the app's scheme,
 * and the IPC wiring. Everything else lives in the core (`electron/core`).
 */
import { join } from 'node:path';
import { app, BrowserWindow, ipcMain, Notification, protocol, session } from 'electron';
import ElectronStore from 'electron-store';
import type { EmitEvent } from '../../shared/ipc';
import { defaultDataDir } from '../core/data-dir';
import { AirlockHost } from '../core/host';
import type { StoreBackend } from '../core/store/store';
import { registerAppProtocol } from './app-protocol';
import { registerIpcHandlers, sendEvent } from './ipc';
import { APP_ORIGIN, APP_SCHEME, APP_URL, hardenSession, hardenWebContents, mainWindowOptions } from './window';

// Must run before `ready`: the app's scheme is standard and secure, so the
// page gets a real origin and a CSP, and Chromium treats it like https.
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
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
  hardenSession(session.defaultSession);
  registerAppProtocol(protocol, join(app.getAppPath(), 'out/renderer'));

  const host = new AirlockHost({
    dataDir: app.getPath('userData'),
    version: app.getVersion(),
    hooks: { emit, log: (message, error) => console.error(message, error) },
    storeBackend: (options) => new ElectronStore(options) as unknown as StoreBackend,
  });
  registerIpcHandlers(ipcMain, host.ipcHandlers(), {
    appOrigin: APP_ORIGIN,
    logError: (channel, error) => console.error(`[ipc] ${channel}`, error),
  });
  for (const notice of host.notices) {
    if (Notification.isSupported()) new Notification({ title: 'Airlock', body: notice.message }).show();
  }

  mainWindow = createMainWindow();
  app.on('second-instance', () => {
    if (mainWindow?.isMinimized()) mainWindow.restore();
    mainWindow?.focus();
  });
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', () => void host.dispose());
}

void main();
