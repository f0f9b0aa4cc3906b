/**
 * One data folder, several processes. The first process that runs servers
 * (the app, `airlock gateway`, or a CLI command) becomes the folder's owner:
 * it holds `owner.lock` and serves a Unix socket only the user can open.
 * Every other Airlock process on that folder is the owner's client: its
 * requests run in the owner, through the same contract and the same choke
 * point, so a server is never started twice, a rule saved anywhere is in
 * force everywhere, and the audit log stays one chain. When the owner exits,
 * the next process to need servers takes over.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../../../shared/domain';
import type { ChannelName, EventName, IpcHandlers, IpcResult, PayloadOf, RequestOf, ResponseOf } from '../../../shared/ipc';
import type { CatalogChange } from '../catalog/catalog';
import { AirlockError } from '../errors';
import type { GatewayCallRequest, GatewayCatalog, GatewayCore, GatewayTool } from '../gateway/gateway-core';
import type { DownstreamPeer } from '../server-requests/downstream-peers';
import { dispatchIpc } from './dispatch';

/** Where the owner's lock and socket live for a data folder. */
export interface OwnerEndpoint {
  lockPath: string;
  socketPath: string;
}

/** Unix socket paths are limited to about 104 bytes; long data folders get a short path in the temp folder. */
export function ownerEndpoint(dataDir: string, platform: NodeJS.Platform = process.platform): OwnerEndpoint {
  const lockPath = join(dataDir, 'owner.lock');
  const hash = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  if (platform === 'win32') return { lockPath, socketPath: `\\\\.\\pipe\\airlock-${hash}` };
  const inside = join(dataDir, 'owner.sock');
  return { lockPath, socketPath: Buffer.byteLength(inside) < 100 ? inside : join(tmpdir(), `airlock-${hash}.sock`) };
}

/** Line-delimited JSON messages between an owner and its clients. */
type Request =
  | { id: number; method: 'ipc'; params: { channel: string; request: unknown } }
  | { id: number; method: 'tools.list'; params: { servers?: string[] } }
  | { id: number; method: 'tools.call'; params: { server: string; tool: string; arguments: Record<string, unknown>; caller: Caller; peer?: string } }
  | { id: number; method: 'cancel'; params: { target: number } }
  | { id: number; method: 'hello'; params: { canAsk: boolean; label: string } }
  /** A catalog request of a client's gateway (resources, prompts, completion, logging). */
  | { id: number; method: 'catalog'; params: { op: CatalogOp; args: unknown[] } }
  /** A client's gateway session that can answer servers' sampling or elicitation. */
  | { id: number; method: 'peer.register'; params: { label: string; sampling: boolean; elicitation: { form: boolean; url: boolean } } }
  | { id: number; method: 'peer.unregister'; params: { peer: string } }
  /** The client's answer to an `ask` from the owner. */
  | { id: number; method: 'peer.reply'; params: { ask: number; result?: unknown; error?: { code: number; message: string } } };

type Reply =
  | { id: number; result: unknown }
  | { id: number; error: { code: string; message: string; mcpCode?: number; serverMessage?: string } }
  | { id: number; progress: { progress: number; total?: number; message?: string } }
  | { event: string; payload: unknown }
  /** The owner asks a client's gateway session to sample or elicit (after Airlock's decision). */
  | { ask: number; method: 'peer.createMessage' | 'peer.elicit'; params: { peer: string; server: string; params: unknown } };

/** The catalog operations a client may ask the owner for (an allow-list: nothing else is called). */
const CATALOG_OPS = ['describe', 'servers', 'resources', 'resourceTemplates', 'prompts', 'readResource', 'getPrompt', 'complete', 'subscribe', 'unsubscribe', 'setLogLevel', 'release'] as const;
type CatalogOp = (typeof CATALOG_OPS)[number];
/** Operations whose last argument is a subscriber name (scoped to the socket on the owner's side). */
const SUBSCRIBER_OPS = new Set<CatalogOp>(['subscribe', 'unsubscribe', 'setLogLevel', 'release']);
/** Operations whose last argument is request bounds (a signal cannot cross the socket: `cancel` it). */
const BOUNDED_OPS = new Set<CatalogOp>(['readResource', 'getPrompt', 'complete']);

/** Largest message either side accepts (a tool result can be large, not unbounded). */
const MAX_LINE = 32 * 1024 * 1024;

/** What the owner exposes: the IPC handlers and the gateway's view of the core. */
export interface OwnerServices {
  handlers: IpcHandlers;
  gateway: GatewayCore;
  /** Runs a call with the given caller (the gateway or CLI of a client process). */
  callTool(request: GatewayCallRequest): Promise<CallToolResult>;
}

/** The owner's side: the socket server, with the clients that can ask a person. */
export class OwnerSocket {
  private readonly askers = new Set<Socket>();
  private readonly sockets = new Set<Socket>();
  private readonly socketIds = new WeakMap<Socket, number>();
  private nextSocketId = 1;

  private constructor(
    private readonly server: Server,
    readonly endpoint: OwnerEndpoint,
    private readonly release: () => void,
  ) {}

  /**
   * Becomes the owner of a data folder, or returns undefined when another
   * live process already is. A lock left by a process that died is taken over.
   */
  static async claim(dataDir: string, services: () => OwnerServices): Promise<OwnerSocket | undefined> {
    const endpoint = ownerEndpoint(dataDir);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const release = takeLock(endpoint.lockPath);
    if (!release) return undefined;
    if (process.platform !== 'win32') rmSync(endpoint.socketPath, { force: true });
    let owner: OwnerSocket | undefined;
    const server = createServer((socket) => owner!.accept(socket, services()));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        // SECURITY: the socket is created with the user's umask tightened to owner-only, inside a 0700 folder.
        const previous = process.umask(0o177);
        server.listen(endpoint.socketPath, () => {
          process.umask(previous);
          resolve();
        });
      });
    } catch (error) {
      release();
      throw new AirlockError('unavailable', `Airlock could not open its local socket ${endpoint.socketPath}: ${(error as Error).message}`);
    }
    owner = new OwnerSocket(server, endpoint, release);
    return owner;
  }

  /** True when a connected client (the app's window, a terminal) can ask a person. */
  hasAskers(): boolean {
    return this.askers.size > 0;
  }

  /** Sends an event to every client. */
  broadcast<E extends EventName>(event: E, payload: PayloadOf<E>): void {
    for (const socket of this.sockets) write(socket, { event, payload });
  }

  /** Tells clients the tools changed (the gateway sends tools/list_changed). */
  broadcastToolsChanged(): void {
    for (const socket of this.sockets) write(socket, { event: 'tools.didChange', payload: null });
  }

  /** Tells clients what changed in the catalog (their gateways relay list changes, updates, log lines). */
  broadcastCatalogChange(change: CatalogChange): void {
    for (const socket of this.sockets) write(socket, { event: 'catalog.change', payload: change });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (process.platform !== 'win32') rmSync(this.endpoint.socketPath, { force: true });
    this.release();
  }

  private accept(socket: Socket, services: OwnerServices): void {
    this.sockets.add(socket);
    const running = new Map<number, AbortController>();
    // This client's gateway sessions, as peers of the owner's core, and what the owner asked them.
    const peers = new Map<string, () => void>();
    const asks = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
    const subscribers = new Set<string>();
    let nextAsk = 1;
    const scope = (subscriber: unknown) => `socket:${this.socketIds.get(socket)}:${String(subscriber)}`;
    if (!this.socketIds.has(socket)) this.socketIds.set(socket, this.nextSocketId++);
    const ask = (method: 'peer.createMessage' | 'peer.elicit', params: { peer: string; server: string; params: unknown }) =>
      new Promise<unknown>((resolve, reject) => {
        const id = nextAsk++;
        asks.set(id, { resolve, reject });
        write(socket, { ask: id, method, params });
      });
    socket.on('close', () => {
      this.sockets.delete(socket);
      this.askers.delete(socket);
      for (const controller of running.values()) controller.abort();
      for (const dispose of peers.values()) dispose();
      for (const waiter of asks.values()) waiter.reject(new Error('the app that was asked went away'));
      for (const subscriber of subscribers) void services.gateway.catalog?.release(subscriber).catch(() => undefined);
    });
    socket.on('error', () => socket.destroy());
    readLines(socket, async (message) => {
      const request = message as Request;
      if (typeof request !== 'object' || request === null || typeof request.id !== 'number') return;
      try {
        switch (request.method) {
          case 'hello':
            if (request.params.canAsk) this.askers.add(socket);
            write(socket, { id: request.id, result: { ok: true } });
            return;
          case 'ipc':
            write(socket, { id: request.id, result: await dispatchIpc(services.handlers, request.params.channel, request.params.request) });
            return;
          case 'tools.list':
            write(socket, { id: request.id, result: services.gateway.listTools(request.params.servers) });
            return;
          case 'tools.call': {
            const controller = new AbortController();
            running.set(request.id, controller);
            try {
              const result = await services.callTool({
                ...request.params,
                signal: controller.signal,
                onProgress: (progress) => write(socket, { id: request.id, progress }),
              });
              write(socket, { id: request.id, result });
            } finally {
              running.delete(request.id);
            }
            return;
          }
          case 'cancel':
            running.get(request.params.target)?.abort();
            write(socket, { id: request.id, result: { ok: true } });
            return;
          case 'catalog': {
            const catalog = services.gateway.catalog;
            const op = request.params.op;
            if (!catalog || !(CATALOG_OPS as readonly string[]).includes(op) || !Array.isArray(request.params.args)) {
              write(socket, { id: request.id, error: { code: 'unknown-channel', message: 'Unknown catalog request.' } });
              return;
            }
            const args = [...request.params.args];
            // SECURITY: a client names only its own subscribers; on the owner they are scoped to its socket.
            if (SUBSCRIBER_OPS.has(op)) {
              args[args.length - 1] = scope(args[args.length - 1]);
              subscribers.add(args[args.length - 1] as string);
            }
            const controller = new AbortController();
            if (BOUNDED_OPS.has(op)) {
              running.set(request.id, controller);
              args[args.length - 1] = { signal: controller.signal, onProgress: (progress: { progress: number; total?: number; message?: string }) => write(socket, { id: request.id, progress }) };
            }
            try {
              const result = await (catalog[op] as (...a: unknown[]) => Promise<unknown>)(...args);
              write(socket, { id: request.id, result: result ?? null });
            } finally {
              running.delete(request.id);
            }
            return;
          }
          case 'peer.register': {
            const { label, sampling, elicitation } = request.params;
            let registered: { id: string; dispose(): void } | undefined;
            registered = services.gateway.registerPeer?.({
              label: String(label),
              sampling: sampling === true,
              elicitation: { form: elicitation?.form === true, url: elicitation?.url === true },
              createMessage: (server, params): ReturnType<DownstreamPeer['createMessage']> => ask('peer.createMessage', { peer: registered!.id, server, params }) as never,
              elicit: (server, params): ReturnType<DownstreamPeer['elicit']> => ask('peer.elicit', { peer: registered!.id, server, params }) as never,
            });
            if (registered) peers.set(registered.id, registered.dispose);
            write(socket, { id: request.id, result: registered ? { peer: registered.id } : {} });
            return;
          }
          case 'peer.unregister':
            peers.get(request.params.peer)?.();
            peers.delete(request.params.peer);
            write(socket, { id: request.id, result: { ok: true } });
            return;
          case 'peer.reply': {
            const waiter = asks.get(request.params.ask);
            asks.delete(request.params.ask);
            if (waiter) {
              if (request.params.error) waiter.reject(new McpError(request.params.error.code, request.params.error.message));
              else waiter.resolve(request.params.result);
            }
            write(socket, { id: request.id, result: { ok: true } });
            return;
          }
          default:
            write(socket, { id: (request as { id: number }).id, error: { code: 'unknown-channel', message: 'Unknown request.' } });
        }
      } catch (error) {
        const mcp = error as { mcpCode?: unknown; serverMessage?: unknown };
        write(socket, {
          id: request.id,
          error: {
            code: error instanceof AirlockError ? error.code : 'internal',
            message: error instanceof Error ? error.message : String(error),
            ...(typeof mcp.mcpCode === 'number' && typeof mcp.serverMessage === 'string' ? { mcpCode: mcp.mcpCode, serverMessage: mcp.serverMessage } : {}),
          },
        });
      }
    });
  }
}

/** A client of the owner: the same contract, run in the owner's process. */
export class OwnerClient {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; onProgress?: (p: { progress: number; total?: number; message?: string }) => void }>();
  /** This process's gateway sessions registered with the owner, by the owner's peer id. */
  private readonly peers = new Map<string, Omit<DownstreamPeer, 'id'>>();
  private readonly listeners = new Set<(event: string, payload: unknown) => void>();
  private closedError: Error | undefined;
  private readonly closeListeners = new Set<() => void>();

  private constructor(private readonly socket: Socket) {
    readLines(socket, (message) => this.receive(message as Reply));
    socket.on('close', () => {
      this.closedError = new AirlockError('unavailable', 'The Airlock process that runs the servers went away; the outcome of any open call is unknown.');
      for (const waiter of this.waiting.values()) waiter.reject(this.closedError);
      this.waiting.clear();
      for (const listener of this.closeListeners) listener();
    });
    socket.on('error', () => socket.destroy());
  }

  /** Connects to the data folder's owner, or returns undefined when none is running. */
  static async connect(dataDir: string, hello: { canAsk: boolean; label: string }): Promise<OwnerClient | undefined> {
    const { socketPath, lockPath } = ownerEndpoint(dataDir);
    if (!existsSync(lockPath)) return undefined;
    const socket = await new Promise<Socket | undefined>((resolve) => {
      const attempt = createConnection(socketPath);
      attempt.once('connect', () => resolve(attempt));
      attempt.once('error', () => resolve(undefined));
    });
    if (!socket) return undefined;
    const client = new OwnerClient(socket);
    await client.request('hello', hello);
    return client;
  }

  /** Calls an IPC channel in the owner; resolves to the value or throws an AirlockError with the owner's message. */
  async invoke<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>> {
    const result = (await this.request('ipc', { channel, request })) as IpcResult<ResponseOf<C>>;
    if (!result.ok) throw new AirlockError(result.code, result.message);
    return result.value;
  }

  async listTools(servers?: readonly string[]): Promise<GatewayTool[]> {
    return (await this.request('tools.list', servers ? { servers: [...servers] } : {})) as GatewayTool[];
  }

  async callTool(request: GatewayCallRequest): Promise<CallToolResult> {
    const id = this.nextId;
    const onAbort = () => void this.request('cancel', { target: id }).catch(() => {});
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return (await this.request(
        'tools.call',
        { server: request.server, tool: request.tool, arguments: request.arguments, caller: request.caller, ...(request.peer ? { peer: request.peer } : {}) },
        request.onProgress,
      )) as CallToolResult;
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The owner's catalog, as a client's gateway uses it (subscribers are scoped to this socket by the owner). */
  catalog(): Omit<GatewayCatalog, 'onDidChange'> {
    const call = (op: CatalogOp, args: unknown[], bounds?: { signal?: AbortSignal; onProgress?: (p: { progress: number; total?: number; message?: string }) => void }) => {
      const id = this.nextId;
      const onAbort = () => void this.request('cancel', { target: id }).catch(() => {});
      bounds?.signal?.addEventListener('abort', onAbort, { once: true });
      return this.request('catalog', { op, args: bounds ? [...args, null] : args }, bounds?.onProgress).finally(() => bounds?.signal?.removeEventListener('abort', onAbort)) as Promise<never>;
    };
    return {
      describe: (server) => call('describe', [server]),
      servers: (filter) => call('servers', filter ? [[...filter]] : []),
      resources: (servers) => call('resources', [[...servers]]),
      resourceTemplates: (servers) => call('resourceTemplates', [[...servers]]),
      prompts: (servers) => call('prompts', [[...servers]]),
      readResource: (server, uri, bounds) => call('readResource', [server, uri], bounds ?? {}),
      getPrompt: (server, name, args, bounds) => call('getPrompt', [server, name, args ?? null], bounds ?? {}),
      complete: (server, params, bounds) => call('complete', [server, params], bounds ?? {}),
      subscribe: (server, uri, subscriber) => call('subscribe', [server, uri, subscriber]),
      unsubscribe: (server, uri, subscriber) => call('unsubscribe', [server, uri, subscriber]),
      setLogLevel: (server, level, subscriber) => call('setLogLevel', [server, level, subscriber]),
      release: (subscriber) => call('release', [subscriber]),
    };
  }

  /** Registers a gateway session of this process with the owner, so servers' requests can be relayed to it. */
  async registerPeer(peer: Omit<DownstreamPeer, 'id'>): Promise<{ id: string; dispose(): void } | undefined> {
    const result = (await this.request('peer.register', { label: peer.label, sampling: peer.sampling, elicitation: peer.elicitation })) as { peer?: string };
    if (!result.peer) return undefined;
    const id = result.peer;
    this.peers.set(id, peer);
    return {
      id,
      dispose: () => {
        this.peers.delete(id);
        void this.request('peer.unregister', { peer: id }).catch(() => undefined);
      },
    };
  }

  /** Events the owner broadcasts (servers.didChange, approvals.didChange, …). */
  onEvent(listener: (event: string, payload: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called once when the connection to the owner ends. */
  onClose(listener: () => void): void {
    this.closeListeners.add(listener);
  }

  close(): void {
    this.closeListeners.clear();
    this.socket.end();
    this.socket.destroy();
  }

  private request(method: Request['method'], params: unknown, onProgress?: (p: { progress: number; total?: number; message?: string }) => void): Promise<unknown> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, ...(onProgress ? { onProgress } : {}) });
      write(this.socket, { id, method, params });
    });
  }

  private receive(message: Reply): void {
    if ('ask' in message) {
      void this.answerAsk(message);
      return;
    }
    if ('event' in message) {
      for (const listener of this.listeners) listener(message.event, message.payload);
      return;
    }
    const waiter = this.waiting.get(message.id);
    if (!waiter) return;
    if ('progress' in message) {
      waiter.onProgress?.(message.progress);
      return;
    }
    this.waiting.delete(message.id);
    if ('error' in message) {
      const error = new AirlockError(message.error.code as never, message.error.message);
      // A server's own MCP error keeps its code across the socket (a gateway relays it as the server sent it).
      if (typeof message.error.mcpCode === 'number') Object.assign(error, { mcpCode: message.error.mcpCode, serverMessage: message.error.serverMessage });
      waiter.reject(error);
    } else waiter.resolve(message.result);
  }

  /** The owner asks one of this process's gateway sessions to sample or elicit; the answer goes back. */
  private async answerAsk(message: Extract<Reply, { ask: number }>): Promise<void> {
    const peer = this.peers.get(message.params.peer);
    try {
      if (!peer) throw new McpError(ErrorCode.InvalidRequest, 'That app is no longer connected.');
      const params = message.params.params as never;
      const result = message.method === 'peer.createMessage' ? await peer.createMessage(message.params.server, params, {}) : await peer.elicit(message.params.server, params, {});
      await this.request('peer.reply', { ask: message.ask, result });
    } catch (error) {
      const code = error instanceof McpError ? error.code : ErrorCode.InternalError;
      await this.request('peer.reply', { ask: message.ask, error: { code, message: error instanceof Error ? error.message : String(error) } }).catch(() => undefined);
    }
  }
}

/** Takes the owner lock (O_EXCL), taking over one left by a dead process. Returns the release, or undefined when held. */
function takeLock(lockPath: string): (() => void) | undefined {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(lockPath, 'utf8') === String(process.pid)) rmSync(lockPath, { force: true });
        } catch {
          // already gone
        }
      };
      process.once('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lockPath, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) return undefined;
      rmSync(lockPath, { force: true });
    }
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function write(socket: Socket, message: Reply | { id: number; method: string; params: unknown }): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
}

function readLines(socket: Socket, onMessage: (message: unknown) => void | Promise<void>): void {
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    if (buffer.length > MAX_LINE) {
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
