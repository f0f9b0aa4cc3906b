/**
 * The tools a conversation offers the model, named so every provider
 * accepts them (Anthropic and OpenAI allow 1–64 of `A–Z a–z 0–9 _ -`) and so
 * each name leads back to exactly one server and tool. Names are
 * `server__tool` when that fits; otherwise the tool part is made to fit and
 * a short hash keeps it unique. A name the model invents leads nowhere.
 */
import { createHash } from 'node:crypto';
import type { ToolDefinition } from '../../../shared/domain';
import type { ToolSelection } from '../../../shared/chat';
import type { ModelToolSpec } from './model-client';

/** A tool an enabled server offers right now, with what the agent needs to know about it. */
export interface AgentTool {
  server: string;
  definition: ToolDefinition;
  /** The person trusts this server's annotations. */
  serverTrusted: boolean;
  /** Airlock's reading: the tool may reach the open world (the default when not stated). */
  openWorld: boolean;
  /** Airlock's reading: explicitly read-only. */
  readOnly: boolean;
}

/** The tools offered for one turn, and where each name leads. */
export interface ModelToolset {
  specs: ModelToolSpec[];
  byName: Map<string, AgentTool>;
}

const PROVIDER_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The model-facing name of a server's tool. */
export function modelToolName(server: string, tool: string): string {
  const plain = `${server}__${tool}`;
  if (PROVIDER_TOOL_NAME.test(plain)) return plain;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 6);
  const cleaned = tool.replace(/[^A-Za-z0-9_-]/g, '_');
  const room = 64 - server.length - 2 - 7;
  return `${server}__${cleaned.slice(0, Math.max(1, room))}_${hash}`.slice(0, 64);
}

/** True when the selection lets the model see this tool. */
export function isSelected(selection: ToolSelection, server: string, tool: string): boolean {
  if (selection.servers !== null && !selection.servers.includes(server)) return false;
  return !selection.hiddenTools.includes(`${server}/${tool}`);
}

/** Builds the toolset for a turn from the enabled servers' tools and the conversation's selection. */
export function buildToolset(tools: readonly AgentTool[], selection: ToolSelection): ModelToolset {
  const specs: ModelToolSpec[] = [];
  const byName = new Map<string, AgentTool>();
  for (const tool of tools) {
    if (!isSelected(selection, tool.server, tool.definition.name)) continue;
    const name = modelToolName(tool.server, tool.definition.name);
    // A server name of 62+ characters cannot be namespaced; such a tool is left out rather than renamed into a collision.
    if (!PROVIDER_TOOL_NAME.test(name) || byName.has(name)) continue;
    byName.set(name, tool);
    const description = tool.definition.description ?? tool.definition.title;
    specs.push({ name, ...(description ? { description } : {}), inputSchema: objectSchema(tool.definition.inputSchema) });
  }
  return { specs, byName };
}

/** Providers require an object schema at the top. MCP requires it too; a server that breaks the rule gets a plain one. */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return schema.type === 'object' ? schema : { type: 'object', properties: {} };
}
