/**
 * One data folder, several processes. The first process that runs servers
 * (the app, `airlock gateway`, or a CLI command) becomes the folder's owner:
 * it holds `owner.lock` and serves a Unix socket only the user can open.
 * Every other Airlock process on that folder is the owner's client: its
 * requests run in the owner, through the same contract and the same choke
 * point, so a server is never started twice, a rule saved anywhere is in
 * force everywhere, and the audit log stays one chain. When the owner exits,
 * the next process to need servers takes over.
 *
 * SECURITY: the owner decides who each connection is; nothing a client
 * says makes it more than a terminal shell.
 * - Peers authenticate: the owner writes a fresh random key to `owner.key`
 *   (0600, in the 0700 data folder) when it claims the folder; every
 *   connection gets a fresh nonce and must answer with HMAC(key, nonce),
 *   and the owner answers the client's nonce the same way. That proves the
 *   peer could read Airlock's data folder: it runs as this user (or root),
 *   and it is not one of Airlock's sandboxed servers (which can never read
 *   the data folder, even where they can reach a socket in /tmp). It does
 *   not tell one same-user program from another: the kernel does not either.
 * - Callers are typed by the owner: a connection's `tools.call` over the
 *   contract runs as `cli`, a gateway's as `client` (its name made inert);
 *   `user` — the person's own call, needing no confirmation — is only ever
 *   Airlock's own window, in the owner's process.
 * - Confirmations are routed: a connection is shown, and may answer, only
 *   the confirmations of calls made through it, and only when it said it has
 *   a terminal to ask on; never another's, never a network question.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChannelName, EventName, IpcHandlers, IpcResult, PayloadOf, RequestOf, ResponseOf } from '../../../shared/ipc';
import type { ConfirmationView } from '../../../shared/views';
import { AirlockError, messageOf } from '../errors';
import type { CatalogChange } from '../catalog/catalog';
import type { GatewayCallRequest, GatewayCatalog, GatewayCore, GatewayTool } from '../gateway/gateway-core';
import type { DownstreamPeer } from '../server-requests/downstream-peers';
import { clientLabel } from '../gateway/client-label';
import type { ShellIdentity } from './shell-identity';
import { inertText } from '../servers/log-ring';
import { dispatchIpc } from './dispatch';

/** Where the owner's lock, key and socket live for a data folder. */
export interface OwnerEndpoint {
  lockPath: string;
  /** The secret a client proves it can read (see the header). */
  keyPath: string;
  socketPath: string;
}

/** Unix socket paths are limited to about 104 bytes; long data folders get a short path in the temp folder. */
export function ownerEndpoint(dataDir: string, platform: NodeJS.Platform = process.platform): OwnerEndpoint {
  const lockPath = join(dataDir, 'owner.lock');
  const keyPath = join(dataDir, 'owner.key');
  const hash = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  if (platform === 'win32') return { lockPath, keyPath, socketPath: `\\\\.\\pipe\\airlock-${hash}` };
  const inside = join(dataDir, 'owner.sock');
  return { lockPath, keyPath, socketPath: Buffer.byteLength(inside) < 100 ? inside : join(tmpdir(), `airlock-${hash}.sock`) };
}

/** What a client says about itself. Only `terminal` changes anything, and only for its own calls. */
export interface PeerHello {
  /** Which Airlock program connects (for the log; never an identity). */
  role: 'cli' | 'gateway' | 'app';
  /** True when it has a terminal of its own to ask on (its calls' confirmations are then routed to it). */
  terminal: boolean;
  /** A label for the log ("airlock gateway for Cursor"); data. */
  label: string;
}

/** Line-delimited JSON messages between an owner and its clients. */
type Request =
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
/** Largest message before a connection has authenticated. */
const MAX_HELLO_LINE = 16 * 1024;
/** A connection that has not authenticated by then is closed. */
const HELLO_TIMEOUT_MS = 10_000;
/** The event that opens every connection: the owner's nonce. */
const CHALLENGE_EVENT = 'owner.challenge';

/** What the owner exposes: the contract per shell, the gateway's view of the core, and the hand-over. */
export interface OwnerServices {
  /** The IPC handlers for one shell (its caller kind, the confirmations it may see and answer). */
  handlers(shell: ShellIdentity): IpcHandlers;
  gateway: GatewayCore;
  /** Runs a call with the given caller (the gateway of a client process). */
  callTool(request: GatewayCallRequest): Promise<CallToolResult>;
  /** The confirmations `shell` may see (for its `approvals.didChange`). */
  pendingFor(shell: ShellIdentity): ConfirmationView[];
  /** Hands the servers to the process `pid` (the Airlock app); resolves once this process let go. */
  handOver?(pid: number): Promise<void>;
  /** True when the owner's own window can ask a person now (told to clients, so a terminal can leave a question to it). */
  windowCanAsk?(): boolean;
}

interface Peer {
  socket: Socket;
  shell: ShellIdentity;
  terminal: boolean;
}

/** The owner's side: the socket server, with the clients that can ask a person. */
export class OwnerSocket {
  private readonly peers = new Map<Socket, Peer>();
  private readonly sockets = new Set<Socket>();
  private nextSocketId = 1;
  private nextPeer = 1;
  private services: OwnerServices | undefined;

  private constructor(
    private readonly server: Server,
    readonly endpoint: OwnerEndpoint,
    private readonly key: Buffer,
    private readonly lock: LockHandle,
  ) {}

  /**
   * Becomes the owner of a data folder, or returns undefined when another
   * live process already is. A lock left by a process that died is taken
   * over, and so is one handed to this process (`handover`).
   */
  static async claim(dataDir: string, services: () => OwnerServices): Promise<OwnerSocket | undefined> {
    const endpoint = ownerEndpoint(dataDir);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const lock = takeLock(endpoint.lockPath);
    if (!lock) return undefined;
    let key: Buffer;
    try {
      key = writeKey(endpoint.keyPath);
    } catch (error) {
      lock.release();
      throw new AirlockError('unavailable', `Airlock could not write ${endpoint.keyPath}: ${(error as Error).message}`);
    }
    if (process.platform !== 'win32') rmSync(endpoint.socketPath, { force: true });
    let owner: OwnerSocket | undefined;
    const server = createServer((socket) => owner!.accept(socket, services));
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
      lock.release();
      throw new AirlockError('unavailable', `Airlock could not open its local socket ${endpoint.socketPath}: ${(error as Error).message}`);
    }
    owner = new OwnerSocket(server, endpoint, key, lock);
    return owner;
  }

  /** True when a connected client has a terminal to ask on about the calls made through `origin`. */
  peerCanAsk(origin: string): boolean {
    for (const peer of this.peers.values()) if (peer.shell.origin === origin) return peer.terminal && !peer.socket.destroyed;
    return false;
  }

  /**
   * Sends an event to every authenticated client. Confirmations are sent
   * per client (only those routed to it); network questions to none.
   */
  broadcast<E extends EventName>(event: E, payload: PayloadOf<E>): void {
    if (event === 'network.didChange') return;
    for (const peer of this.peers.values()) {
      const mine = event === 'approvals.didChange' ? (this.services?.pendingFor(peer.shell) ?? []) : payload;
      write(peer.socket, { event, payload: mine });
    }
  }

  /** Tells clients the tools changed (the gateway sends tools/list_changed). */
  broadcastToolsChanged(): void {
    for (const peer of this.peers.values()) write(peer.socket, { event: 'tools.didChange', payload: null });
  }

  /** Tells clients what changed in the catalog (their gateways relay list changes, updates, log lines). */
  broadcastCatalogChange(change: CatalogChange): void {
    for (const peer of this.peers.values()) write(peer.socket, { event: 'catalog.change', payload: change });
  }

  /** Stops serving. With `handTo`, the lock is handed to that process instead of being removed. */
  async close(handTo?: number): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (process.platform !== 'win32') rmSync(this.endpoint.socketPath, { force: true });
    if (handTo !== undefined) this.lock.handTo(handTo);
    else this.lock.release();
  }

  private accept(socket: Socket, factory: () => OwnerServices): void {
    this.sockets.add(socket);
    const running = new Map<number, AbortController>();
    const nonce = randomBytes(32).toString('base64url');
    let peer: Peer | undefined;
    const helloTimer = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    // This client's gateway sessions, as peers of the owner's core, and what the owner asked them.
    const sessions = new Map<string, () => void>();
    const asks = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
    const subscribers = new Set<string>();
    let nextAsk = 1;
    const socketId = this.nextSocketId++;
    // SECURITY: a client names only its own subscribers; on the owner they are scoped to its socket.
    const scope = (subscriber: unknown) => `socket:${socketId}:${String(subscriber)}`;
    const ask = (method: 'peer.createMessage' | 'peer.elicit', params: { peer: string; server: string; params: unknown }) =>
      new Promise<unknown>((resolve, reject) => {
        const id = nextAsk++;
        asks.set(id, { resolve, reject });
        write(socket, { ask: id, method, params });
      });
    socket.on('close', () => {
      clearTimeout(helloTimer);
      this.sockets.delete(socket);
      this.peers.delete(socket);
      for (const controller of running.values()) controller.abort();
      for (const dispose of sessions.values()) dispose();
      for (const waiter of asks.values()) waiter.reject(new Error('the app that was asked went away'));
      for (const subscriber of subscribers) void this.services?.gateway.catalog?.release(subscriber).catch(() => undefined);
    });
    socket.on('error', () => socket.destroy());
    write(socket, { event: CHALLENGE_EVENT, payload: { nonce } });
    readLines(socket, () => (peer ? MAX_LINE : MAX_HELLO_LINE), async (message) => {
      const request = message as Request;
      if (typeof request !== 'object' || request === null || typeof request.id !== 'number') return;
      if (!peer) {
        // SECURITY: nothing but a valid hello before the peer has proved it can read the data folder.
        const hello = request.method === 'hello' ? readHello(request.params) : undefined;
        if (!hello || !proofMatches(this.key, `client:${nonce}`, hello.proof)) {
          write(socket, { id: request.id, error: { code: 'forbidden-sender', message: 'This connection did not prove it may use Airlock (owner.key).' } });
          socket.end();
          socket.destroy();
          return;
        }
        clearTimeout(helloTimer);
        const origin = `peer-${this.nextPeer++}`;
        peer = { socket, terminal: hello.terminal, shell: { kind: 'terminal', origin, label: `${hello.role}: ${hello.label}` } };
        this.services ??= factory();
        this.peers.set(socket, peer);
        write(socket, { id: request.id, result: { ok: true, proof: prove(this.key, `owner:${hello.nonce}`), windowCanAsk: this.services.windowCanAsk?.() === true } });
        return;
      }
      const services = this.services!;
      const shell = peer.shell;
      try {
        switch (request.method) {
          case 'ipc':
            write(socket, { id: request.id, result: await dispatchIpc(services.handlers(shell), request.params?.channel, request.params?.request) });
            return;
          case 'tools.list':
            write(socket, { id: request.id, result: await services.gateway.listTools(stringList(request.params?.servers)) });
            return;
          case 'tools.call': {
            const params = request.params ?? ({} as never);
            if (typeof params.server !== 'string' || typeof params.tool !== 'string' || !isPlainObject(params.arguments)) {
              write(socket, { id: request.id, error: { code: 'invalid-request', message: 'tools.call needs server, tool and arguments.' } });
              return;
            }
            const controller = new AbortController();
            running.set(request.id, controller);
            try {
              const result = await services.callTool({
                server: params.server,
                tool: params.tool,
                arguments: params.arguments,
                // SECURITY: a gateway's caller is always a client, its name data (made inert); the
                // origin is this connection, so its confirmations come back here and nowhere else.
                caller: { kind: 'client', name: clientLabel(typeof params.clientName === 'string' ? params.clientName : undefined, undefined) },
                origin: shell.origin,
                ...(typeof params.peer === 'string' && sessions.has(params.peer) ? { peer: params.peer } : {}),
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
            running.get(request.params?.target)?.abort();
            write(socket, { id: request.id, result: { ok: true } });
            return;
          case 'handover': {
            const pid = request.params?.pid;
            if (!services.handOver || !Number.isInteger(pid) || pid <= 0) {
              write(socket, { id: request.id, error: { code: 'invalid-request', message: 'This Airlock process does not hand its servers over.' } });
              return;
            }
            write(socket, { id: request.id, result: { ok: true } });
            await services.handOver(pid);
            return;
          }
          case 'catalog': {
            const catalog = services.gateway.catalog;
            const op = request.params?.op;
            if (!catalog || !(CATALOG_OPS as readonly string[]).includes(op) || !Array.isArray(request.params.args)) {
              write(socket, { id: request.id, error: { code: 'unknown-channel', message: 'Unknown catalog request.' } });
              return;
            }
            const args = [...request.params.args];
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
            const { label, sampling, elicitation } = request.params ?? ({} as never);
            let registered: { id: string; dispose(): void } | undefined;
            registered = services.gateway.registerPeer?.({
              label: inertText(String(label).slice(0, 200)),
              sampling: sampling === true,
              elicitation: { form: elicitation?.form === true, url: elicitation?.url === true },
              createMessage: (server, params): ReturnType<DownstreamPeer['createMessage']> => ask('peer.createMessage', { peer: registered!.id, server, params }) as never,
              elicit: (server, params): ReturnType<DownstreamPeer['elicit']> => ask('peer.elicit', { peer: registered!.id, server, params }) as never,
            });
            if (registered) sessions.set(registered.id, registered.dispose);
            write(socket, { id: request.id, result: registered ? { peer: registered.id } : {} });
            return;
          }
          case 'peer.unregister':
            // Only this connection's own sessions.
            sessions.get(request.params?.peer)?.();
            sessions.delete(request.params?.peer);
            write(socket, { id: request.id, result: { ok: true } });
            return;
          case 'peer.reply': {
            const waiter = asks.get(request.params?.ask);
            asks.delete(request.params?.ask);
            if (waiter) {
              if (request.params.error) waiter.reject(new McpError(request.params.error.code, request.params.error.message));
              else waiter.resolve(request.params.result);
            }
            write(socket, { id: request.id, result: { ok: true } });
            return;
          }
          default:
            write(socket, { id: request.id, error: { code: 'unknown-channel', message: 'Unknown request.' } });
        }
      } catch (error) {
        const mcp = error as { mcpCode?: unknown; serverMessage?: unknown };
        write(socket, {
          id: request.id,
          error: {
            code: error instanceof AirlockError ? error.code : 'internal',
            message: messageOf(error),
            ...(typeof mcp.mcpCode === 'number' && typeof mcp.serverMessage === 'string' ? { mcpCode: mcp.mcpCode, serverMessage: mcp.serverMessage } : {}),
          },
        });
      }
    });
  }
}

/** A client of the owner: the same contract, run in the owner's process. */
export class OwnerClient {
  /** Said by the owner when this client connected: its own window (the Airlock app) can ask a person too. */
  ownerWindowCanAsk = false;
  /** This process's gateway sessions registered with the owner, by the owner's peer id. */
  private readonly sessions = new Map<string, Omit<DownstreamPeer, 'id'>>();
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; onProgress?: (p: { progress: number; total?: number; message?: string }) => void }>();
  private readonly listeners = new Set<(event: string, payload: unknown) => void>();
  private closedError: Error | undefined;
  private readonly closeListeners = new Set<() => void>();
  private challenge: ((nonce: string) => void) | undefined;

  private constructor(private readonly socket: Socket) {
    readLines(socket, () => MAX_LINE, (message) => this.receive(message as Reply));
    socket.on('close', () => {
      this.closedError = new AirlockError('unavailable', 'The Airlock process that runs the servers went away; the outcome of any open call is unknown.');
      for (const waiter of this.waiting.values()) waiter.reject(this.closedError);
      this.waiting.clear();
      for (const listener of this.closeListeners) listener();
    });
    socket.on('error', () => socket.destroy());
  }

  /** Connects to the data folder's owner, or returns undefined when none is running. */
  static async connect(dataDir: string, hello: PeerHello): Promise<OwnerClient | undefined> {
    const { socketPath, lockPath, keyPath } = ownerEndpoint(dataDir);
    if (!existsSync(lockPath)) return undefined;
    const socket = await new Promise<Socket | undefined>((resolve) => {
      const attempt = createConnection(socketPath);
      attempt.once('connect', () => resolve(attempt));
      attempt.once('error', () => resolve(undefined));
    });
    if (!socket) return undefined;
    const client = new OwnerClient(socket);
    const nonce = await client.waitForChallenge();
    if (nonce === undefined) {
      client.close();
      return undefined;
    }
    let key: Buffer;
    try {
      key = readKey(keyPath);
    } catch (error) {
      client.close();
      throw new AirlockError('unavailable', `Airlock could not read ${keyPath}, which proves this process may use the servers another Airlock process runs: ${(error as Error).message}`);
    }
    const mine = randomBytes(32).toString('base64url');
    const answer = (await client.request('hello', { ...hello, nonce: mine, proof: prove(key, `client:${nonce}`) })) as { proof?: unknown; windowCanAsk?: unknown };
    // SECURITY: the owner proves the same, so a process that merely sits on the socket path cannot pose as Airlock.
    if (!proofMatches(key, `owner:${mine}`, answer?.proof)) {
      client.close();
      throw new AirlockError('unavailable', `The process serving ${socketPath} could not prove it is the Airlock that owns ${dataDir}.`);
    }
    client.ownerWindowCanAsk = answer.windowCanAsk === true;
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

  /** A gateway's call; the owner runs it as a client named `caller.name` (it never takes another kind from here). */
  async callTool(request: GatewayCallRequest): Promise<CallToolResult> {
    const id = this.nextId;
    const onAbort = () => void this.request('cancel', { target: id }).catch(() => {});
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return (await this.request(
        'tools.call',
        { server: request.server, tool: request.tool, arguments: request.arguments, ...(request.caller.kind === 'client' ? { clientName: request.caller.name } : {}), ...(request.peer ? { peer: request.peer } : {}) },
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
    this.sessions.set(id, peer);
    return {
      id,
      dispose: () => {
        this.sessions.delete(id);
        void this.request('peer.unregister', { peer: id }).catch(() => undefined);
      },
    };
  }

  /** Asks the owner to hand its servers to this process; resolves when it agreed (then it lets go and disconnects). */
  async handOver(): Promise<void> {
    await this.request('handover', { pid: process.pid });
  }

  /** Resolves once the connection to the owner has ended. */
  closed(): Promise<void> {
    if (this.closedError) return Promise.resolve();
    return new Promise((resolve) => this.closeListeners.add(resolve));
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

  private waitForChallenge(): Promise<string | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), HELLO_TIMEOUT_MS);
      const done = (nonce: string | undefined) => {
        clearTimeout(timer);
        this.challenge = undefined;
        resolve(nonce);
      };
      this.challenge = done;
      this.closeListeners.add(() => done(undefined));
    });
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
      if (message.event === CHALLENGE_EVENT) {
        const nonce = (message.payload as { nonce?: unknown } | null)?.nonce;
        this.challenge?.(typeof nonce === 'string' ? nonce : '');
        return;
      }
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
    const peer = this.sessions.get(message.params.peer);
    try {
      if (!peer) throw new McpError(ErrorCode.InvalidRequest, 'That app is no longer connected.');
      const params = message.params.params as never;
      const result = message.method === 'peer.createMessage' ? await peer.createMessage(message.params.server, params, {}) : await peer.elicit(message.params.server, params, {});
      await this.request('peer.reply', { ask: message.ask, result });
    } catch (error) {
      const code = error instanceof McpError ? error.code : ErrorCode.InternalError;
      await this.request('peer.reply', { ask: message.ask, error: { code, message: messageOf(error) } }).catch(() => undefined);
    }
  }
}

/** A hello as the owner accepts it: known fields, bounded, the label made inert. */
function readHello(params: unknown): (PeerHello & { proof: string; nonce: string }) | undefined {
  if (!isPlainObject(params)) return undefined;
  const { role, terminal, label, proof, nonce } = params;
  if (role !== 'cli' && role !== 'gateway' && role !== 'app') return undefined;
  if (typeof proof !== 'string' || typeof nonce !== 'string' || nonce.length < 16 || nonce.length > 200) return undefined;
  const text = typeof label === 'string' ? inertText(label.slice(0, 100)) : '';
  return { role, terminal: terminal === true, label: text, proof, nonce };
}

function prove(key: Buffer, message: string): string {
  return createHmac('sha256', key).update(message).digest('base64url');
}

function proofMatches(key: Buffer, message: string, proof: unknown): boolean {
  if (typeof proof !== 'string') return false;
  const expected = Buffer.from(prove(key, message));
  const given = Buffer.from(proof);
  // SECURITY: constant time, so timing tells nothing about the key.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A fresh key for this ownership, written atomically, readable by the user only. */
function writeKey(keyPath: string): Buffer {
  const key = randomBytes(32);
  const temporary = `${keyPath}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  writeFileSync(temporary, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  renameSync(temporary, keyPath);
  return key;
}

function readKey(keyPath: string): Buffer {
  const text = readFileSync(keyPath, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(text)) throw new Error('the key file is not what Airlock writes');
  return Buffer.from(text, 'hex');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

/** How a lock handed to another process is marked (`<pid> handed`), so only that process takes it. */
const HANDED = 'handed';
/** How long a handed lock waits for the process it was handed to. */
const HANDOVER_LAPSE_MS = 30_000;

/** The owner lock, held by this process. */
interface LockHandle {
  release(): void;
  /** Writes another process's pid into the lock: it takes over the folder without a race with anyone else. */
  handTo(pid: number): void;
}

/**
 * Takes the owner lock (O_EXCL), taking over one left by a dead process or
 * handed to this one. Returns the handle, or undefined when another live
 * process holds it.
 */
function takeLock(lockPath: string): LockHandle | undefined {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return lockHandle(lockPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const [pidText, mark] = readFileSync(lockPath, 'utf8').split(' ');
      const holder = Number(pidText);
      // Handed to this process by the previous owner (see `OwnerSocket.close(handTo)`): now it is ours.
      if (holder === process.pid && mark === HANDED) {
        writeFileSync(lockPath, String(process.pid), { mode: 0o600 });
        return lockHandle(lockPath);
      }
      // A hand-over the named process never took up (it died, or the pid was not an Airlock's) lapses.
      const lapsed = mark === HANDED && ageMs(lockPath) > HANDOVER_LAPSE_MS;
      if (!lapsed && Number.isInteger(holder) && holder > 0 && isAlive(holder)) return undefined;
      rmSync(lockPath, { force: true });
    }
  }
  return undefined;
}

function lockHandle(lockPath: string): LockHandle {
  let released = false;
  const mine = () => {
    try {
      return readFileSync(lockPath, 'utf8') === String(process.pid);
    } catch {
      return false;
    }
  };
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    if (mine()) rmSync(lockPath, { force: true });
  };
  process.once('exit', release);
  return {
    release,
    handTo(pid) {
      if (released) return;
      released = true;
      process.off('exit', release);
      if (!mine()) return;
      const temporary = `${lockPath}.${process.pid}.handover`;
      writeFileSync(temporary, `${pid} ${HANDED}`, { mode: 0o600 });
      renameSync(temporary, lockPath);
    },
  };
}

/** How long ago a file was last written; infinite when it is gone. */
function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
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

function readLines(socket: Socket, limit: () => number, onMessage: (message: unknown) => void | Promise<void>): void {
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
