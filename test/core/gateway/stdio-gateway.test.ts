/**
 * The stdio gateway as another app meets it: a separate process speaking MCP
 * on its stdin/stdout, started by the SDK's own stdio client — the way Claude
 * Desktop or VS Code start `airlock gateway --stdio`.
 */
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';

// jiti runs the TypeScript entry without a build step (it ships with vite).
const ENTRY = resolve(import.meta.dirname, 'support', 'stdio-gateway.ts');

describe('the stdio gateway', () => {
  it('lists namespaced tools and calls everything__echo for a client in another process', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', ENTRY, '--deny', 'everything/get-env'], stderr: 'pipe' });
    const stderr: string[] = [];
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'airlock' });
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('everything__echo');
      expect(names.every((name) => name.startsWith('everything__'))).toBe(true);
      const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'over stdio' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Echo: over stdio' }]);
      const denied = await client.callTool({ name: 'everything__get-env', arguments: {} });
      expect(denied.isError).toBe(true);
      expect(JSON.stringify(denied.content)).toContain('denied by a rule');
    } finally {
      await client.close();
    }
    expect(stderr.join('')).not.toMatch(/Error/);
  });
});
