/**
 * The echo fixture server as a real process behind an SDK client, counting
 * the calls that reach it, and the server record a pipeline test decides
 * on: for tests that drive the real `CallPipeline` with their own facts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defaultSandboxProfile, type Rule, type ServerRecord, type ToolDefinition } from '../../../../shared/domain';
import { fingerprintTool } from '../../../../electron/core/tools/fingerprint';
import { fixture } from '../../host/host-support';

export interface EchoServer {
  client: Client;
  /** A temporary folder for the test (removed by `close`). */
  root: string;
  /** The server's `echo` tool as it lists it. */
  definition: ToolDefinition;
  /** How many calls reached the server so far. */
  reached(): number;
  close(): Promise<void>;
}

/** Starts the echo fixture (unsandboxed: these tests are about the pipeline, not the sandbox). */
export async function startEcho(label: string): Promise<EchoServer> {
  const root = mkdtempSync(join(tmpdir(), `airlock-${label}-`));
  const records = join(root, 'records');
  mkdirSync(records);
  const client = new Client({ name: `${label}-test`, version: '1' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [fixture('servers/echo.mjs')], env: { AIRLOCK_RECORD_DIR: records, PATH: process.env.PATH ?? '' }, stderr: 'pipe' }),
  );
  const definition = (await client.listTools()).tools.find((tool) => tool.name === 'echo') as unknown as ToolDefinition;
  const calls = join(records, 'calls');
  return {
    client,
    root,
    definition,
    reached: () => (existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean).length : 0),
    close: async () => {
      await client.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The echo server's record with `definition` approved (untrusted, default sandbox), and a rule that allows it. */
export function echoRecord(definition: ToolDefinition): { record: ServerRecord; fingerprint: string; allow: Rule } {
  const fingerprint = fingerprintTool(definition);
  const record: ServerRecord = {
    name: 'echo',
    spec: { command: process.execPath, args: [fixture('servers/echo.mjs')], env: {} },
    provenance: { kind: 'local', executable: process.execPath, executableSha256: 'a'.repeat(64) },
    profile: defaultSandboxProfile(),
    trusted: false,
    enabled: true,
    approvedTools: { echo: { fingerprint, definition, approvedAt: '2026-12-02T00:00:00.000Z' } },
    createdAt: '2026-12-02T00:00:00.000Z',
  };
  return { record, fingerprint, allow: { server: 'echo', tool: 'echo', fingerprint, effect: 'allow', createdAt: '2026-12-02T00:00:00.000Z' } };
}
