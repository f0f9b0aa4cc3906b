import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Caller, ToolDefinition } from '../../../shared/domain';

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
}
