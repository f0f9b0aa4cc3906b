import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { armSseKeepAlive, DEFAULT_SSE_KEEP_ALIVE_MS } from '@modelcontextprotocol/sdk/server/sseKeepAlive.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  isInitializeRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** Options for {@link HttpSessionTransport}. */
export interface HttpSessionTransportOptions {
  /** The session's id, made when its `initialize` arrives. */
  sessionIdGenerator: () => string;
  /** Told the id once the session exists (before its `initialize` is handled). */
  onsessioninitialized?: (sessionId: string) => void;
  /** Host and Origin headers this session accepts, in lower case (defence in depth: the gateway checks both first). */
  allowedHosts: ReadonlySet<string>;
  allowedOrigins: ReadonlySet<string>;
  /** A comment line on an open stream this often, so idle streams survive proxies (default: the SDK's 15 s). */
  keepAliveMs?: number;
  /** A response still being worked on gets its headers after this long (default 100 ms). */
  headersWithinMs?: number;
}

/** One POST's stream (the responses to its requests and what relates to them), or the session's GET stream. */
interface Stream {
  res: ServerResponse;
  /** Requests of this POST still to be answered; the stream ends with the last answer. */
  awaiting: Set<RequestId>;
  headersSent: boolean;
  /** Ended by the last answer, by the session closing, or by the client going away. */
  ended: boolean;
  /** Until the headers go: when they must; after: the keep-alive. */
  timer?: NodeJS.Timeout;
}

/** How many cancelled requests are remembered, so an answer that crossed the cancellation is let go quietly. */
const REMEMBERED_CANCELLATIONS = 64;

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

/**
 * MCP's Streamable HTTP transport, server side, for one stateful session,
 * on Node's own request and response — the SDK's
 * `StreamableHTTPServerTransport` converts each of them to and from web
 * `Request`/`Response` streams, which costs a gateway call more than the
 * hop itself (issue 15). Same protocol, same answers, same refusals (status,
 * code and words) as the SDK's, without resumability or JSON-response mode,
 * which the gateway does not offer.
 *
 * A POST with requests gets an SSE stream that carries their answers and
 * whatever the server sends about them (progress, its own requests), and
 * ends with the last answer. When that answer is all the stream carries and
 * it comes within `headersWithinMs`, the headers, the event and the end go
 * in one write; otherwise the headers go at once when the first event does,
 * or when that time is up, and a keep-alive comment follows while the
 * stream is open. A GET opens the session's one stream for messages that
 * belong to no request.
 *
 * Where the SDK's transport leaves a client waiting, this one does not: a
 * request the client cancels stops being waited for (MCP sends no answer
 * to it, so its stream would stay open for good); a request id already in
 * use in the session is refused (MCP forbids reusing one, and two requests
 * with one id cannot both be answered); a session closed under running
 * requests answers each with an error saying so. The handlers see the
 * request's headers without the gateway's token.
 */
export class HttpSessionTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  readonly #options: HttpSessionTransportOptions;
  #started = false;
  #initialized = false;
  #closed = false;
  /** The stream each request not yet answered is on. */
  readonly #streamOf = new Map<RequestId, Stream>();
  readonly #open = new Set<Stream>();
  #standalone: Stream | undefined;
  /** Requests the client cancelled lately (MCP: no answer is sent for them). */
  readonly #cancelled = new Set<RequestId>();

  constructor(options: HttpSessionTransportOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('Transport already started');
    this.#started = true;
  }

  /** Answers one HTTP request of this session; `body` is the POST's parsed JSON. */
  async handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    if (this.#closed) return refuse(res, 404, -32001, 'Session not found');
    const host = req.headers.host;
    if (!host || !this.#options.allowedHosts.has(host.toLowerCase())) return refuse(res, 403, -32000, `Invalid Host header: ${host}`);
    const origin = req.headers.origin;
    if (origin !== undefined && !this.#options.allowedOrigins.has(origin.toLowerCase())) return refuse(res, 403, -32000, `Invalid Origin header: ${origin}`);
    switch (req.method) {
      case 'POST':
        return this.#post(req, res, body);
      case 'GET':
        return this.#get(req, res);
      case 'DELETE':
        return this.#delete(req, res);
      default:
        res.setHeader('Allow', 'GET, POST, DELETE');
        return refuse(res, 405, -32000, 'Method not allowed.');
    }
  }

  #post(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const accept = req.headers.accept;
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return refuse(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!isJsonContentType(req.headers['content-type'])) return refuse(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
      return refuse(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
    }
    let messages: JSONRPCMessage[];
    try {
      messages = Array.isArray(body) ? body.map((message) => JSONRPCMessageSchema.parse(message)) : [JSONRPCMessageSchema.parse(body)];
    } catch {
      return refuse(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
    }
    if (this.#closed) return refuse(res, 404, -32001, 'Session not found');

    if (messages.some((message) => 'method' in message && message.method === 'initialize' && isInitializeRequest(message))) {
      if (this.#initialized && this.sessionId !== undefined) return refuse(res, 400, -32600, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return refuse(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.#options.sessionIdGenerator();
      this.#initialized = true;
      this.#options.onsessioninitialized?.(this.sessionId);
    } else {
      const refused = this.#sessionRefusal(req);
      if (refused) return refuse(res, ...refused);
    }

    const requests = messages.filter(isRequest);
    // MCP: a request id is never reused within a session; two requests with one id could not both be answered.
    const ids = new Set<RequestId>();
    for (const { id } of requests) {
      if (ids.has(id) || this.#streamOf.has(id)) return refuse(res, 400, -32600, `Invalid Request: the request id ${JSON.stringify(id)} is already in use in this session`);
      ids.add(id);
    }
    // The handlers see the request's headers, but not the gateway's token.
    const headers = { ...req.headers };
    delete headers.authorization;
    const extra: MessageExtraInfo = { requestInfo: { headers } };
    if (requests.length === 0) {
      this.#deliver(messages, extra);
      res.writeHead(202, { 'Content-Length': 0 }).end();
      return;
    }
    const stream: Stream = { res, awaiting: ids, headersSent: false, ended: false };
    for (const id of ids) this.#streamOf.set(id, stream);
    this.#open.add(stream);
    res.once('close', () => this.#end(stream));
    try {
      this.#deliver(messages, extra);
    } catch (error) {
      // Nothing of this POST will be answered: forget its requests, and the gateway answers the POST (500).
      for (const id of ids) if (this.#streamOf.get(id) === stream) this.#streamOf.delete(id);
      this.#letGo(stream);
      throw error;
    }
    if (!stream.ended && !stream.headersSent) {
      stream.timer = setTimeout(() => this.#sendHeaders(stream, true), this.#options.headersWithinMs ?? 100);
      stream.timer.unref();
    }
  }

  /** Hands the messages on; a cancellation also stops the wait for the request it cancels. */
  #deliver(messages: readonly JSONRPCMessage[], extra: MessageExtraInfo): void {
    for (const message of messages) {
      this.onmessage?.(message, extra);
      if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) this.#cancel(message.params?.requestId);
    }
  }

  /**
   * MCP: a cancelled request gets no answer, so its stream stops waiting for
   * one (and ends when nothing else is awaited); an answer that crossed the
   * cancellation is let go.
   */
  #cancel(id: unknown): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const stream = this.#streamOf.get(id);
    if (!stream) return;
    this.#streamOf.delete(id);
    stream.awaiting.delete(id);
    this.#cancelled.add(id);
    if (this.#cancelled.size > REMEMBERED_CANCELLATIONS) this.#cancelled.delete(this.#cancelled.values().next().value!);
    if (stream.awaiting.size === 0) this.#end(stream);
  }

  #get(req: IncomingMessage, res: ServerResponse): void {
    if (!req.headers.accept?.includes('text/event-stream')) return refuse(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    const refused = this.#sessionRefusal(req);
    if (refused) return refuse(res, ...refused);
    if (this.#standalone) return refuse(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    const stream: Stream = { res, awaiting: new Set(), headersSent: false, ended: false };
    this.#standalone = stream;
    this.#open.add(stream);
    res.once('close', () => this.#end(stream));
    this.#sendHeaders(stream, true);
  }

  async #delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = this.#sessionRefusal(req);
    if (refused) return refuse(res, ...refused);
    await this.close();
    res.writeHead(200, { 'Content-Length': 0 }).end();
  }

  /** Why a request that is not the `initialize` is refused for its session or protocol headers; undefined when it is not. */
  #sessionRefusal(req: IncomingMessage): [status: number, code: number, message: string] | undefined {
    if (!this.#initialized) return [400, -32000, 'Bad Request: Server not initialized'];
    const sessionId = req.headers['mcp-session-id'];
    if (!sessionId) return [400, -32000, 'Bad Request: Mcp-Session-Id header is required'];
    if (sessionId !== this.sessionId) return [404, -32001, 'Session not found'];
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
      const message = `Bad Request: Unsupported protocol version: ${String(version)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
      return [400, -32000, message];
    }
    return undefined;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // After the session closed, what its Server still sends has nowhere to go.
    if (this.#closed) return;
    // What the session's own Server sends: a response has no method; anything else is a request or a notification.
    const response = !('method' in message);
    const id = response ? (message as { id?: RequestId }).id : options?.relatedRequestId;
    if (id === undefined) {
      if (response) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      if (this.#standalone) this.#write(this.#standalone, message, false);
      return;
    }
    const stream = this.#streamOf.get(id);
    if (!stream) {
      // What relates to a request the client cancelled has nobody waiting for it.
      if (this.#cancelled.has(id)) {
        if (response) this.#cancelled.delete(id);
        return;
      }
      throw new Error(`No connection established for request ID: ${String(id)}`);
    }
    if (!response) return this.#write(stream, message, false);
    this.#streamOf.delete(id);
    stream.awaiting.delete(id);
    this.#write(stream, message, stream.awaiting.size === 0);
  }

  /** Writes one event; `last` ends the stream with it (one write, headers included, when none went yet). */
  #write(stream: Stream, message: JSONRPCMessage, last: boolean): void {
    // A client that went away is not written to; its answers are let go as they come.
    if (stream.ended) return;
    const event = sseEvent(message);
    if (last) return this.#end(stream, event);
    // Headers and the first event leave together.
    this.#sendHeaders(stream, false);
    stream.res.write(event);
  }

  #sendHeaders(stream: Stream, flush: boolean): void {
    if (stream.headersSent || stream.ended) return;
    stream.headersSent = true;
    clearTimeout(stream.timer);
    stream.res.writeHead(200, this.#sseHeaders());
    if (flush) stream.res.flushHeaders();
    stream.timer = armSseKeepAlive(this.#options.keepAliveMs ?? DEFAULT_SSE_KEEP_ALIVE_MS, () => stream.res.write(': keepalive\n\n'));
  }

  #sseHeaders(): Record<string, string> {
    return this.sessionId === undefined ? SSE_HEADERS : { ...SSE_HEADERS, 'mcp-session-id': this.sessionId };
  }

  /** Ends a stream (with a last event, when given); safe to call again, and when the client has gone. */
  #end(stream: Stream, last?: string): void {
    if (stream.ended) return;
    this.#letGo(stream);
    const { res } = stream;
    if (res.writableEnded || res.destroyed) return;
    if (!stream.headersSent) {
      // The whole stream is known: its length, and one write for the headers and the body.
      stream.headersSent = true;
      res.writeHead(200, { ...this.#sseHeaders(), 'Content-Length': last === undefined ? 0 : Buffer.byteLength(last) });
    }
    res.end(last);
  }

  /**
   * Marks a stream ended and forgets it, writing nothing. Its requests stay
   * mapped to it until each is answered (the answer is then let go), or the
   * session closes.
   */
  #letGo(stream: Stream): void {
    stream.ended = true;
    clearTimeout(stream.timer);
    this.#open.delete(stream);
    if (this.#standalone === stream) this.#standalone = undefined;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const stream of [...this.#open]) {
      // A request still being worked on is told the session closed under it, rather than left waiting.
      const unanswered = [...stream.awaiting]
        .map((id) => sseEvent({ jsonrpc: '2.0', id, error: { code: ErrorCode.ConnectionClosed, message: 'The session was closed before this request was answered.' } }))
        .join('');
      this.#end(stream, unanswered || undefined);
    }
    this.#streamOf.clear();
    this.onclose?.();
  }
}

function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

/** A JSON-RPC error with no id, as the SDK's transport answers, and never a CORS header (after headers went: just the end). */
export function refuse(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
}
