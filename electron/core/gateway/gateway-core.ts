import type {
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { Caller, ToolDefinition } from '../../../shared/domain';
import type { CatalogChange } from '../catalog/catalog';
import type { DownstreamPeer } from '../server-requests/downstream-peers';

/** A tool one of Airlock's servers offers, as the gateway lists it. */
export interface GatewayTool {
  server: string;
  definition: ToolDefinition;
}

/** A tool call arriving through the gateway. */
export interface GatewayCallRequest {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** The gateway client (e.g. `{ kind: 'client', name: 'Claude Desktop' }`). */
  caller: Caller;
  /** Aborted when the client cancels the request. */
  signal?: AbortSignal;
  /** Progress from the server, relayed to the client. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /**
   * The shell the call came through, set by the owner (never by a client):
   * a confirmation is routed there (if that shell has a terminal) and to
   * the window.
   */
  origin?: string;
  /**
   * The gateway session making the call, as registered with `registerPeer`:
   * while it runs, this session is the app the server's own requests
   * (sampling, elicitation) may be relayed to.
   */
  peer?: string;
}

/** Bounds for one catalog request through the gateway. */
export interface GatewayRequestBounds {
  signal?: AbortSignal;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

/** What a server declared about itself, for the transparent single-server mode. */
export interface GatewayServerDescription {
  server: string;
  capabilities: ServerCapabilities;
  serverInfo?: Implementation;
  instructions?: string;
}

/**
 * What servers offer besides tools, as the gateway relays it. Subscriptions
 * and log levels are per subscriber (a gateway session), shared upstream.
 */
export interface GatewayCatalog {
  /** Starts the server if needed and says what it declared (the transparent mode mirrors it). */
  describe(server: string): Promise<GatewayServerDescription>;
  /** The servers a session with this filter sees now (enabled ones). */
  servers(filter?: readonly string[]): Promise<string[]>;
  resources(servers: readonly string[]): Promise<Array<{ server: string; resource: Resource }>>;
  resourceTemplates(servers: readonly string[]): Promise<Array<{ server: string; template: ResourceTemplate }>>;
  prompts(servers: readonly string[]): Promise<Array<{ server: string; prompt: Prompt }>>;
  readResource(server: string, uri: string, bounds?: GatewayRequestBounds): Promise<ReadResourceResult>;
  getPrompt(server: string, name: string, args: Record<string, string> | undefined, bounds?: GatewayRequestBounds): Promise<GetPromptResult>;
  complete(server: string, params: CompleteRequest['params'], bounds?: GatewayRequestBounds): Promise<CompleteResult>;
  subscribe(server: string, uri: string, subscriber: string): Promise<void>;
  unsubscribe(server: string, uri: string, subscriber: string): Promise<void>;
  setLogLevel(server: string, level: LoggingLevel, subscriber: string): Promise<void>;
  /** The session ended: its subscriptions and log levels go. */
  release(subscriber: string): Promise<void>;
  /** Lists changed, a subscribed resource updated, a server logged. */
  onDidChange(listener: (change: CatalogChange) => void): { dispose(): void };
}

/**
 * What the gateway needs from the core: the tools of the enabled servers and
 * the one choke point every call passes (policy, confirmation, audit). The
 * host implements it; the gateway never talks to a server directly.
 */
export interface GatewayCore {
  /** Tools of every enabled, running server (optionally only the named servers). */
  listTools(servers?: readonly string[]): GatewayTool[] | Promise<GatewayTool[]>;
  /**
   * Runs a call through the policy. Resolves to the server's result; a denied
   * call or an unknown outcome rejects with an `AirlockError` whose message
   * says what happened and what to do.
   */
  callTool(request: GatewayCallRequest): Promise<CallToolResult>;
  /** Fires when servers or their tools change (the gateway sends tools/list_changed). */
  onDidChangeTools(listener: () => void): { dispose(): void };
  /** Resources, prompts, completion, logging; absent: the gateway offers tools only. */
  catalog?: GatewayCatalog;
  /**
   * Registers a gateway session as an app that can answer what servers ask
   * back (what it declared at `initialize`); absent: servers' requests are
   * never relayed.
   */
  registerPeer?(peer: Omit<DownstreamPeer, 'id'>): { id: string; dispose(): void };
}
