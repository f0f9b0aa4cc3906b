/**
 * The gateway room: the core as other apps reach it, for the host to
 * compose — the facade every gateway session calls (made once), the app's
 * own streamable HTTP gateway, and connecting apps (Claude Desktop, VS Code,
 * Cursor) to the stdio gateway.
 */
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { APP_LABELS, type ServerRecord, type ToolDefinition } from '../../../shared/domain';
import type { IpcHandlers } from '../../../shared/ipc';
import type { GatewayStatus } from '../../../shared/views';
import type { CallRequest, CallResult } from '../calls/call-pipeline';
import { connectApp, ConnectError, previewConnect, undoConnect, type ConnectApp } from '../connect';
import { AirlockError, messageOf } from '../errors';
import { usableAnnotations } from '../claims/claim-state';
import type { ServerRequestsRoom } from '../server-requests/server-requests-room';
import type { Supervisor } from '../servers/supervisor';
import type { GatewayCore } from './gateway-core';
import { GATEWAY_TOKEN_FILE, loadOrCreateGatewayToken } from './gateway-token';
import type { HttpGateway } from './http-gateway';
import type { ShellIdentity } from '../ipc/shell-identity';

export interface GatewayRoomDeps {
  dataDir: string;
  /** The home folder whose apps' configs `connect` edits (default: the user's). */
  homeDir?: string;
  /** How another app starts the stdio gateway (default: `airlock gateway --stdio` from PATH). */
  gatewayCommand?: { command: string; args: string[] };
  log(message: string): void;
  records(): ServerRecord[];
  supervisor: Pick<Supervisor, 'tools' | 'onDidChangeTools' | 'onDidChangeState'>;
  serverRequests: Pick<ServerRequestsRoom, 'peers' | 'registerPeer'>;
  catalog: GatewayCore['catalog'];
  /** The choke point. */
  callTool(request: CallRequest): Promise<CallResult>;
  /** Refuses the HTTP gateway when the organisation's policy forbids it (`allowHttpGateway: false`), naming the key. */
  refuseHttp?(): void;
  /** Told when a tool's claims are withdrawn or reviewed: what other apps are told of its annotations changes. */
  onDidChangeClaims?(listener: () => void): { dispose(): void };
}

/** The apps `connect` knows, as people call them. */
const CONNECT_APPS: Array<{ app: ConnectApp; label: string }> = (['claude', 'vscode', 'cursor'] as const).map((app) => ({ app, label: APP_LABELS[app] }));

export class GatewayRoom {
  #core: GatewayCore | undefined;
  #http: HttpGateway | undefined;

  constructor(private readonly deps: GatewayRoomDeps) {}

  /** The core as the gateway sees it: enabled servers' tools, and the choke point (one object, made once: gateways ask for it per call). */
  core(): GatewayCore {
    return (this.#core ??= this.#makeCore());
  }

  /** The gateway's state and, for each app Airlock can connect, whether it is connected. */
  async status(): Promise<GatewayStatus> {
    const imported = this.deps.records().filter((record) => record.importedFrom);
    const apps = await Promise.all(
      CONNECT_APPS.map(async ({ app, label }) => {
        try {
          const preview = await previewConnect(app, { ...this.#environment(), ...this.#entryFor(label) });
          const others = preview.otherServers.map((server) => server.name);
          return {
            app,
            label,
            configPath: preview.path,
            exists: preview.exists,
            connected: preview.connected,
            otherServers: others,
            importedIntoAirlock: others.filter((name) => imported.some((record) => record.importedFrom!.path === preview.path && record.importedFrom!.entry === name)),
          };
        } catch (error) {
          return { app, label, configPath: error instanceof ConnectError ? error.path : '', exists: false, connected: false, otherServers: [], importedIntoAirlock: [], problem: messageOf(error) };
        }
      }),
    );
    return {
      http: { running: this.#http !== undefined, ...(this.#http ? { url: this.#http.url } : {}), tokenFile: join(this.deps.dataDir, GATEWAY_TOKEN_FILE) },
      stdioCommand: this.#stdioCommand(),
      apps,
    };
  }

  /** Starts the streamable HTTP gateway on loopback (bearer token in the data folder). */
  async startHttp(port: number): Promise<GatewayStatus> {
    this.deps.refuseHttp?.();
    if (!this.#http) {
      const token = await loadOrCreateGatewayToken(this.deps.dataDir);
      try {
        // The MCP server side is loaded when a gateway starts, not with Airlock.
        const { startHttpGateway } = await import('./http-gateway');
        this.#http = await startHttpGateway(this.core(), { port, token, log: (message) => this.deps.log(message) });
      } catch (error) {
        throw new AirlockError('unavailable', `The HTTP gateway could not start on port ${port}: ${messageOf(error)}`);
      }
    }
    return this.status();
  }

  async stopHttp(): Promise<GatewayStatus> {
    await this.close();
    return this.status();
  }

  /**
   * Adds Airlock's gateway to an app's config (a backup is kept). With
   * `moveImported`, the app's servers that were already imported into
   * Airlock — so they went through disclosure — are taken out of its config.
   */
  async connect(app: ConnectApp, moveImported: boolean, perServer = false): Promise<{ changed: boolean; backupPath?: string; removedServers: string[]; replacedServers?: string[] }> {
    const label = CONNECT_APPS.find((candidate) => candidate.app === app)!.label;
    const status = (await this.status()).apps.find((candidate) => candidate.app === app)!;
    if (moveImported && perServer && status.importedIntoAirlock.length) {
      // Each imported entry becomes `airlock run NAME` under its own name in the app.
      const base = this.#stdioCommand();
      const prefix = base.args.slice(0, Math.max(0, base.args.length - 2));
      const records = this.deps.records();
      const entries = Object.fromEntries(
        status.importedIntoAirlock.map((entry) => {
          const record = records.find((r) => r.importedFrom?.path === status.configPath && r.importedFrom.entry === entry)!;
          return [entry, { command: base.command, args: [...prefix, 'run', record.name, '--client', label] }];
        }),
      );
      const result = await connectApp(app, { ...this.#environment(), perServerEntries: entries });
      return { changed: result.changed, ...(result.backupPath ? { backupPath: result.backupPath } : {}), removedServers: [], replacedServers: result.replacedServers ?? [] };
    }
    const result = await connectApp(app, {
      ...this.#environment(),
      ...this.#entryFor(label),
      ...(moveImported && status.importedIntoAirlock.length ? { moveServers: status.importedIntoAirlock } : {}),
    });
    return { changed: result.changed, ...(result.backupPath ? { backupPath: result.backupPath } : {}), removedServers: result.removedServers };
  }

  async undoConnect(app: ConnectApp): Promise<{ restoredFrom: string }> {
    const result = await undoConnect(app, this.#environment());
    return { restoredFrom: result.restoredFrom };
  }

  ipcHandlers(_shell: ShellIdentity): Pick<IpcHandlers, 'gateway.status' | 'gateway.startHttp' | 'gateway.stopHttp' | 'connect.apply' | 'connect.undo'> {
    return {
      'gateway.status': () => this.status(),
      'gateway.startHttp': ({ port }) => this.startHttp(port),
      'gateway.stopHttp': () => this.stopHttp(),
      'connect.apply': ({ app, moveImported, perServer }) => this.connect(app, moveImported, perServer === true),
      'connect.undo': ({ app }) => this.undoConnect(app),
    };
  }

  /** Stops the HTTP gateway, if it runs. */
  async close(): Promise<void> {
    const http = this.#http;
    this.#http = undefined;
    await http?.close();
  }

  #makeCore(): GatewayCore {
    const { supervisor, serverRequests } = this.deps;
    return {
      listTools: (servers) =>
        this.deps
          .records()
          .filter((record) => record.enabled && (!servers || servers.includes(record.name)))
          .flatMap((record) => (supervisor.tools.get(record.name)?.tools ?? []).map((tool) => ({ server: record.name, definition: withUsableClaims(record, tool.definition) }))),
      callTool: async (request): Promise<CallToolResult> => {
        // While the call runs, its session is the app the server's own requests may go to.
        const ended = serverRequests.peers.callStarted(request.peer, request.server);
        try {
          const result = await this.deps.callTool(request);
          if (result.outcome === 'ok' || (result.outcome === 'tool-error' && result.result)) return result.result!;
          throw new AirlockError(result.outcome === 'denied' ? 'forbidden-sender' : 'unavailable', result.message ?? 'The call failed.');
        } finally {
          ended();
        }
      },
      catalog: this.deps.catalog,
      registerPeer: (peer) => serverRequests.registerPeer(peer),
      onDidChangeTools: (listener) => {
        const tools = supervisor.onDidChangeTools(() => listener());
        const state = supervisor.onDidChangeState(() => listener());
        const claims = this.deps.onDidChangeClaims?.(() => listener());
        return { dispose: () => (tools.dispose(), state.dispose(), claims?.dispose()) };
      },
    };
  }

  #stdioCommand(): { command: string; args: string[] } {
    return this.deps.gatewayCommand ?? { command: 'airlock', args: ['gateway', '--stdio'] };
  }

  #entryFor(label: string): { command: string; args: string[] } {
    const base = this.#stdioCommand();
    return { command: base.command, args: [...base.args, '--client', label] };
  }

  #environment(): { home?: string } {
    return this.deps.homeDir ? { home: this.deps.homeDir } : {};
  }
}

/**
 * A tool's definition as other apps are told it: as the server wrote it —
 * except that while Airlock does not use its claims (it did what they say it
 * does not, and the person has not reviewed it; or they chose not to trust
 * them), its annotations are left out, so an app that would run a
 * "read-only" tool unasked reads it as a tool that claims nothing.
 */
function withUsableClaims(record: ServerRecord, definition: ToolDefinition): ToolDefinition {
  if (definition.annotations === undefined || usableAnnotations(record, definition.name, definition.annotations) !== undefined) return definition;
  const { annotations: _withdrawn, ...rest } = definition;
  return rest;
}
