/**
 * The MCP SDK's types module — `McpError`, `ErrorCode` and the protocol's
 * zod schemas — loaded at first use. Building its two hundred schemas costs
 * more than everything else `airlock list` checks, and only work with a
 * server or an app needs them: code that does awaits `loadMcpTypes()`
 * first (the SDK's client and server, which import the module themselves,
 * share this one instance, so `instanceof McpError` holds across them).
 */
import { lazyModule } from './lazy-module';

const types = lazyModule(
  () => import('@modelcontextprotocol/sdk/types.js'),
  () => new Error("Airlock used the MCP SDK's types before loading them (this is a fault in Airlock)."),
);

/** Loads the module (idempotent; at once when it is loaded). */
export const loadMcpTypes = types.load;

/**
 * The module, once loaded. Only for code that runs after an await of
 * `loadMcpTypes()` (the server-requests pipeline's entry points, the
 * gateway's listing): used before that, it throws — a fault in Airlock, and
 * the request it was serving fails instead of being answered.
 */
export const mcpTypes = types.get;
