/**
 * The core as every shell uses it, whichever process owns the data folder:
 * the owner runs an AirlockHost and serves the others; a client forwards
 * the same contract to the owner. If the owner goes away, the next request
 * makes this process the owner (see local-socket.ts).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { channelNames, type ChannelName, type EmitEvent, type IpcHandlers, type RequestOf, type ResponseOf } from '../../../shared/ipc';
import { AirlockError } from '../errors';
import type { GatewayCallRequest, GatewayCore, GatewayTool } from '../gateway/gateway-core';
import type { AirlockHost } from '../host';
import { OwnerClient, OwnerSocket } from './local-socket';

export interface SharedHostOptions {
  dataDir: string;
  /** Who this process is, for the owner's log ("Airlock app", "airlock gateway"). */
  label: string;
  /** True when this process can ask a person (a window, a terminal). */
  canAsk: () => boolean;
  /** Builds this process's host when it becomes the owner. */
  createHost: (hooks: { emit: EmitEvent; canAsk: () => boolean }) => AirlockHost;
  /** Events for this process's own shell (the window). */
  onEvent?: EmitEvent;
  /** Called after this process became the owner (e.g. to start enabled servers). */
  onOwner?: (host: AirlockHost) => Promise<void> | void;
}

export class SharedHost {
  private host: AirlockHost | undefined;
  private owner: OwnerSocket | undefined;
  private client: OwnerClient | undefined;
  private readonly toolListeners = new Set<() => void>();
  private opening: Promise<void> | undefined;

  private constructor(private readonly options: SharedHostOptions) {}

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
   * True when this process owns the data folder and another connected shell
   * (the Airlock app's window) can ask a person: the terminal can then leave
   * the question to it.
   */
  otherShellsCanAsk(): boolean {
    return this.owner?.hasAskers() ?? false;
  }

  /** This process's host when it is the owner. */
  get localHost(): AirlockHost | undefined {
    return this.host;
  }

  /** Calls a channel wherever the servers run. Throws AirlockError with the core's message. */
  async invoke<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>> {
    await this.ensure();
    if (this.host) {
      const handler = this.host.ipcHandlers()[channel] as (request: RequestOf<C>) => Promise<ResponseOf<C>> | ResponseOf<C>;
      return handler(request);
    }
    return this.client!.invoke(channel, request);
  }

  /** One handler per channel that forwards to wherever the servers run (for the Electron wiring). */
  handlers(): IpcHandlers {
    return Object.fromEntries(channelNames.map((channel) => [channel, (request: never) => this.invoke(channel, request)])) as unknown as IpcHandlers;
  }

  /** The core as the gateway sees it. */
  gatewayCore(): GatewayCore {
    return {
      listTools: (servers) => this.listTools(servers),
      callTool: (request) => this.callTool(request),
      onDidChangeTools: (listener) => {
        this.toolListeners.add(listener);
        return { dispose: () => this.toolListeners.delete(listener) };
      },
    };
  }

  async listTools(servers?: readonly string[]): Promise<GatewayTool[]> {
    await this.ensure();
    return this.host ? this.host.gatewayCore().listTools(servers) : this.client!.listTools(servers);
  }

  async callTool(request: GatewayCallRequest): Promise<CallToolResult> {
    await this.ensure();
    return this.host ? this.host.gatewayCore().callTool(request) : this.client!.callTool(request);
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
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const client = await OwnerClient.connect(this.options.dataDir, { canAsk: this.options.canAsk(), label: this.options.label });
      if (client) {
        this.client = client;
        client.onEvent((event, payload) => {
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
        return { handlers: host.ipcHandlers(), gateway: host.gatewayCore(), callTool: (request) => host.gatewayCore().callTool(request) };
      });
      if (owner) {
        this.owner = owner;
        const emit: EmitEvent = (event, payload) => {
          this.options.onEvent?.(event, payload);
          owner.broadcast(event, payload);
        };
        this.host = this.options.createHost({ emit, canAsk: () => this.options.canAsk() || owner.hasAskers() });
        this.host.gatewayCore().onDidChangeTools(() => {
          owner.broadcastToolsChanged();
          this.toolListeners.forEach((listener) => listener());
        });
        await this.options.onOwner?.(this.host);
        return;
      }
      // Another process holds the lock but is not serving yet (starting up): wait and try again.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new AirlockError('unavailable', `Another Airlock process holds ${this.options.dataDir} but does not answer. If no Airlock is running, delete owner.lock in that folder.`);
  }
}
