/**
 * Validates and runs one IPC request against the contract. Used by the
 * Electron wiring (electron/main/ipc.ts), the local socket other Airlock
 * processes use, and the browser harness, so all enforce the same contract.
 */
import type { z } from 'zod';
import type { IpcHandlers, IpcResult } from '../../../shared/ipc';
import { AirlockError } from '../errors';

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
  // The contract's schemas are built when a request first arrives (a command that serves none does not pay for them).
  const { channels, isChannelName } = await import('../../../shared/ipc');
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
