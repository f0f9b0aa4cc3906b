// server-everything (the published reference server) in its streamable HTTP mode on loopback, added
// to a real host as a remote server: its tools listed, a call under policy with a person's
// confirmation, the audit naming the URL, and the gateway relaying its tools to another app.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { createGatewayServer } from '../../../electron/core/gateway/gateway-server';
import { createTestHost, EVERYTHING_SERVER, type TestHost } from '../host/host-support';

const agent = { kind: 'client', name: 'Test Agent' } as const;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('server-everything over streamable HTTP as a remote server', () => {
  let t: TestHost;
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    child = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let said = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (/listening on port/.test(said)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${said}`)));
    });
    url = `http://127.0.0.1:${port}/mcp`;
    t = await createTestHost();
    const disclosure = await t.host.install.prepare({ kind: 'remote', url });
    const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
    await t.host.install.probe(disclosure.draftId, {}, profile);
    await t.host.install.commit({ draftId: disclosure.draftId, name: 'everything', profile, trusted: false, secrets: {}, enable: true });
  });
  afterAll(async () => {
    await t?.close();
    child?.kill('SIGTERM');
  });

  it('lists its tools, read as open-world and never contained', async () => {
    const detail = await t.host.servers.detail('everything');
    expect(detail.state).toBe('ready');
    const echo = detail.tools.find((tool) => tool.name === 'echo')!;
    expect(echo).toBeDefined();
    expect(echo.preview.verdict).toBe('ask'); // read-only claim, untrusted, nothing contains it
    expect(detail.provenance).toMatchObject({ kind: 'remote', url, transport: 'streamable-http' });
  });

  it('a call waits for the person, runs once allowed, and the audit names the URL', async () => {
    t.ask.available = true;
    const call = t.host.calls.call({ server: 'everything', tool: 'get-sum', arguments: { a: 2, b: 40 }, caller: agent });
    let pending = t.host.approvals.pending();
    for (let i = 0; i < 200 && pending.length === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      pending = t.host.approvals.pending();
    }
    expect(pending[0]).toMatchObject({ server: 'everything', tool: 'get-sum' });
    expect(JSON.stringify(pending[0])).toMatch(/Runs on 127\.0\.0\.1:\d+, not on your computer/);
    expect(t.host.approvals.answer(pending[0]!.id, { choice: 'allow-once' }, { shell: 'test' })).toEqual({ accepted: true });
    const result = await call;
    expect(result.outcome).toBe('ok');
    expect(JSON.stringify(result)).toContain('42');

    const decisions = readdirSync(join(t.dataDir, 'audit'))
      .flatMap((file) => readFileSync(join(t.dataDir, 'audit', file), 'utf8').split('\n'))
      .filter((line) => line.includes('"type":"decision"') && line.includes('get-sum'))
      .map((line) => JSON.parse(line) as { final: string; remote?: string });
    expect(decisions).toEqual([expect.objectContaining({ final: 'allow', remote: url })]);
  });

  it('the gateway relays its tools to another app, each call through the choke point', async () => {
    const server = createGatewayServer(t.host.gateway.core());
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'other-app', version: '1.0.0' });
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('everything__echo');
    t.host.serverSettings.setTrust('everything', true); // a trusted server's read-only tool runs without asking
    const answer = await client.callTool({ name: 'everything__echo', arguments: { message: 'relayed' } });
    expect(JSON.stringify(answer.content)).toContain('relayed');
    await client.close();
  });
});
