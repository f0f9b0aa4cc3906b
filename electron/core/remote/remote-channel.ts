/**
 * A remote server's connection: streamable HTTP, or — when the server only
 * speaks it — the older HTTP+SSE transport (the spec's backwards-compatible
 * way: POST initialize; a 4xx means try GET for the SSE endpoint). One job:
 * open a {@link ServerConnection} over the right transport and say plainly
 * why when it cannot; keep its session alive the way the SDK can (SSE
 * reconnection with Last-Event-ID, the server's `retry`), and end it when the
 * server ended the session (404) or wants a sign-in only a person can give.
 *
 * Invariant guarded: a server that answers with something that is not MCP
 * (a web page, a redirect elsewhere) is refused with its reason, never half
 * connected; the channel's end is reported once, with why.
 */
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ChannelError, type ConnectionChannel } from '../servers/connection-channel';
import type { ConnectionOptions, ServerConnection } from '../servers/server-connection';

// The SDK's HTTP transports are loaded when a remote server is first reached, not when Airlock starts.
type Streamable = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
let streamable: Streamable | undefined;
import type { ProcessExit } from '../servers/stdio-transport';
import { messageOf } from '../errors';

/** The transports a remote server can speak. */
export type RemoteWire = 'streamable-http' | 'sse';

const WIRE_WORDS: Record<RemoteWire, string> = { 'streamable-http': 'streamable HTTP', sse: 'HTTP+SSE' };

/** One remote session as a {@link ConnectionChannel}. */
export class RemoteChannel implements ConnectionChannel {
  readonly pid = undefined;
  readonly faulty = undefined;
  readonly exited: Promise<ProcessExit>;
  private resolveExit!: (exit: ProcessExit) => void;
  private ended = false;
  private closing: Promise<void> | undefined;
  /** Runs once the channel is closed for good (the checked fetch's connections go). */
  release: (() => Promise<void>) | undefined;

  constructor(
    readonly transport: Transport,
    readonly url: URL,
    readonly wire: RemoteWire,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    // A failure that ends the session, seen by a request (thrown) or by the stream (onerror).
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      try {
        return await send(message, options);
      } catch (error) {
        this.watch(error);
        throw error;
      }
    };
    transport.onerror = (error) => this.watch(error);
  }

  stats(): undefined {
    return undefined;
  }

  describe(): string {
    return `${this.url.href} over ${WIRE_WORDS[this.wire]}`;
  }

  /** Ends the session for good: tells the server (DELETE, streamable HTTP, best effort), closes the transport. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const transport = this.transport;
      if (streamable && transport instanceof streamable.StreamableHTTPClientTransport && transport.sessionId) {
        await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 2000).unref())]); // Ending a session the server may already have dropped; the connection closes either way.
      }
      await transport.close().catch(() => undefined); // Closing a transport that may already be closed.
      this.end('closed');
      await this.release?.().catch(() => undefined); // Releasing a slot that may already be free.
    })();
    return this.closing;
  }

  private watch(error: unknown): void {
    if (!(error instanceof ChannelError)) return;
    if (error.kind === 'session-expired') this.end('the server ended its session (404); Airlock reconnects');
    else if (error.kind === 'sign-in') this.end(error.message);
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.resolveExit({ code: null, signal: null, reason });
  }
}

/** What opening a remote connection needs. */
export interface OpenRemoteOptions {
  url: URL;
  /** What was found at inspection; `auto` tries streamable HTTP, then HTTP+SSE. */
  wire: RemoteWire | 'auto';
  /** The server's authorized fetch (headers, token, challenges). */
  fetch: FetchLike;
  connection: ConnectionOptions;
  signal?: AbortSignal;
  /** Runs when the connection that opened is finally closed (or when none opened). */
  release: () => Promise<void>;
}

/** Opens a connection and completes the handshake; rejects with a ChannelError in plain words. */
export async function openRemoteConnection(options: OpenRemoteOptions): Promise<{ connection: ServerConnection; wire: RemoteWire }> {
  try {
    if (options.wire !== 'auto') {
      const connection = await attempt(options, options.wire);
      return { connection, wire: options.wire };
    }
    try {
      return { connection: await attempt(options, 'streamable-http'), wire: 'streamable-http' };
    } catch (error) {
      // The spec's fallback: a 4xx to the POST initialize means the server may speak the older transport.
      if (!fallsBack(error) || options.signal?.aborted) throw error;
      options.connection.log?.push('airlock', `streamable HTTP was refused (${describeHttpError(error)}); trying the older HTTP+SSE transport`);
      try {
        return { connection: await attempt(options, 'sse'), wire: 'sse' };
      } catch (sseError) {
        throw new ChannelError(`${options.url.href} speaks neither streamable HTTP (${describeHttpError(error)}) nor HTTP+SSE (${describeHttpError(sseError)}). Is it an MCP endpoint?`, 'protocol', false, { cause: sseError });
      }
    }
  } catch (error) {
    await options.release().catch(() => undefined); // Releasing a slot that may already be free; the error that matters is thrown below.
    throw plain(error, options.url);
  }
}

async function attempt(options: OpenRemoteOptions, wire: RemoteWire): Promise<ServerConnection> {
  const [loaded, { SSEClientTransport }, { ServerConnection }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('../servers/server-connection'),
  ]);
  streamable = loaded;
  const transport: StreamableHTTPClientTransport | InstanceType<typeof SSEClientTransport> =
    wire === 'streamable-http'
      ? new loaded.StreamableHTTPClientTransport(options.url, { fetch: options.fetch, reconnectionOptions: { initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 } })
      : new SSEClientTransport(options.url, { fetch: options.fetch });
  const channel = new RemoteChannel(transport, options.url, wire);
  const connection = new ServerConnection(channel, options.connection);
  const onAbort = () => void connection.close();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    // The older transport waits for its endpoint event with no bound of its own.
    const timeoutMs = options.connection.initializeTimeoutMs ?? 20_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ChannelError(`${options.url.host} did not complete the MCP handshake within ${Math.round(timeoutMs / 1000)} s.`, 'unreachable', false)), timeoutMs);
    });
    try {
      await Promise.race([connection.connect(), deadline]);
    } finally {
      clearTimeout(timer);
    }
    if (options.signal?.aborted) throw new ChannelError('The connection was stopped while it opened.', 'interrupted', false);
  } catch (error) {
    await connection.close().catch(() => undefined); // Closing a connection that may never have opened; the error that matters is thrown below.
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  channel.release = options.release;
  return connection;
}

/** The status code a streamable HTTP refusal carried, if any. */
function statusOf(error: unknown): number | undefined {
  // Only an attempt raises one, and it loaded the transport first.
  if (streamable && error instanceof streamable.StreamableHTTPError && typeof error.code === 'number' && error.code > 0) return error.code;
  const match = /HTTP (\d{3})|\((\d{3})\)/.exec(error instanceof Error ? error.message : '');
  return match ? Number(match[1] ?? match[2]) : undefined;
}

function fallsBack(error: unknown): boolean {
  if (error instanceof ChannelError) return false;
  const status = statusOf(error);
  return status !== undefined && status >= 400 && status < 500;
}

function describeHttpError(error: unknown): string {
  const status = statusOf(error);
  const message = messageOf(error);
  if (/Unexpected content type: (text\/html|[^\s]+)/i.test(message)) return `it answered with ${/Unexpected content type: ([^\s;]+)/i.exec(message)?.[1] ?? 'something else'}`;
  return status ? `HTTP ${status}` : message.replace(/^Streamable HTTP error: /, '').slice(0, 200);
}

/** A failure to open, in plain words: a ChannelError. */
function plain(error: unknown, url: URL): unknown {
  if (error instanceof ChannelError) return error;
  const message = messageOf(error);
  if (/Unexpected content type: text\/html/i.test(message) || /text\/html/i.test(message)) {
    return new ChannelError(`${url.href} answered with a web page (text/html), not MCP: is this the MCP endpoint’s address (often ending in /mcp or /sse)?`, 'protocol', false, { cause: error });
  }
  const unfollowed = /Redirect (to .*?) not followed/.exec(message);
  if (unfollowed) return new ChannelError(`${url.href} redirected ${unfollowed[1]}; Airlock follows a redirect only within the same origin (scheme, host and port), so it did not.`, 'address-refused', false, { cause: error });
  if (/Unexpected content type/i.test(message)) return new ChannelError(`${url.href} answered with ${describeHttpError(error).replace(/^it answered with /, '')}, not MCP.`, 'protocol', false, { cause: error });
  const status = statusOf(error);
  if (status) return new ChannelError(`${url.href} refused the MCP handshake (HTTP ${status}).`, status >= 500 ? 'unreachable' : 'protocol', false, { cause: error });
  if (/Invalid|JSON|parse|expected/i.test(message)) return new ChannelError(`${url.href} answered with something that is not MCP (${message.slice(0, 200)}).`, 'protocol', false, { cause: error });
  return new ChannelError(`Connecting to ${url.href} failed: ${message.slice(0, 300)}`, 'unreachable', false, { cause: error });
}
