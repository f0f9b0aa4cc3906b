import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { toolVisibility } from '../../../shared/screens';
import { mcpTypes } from '../mcp-types';
import type { GatewayTool } from './gateway-core';

/** Between the server's name and the tool's name in a gateway tool name: `filesystem__write_file`. */
export const TOOL_NAME_SEPARATOR = '__';

/** MCP's tool-name rule (spec 2025-11-25, server/tools): 1–128 of A–Z a–z 0–9 `_` `-` `.`. */
const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/**
 * A server name the gateway can put in front of a tool name. No `_` at all, so
 * the first `__` of a gateway name is always the separator: that is what makes
 * the mapping reversible and collision-free whatever the tool is called.
 * (Airlock's own server names — lowercase letters, digits and dashes — all fit.)
 */
const GATEWAY_SERVER_NAME = /^[A-Za-z0-9.-]+$/;

/** Where a gateway tool name leads. */
export interface ToolAddress {
  server: string;
  tool: string;
}

/**
 * The gateway's name for `tool` of `server` (`server__tool`), or why there is
 * none: a server name with `_` or other characters MCP names cannot hold, a
 * tool name outside MCP's rule, or a result longer than 128 characters.
 */
export function gatewayToolName(server: string, tool: string): { ok: true; name: string } | { ok: false; reason: string } {
  if (!GATEWAY_SERVER_NAME.test(server)) {
    return { ok: false, reason: `the server name “${server}” has characters a gateway tool name cannot carry (only letters, digits, “.” and “-”)` };
  }
  if (!MCP_TOOL_NAME.test(tool)) {
    return { ok: false, reason: `the tool name “${tool}” is not a valid MCP tool name (1–128 of letters, digits, “_”, “-”, “.”)` };
  }
  const name = `${server}${TOOL_NAME_SEPARATOR}${tool}`;
  if (name.length > 128) return { ok: false, reason: `“${name}” would be longer than the 128 characters MCP allows` };
  return { ok: true, name };
}

/** The server and tool a gateway tool name stands for; undefined when it is not one. */
export function parseGatewayToolName(name: string): ToolAddress | undefined {
  if (!MCP_TOOL_NAME.test(name)) return undefined;
  const at = name.indexOf(TOOL_NAME_SEPARATOR);
  if (at <= 0) return undefined;
  const server = name.slice(0, at);
  const tool = name.slice(at + TOOL_NAME_SEPARATOR.length);
  if (!GATEWAY_SERVER_NAME.test(server) || !tool) return undefined;
  return { server, tool };
}

/** A tool as the gateway lists it, and where it leads. */
export interface GatewayListing {
  /** What `tools/list` returns, in the core's order. */
  tools: Tool[];
  /** Gateway name → server and tool. */
  addresses: Map<string, ToolAddress>;
  /** Tools left out, each with the reason (for the log). */
  skipped: { server: string; tool: string; reason: string }[];
}

/**
 * Turns the core's tools into what the gateway offers. Each tool keeps its
 * title, description, input and output schema and annotations exactly as
 * the server sent them — the annotations are hints, as they are everywhere
 * (SECURITY.md rule 1): the client may use them for display, Airlock's own
 * policy decides the call. Its `_meta` goes along too — it is how a server
 * says which screen (MCP Apps, `_meta.ui.resourceUri`) shows a tool's result
 * and who may call it (`_meta.ui.visibility`); a screen's `ui://` address is
 * renamed as the session names resources (`uri`), so the client reads it back
 * through this gateway. `icons` and `execution` stay behind: icons are remote
 * URLs the client would fetch, and task execution is not something the
 * gateway offers.
 *
 * `name` maps each tool (default `server__tool`; the transparent mode keeps
 * the tool's own name); `uri` maps a resource URI (default: unchanged).
 *
 * For a client that cannot show screens (`screens: false`: it did not
 * declare the MCP Apps extension) a tool made for screens only
 * (`_meta.ui.visibility` without `model`) is not offered — nothing it has
 * could call it — and the other tools' `_meta` names no screen.
 *
 * A tool whose name cannot be mapped, whose definition is not a valid MCP
 * tool, or that a second entry repeats, is skipped and reported, never
 * renamed: a renamed tool could shadow another one. Checked with the SDK's
 * own schema: its caller awaits `loadMcpTypes()` first.
 */
export function buildGatewayListing(
  tools: readonly GatewayTool[],
  name: (server: string, tool: string) => ReturnType<typeof gatewayToolName> = gatewayToolName,
  uri: (server: string, uri: string) => string | undefined = (_server, original) => original,
  options: { screens?: boolean } = {},
): GatewayListing {
  const listing: GatewayListing = { tools: [], addresses: new Map(), skipped: [] };
  const screens = options.screens ?? true;
  for (const { server, definition } of tools) {
    const tool = definition.name;
    if (!screens && !toolVisibility(definition._meta).includes('model')) continue;
    const named = name(server, tool);
    if (!named.ok) {
      listing.skipped.push({ server, tool, reason: named.reason });
      continue;
    }
    if (listing.addresses.has(named.name)) {
      listing.skipped.push({ server, tool, reason: `“${named.name}” is listed twice; only the first is offered` });
      continue;
    }
    const candidate: Record<string, unknown> = { name: named.name, inputSchema: definition.inputSchema };
    if (definition.title !== undefined) candidate.title = definition.title;
    if (definition.description !== undefined) candidate.description = definition.description;
    if (definition.outputSchema !== undefined) candidate.outputSchema = definition.outputSchema;
    if (definition.annotations !== undefined) candidate.annotations = definition.annotations;
    if (definition._meta !== undefined) {
      const meta = screens ? withScreenUris(definition._meta, (original) => uri(server, original)) : withoutScreens(definition._meta);
      if (meta) candidate._meta = meta;
    }
    // A definition the client's own schema would reject would make the whole list fail there.
    const checked = mcpTypes().ToolSchema.safeParse(candidate);
    if (!checked.success) {
      listing.skipped.push({ server, tool, reason: `its definition is not a valid MCP tool (${checked.error.issues[0]?.message ?? 'invalid'})` });
      continue;
    }
    // The original objects, not the parsed copies: schemas go out exactly as they came.
    listing.tools.push(candidate as Tool);
    listing.addresses.set(named.name, { server, tool });
  }
  return listing;
}

/** The `_meta` keys that name a tool's screen (MCP Apps 2026-01-26: `ui.resourceUri`, and the deprecated flat `ui/resourceUri`). */
const FLAT_RESOURCE_URI = 'ui/resourceUri';

/**
 * A tool's `_meta` as it came, except that the screen URIs it names are
 * renamed by `rename` (left as they are when `rename` has no name for them).
 * Every other key, and every key inside `ui`, is kept as the server wrote it.
 */
export function withScreenUris(meta: Readonly<Record<string, unknown>>, rename: (uri: string) => string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...meta };
  const flat = Object.hasOwn(meta, FLAT_RESOURCE_URI) ? meta[FLAT_RESOURCE_URI] : undefined;
  if (typeof flat === 'string') out[FLAT_RESOURCE_URI] = rename(flat) ?? flat;
  const ui = Object.hasOwn(meta, 'ui') ? meta.ui : undefined;
  if (ui !== null && typeof ui === 'object' && !Array.isArray(ui)) {
    const nested = ui as Record<string, unknown>;
    if (typeof nested.resourceUri === 'string') out.ui = { ...nested, resourceUri: rename(nested.resourceUri) ?? nested.resourceUri };
  }
  return out;
}

/** A tool's `_meta` for a client that shows no screens: everything but the keys that name one (undefined when nothing is left). */
export function withoutScreens(meta: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = { ...meta };
  delete out.ui;
  delete out[FLAT_RESOURCE_URI];
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Where a screen's own name for a tool leads, in a session that serves
 * several servers under `server__tool` names. A screen (MCP Apps) calls its
 * server's tools by their own names, and the app showing it passes the
 * call on unchanged: nothing in it says which screen asked. So a bare name
 * is taken as a screen's only when it is unambiguous where it may go — one
 * server whose screen this session read (`screenServers`) offers a tool of
 * that name to screens (`_meta.ui.visibility` with `app`). A name no such
 * server offers is unknown; one several offer is refused, naming them: a
 * guess could send one screen's call to another server.
 */
export function screenToolAddress(listing: GatewayListing, name: string, screenServers: ReadonlySet<string>): { address: ToolAddress } | { unknown: true } | { ambiguous: string[] } {
  const found: ToolAddress[] = [];
  for (const tool of listing.tools) {
    const address = listing.addresses.get(tool.name);
    if (!address || address.tool !== name || !screenServers.has(address.server)) continue;
    if (!toolVisibility(tool._meta).includes('app')) continue;
    found.push(address);
  }
  if (found.length === 0) return { unknown: true };
  if (found.length > 1) return { ambiguous: found.map((address) => address.server) };
  return { address: found[0]! };
}
