/**
 * One client of a data folder's owner, after its handshake (local-socket.ts):
 * its requests run in the owner — the contract as its shell, its gateway's
 * calls and catalog requests, its gateway sessions that can answer servers'
 * questions — and everything it starts is scoped to this connection and
 * ended with it.
 *
 * SECURITY: nothing a client says makes it more than a terminal shell.
 * - A gateway's call runs as a `client`, its name made inert; its origin is
 *   this connection, so its confirmations come back here and nowhere else.
 * - Subscribers, sessions, cancels and answers name only this connection's
 *   own: a client cannot release, cancel or answer another's.
 */
import type { Socket } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { EventName, IpcHandlers, PayloadOf } from '../../../shared/ipc';
import { AirlockError, messageOf } from '../errors';
import { loadMcpTypes } from '../mcp-types';
import type { GatewayCallRequest, GatewayCore } from '../gateway/gateway-core';
import { clientLabel } from '../gateway/client-label';
import type { DownstreamPeer } from '../server-requests/downstream-peers';
import { inertText } from '../servers/log-ring';
import { dispatchIpc } from './dispatch';
import { BOUNDED_OPS, CATALOG_OPS, SUBSCRIBER_OPS, isPlainObject, stringList, write, type Progress, type Request } from './owner-wire';
import type { ShellIdentity } from './shell-identity';

/** What the owner exposes: the contract per shell, the gateway's view of the core, and the hand-over. */
export interface OwnerServices {
  /** The IPC handlers for one shell (its caller kind, the confirmations it may see and answer). */
  handlers(shell: ShellIdentity): IpcHandlers;
  gateway: GatewayCore;
  /** Runs a call with the given caller (the gateway of a client process). */
  callTool(request: GatewayCallRequest): Promise<CallToolResult>;
  /** What `shell` is sent of an event (see shell-events.ts): its own questions only; undefined sends nothing. */
  eventFor<E extends EventName>(shell: ShellIdentity, event: E, payload: PayloadOf<E>): PayloadOf<E> | undefined;
  /** Hands the servers to the process `pid` (the Airlock app); resolves once this process let go. */
  handOver?(pid: number): Promise<void>;
  /** True when the owner's own window can ask a person now (told to clients, so a terminal can leave a question to it). */
  windowCanAsk?(): boolean;
}

export class PeerConnection {
  /** Its requests that can be cancelled (calls, bounded catalog requests), by request id. */
  readonly #running = new Map<number, AbortController>();
  /** This client's gateway sessions, as peers of the owner's core. */
  readonly #sessions = new Map<string, () => void>();
  /** What the owner asked those sessions, by ask id. */
  readonly #asks = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly #subscribers = new Set<string>();
  #nextAsk = 1;

  constructor(
    private readonly socket: Socket,
    readonly shell: ShellIdentity,
    private readonly services: OwnerServices,
    private readonly socketId: number,
  ) {}

  /** The connection ended: its calls are aborted, its sessions dropped, its asks failed, its subscriptions released. */
  closed(): void {
    for (const controller of this.#running.values()) controller.abort();
    for (const dispose of this.#sessions.values()) dispose();
    for (const waiter of this.#asks.values()) waiter.reject(new Error('the app that was asked went away'));
    // The client is gone: a subscription that cannot be released now is dropped with its server's session anyway.
    for (const subscriber of this.#subscribers) void this.services.gateway.catalog?.release(subscriber).catch(() => undefined);
  }

  /** Runs one request and writes its reply (an error reply when it fails). */
  async handle(request: Request): Promise<void> {
    const { socket, services, shell } = this;
    try {
      switch (request.method) {
        case 'ipc':
          write(socket, { id: request.id, result: await dispatchIpc(services.handlers(shell), request.params?.channel, request.params?.request) });
          return;
        case 'tools.list':
          write(socket, { id: request.id, result: await services.gateway.listTools(stringList(request.params?.servers)) });
          return;
        case 'tools.call':
          return await this.#callTool(request);
        case 'cancel':
          this.#running.get(request.params?.target)?.abort();
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
        case 'catalog':
          return await this.#catalog(request);
        case 'peer.register':
          return this.#registerPeer(request);
        case 'peer.unregister':
          // Only this connection's own sessions.
          this.#sessions.get(request.params?.peer)?.();
          this.#sessions.delete(request.params?.peer);
          write(socket, { id: request.id, result: { ok: true } });
          return;
        case 'peer.reply': {
          const waiter = this.#asks.get(request.params?.ask);
          this.#asks.delete(request.params?.ask);
          if (waiter) {
            const { McpError } = await loadMcpTypes();
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
  }

  async #callTool(request: Extract<Request, { method: 'tools.call' }>): Promise<void> {
    const socket = this.socket;
    const params = request.params ?? ({} as never);
    if (typeof params.server !== 'string' || typeof params.tool !== 'string' || !isPlainObject(params.arguments)) {
      write(socket, { id: request.id, error: { code: 'invalid-request', message: 'tools.call needs server, tool and arguments.' } });
      return;
    }
    const controller = new AbortController();
    this.#running.set(request.id, controller);
    try {
      const result = await this.services.callTool({
        server: params.server,
        tool: params.tool,
        arguments: params.arguments,
        // SECURITY: a gateway's caller is always a client, its name data (made inert); the
        // origin is this connection, so its confirmations come back here and nowhere else.
        caller: { kind: 'client', name: clientLabel(typeof params.clientName === 'string' ? params.clientName : undefined, undefined) },
        origin: this.shell.origin,
        ...(typeof params.peer === 'string' && this.#sessions.has(params.peer) ? { peer: params.peer } : {}),
        signal: controller.signal,
        onProgress: (progress) => write(socket, { id: request.id, progress }),
      });
      write(socket, { id: request.id, result });
    } finally {
      this.#running.delete(request.id);
    }
  }

  async #catalog(request: Extract<Request, { method: 'catalog' }>): Promise<void> {
    const socket = this.socket;
    const catalog = this.services.gateway.catalog;
    const op = request.params?.op;
    if (!catalog || !(CATALOG_OPS as readonly string[]).includes(op) || !Array.isArray(request.params.args)) {
      write(socket, { id: request.id, error: { code: 'unknown-channel', message: 'Unknown catalog request.' } });
      return;
    }
    const args = [...request.params.args];
    if (SUBSCRIBER_OPS.has(op)) {
      args[args.length - 1] = this.#scope(args[args.length - 1]);
      this.#subscribers.add(args[args.length - 1] as string);
    }
    const controller = new AbortController();
    if (BOUNDED_OPS.has(op)) {
      this.#running.set(request.id, controller);
      args[args.length - 1] = { signal: controller.signal, onProgress: (progress: Progress) => write(socket, { id: request.id, progress }) };
    }
    try {
      const result = await (catalog[op] as (...a: unknown[]) => Promise<unknown>)(...args);
      write(socket, { id: request.id, result: result ?? null });
    } finally {
      this.#running.delete(request.id);
    }
  }

  #registerPeer(request: Extract<Request, { method: 'peer.register' }>): void {
    const { label, sampling, elicitation } = request.params ?? ({} as never);
    const registered: { id: string; dispose(): void } | undefined = this.services.gateway.registerPeer?.({
      label: inertText(String(label).slice(0, 200)),
      sampling: sampling === true,
      elicitation: { form: elicitation?.form === true, url: elicitation?.url === true },
      createMessage: (server, params): ReturnType<DownstreamPeer['createMessage']> => this.#ask('peer.createMessage', { peer: registered!.id, server, params }) as never,
      elicit: (server, params): ReturnType<DownstreamPeer['elicit']> => this.#ask('peer.elicit', { peer: registered!.id, server, params }) as never,
    });
    if (registered) this.#sessions.set(registered.id, registered.dispose);
    write(this.socket, { id: request.id, result: registered ? { peer: registered.id } : {} });
  }

  // SECURITY: a client names only its own subscribers; on the owner they are scoped to its socket.
  #scope(subscriber: unknown): string {
    return `socket:${this.socketId}:${String(subscriber)}`;
  }

  // The owner asks one of this client's gateway sessions to sample or elicit; its `peer.reply` answers.
  #ask(method: 'peer.createMessage' | 'peer.elicit', params: { peer: string; server: string; params: unknown }): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      const id = this.#nextAsk++;
      this.#asks.set(id, { resolve, reject });
      write(this.socket, { ask: id, method, params });
    });
  }
}
