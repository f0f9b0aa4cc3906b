/**
 * A real `GatewayCore` for the gateway's tests: real SDK Clients talking to
 * real MCP servers over stdio, with a small test policy in front. The host
 * implements the real policy, confirmation and audit; this proves the
 * facade without faking the protocol anywhere.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from '../../../../shared/domain';
import { AirlockError } from '../../../../electron/core/errors';
import type { GatewayCallRequest, GatewayCore, GatewayTool } from '../../../../electron/core/gateway/gateway-core';

const require = createRequire(import.meta.url);

/** argv for server-everything over stdio. */
export function everythingServer(): { command: string; args: string[] } {
  const pkg = require.resolve('@modelcontextprotocol/server-everything/package.json');
  return { command: process.execPath, args: [join(dirname(pkg), 'dist', 'index.js'), 'stdio'] };
}

/** argv for server-memory over stdio (its memory file in `dir`). */
export function memoryServer(): { command: string; args: string[]; env: Record<string, string> } {
  const pkg = require.resolve('@modelcontextprotocol/server-memory/package.json');
  return {
    command: process.execPath,
    args: [join(dirname(pkg), 'dist', 'index.js')],
    env: { MEMORY_FILE_PATH: join(process.env.TMPDIR ?? '/tmp', `airlock-gateway-memory-${process.pid}.json`) },
  };
}

/**
 * The test policy: `deny` holds `server/tool` names refused outright. (What
 * a refused call must never reach is counted at a real server behind the
 * real core: see witness-core.ts.)
 */
export interface TestPolicy {
  deny?: ReadonlySet<string>;
}

interface Connected {
  client: Client;
  tools: ToolDefinition[];
}

/** A GatewayCore over real servers, recording what the gateway asked of it (`requests`). */
export class DirectCore implements GatewayCore {
  readonly servers = new Map<string, Connected>();
  /** Every request the core received, in order (including refused ones). */
  readonly requests: GatewayCallRequest[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(private readonly policy: TestPolicy = {}) {}

  /** Starts a server and adds its tools; fires onDidChangeTools. */
  async addServer(name: string, spec: { command: string; args: string[]; env?: Record<string, string> }): Promise<void> {
    const client = new Client({ name: 'airlock-test-core', version: '0.0.0' });
    const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: spec.env, stderr: 'ignore' });
    await client.connect(transport);
    const connected: Connected = { client, tools: await listAll(client) };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      connected.tools = await listAll(client);
      this.fire();
    });
    this.servers.set(name, connected);
    this.fire();
  }

  listTools(servers?: readonly string[]): GatewayTool[] {
    const out: GatewayTool[] = [];
    for (const [server, connected] of this.servers) {
      if (servers && !servers.includes(server)) continue;
      for (const definition of connected.tools) out.push({ server, definition });
    }
    return out;
  }

  async callTool(request: GatewayCallRequest): Promise<CallToolResult> {
    this.requests.push(request);
    const key = `${request.server}/${request.tool}`;
    const connected = this.servers.get(request.server);
    if (!connected || !connected.tools.some((tool) => tool.name === request.tool)) {
      throw new AirlockError('not-found', `${request.server} has no tool “${request.tool}”`);
    }
    if (this.policy.deny?.has(key)) {
      throw new AirlockError('unavailable', `denied by a rule: ${request.server} › ${request.tool} may not run`);
    }
    const result = await connected.client.callTool({ name: request.tool, arguments: request.arguments }, undefined, {
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.onProgress ? { onprogress: request.onProgress, resetTimeoutOnProgress: true } : {}),
    });
    return result as CallToolResult;
  }

  onDidChangeTools(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Removes one tool from the listing (as if its server dropped it) and fires a change. */
  hideTool(server: string, tool: string): void {
    const connected = this.servers.get(server);
    if (connected) connected.tools = connected.tools.filter((t) => t.name !== tool);
    this.fire();
  }

  listenerCount(): number {
    return this.listeners.size;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.servers.values()].map((connected) => connected.client.close()));
    this.servers.clear();
  }

  private fire(): void {
    for (const listener of this.listeners) listener();
  }
}

async function listAll(client: Client): Promise<ToolDefinition[]> {
  const tools: ToolDefinition[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page += 1) {
    const result = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...(result.tools as ToolDefinition[]));
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}
