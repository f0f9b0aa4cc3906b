// The MCP conformance suite's client entry point for Airlock's remote connection: the suite starts
// a scenario server and runs this with its URL as the last argument. It drives Airlock's core the
// way adding a server by URL does — the checked fetch, the OAuth sign-in (a browser that consents:
// it follows the sign-in page's redirect to Airlock's loopback listener), streamable HTTP or
// HTTP+SSE — then lists the tools and calls one. A request from the server (an elicitation) takes
// Airlock's own path: decided by policy, asked at a terminal, written to the audit log (see
// asking-person.ts: the person there accepts the form with the server's suggestions). Run by
// test/conformance/run-client.mjs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteConnector } from '../../electron/core/remote/remote-connector';
import { MemoryVault } from '../../electron/core/remote/oauth-vault';
import type { SignInBroker } from '../../electron/core/remote/oauth';
import { askingPerson } from './asking-person';

const url = process.argv[process.argv.length - 1]!;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string };

const browser: SignInBroker = {
  begin(page) {
    void (async () => {
      const answer = await fetch(page, { redirect: 'manual' });
      const location = answer.headers.get('location');
      if (location) await fetch(new URL(location, page));
    })().catch((error: unknown) => console.error('the browser step failed:', error));
    return { end() {} };
  },
};

const link = createRemoteConnector({
  label: 'conformance',
  spec: {
    url,
    transport: 'auto',
    headers: [],
    oauth: {
      // A client ID metadata document (used only where the authorization server supports them); a pre-registered client when the scenario gives one.
      clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
      ...(context.client_id ? { clientId: context.client_id } : {}),
    },
  },
  secrets: (): Record<string, string> => (context.client_secret ? { OAUTH_CLIENT_SECRET: context.client_secret } : {}),
  vault: new MemoryVault(),
  broker: browser,
  signInTimeoutMs: 20_000,
});

const auditDir = mkdtempSync(join(tmpdir(), 'airlock-conformance-audit-'));
const person = await askingPerson({ name: 'conformance', url, auditDir, questionTimeoutMs: 15_000 });

let exitCode = 0;
try {
  const connection = await link.open({ initializeTimeoutMs: 20_000, requests: person.room.handlersFor('conformance') }, new AbortController().signal);
  try {
    const tools = await connection.listTools();
    const tool = tools.items.find((candidate) => candidate.name === 'add_numbers') ?? tools.items[0];
    if (tool) {
      const args = tool.name === 'add_numbers' ? { a: 5, b: 3 } : {};
      const result = await connection.callTool('conformance', tool.name, args, { timeoutMs: 15_000, maxTotalMs: 20_000 });
      console.log(JSON.stringify({ tool: tool.name, result }));
    }
  } finally {
    await connection.close();
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  exitCode = 1;
} finally {
  if (person.transcript.length) console.error(person.transcript.join('\n'));
  const entries = await person.room.history({}).catch(() => []);
  if (entries.length) console.error(`audit: ${entries.map((entry) => JSON.stringify(entry)).join('\n')}`);
  await person.dispose();
  await link.close();
  rmSync(auditDir, { recursive: true, force: true });
}
process.exit(exitCode);
