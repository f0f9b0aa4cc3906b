/**
 * The only thing that crosses from the main process into the page: one frozen
 * `window.airlock` with `invoke` and `on`, limited to the channels and events
 * the contract names. No raw ipcRenderer, no free-form channel names.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { channelNames, eventNames, type AirlockBridge, type IpcResult } from '../../shared/ipc';

const allowedChannels = new Set<string>(channelNames);
const allowedEvents = new Set<string>(eventNames);

const bridge: AirlockBridge = {
  invoke(channel, request) {
    if (!allowedChannels.has(channel)) {
      return Promise.resolve({ ok: false, code: 'unknown-channel', message: `There is no channel named ${String(channel)}.` } as IpcResult<never>);
    }
    return ipcRenderer.invoke(channel, request);
  },
  on(event, listener) {
    if (!allowedEvents.has(event)) throw new Error(`There is no event named ${String(event)}.`);
    // The Electron event object (with `sender`) never reaches the page.
    const forward = (_event: IpcRendererEvent, payload: unknown) => listener(payload as never);
    ipcRenderer.on(event, forward);
    return () => {
      ipcRenderer.removeListener(event, forward);
    };
  },
};

contextBridge.exposeInMainWorld('airlock', Object.freeze(bridge));
