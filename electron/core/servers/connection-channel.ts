/**
 * The seam between a {@link ServerConnection} and what carries its messages:
 * a process on stdio (run by Airlock, in its sandbox) or a server somewhere
 * else reached over the network (electron/core/remote). The connection and
 * the supervisor see only this: one life cycle, whatever the channel.
 *
 * Invariant guarded: a channel says truthfully whether a failed request can
 * have reached the server (`ChannelError.serverMayHaveActed`), so a call is
 * never reported as done or as not sent when Airlock cannot know.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ProcessExit, StdioStats } from './stdio-transport';

/** What carries one connection's messages, and how it ends. */
export interface ConnectionChannel {
  /** The MCP transport the SDK client talks over. */
  readonly transport: Transport;
  /** The server's process (its group leader) when Airlock runs it; undefined for a remote server. */
  readonly pid: number | undefined;
  /** Resolves when the channel has ended for any reason (the process exited, the remote session is over). */
  readonly exited: Promise<ProcessExit>;
  /** Set when the server was stopped for misbehaving on its channel (garbage on stdout). */
  readonly faulty: Error | undefined;
  /** Counters about the channel (stdio only). */
  stats(): StdioStats | undefined;
  /** Ends the channel (stops the process group, or closes the remote session). Safe to call more than once. */
  close(): Promise<void>;
  /** Where the server runs, in a few words for its log ("pid 1234", "https://mcp.example.com/mcp over streamable HTTP"). */
  describe(): string;
}

/**
 * A request that failed on its channel before or while reaching the
 * server. `serverMayHaveActed` is false only when the server cannot have
 * carried the request out: it was never sent (the address was refused, the
 * host is unreachable), or the server refused it before acting (401, 403,
 * an expired session's 404).
 */
export class ChannelError extends Error {
  constructor(
    message: string,
    readonly kind: ChannelFailure,
    readonly serverMayHaveActed: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ChannelError';
  }
}

/**
 * Why a request failed on its channel:
 * - `unreachable`: no connection could be made (DNS, refused, no route);
 * - `tls`: the server's certificate was not accepted;
 * - `address-refused`: Airlock refused the address (private, link-local, a redirect elsewhere);
 * - `sign-in`: the server wants a sign-in that needs the person (no token, or refresh failed);
 * - `step-up`: the server wants more access (403 insufficient_scope) than was granted;
 * - `forbidden`: the server refused the request (403) for another reason;
 * - `session-expired`: the server no longer knows the session (404); Airlock reconnects;
 * - `protocol`: the server answered with something that is not MCP (a web page, garbage);
 * - `interrupted`: the connection broke while the request was out (outcome unknown).
 */
export type ChannelFailure = 'unreachable' | 'tls' | 'address-refused' | 'sign-in' | 'step-up' | 'forbidden' | 'session-expired' | 'protocol' | 'interrupted';
