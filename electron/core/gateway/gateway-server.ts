import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { clientLabel } from './client-label';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Implementation,
  type ServerNotification,
  type ServerRequest,
  type ProgressToken,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Caller } from '../../../shared/domain';
import { version } from '../../../package.json';
import { AirlockError } from '../errors';
import { loadMcpTypes } from '../mcp-types';
import type { GatewayCore, GatewayServerDescription } from './gateway-core';
import { GatewaySession, mapContentUri, NAMESPACED, registerSessionPeer, relayCatalog, transparentNaming } from './gateway-session';
import { ParsedCallToolRequestSchema, refuseMalformedRequests } from './request-params';
import { buildGatewayListing, gatewayToolName, screenToolAddress, type GatewayListing } from './tool-names';
import { clientShowsScreens } from '../../../shared/screens';

/** How a gateway session presents itself and what it exposes. */
export interface GatewayServerOptions {
  /**
   * The name confirmations and the audit log use for this client ("Claude
   * Desktop wants…"), set by whoever started the gateway (a `--client` flag,
   * the Settings screen). When absent, the client's own `clientInfo` from
   * `initialize` (its title, else its name) is used. Either way it is a
   * label, not an identity: anything that can reach the gateway can pick it.
   */
  clientName?: string;
  /** Expose only these servers' tools (`--servers a,b`); all enabled servers when absent. */
  servers?: readonly string[];
  /** Where the gateway reports skipped tools and internal errors. Never stdout: over stdio that is the protocol. */
  log?: (message: string) => void;
  /**
   * Serve exactly this one server as itself — its own tool and prompt names,
   * URIs, capabilities, server info and instructions (`airlock run NAME`) —
   * still through Airlock's policy, confirmations and audit.
   */
  transparent?: GatewayServerDescription;
}

/** What Airlock calls itself towards gateway clients. */
export const GATEWAY_SERVER_INFO: Implementation = { name: 'airlock', title: 'Airlock', version };

/** The SDK's server, with requests of a malformed shape answered as Invalid params before any handler (see request-params.ts). */
class GatewayMcpServer extends Server {
  constructor(
    info: Implementation,
    options: ConstructorParameters<typeof Server>[1],
    private readonly log: (message: string) => void,
  ) {
    super(info, options);
  }

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    refuseMalformedRequests(transport, this.log);
  }
}

type ToolsCallHandler = (request: z.infer<typeof ParsedCallToolRequestSchema>, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => Promise<CallToolResult>;

/**
 * Registers the `tools/call` handler the way the base protocol registers
 * any request, with a schema that takes only params the gateway already
 * parsed against CallToolRequestSchema for this message
 * (`refuseMalformedRequests`, which every gateway session's transport goes
 * through): the request is parsed once. The SDK's `Server` would wrap the
 * handler to parse the request twice more and the result once more; a
 * result here is either the server's, already validated against
 * CallToolResultSchema where it entered Airlock (the server's connection),
 * with its resource links renamed, or one Airlock wrote. The same checks,
 * each made once: a relayed call costs less. (A request to run the call as
 * a task never gets here: the gateway declares no tasks, and the protocol
 * refuses it first.)
 */
function setToolsCallHandler(server: Server, handler: ToolsCallHandler): void {
  (Protocol.prototype.setRequestHandler as (this: Server, schema: typeof ParsedCallToolRequestSchema, handler: ToolsCallHandler) => void).call(
    server,
    ParsedCallToolRequestSchema,
    handler,
  );
}


/**
 * An MCP server (the SDK's low-level `Server`) that offers the core's tools
 * to one client: `tools/list` gives every tool as `server__tool` (see
 * `buildGatewayListing`), `tools/call` runs through `core.callTool` — the
 * same choke point as every other call — with this client as the asking
 * agent. Progress from the server reaches the client when it asked for it;
 * the client's cancellation aborts the call; a change in the core's tools
 * sends `notifications/tools/list_changed`.
 *
 * Airlock's refusals (denied, a confirmation was needed and nobody could
 * answer, outcome unknown) come back as tool results with `isError: true`
 * and a text that says what happened: MCP puts tool execution errors in the
 * result so the model sees them and does not retry blindly or invent a
 * success, while JSON-RPC errors are for protocol faults (an unknown tool,
 * malformed params) and are often hidden from the model.
 *
 * One `Server` serves one client; connect it to one transport.
 */
export function createGatewayServer(core: GatewayCore, options: GatewayServerOptions = {}): Server {
  const log = options.log ?? ((message: string) => console.error(message));
  const transparent = options.transparent;
  const servers = transparent ? [transparent.server] : options.servers && options.servers.length > 0 ? [...options.servers] : undefined;
  const catalog = core.catalog;
  const naming = transparent ? transparentNaming(transparent.server) : NAMESPACED;
  const capabilities = transparent ? mirroredCapabilities(transparent, catalog !== undefined) : gatewayCapabilities(catalog !== undefined);
  const server = new GatewayMcpServer(
    transparent ? transparentInfo(transparent) : GATEWAY_SERVER_INFO,
    {
      capabilities,
      ...(transparent
        ? transparent.instructions !== undefined
          ? { instructions: transparent.instructions }
          : {}
        : {
            instructions:
              'Tools, resources and prompts of the MCP servers Airlock runs, named server__tool, server__prompt and airlock://server/<uri>. Airlock may ask its user before a call runs; a call the user or policy refused comes back as an error result saying so.',
          }),
    },
    log,
  );
  const session = new GatewaySession();
  let peer: { id: string; dispose(): void } | undefined;
  // Whether this client shows screens (MCP Apps): it said so at `initialize`. Airlock itself always
  // tells servers it does (its window shows them), so what a client that shows none gets is narrowed here.
  const showsScreens = () => clientShowsScreens(server.getClientCapabilities());

  // Built once per change of the core's tools (not per call: validating every definition is
  // most of a call's overhead otherwise); onDidChangeTools below drops it.
  // The core may live in another Airlock process (the data folder's owner), so listing may be async.
  let cached: Promise<GatewayListing> | undefined;
  const listing = (): Promise<GatewayListing> => {
    cached ??= Promise.resolve(core.listTools(servers)).then(async (tools) => {
      await loadMcpTypes();
      const built = buildGatewayListing(tools, transparent ? (_server, tool) => ({ ok: true, name: tool }) : gatewayToolName, (name, uri) => naming.uri(name, uri), { screens: showsScreens() });
      for (const skipped of built.skipped) log(`gateway: not offering ${skipped.server} › ${skipped.tool}: ${skipped.reason}`);
      return built;
    });
    cached.catch(() => {
      cached = undefined;
    });
    return cached;
  };

  const caller = (): Caller => ({ kind: 'client', name: clientLabel(options.clientName, server.getClientVersion()) });

  if (capabilities.tools) server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await listing()).tools }));

  if (capabilities.tools) setToolsCallHandler(server, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    // SECURITY (invariant 1): only a tool the core lists now, within this session's servers,
    // can be called; anything else never reaches the core, let alone a server.
    const listed = await listing();
    let address = listed.addresses.get(name);
    if (!address && !transparent) {
      // A screen calls its server's tools by their own names; only one server it can be is ever picked.
      const screen = screenToolAddress(listed, name, session.screenServers());
      if ('ambiguous' in screen) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown tool: ${name}. The screens of ${screen.ambiguous.join(' and ')} were opened here and each offers a tool of that name; Airlock cannot tell which screen asked, so it calls none. Call it as ${screen.ambiguous.map((one) => `${one}__${name}`).join(' or ')}.`,
        );
      }
      if ('address' in screen) address = screen.address;
    }
    if (!address) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);

    const progressToken: ProgressToken | undefined = request.params._meta?.progressToken;
    let finished = false;
    let lastProgress = -Infinity;
    const onProgress =
      progressToken === undefined
        ? undefined
        : (progress: { progress: number; total?: number; message?: string }) => {
            // MCP: progress must increase; nothing may follow the response.
            if (finished || !(progress.progress > lastProgress)) return;
            lastProgress = progress.progress;
            extra
              .sendNotification({
                method: 'notifications/progress',
                params: {
                  progressToken,
                  progress: progress.progress,
                  ...(progress.total !== undefined ? { total: progress.total } : {}),
                  ...(progress.message !== undefined ? { message: progress.message } : {}),
                },
              })
              .catch((error: unknown) => log(`gateway: could not relay progress: ${describe(error)}`));
          };

    // While it runs, a request the server sends back belongs on this call's stream.
    const ended = session.callStarted(address.server, extra);
    try {
      const result = await core.callTool({
        server: address.server,
        tool: address.tool,
        arguments: request.params.arguments ?? {},
        caller: caller(),
        signal: extra.signal,
        ...(onProgress ? { onProgress } : {}),
        ...(peer ? { peer: peer.id } : {}),
      });
      // Resource links in the result point back through this gateway.
      return Array.isArray(result.content) ? { ...result, content: result.content.map((item) => mapContentUri(item, address.server, naming)) } : result;
    } catch (error) {
      // The client cancelled it: its own doing, not a failure to log (and the protocol sends no answer).
      if (extra.signal.aborted) return { content: [{ type: 'text', text: 'The client cancelled this call.' }], isError: true };
      return errorResult(address.server, address.tool, error, log);
    } finally {
      finished = true;
      ended();
    }
  });

  let initialized = false;
  let pending = false;
  server.oninitialized = () => {
    initialized = true;
    // What the client can answer is known now: it may be asked what servers ask back.
    peer = registerSessionPeer(server, core, session, clientLabel(options.clientName, server.getClientVersion()));
  };
  const stopCatalog = catalog
    ? relayCatalog(server, {
        catalog,
        capabilities,
        naming,
        session,
        servers: async () => catalog.servers(servers),
        showsScreens,
        initialized: () => initialized,
        log,
      })
    : undefined;
  const subscription = core.onDidChangeTools(() => {
    cached = undefined;
    if (!initialized || pending || !capabilities.tools) return;
    // Several changes in one turn (a server restarting, say) make one notification.
    pending = true;
    queueMicrotask(() => {
      pending = false;
      server.sendToolListChanged().catch((error: unknown) => log(`gateway: could not send tools/list_changed: ${describe(error)}`));
    });
  });
  server.onclose = () => {
    subscription.dispose();
    stopCatalog?.();
    peer?.dispose();
  };
  return server;
}

/** What the multi-server gateway declares: tools, and with a catalog everything else it relays. */
function gatewayCapabilities(withCatalog: boolean): ServerCapabilities {
  return {
    tools: { listChanged: true },
    ...(withCatalog ? { resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} } : {}),
  };
}

/**
 * What the transparent mode declares: what the server declared, for each
 * feature Airlock relays (never one it does not: no tasks, no experimental).
 * `listChanged` is always on, since Airlock's own view of a list can change
 * (a prompt withheld after a change, a server restarted).
 */
function mirroredCapabilities(described: GatewayServerDescription, withCatalog: boolean): ServerCapabilities {
  const up = described.capabilities;
  return {
    ...(up.tools ? { tools: { listChanged: true } } : {}),
    ...(withCatalog && up.resources ? { resources: { listChanged: true, ...(up.resources.subscribe ? { subscribe: true } : {}) } } : {}),
    ...(withCatalog && up.prompts ? { prompts: { listChanged: true } } : {}),
    ...(withCatalog && up.completions ? { completions: {} } : {}),
    ...(withCatalog && up.logging ? { logging: {} } : {}),
  };
}

/** The server's own name and version (its claims), as the transparent mode presents them. */
function transparentInfo(described: GatewayServerDescription): Implementation {
  const info = described.serverInfo;
  return info && typeof info.name === 'string' && typeof info.version === 'string'
    ? { name: info.name, version: info.version, ...(typeof info.title === 'string' ? { title: info.title } : {}) }
    : { name: described.server, version: '0.0.0' };
}

/** A refusal or failure from the core as a tool result the model can read. */
function errorResult(server: string, tool: string, error: unknown, log: (message: string) => void): CallToolResult {
  let text: string;
  if (error instanceof AirlockError || isToolCallError(error)) {
    text = `Airlock did not complete ${server} › ${tool}: ${error.message}`;
  } else {
    // Internal faults keep their details in the log, not in the agent's context.
    log(`gateway: ${server} › ${tool} failed inside Airlock: ${describe(error)}`);
    text = `Airlock could not complete ${server} › ${tool} because of an internal error; the details are in Airlock's log.`;
  }
  return { content: [{ type: 'text', text }], isError: true };
}

/** The supervisor's `ToolCallError` (its message is written for people), recognised without importing it. */
function isToolCallError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ToolCallError' && typeof error.message === 'string';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.stack ?? error.message : String(error);
}

export { clientLabel };
