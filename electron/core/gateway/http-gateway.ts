import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { AirlockError } from '../errors';
import type { GatewayCore } from './gateway-core';
import { createGatewayServer, type GatewayServerOptions } from './gateway-server';
import { HttpSessionTransport, refuse } from './http-session-transport';
import { MIN_GATEWAY_TOKEN_LENGTH, tokensMatch } from './gateway-token';

/**
 * How long a connection that showed the token may stay quiet before the
 * gateway closes it: far longer than any client keeps an idle connection
 * (so the client, not the gateway, ends it — no keep-alive race), and longer
 * than a stream's keep-alive comments are apart.
 */
const ADMITTED_IDLE_MS = 5 * 60_000;

/** The loopback addresses the HTTP gateway may listen on. */
export type LoopbackHost = '127.0.0.1' | '::1';

/** Options for `startHttpGateway`. */
export interface HttpGatewayOptions extends GatewayServerOptions {
  /** TCP port; 0 picks a free one (see the returned `port`). */
  port: number;
  /** Loopback only; anything else is refused. Default 127.0.0.1. */
  host?: LoopbackHost;
  /** The bearer token every request must carry (see `loadOrCreateGatewayToken`). */
  token: string;
  /** Largest request body read, in bytes (default 1 MiB); larger ones get 413. */
  maxBodyBytes?: number;
  /** Most sessions open at once (default 32); more get 503. */
  maxSessions?: number;
  /** A session with no request for this long, and no open stream, is closed (default 1 hour). */
  idleSessionMs?: number;
  /**
   * Most connections open at once that have not yet shown the token (default
   * 32). A new one beyond it closes the oldest of them, so idle or slow
   * connections cannot keep a client with the token out.
   */
  maxUnauthenticated?: number;
  /** A connection that has not shown the token is closed after this long without a byte (default 5 s). */
  unauthenticatedIdleMs?: number;
  /** A connection that showed the token is closed after this long without a byte (default 5 min; see ADMITTED_IDLE_MS). */
  admittedIdleMs?: number;
  /** How a call's stream is kept: its headers within `headersWithinMs` (default 100 ms), then a comment every `keepAliveMs` (default 15 s). */
  streams?: { headersWithinMs?: number; keepAliveMs?: number };
}

/** A running HTTP gateway. */
export interface HttpGateway {
  /** `http://127.0.0.1:PORT/mcp`: what a client is given, with the token. */
  url: string;
  port: number;
  host: LoopbackHost;
  /** Sessions open now. */
  sessionCount(): number;
  /** Connections open now that have not shown the token. */
  unauthenticatedCount(): number;
  /** Closes every session and the listening socket. */
  close(): Promise<void>;
}

/** The one path the gateway answers on. */
export const GATEWAY_HTTP_PATH = '/mcp';

interface Session {
  transport: HttpSessionTransport;
  server: Server;
  lastSeen: number;
  openRequests: number;
}

/**
 * Serves the gateway over MCP's Streamable HTTP transport on loopback, in
 * stateful mode: every `initialize` starts a session with its own `Server`
 * (so each client is named on its own), found again by `Mcp-Session-Id`,
 * closed on DELETE, when idle, or with the gateway.
 *
 * Every request passes, in this order: the Host header must be exactly
 * `127.0.0.1:PORT` or `localhost:PORT` (DNS rebinding: a web page whose name
 * was re-pointed at 127.0.0.1 still sends its own name); an Origin header,
 * when present, must be this gateway's own origin (browsers send one with
 * every cross-site request); only `/mcp`; `Authorization: Bearer <token>`,
 * compared in constant time (401 with `WWW-Authenticate` otherwise); a body
 * no larger than the limit. No response carries CORS headers, so a browser
 * page of another origin can never read one.
 */
export async function startHttpGateway(core: GatewayCore, options: HttpGatewayOptions): Promise<HttpGateway> {
  const host: LoopbackHost = options.host ?? '127.0.0.1';
  // SECURITY: loopback only — the gateway runs the user's tools; nothing on the network may reach it.
  if (host !== '127.0.0.1' && host !== '::1') {
    throw new AirlockError('invalid-request', `the gateway listens on loopback only (127.0.0.1 or ::1), not on ${String(host)}`);
  }
  if (typeof options.token !== 'string' || options.token.length < MIN_GATEWAY_TOKEN_LENGTH) {
    throw new AirlockError('invalid-request', `the gateway token must be at least ${MIN_GATEWAY_TOKEN_LENGTH} characters`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new AirlockError('invalid-request', `${String(options.port)} is not a TCP port (0–65535)`);
  }
  const log = options.log ?? ((message: string) => console.error(message));
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const maxSessions = options.maxSessions ?? 32;
  const idleSessionMs = options.idleSessionMs ?? 60 * 60 * 1000;
  const token = options.token;
  const sessions = new Map<string, Session>();
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();

  const maxUnauthenticated = options.maxUnauthenticated ?? 32;
  const unauthenticatedIdleMs = options.unauthenticatedIdleMs ?? 5_000;
  const admittedIdleMs = options.admittedIdleMs ?? ADMITTED_IDLE_MS;

  // A server with no per-server connection limit: limits are kept below, by whether the token was shown.
  const httpServer = createServer({ connectionsCheckingInterval: 1_000, headersTimeout: 5_000, requestTimeout: 60_000 }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`gateway: HTTP request failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
      if (!res.headersSent) refuse(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });
  // The keep-alive race: a server that closes an idle connection while the client reuses it makes the
  // client's next request fail ("other side closed") — certain when the client's process stalls past
  // the server's idle time (a loaded machine). So the gateway never closes an idle connection on a
  // short timer of its own (no keep-alive timeout, and none announced): clients close their idle
  // connections first, on their own timers (undici 4 s, Python's httpx 5 s, Go 90 s). Idle
  // connections stay bounded below: strangers by count and a 5 s idle limit, clients with the token
  // by count and `admittedIdleMs` — far longer than any client keeps one idle.
  httpServer.keepAliveTimeout = 0;
  // SECURITY (unauthenticated resources are the attack surface): a connection is a stranger until
  // a request on it shows the token. Strangers get a short idle timeout and a bounded number of
  // places; a new one beyond that evicts the oldest stranger (a real client shows its token within
  // milliseconds of connecting). Connections that showed the token are bounded by the sessions cap
  // and never evicted by strangers. Whatever an idle flood does, a client with the token gets in.
  const strangers = new Set<Socket>();
  const admitted = new Set<Socket>();
  // SSE streams stay open; this bounds the sockets clients with the token can hold.
  const maxAdmitted = 4 * maxSessions + 16;
  httpServer.on('connection', (socket: Socket) => {
    strangers.add(socket);
    socket.setTimeout(unauthenticatedIdleMs);
    socket.once('close', () => {
      strangers.delete(socket);
      admitted.delete(socket);
    });
    while (strangers.size > maxUnauthenticated) {
      const oldest = strangers.values().next().value as Socket;
      strangers.delete(oldest);
      oldest.destroy();
    }
  });
  /** Marks a connection as one that showed the token; false when too many such connections are open. */
  function admit(socket: Socket): boolean {
    if (admitted.has(socket)) return true;
    if (admitted.size >= maxAdmitted) return false;
    strangers.delete(socket);
    admitted.add(socket);
    // SSE streams stay open as long as the client wants (they carry a keep-alive comment every 15 s);
    // a connection quiet for `admittedIdleMs` is one its client forgot.
    socket.setTimeout(admittedIdleMs);
    return true;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // SECURITY (DNS rebinding): the Host header must name this loopback listener exactly.
    const hostHeader = req.headers.host?.toLowerCase();
    if (!hostHeader || !allowedHosts.has(hostHeader)) return refuse(res, 403, -32000, 'Forbidden: this Host is not allowed');
    // SECURITY (no CORS): a browser page of another origin is refused outright, and no response
    // anywhere carries Access-Control-Allow-Origin.
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase())) return refuse(res, 403, -32000, 'Forbidden: this Origin is not allowed');
    const path = (req.url ?? '/').split('?')[0];
    if (path !== GATEWAY_HTTP_PATH) return refuse(res, 404, -32000, 'Not found');
    // SECURITY (invariant 1): without the token nothing reaches the core.
    if (!authorized(req.headers.authorization)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="airlock", error="invalid_token"');
      return refuse(res, 401, -32001, 'Unauthorized: a valid bearer token is required');
    }
    if (!admit(req.socket)) {
      res.setHeader('Connection', 'close');
      return refuse(res, 503, -32000, 'Too many connections; close one first');
    }
    if (req.method !== 'GET' && req.method !== 'POST' && req.method !== 'DELETE') {
      res.setHeader('Allow', 'GET, POST, DELETE');
      return refuse(res, 405, -32000, 'Method not allowed');
    }

    const sessionHeader = req.headers['mcp-session-id'];
    if (sessionHeader !== undefined) {
      const session = typeof sessionHeader === 'string' ? sessions.get(sessionHeader) : undefined;
      if (!session) return refuse(res, 404, -32001, 'Session not found');
      const body = req.method === 'POST' ? await readBody(req, res) : undefined;
      if (body === NO_BODY) return;
      session.lastSeen = Date.now();
      session.openRequests += 1;
      res.once('close', () => {
        session.openRequests -= 1;
        session.lastSeen = Date.now();
      });
      await session.transport.handleRequest(req, res, body);
      return;
    }

    if (req.method !== 'POST') return refuse(res, 400, -32000, 'Bad Request: No valid session ID provided');
    const body = await readBody(req, res);
    if (body === NO_BODY) return;
    if (!isInitializeRequest(body)) return refuse(res, 400, -32000, 'Bad Request: No valid session ID provided');
    if (sessions.size >= maxSessions) return refuse(res, 503, -32000, `Too many sessions (${maxSessions}); close one first`);

    const server = createGatewayServer(core, options);
    const transport = new HttpSessionTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastSeen: Date.now(), openRequests: 0 });
      },
      // Defence in depth: the transport checks Host and Origin again with the same lists.
      allowedHosts,
      allowedOrigins,
      ...options.streams,
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused leaves no session behind.
    if (!transport.sessionId || !sessions.has(transport.sessionId)) await server.close();
  }

  function authorized(header: string | undefined): boolean {
    if (typeof header !== 'string') return false;
    const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
    if (!match) return false;
    // SECURITY: constant-time comparison, so timing reveals nothing about the token.
    return tokensMatch(match[1]!, token);
  }

  const NO_BODY = Symbol('no body');
  /** The JSON body, or NO_BODY after answering 413/400 itself (or when the client went away first). */
  function readBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) {
      res.setHeader('Connection', 'close');
      refuse(res, 413, -32000, `Request body larger than ${maxBodyBytes} bytes`);
      req.resume();
      return Promise.resolve(NO_BODY);
    }
    // Events rather than an async iterator: a body is one chunk or a few, and each await is a turn.
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        if (size < 0) return;
        size += chunk.length;
        if (size > maxBodyBytes) {
          size = -1;
          res.setHeader('Connection', 'close');
          refuse(res, 413, -32000, `Request body larger than ${maxBodyBytes} bytes`);
          req.destroy();
          resolve(NO_BODY);
          return;
        }
        chunks.push(chunk);
      });
      req.once('end', () => {
        if (size < 0) return;
        try {
          resolve(JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')) as unknown);
        } catch {
          refuse(res, 400, -32700, 'Parse error: the body is not JSON');
          resolve(NO_BODY);
        }
      });
      // A request cut short (an error, or the client gone before the end) has nobody left to answer.
      req.once('error', () => resolve(NO_BODY));
      req.once('close', () => resolve(NO_BODY));
    });
  }

  await new Promise<void>((resolve, rejectListen) => {
    const onError = (error: NodeJS.ErrnoException) => {
      rejectListen(
        error.code === 'EADDRINUSE'
          ? new AirlockError('conflict', `port ${options.port} on ${host} is in use; choose another port for the gateway`)
          : error,
      );
    };
    httpServer.once('error', onError);
    httpServer.listen({ port: options.port, host, exclusive: true }, () => {
      httpServer.off('error', onError);
      resolve();
    });
  });
  httpServer.on('error', (error) => log(`gateway: HTTP server error: ${error.message}`));

  const port = (httpServer.address() as AddressInfo).port;
  const hostNames = host === '::1' ? ['[::1]', 'localhost'] : ['127.0.0.1', 'localhost'];
  allowedHosts = new Set(hostNames.map((name) => `${name}:${port}`));
  allowedOrigins = new Set(hostNames.map((name) => `http://${name}:${port}`));

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values()) {
        if (session.openRequests <= 0 && now - session.lastSeen > idleSessionMs) void session.server.close();
      }
    },
    Math.min(idleSessionMs, 60_000),
  );
  sweep.unref();

  return {
    url: `http://${hostNames[0]}:${port}${GATEWAY_HTTP_PATH}`,
    port,
    host,
    sessionCount: () => sessions.size,
    unauthenticatedCount: () => strangers.size,
    async close() {
      clearInterval(sweep);
      await Promise.allSettled([...sessions.values()].map((session) => session.server.close()));
      sessions.clear();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}
