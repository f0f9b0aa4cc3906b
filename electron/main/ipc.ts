/**
 * The one wrapper every IPC handler goes through. It checks who is calling,
 * validates the request against the contract, runs the handler, validates the
 * response, and turns any failure into a plain `{ ok: false, code, message }`.
 * It imports only Electron's *types*, so the browser harness runs the very same
 * code in the test process.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { channels, events, type ChannelName, type EventName, type IpcHandlers, type PayloadOf } from '../../shared/ipc';
import { dispatchIpc, type IpcErrorLog } from '../core/ipc/dispatch';

export { dispatchIpc, MAX_REQUEST_BYTES, type IpcErrorLog } from '../core/ipc/dispatch';

/**
 * Decides whether an IPC message comes from the app's own page: the main frame
 * of a window whose page is served from the app's origin. Subframes, other
 * origins and destroyed frames are refused.
 */
export function isAppSender(event: Pick<IpcMainInvokeEvent, 'senderFrame' | 'sender'>, appOrigin: string): boolean {
  const frame = event.senderFrame;
  // SECURITY: invariant 6 — a sender check that is wrong in either direction is a hole; tested with forged senders.
  if (!frame || frame !== event.sender.mainFrame) return false;
  try {
    return new URL(frame.url).origin === appOrigin || originOfCustomScheme(frame.url) === appOrigin;
  } catch {
    return false;
  }
}

/** Custom schemes are not "special" to WHATWG URL, so `origin` is "null"; rebuild scheme://host. */
function originOfCustomScheme(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * Registers one handler per channel on `ipcMain`, each behind the sender check
 * and `dispatchIpc`. Returns the channel names registered (the contract test
 * compares them with the contract).
 */
export function registerIpcHandlers(
  ipcMain: Pick<IpcMain, 'handle'>,
  handlers: IpcHandlers,
  options: { appOrigin: string; logError?: IpcErrorLog },
): ChannelName[] {
  const registered: ChannelName[] = [];
  for (const channel of Object.keys(channels) as ChannelName[]) {
    ipcMain.handle(channel, async (event, request: unknown) => {
      if (!isAppSender(event, options.appOrigin)) {
        return { ok: false, code: 'forbidden-sender', message: `${channel}: refused a message that did not come from Airlock's own window.` };
      }
      return dispatchIpc(handlers, channel, request, options.logError);
    });
    registered.push(channel);
  }
  return registered;
}

/** Sends a contract event to a window, validating the payload first. */
export function sendEvent<E extends EventName>(target: Pick<WebContents, 'send'>, event: E, payload: PayloadOf<E>): void {
  const checked = events[event].payload.parse(payload);
  target.send(event, checked);
}

