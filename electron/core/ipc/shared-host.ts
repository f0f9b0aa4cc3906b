/**
 * The core as every shell uses it, whichever process owns the data folder:
 * the owner runs an AirlockHost and serves the others; a client forwards
 * the same contract to the owner. If the owner goes away, the next request
 * makes this process the owner (see local-socket.ts).
 *
 * SECURITY: invariant 1 — this process's shell is the window only in the
 * app, and only while the app owns the folder; so the app takes the servers
 * over from a gateway that owns them, and every other process is a terminal
 * shell, asked (and answering) only about its own calls.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChannelName, EmitEvent, IpcHandlers, RequestOf, ResponseOf } from '../../../shared/ipc';
import { AirlockError } from '../errors';
import type { CatalogChange } from '../catalog/catalog';
import type { GatewayCallRequest, GatewayCatalog, GatewayCore, GatewayTool } from '../gateway/gateway-core';
import type { DownstreamPeer } from '../server-requests/downstream-peers';
import type { AirlockHost } from '../host';
import { WINDOW_SHELL, type ShellIdentity } from './shell-identity';
import { OwnerClient, OwnerSocket, type PeerHello } from './local-socket';
import { eventForShell } from './shell-events';
import { answererOf } from '../server-requests/server-requests-room';
import { loadSandboxLibrary } from '../sandbox';

export interface SharedHostOptions {
  dataDir: string;
  /**
   * What this process is: Airlock's app (its window is the person's own
   * shell: `user` calls, every confirmation), the `airlock` command, or a
   * gateway (terminal shells: `cli` calls, only their own confirmations).
   */
  role: PeerHello['role'];
  /** Who this process is, for the owner's log ("airlock gateway for Cursor"). */
  label: string;
  /** True when this process can ask a person now (its window is open; it owns a terminal). */
  canAsk: () => boolean;
  /** Builds this process's host when it becomes the owner. */
  createHost: (hooks: { emit: EmitEvent; canAsk: (origin?: string) => boolean; ownShell: ShellIdentity }) => AirlockHost;
  /** Events for this process's own shell (the window; a terminal's own confirmations). */
  onEvent?: EmitEvent;
  /** Called after this process became the owner (e.g. to start enabled servers). */
  onOwner?: (host: AirlockHost) => Promise<void> | void;
  /**
   * The app: when another Airlock process (a gateway started by an AI app)
   * owns the folder, ask it to hand the servers over, so that the window —
   * the person's own shell — runs in the owner and answers every
   * confirmation. Others become this process's clients.
   */
  takeOver?: boolean;
}

/** How long a hand-over lets the calls in flight finish before the servers stop. */
const HANDOVER_GRACE_MS = 30_000;

export class SharedHost {
  private host: AirlockHost | undefined;
  private owner: OwnerSocket | undefined;
  private client: OwnerClient | undefined;
  private readonly toolListeners = new Set<() => void>();
  private readonly catalogListeners = new Set<(change: CatalogChange) => void>();
  private opening: Promise<void> | undefined;
  /** While this process hands its servers to the app, requests wait, then go to the app. */
  private handingOver: Promise<void> | undefined;
  /** This process's own shell, as the owner (this one or another) treats it. */
  private readonly shell: ShellIdentity;

  private constructor(private readonly options: SharedHostOptions) {
    this.shell = options.role === 'app' ? WINDOW_SHELL : { kind: 'terminal', origin: 'local', label: options.label };
  }

  static async open(options: SharedHostOptions): Promise<SharedHost> {
    const shared = new SharedHost(options);
    await shared.connect();
    return shared;
  }

  /** 'owner' when servers run in this process, 'client' when another Airlock process runs them. */
  get mode(): 'owner' | 'client' {
    return this.host ? 'owner' : 'client';
  }

  /**
   * True when the Airlock app's window can ask a person about this process's
   * calls too (the app owns the data folder and said its window can ask): a
   * terminal may then offer to leave the question to it.
   */
  otherShellsCanAsk(): boolean {
    return this.client?.ownerWindowCanAsk ?? false;
  }

  /** This process's host when it is the owner. */
  get localHost(): AirlockHost | undefined {
    return this.host;
  }

  /** Calls a channel wherever the servers run, as this process's shell. Throws AirlockError with the core's message. */
  async invoke<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>> {
    await this.ensure();
    if (this.host) {
      const handler = this.host.ipcHandlers(this.shell)[channel] as (request: RequestOf<C>) => Promise<ResponseOf<C>> | ResponseOf<C>;
      return handler(request);
    }
    return this.client!.invoke(channel, request);
  }

  /** One handler per channel of `channelNames` (the contract's, which the caller has loaded) that forwards to wherever the servers run (for the Electron wiring). */
  handlers(channelNames: readonly ChannelName[]): IpcHandlers {
    return Object.fromEntries(channelNames.map((channel) => [channel, (request: never) => this.invoke(channel, request)])) as unknown as IpcHandlers;
  }

  /** The core as the gateway sees it: tools, the catalog, and relays of what servers ask back. */
  gatewayCore(): GatewayCore {
    return {
      listTools: (servers) => this.listTools(servers),
      callTool: (request) => this.callTool(request),
      onDidChangeTools: (listener) => {
        this.toolListeners.add(listener);
        return { dispose: () => this.toolListeners.delete(listener) };
      },
      catalog: this.catalog(),
      registerPeer: (peer) => this.registerPeer(peer),
    };
  }

  /** The catalog wherever the servers run (the owner's, over the socket in a client). */
  private catalog(): GatewayCatalog {
    const run = async <T>(use: (catalog: Omit<GatewayCatalog, 'onDidChange'>) => Promise<T>): Promise<T> => {
      await this.ensure();
      const catalog = this.host ? this.host.gateway.core().catalog! : this.client!.catalog();
      return use(catalog);
    };
    return {
      describe: (server) => run((c) => c.describe(server)),
      servers: (filter) => run((c) => c.servers(filter)),
      resources: (servers) => run((c) => c.resources(servers)),
      resourceTemplates: (servers) => run((c) => c.resourceTemplates(servers)),
      prompts: (servers) => run((c) => c.prompts(servers)),
      readResource: (server, uri, bounds) => run((c) => c.readResource(server, uri, bounds)),
      getPrompt: (server, name, args, bounds) => run((c) => c.getPrompt(server, name, args, bounds)),
      complete: (server, params, bounds) => run((c) => c.complete(server, params, bounds)),
      subscribe: (server, uri, subscriber) => run((c) => c.subscribe(server, uri, subscriber)),
      unsubscribe: (server, uri, subscriber) => run((c) => c.unsubscribe(server, uri, subscriber)),
      setLogLevel: (server, level, subscriber) => run((c) => c.setLogLevel(server, level, subscriber)),
      release: (subscriber) => run((c) => c.release(subscriber)),
      onDidChange: (listener) => {
        this.catalogListeners.add(listener);
        return { dispose: () => this.catalogListeners.delete(listener) };
      },
    };
  }

  /**
   * Registers a gateway session of this process as an app that can answer
   * servers' requests. Synchronous for the gateway; in a client process the
   * registration with the owner completes in the background (a request
   * during that moment goes to Airlock's own model or the person instead).
   */
  private registerPeer(peer: Omit<DownstreamPeer, 'id'>): { id: string; dispose(): void } {
    if (this.host) return this.host.gateway.core().registerPeer!(peer);
    const handle = { id: '', dispose: () => (disposed = true) };
    let disposed = false;
    const client = this.client;
    void client
      ?.registerPeer(peer)
      .then((registered) => {
        if (!registered) return;
        if (disposed) registered.dispose();
        else Object.assign(handle, { id: registered.id, dispose: registered.dispose });
      })
      .catch(() => undefined); // An app not registered is not asked: the request goes to Airlock's own model or the person.
    return handle;
  }

  async listTools(servers?: readonly string[]): Promise<GatewayTool[]> {
    await this.ensure();
    return this.host ? this.host.gateway.core().listTools(servers) : this.client!.listTools(servers);
  }

  /** A gateway's call. Its confirmation is routed to this process's terminal (and the window). */
  async callTool(request: GatewayCallRequest): Promise<CallToolResult> {
    await this.ensure();
    if (this.host) {
      const { origin: _claimed, ...rest } = request;
      return this.host.gateway.core().callTool(this.shell.kind === 'terminal' ? { ...rest, origin: this.shell.origin } : rest);
    }
    return this.client!.callTool(request);
  }

  async close(): Promise<void> {
    this.client?.close();
    this.client = undefined;
    if (this.host) await this.host.dispose();
    await this.owner?.close();
    this.host = undefined;
    this.owner = undefined;
  }

  private async ensure(): Promise<void> {
    while (this.handingOver) await this.handingOver;
    if (this.host || this.client) return;
    await this.connect();
  }

  private connect(): Promise<void> {
    this.opening ??= this.connectOnce().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async connectOnce(): Promise<void> {
    // What this platform's sandbox needs loaded before a host checks it (Windows' library): before the
    // folder is claimed, so nothing waits between claiming it and building the host.
    await loadSandboxLibrary();
    let askedToHandOver = false;
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const client = await OwnerClient.connect(this.options.dataDir, { role: this.options.role, terminal: this.options.canAsk(), label: this.options.label });
      if (client && this.options.takeOver && !askedToHandOver) {
        // The app asks once; an owner that refuses keeps the servers, and the app is its client.
        askedToHandOver = true;
        const agreed = await client.handOver().then(
          () => true,
          () => false,
        );
        if (agreed) {
          await client.closed();
          continue;
        }
      }
      if (client) {
        this.client = client;
        client.onEvent((event, payload) => {
          if (event === 'catalog.change') {
            this.catalogListeners.forEach((listener) => listener(payload as CatalogChange));
            return;
          }
          if (event === 'tools.didChange' || event === 'servers.didChange') this.toolListeners.forEach((listener) => listener());
          if (event !== 'tools.didChange') this.options.onEvent?.(event as never, payload as never);
        });
        client.onClose(() => {
          // The owner went away: the next request makes this process the owner.
          this.client = undefined;
          this.toolListeners.forEach((listener) => listener());
        });
        return;
      }
      const owner = await OwnerSocket.claim(this.options.dataDir, () => {
        const host = this.host!;
        return {
          handlers: (shell) => host.ipcHandlers(shell),
          gateway: host.gateway.core(),
          callTool: (request) => host.gateway.core().callTool(request),
          eventFor: (shell, event, payload) =>
            eventForShell(shell, event, payload, { confirmations: (to) => host.approvals.pending(to), serverQuestions: (to) => host.serverRequests.pending(answererOf(to)) }),
          // The app never hands over: its window is the person's own shell.
          ...(this.options.role === 'app' ? {} : { handOver: (pid: number) => this.handOver(pid) }),
          windowCanAsk: () => this.options.role === 'app' && this.options.canAsk(),
        };
      });
      if (owner) {
        this.owner = owner;
        const emit: EmitEvent = (event, payload) => {
          // This process's own shell sees what it may: a terminal only its own calls' confirmations.
          const local = event === 'approvals.didChange' ? (this.host?.approvals.pending(this.shell) ?? []) : payload;
          this.options.onEvent?.(event, local as never);
          owner.broadcast(event, payload);
        };
        this.host = this.options.createHost({ emit, canAsk: (origin) => this.canAsk(owner, origin), ownShell: this.shell });
        this.host.gateway.core().onDidChangeTools(() => {
          owner.broadcastToolsChanged();
          this.toolListeners.forEach((listener) => listener());
        });
        this.host.gateway.core().catalog!.onDidChange((change) => {
          owner.broadcastCatalogChange(change);
          this.catalogListeners.forEach((listener) => listener(change));
        });
        await this.options.onOwner?.(this.host);
        return;
      }
      // Another process holds the lock but is not serving yet (starting up, or handing over): wait and try again.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new AirlockError('unavailable', `Another Airlock process holds ${this.options.dataDir} but does not answer. If no Airlock is running, delete owner.lock in that folder.`);
  }

  /**
   * Whether a person can be asked about a call that came through `origin`:
   * the window about any; a terminal (this process's or a client's) about
   * its own calls only. `origin` undefined: this process's own shell.
   */
  private canAsk(owner: OwnerSocket, origin: string | undefined): boolean {
    if (this.shell.kind === 'window' && this.options.canAsk()) return true;
    if (origin === undefined || origin === this.shell.origin) return this.options.canAsk();
    return owner.peerCanAsk(origin);
  }

  /**
   * Hands the servers to the Airlock app (`pid`): open confirmations are
   * cancelled (their calls were not sent), calls in flight may finish, the
   * servers stop, and the lock passes to the app, which no other process
   * can take in between. This process becomes the app's client at its next
   * request.
   */
  private handOver(pid: number): Promise<void> {
    const host = this.host;
    const owner = this.owner;
    if (!host || !owner || this.handingOver) return this.handingOver ?? Promise.resolve();
    this.handingOver = (async () => {
      host.confirmations.cancelAll('the Airlock app took over the servers; ask again');
      await host.calls.whenIdle(HANDOVER_GRACE_MS);
      await host.dispose();
      await owner.close(pid);
      this.host = undefined;
      this.owner = undefined;
    })().finally(() => {
      this.handingOver = undefined;
      this.toolListeners.forEach((listener) => listener());
    });
    return this.handingOver;
  }
}
