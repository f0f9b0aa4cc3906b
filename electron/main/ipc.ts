/**
 * The one wrapper every IPC handler goes through. It checks who is calling,
 * validates the request against the contract, runs the handler, validates the
 * response, and turns any failure into a plain `{ ok: false, code, message }`.
 * It imports only Electron's *types*, so the browser harness runs the very same
 * code in the test process.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import type { z } from 'zod';
import {
  channels,
  events,
  isChannelName,
  type ChannelName,
  type EventName,
  type IpcHandlers,
  type IpcResult,
  type PayloadOf,
} from '../../shared/ipc';
import { AirlockError } from '../core/errors';

/** Largest request accepted, as serialized JSON. Bigger payloads are refused before parsing. */
export const MAX_REQUEST_BYTES = 1_000_000;

/** Reports a handler failure somewhere a developer can see it (never to the renderer). */
export type IpcErrorLog = (channel: string, error: unknown) => void;

/**
 * Validates and runs one request. Shared by the Electron wiring and the browser
 * harness, so both enforce the same contract.
 */
export async function dispatchIpc(
  handlers: IpcHandlers,
  channel: unknown,
  request: unknown,
  logError: IpcErrorLog = () => {},
): Promise<IpcResult<unknown>> {
  // SECURITY: invariant 6 — only channels the contract names, only payloads it allows.
  if (!isChannelName(channel)) {
    return { ok: false, code: 'unknown-channel', message: `There is no channel named ${describe(channel)}.` };
  }
  const size = jsonSize(request);
  if (size === undefined || size > MAX_REQUEST_BYTES) {
    return {
      ok: false,
      code: 'invalid-request',
      message: size === undefined ? `${channel}: the request is not plain data.` : `${channel}: the request is too large (${size} bytes; the limit is ${MAX_REQUEST_BYTES}).`,
    };
  }
  const spec = channels[channel];
  const parsed = spec.request.safeParse(request);
  if (!parsed.success) {
    return { ok: false, code: 'invalid-request', message: `${channel}: ${formatIssues(parsed.error.issues)}` };
  }
  let value: unknown;
  try {
    const handler = handlers[channel] as (request: unknown) => unknown;
    value = await handler(parsed.data);
  } catch (error) {
    if (error instanceof AirlockError) return { ok: false, code: error.code, message: error.message };
    logError(channel, error);
    return { ok: false, code: 'internal', message: `${channel} failed inside Airlock. Details are in Airlock's log.` };
  }
  const checked = spec.response.safeParse(value);
  if (!checked.success) {
    logError(channel, checked.error);
    return { ok: false, code: 'invalid-response', message: `${channel}: Airlock produced an answer that breaks its own contract.` };
  }
  return { ok: true, value: checked.data };
}

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

function jsonSize(value: unknown): number | undefined {
  try {
    const text = JSON.stringify(value ?? null);
    return text === undefined ? undefined : text.length;
  } catch {
    return undefined;
  }
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : `of type ${typeof value}`;
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'request'}: ${issue.message}`)
    .join('; ');
}
