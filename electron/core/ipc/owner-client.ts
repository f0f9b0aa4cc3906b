/**
 * A client of a data folder's owner (see local-socket.ts): the same contract,
 * the same gateway calls and catalog, run in the owner's process after the
 * handshake (each side proves it can read the owner's key). Its gateway
 * sessions answer the servers' questions the owner relays to them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChannelName, IpcResult, RequestOf, ResponseOf } from '../../../shared/ipc';
import { AirlockError, messageOf } from '../errors';
import { loadMcpTypes } from '../mcp-types';
import type { GatewayCallRequest, GatewayCatalog, GatewayTool } from '../gateway/gateway-core';
import type { DownstreamPeer } from '../server-requests/downstream-peers';
import { proofMatches, prove, readKey } from './owner-handshake';
import { ownerEndpoint } from './owner-lock';
import { CHALLENGE_EVENT, HELLO_TIMEOUT_MS, MAX_LINE, readLines, write, type CatalogOp, type PeerHello, type Progress, type Reply, type Request } from './owner-wire';

/** A client of the owner: the same contract, run in the owner's process. */
export class OwnerClient {
  /** Said by the owner when this client connected: its own window (the Airlock app) can ask a person too. */
  ownerWindowCanAsk = false;
  /** This process's gateway sessions registered with the owner, by the owner's peer id. */
  private readonly sessions = new Map<string, Omit<DownstreamPeer, 'id'>>();
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; onProgress?: (p: Progress) => void }>();
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
    // A cancel that fails means the owner is gone: the call itself is rejected with that, which is what the caller sees.
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
    const call = (op: CatalogOp, args: unknown[], bounds?: { signal?: AbortSignal; onProgress?: (p: Progress) => void }) => {
      const id = this.nextId;
      // A cancel that fails means the owner is gone: the request itself is rejected with that.
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
        // The owner gone: it dropped this connection's sessions with it; nothing is left to unregister.
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

  private request(method: Request['method'], params: unknown, onProgress?: (p: Progress) => void): Promise<unknown> {
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
    const { ErrorCode, McpError } = await loadMcpTypes();
    try {
      if (!peer) throw new McpError(ErrorCode.InvalidRequest, 'That app is no longer connected.');
      const params = message.params.params as never;
      const result = message.method === 'peer.createMessage' ? await peer.createMessage(message.params.server, params, {}) : await peer.elicit(message.params.server, params, {});
      await this.request('peer.reply', { ask: message.ask, result });
    } catch (error) {
      const code = error instanceof McpError ? error.code : ErrorCode.InternalError;
      // The owner gone: its ask was rejected on its side when this connection closed (see \`accept\`).
      await this.request('peer.reply', { ask: message.ask, error: { code, message: messageOf(error) } }).catch(() => undefined);
    }
  }
}
