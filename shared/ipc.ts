/**
 * The typed IPC contract between the renderer and the main process. Every
 * channel is declared here once: its name (`<domain>.<verb>`), a zod schema
 * for the request and for the response, and a line saying who calls it and
 * when. Channel strings appear nowhere else. The main process validates every
 * request and every response against these schemas; the preload exposes only
 * the names listed here.
 */
import { z } from 'zod';
import { SandboxSupportSchema } from './domain';

/** A request/response channel: what goes in, what comes out, and why it exists. */
export interface ChannelSpec<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  request: Req;
  response: Res;
  /** Who calls it and when. */
  doc: string;
}

/** A main → renderer event. */
export interface EventSpec<Payload extends z.ZodType = z.ZodType> {
  payload: Payload;
  doc: string;
}

/** Requests that carry nothing. Extra keys are refused, not ignored. */
const Empty = z.strictObject({});

/** A notice the user must see: something went wrong but nothing was lost. */
export const AppNoticeSchema = z.object({
  level: z.enum(['info', 'warning', 'error']),
  /** What happened and what to do, in plain words. */
  message: z.string(),
});
export type AppNotice = z.infer<typeof AppNoticeSchema>;

/** What the app is and where it keeps its data. */
export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  platform: z.string(),
  /** Airlock's data folder (the same one the `airlock` CLI uses by default). */
  dataDir: z.string(),
  /** Problems found at start-up (e.g. a corrupt store kept aside). */
  notices: z.array(AppNoticeSchema),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

/** Every request/response channel. */
export const channels = {
  /** Renderer, at start-up: the app's name, version, data folder and start-up notices. */
  'app.info': { request: Empty, response: AppInfoSchema, doc: 'Renderer at start-up: app name, version, data folder, notices.' },
  /** Renderer, on the Settings screen and at start-up: can this machine sandbox servers? */
  'sandbox.status': {
    request: Empty,
    response: SandboxSupportSchema,
    doc: 'Renderer, Settings and start-up: whether the sandbox can run here and what is missing.',
  },
  /** Renderer, after the user installed what was missing: check again and broadcast the result. */
  'sandbox.recheck': {
    request: Empty,
    response: SandboxSupportSchema,
    doc: 'Renderer, "Check again" on Settings: re-runs the sandbox check and emits sandbox.didChange.',
  },
} as const satisfies Record<string, ChannelSpec>;

/** Every main → renderer event. */
export const events = {
  /** Main, whenever the sandbox check is re-run: the new status. */
  'sandbox.didChange': { payload: SandboxSupportSchema, doc: 'Main, after a re-check: the sandbox status.' },
} as const satisfies Record<string, EventSpec>;

export type Channels = typeof channels;
export type ChannelName = keyof Channels;
export type Events = typeof events;
export type EventName = keyof Events;
export type RequestOf<C extends ChannelName> = z.input<Channels[C]['request']>;
export type ResponseOf<C extends ChannelName> = z.output<Channels[C]['response']>;
export type PayloadOf<E extends EventName> = z.output<Events[E]['payload']>;

/** What the main process implements: one handler per channel, typed from the contract. */
export type IpcHandlers = {
  [C in ChannelName]: (request: z.output<Channels[C]['request']>) => Promise<ResponseOf<C>> | ResponseOf<C>;
};

/** How the core pushes an event to whichever shell shows it. */
export type EmitEvent = <E extends EventName>(event: E, payload: PayloadOf<E>) => void;

/** Why a call failed, as a stable code the renderer can switch on. */
export const IpcErrorCodeSchema = z.enum([
  'forbidden-sender',
  'unknown-channel',
  'invalid-request',
  'invalid-response',
  'not-found',
  'conflict',
  'unavailable',
  'internal',
]);
export type IpcErrorCode = z.infer<typeof IpcErrorCodeSchema>;

/** Every call resolves to this: a value, or a plain error. Nothing throws across the bridge. */
export type IpcResult<T> = { ok: true; value: T } | { ok: false; code: IpcErrorCode; message: string };

/** The object the preload exposes as `window.airlock` (frozen). */
export interface AirlockBridge {
  invoke<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<IpcResult<ResponseOf<C>>>;
  on<E extends EventName>(event: E, listener: (payload: PayloadOf<E>) => void): () => void;
}

/** The names as plain lists, for the preload and the contract tests. */
export const channelNames = Object.keys(channels) as ChannelName[];
export const eventNames = Object.keys(events) as EventName[];

/** True when `name` is a declared channel (guards free-form strings from the renderer). */
export function isChannelName(name: unknown): name is ChannelName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(channels, name);
}

/** True when `name` is a declared event. */
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}
