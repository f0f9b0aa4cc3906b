import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Implementation,
  type ProgressToken,
} from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../../../shared/domain';
import { version } from '../../../package.json';
import { AirlockError } from '../errors';
import type { GatewayCore } from './gateway-core';
import { buildGatewayListing, type GatewayListing } from './tool-names';

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
}

/** What Airlock calls itself towards gateway clients. */
export const GATEWAY_SERVER_INFO: Implementation = { name: 'airlock', title: 'Airlock', version };

const FALLBACK_CLIENT_NAME = 'An MCP client';
const MAX_CLIENT_NAME = 100;

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
  const servers = options.servers && options.servers.length > 0 ? [...options.servers] : undefined;
  const server = new Server(GATEWAY_SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    instructions:
      'Tools of the MCP servers Airlock runs, named server__tool. Airlock may ask its user before a call runs; a call the user or policy refused comes back as an error result saying so.',
  });

  // Built once per change of the core's tools (not per call: validating every definition is
  // most of a call's overhead otherwise); onDidChangeTools below drops it.
  // The core may live in another Airlock process (the data folder's owner), so listing may be async.
  let cached: Promise<GatewayListing> | undefined;
  const listing = (): Promise<GatewayListing> => {
    cached ??= Promise.resolve(core.listTools(servers)).then((tools) => {
      const built = buildGatewayListing(tools);
      for (const skipped of built.skipped) log(`gateway: not offering ${skipped.server} › ${skipped.tool}: ${skipped.reason}`);
      return built;
    });
    cached.catch(() => {
      cached = undefined;
    });
    return cached;
  };

  const caller = (): Caller => ({ kind: 'client', name: clientLabel(options.clientName, server.getClientVersion()) });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await listing()).tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    // SECURITY (invariant 1): only a tool the core lists now, within this session's servers,
    // can be called; anything else never reaches the core, let alone a server.
    const address = (await listing()).addresses.get(name);
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

    try {
      return await core.callTool({
        server: address.server,
        tool: address.tool,
        arguments: request.params.arguments ?? {},
        caller: caller(),
        signal: extra.signal,
        ...(onProgress ? { onProgress } : {}),
      });
    } catch (error) {
      return errorResult(address.server, address.tool, error, log);
    } finally {
      finished = true;
    }
  });

  let initialized = false;
  let pending = false;
  server.oninitialized = () => {
    initialized = true;
  };
  const subscription = core.onDidChangeTools(() => {
    cached = undefined;
    if (!initialized || pending) return;
    // Several changes in one turn (a server restarting, say) make one notification.
    pending = true;
    queueMicrotask(() => {
      pending = false;
      server.sendToolListChanged().catch((error: unknown) => log(`gateway: could not send tools/list_changed: ${describe(error)}`));
    });
  });
  server.onclose = () => subscription.dispose();
  return server;
}

/**
 * The name a gateway client goes by: the label given when the gateway was
 * started, else the client's title or name from `initialize`. Control, bidi
 * and zero-width characters are removed and the length capped, since the
 * name is shown in confirmations ("<name> wants to run…").
 */
export function clientLabel(configured: string | undefined, clientInfo: Implementation | undefined): string {
  for (const candidate of [configured, clientInfo?.title, clientInfo?.name]) {
    if (typeof candidate !== 'string') continue;
    const clean = candidate
      .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (clean) return clean.length > MAX_CLIENT_NAME ? `${clean.slice(0, MAX_CLIENT_NAME - 1)}…` : clean;
  }
  return FALLBACK_CLIENT_NAME;
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
