/**
 * Issue 6 end to end: another AI app (an SDK client over the HTTP gateway)
 * asks for a destructive call; it waits for a person, who approves it in
 * Airlock's window (the browser harness over the real core); then it runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateGatewayToken, startHttpGateway, type HttpGateway } from '../../electron/core/gateway';
import { FILESYSTEM_SERVER, openRendererHost, type RendererHost } from './renderer-support';

describe('a gateway client’s destructive call, approved in the window', () => {
  let t: RendererHost;
  let gateway: HttpGateway;
  let client: Client;
  let work: string;

  beforeAll(async () => {
    t = await openRendererHost();
    work = t.folder('work');
    await t.add('files', [process.execPath, FILESYSTEM_SERVER, work], { profile: { filesystem: { read: [work], write: [work], persistentData: false } } });
    const token = generateGatewayToken();
    gateway = await startHttpGateway(t.host.gateway.core(), { port: 0, token, log: () => {} });
    client = new Client({ name: 'claude-ai', title: 'Claude Desktop', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  });
  afterAll(async () => {
    await client?.close().catch(() => {});
    await gateway?.close();
    await t?.close();
  });

  it('waits for the person, names the app, and completes once allowed', async () => {
    const target = join(work, 'from-claude.txt');
    const pending = client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'written after approval' } });
    const dialog = t.page.getByRole('dialog');
    await dialog.waitFor();
    expect(await t.page.getByTestId('confirmation-headline').textContent()).toContain('app “Claude Desktop” wants to run files › write_file');
    expect(existsSync(target)).toBe(false);
    await dialog.getByTestId('confirm-object').getByRole('checkbox').check();
    await dialog.getByRole('button', { name: 'Allow once' }).click();
    const result = await pending;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('written after approval');
    const entries = await t.host.activity.entries({ server: 'files', tool: 'write_file' });
    expect(entries.find((entry) => entry.kind === 'decision')).toMatchObject({ caller: 'app “Claude Desktop”', callerKind: 'client', verdict: 'allowed after you answered in the window' });
  });

  it('a denial in the window comes back to the app as a refusal, and the server never sees the call', async () => {
    const target = join(work, 'refused.txt');
    const pending = client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'x' } });
    const dialog = t.page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/denied/i);
    expect(existsSync(target)).toBe(false);
  });
});
