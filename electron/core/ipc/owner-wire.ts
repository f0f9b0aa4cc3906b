/**
 * The wire between a data folder's owner and its clients (see local-socket.ts):
 * line-delimited JSON messages, their shapes, their size limits, and the
 * allow-list of catalog operations a client may ask for.
 */
import type { Socket } from 'node:net';

/** What a client says about itself. Only `terminal` changes anything, and only for its own calls. */
export interface PeerHello {
  /** Which Airlock program connects (for the log; never an identity). */
  role: 'cli' | 'gateway' | 'app';
  /** True when it has a terminal of its own to ask on (its calls' confirmations are then routed to it). */
  terminal: boolean;
  /** A label for the log ("airlock gateway for Cursor"); data. */
  label: string;
}

/** A client's request to the owner. */
export type Request =
  | { id: number; method: 'hello'; params: PeerHello & { proof: string; nonce: string } }
  | { id: number; method: 'ipc'; params: { channel: string; request: unknown } }
  | { id: number; method: 'tools.list'; params: { servers?: string[] } }
  | { id: number; method: 'tools.call'; params: { server: string; tool: string; arguments: Record<string, unknown>; clientName?: string; peer?: string } }
  | { id: number; method: 'cancel'; params: { target: number } }
  | { id: number; method: 'handover'; params: { pid: number } }
  /** A catalog request of a client's gateway (resources, prompts, completion, logging). */
  | { id: number; method: 'catalog'; params: { op: CatalogOp; args: unknown[] } }
  /** A client's gateway session that can answer servers' sampling or elicitation. */
  | { id: number; method: 'peer.register'; params: { label: string; sampling: boolean; elicitation: { form: boolean; url: boolean } } }
  | { id: number; method: 'peer.unregister'; params: { peer: string } }
  /** The client's answer to an `ask` from the owner. */
  | { id: number; method: 'peer.reply'; params: { ask: number; result?: unknown; error?: { code: number; message: string } } };

/** What the owner sends a client: a reply, progress, an event, or an ask. */
export type Reply =
  | { id: number; result: unknown }
  | { id: number; error: { code: string; message: string; mcpCode?: number; serverMessage?: string } }
  | { id: number; progress: Progress }
  | { event: string; payload: unknown }
  /** The owner asks a client's gateway session to sample or elicit (after Airlock's decision). */
  | { ask: number; method: 'peer.createMessage' | 'peer.elicit'; params: { peer: string; server: string; params: unknown } };

/** A long request's progress, relayed as the server sent it. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** The catalog operations a client may ask the owner for (an allow-list: nothing else is called). */
export const CATALOG_OPS = ['describe', 'servers', 'resources', 'resourceTemplates', 'prompts', 'readResource', 'getPrompt', 'complete', 'subscribe', 'unsubscribe', 'setLogLevel', 'release'] as const;
export type CatalogOp = (typeof CATALOG_OPS)[number];
/** Operations whose last argument is a subscriber name (scoped to the socket on the owner's side). */
export const SUBSCRIBER_OPS = new Set<CatalogOp>(['subscribe', 'unsubscribe', 'setLogLevel', 'release']);
/** Operations whose last argument is request bounds (a signal cannot cross the socket: `cancel` it). */
export const BOUNDED_OPS = new Set<CatalogOp>(['readResource', 'getPrompt', 'complete']);

/** Largest message either side accepts (a tool result can be large, not unbounded). */
export const MAX_LINE = 32 * 1024 * 1024;
/** Largest message before a connection has authenticated. */
export const MAX_HELLO_LINE = 16 * 1024;
/** A connection that has not authenticated by then is closed. */
export const HELLO_TIMEOUT_MS = 10_000;
/** The event that opens every connection: the owner's nonce. */
export const CHALLENGE_EVENT = 'owner.challenge';

export function write(socket: Socket, message: Reply | { id: number; method: string; params: unknown }): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
}

/** Reads messages a line at a time; a line over `limit()` or one that is not JSON ends the connection. */
export function readLines(socket: Socket, limit: () => number, onMessage: (message: unknown) => void | Promise<void>): void {
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    if (buffer.length > limit()) {
      socket.destroy();
      return;
    }
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!line) continue;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        socket.destroy();
        return;
      }
      void onMessage(message);
    }
  });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}
