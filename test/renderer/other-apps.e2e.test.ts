/**
 * Settings › Other AI apps, over the real core: connect Claude Desktop (with a
 * backup), take out a server already imported into Airlock, undo; start the
 * HTTP gateway and reach it with its token.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../shared/domain';
import { FILESYSTEM_SERVER, openRendererHost, waitForText, type RendererHost } from './renderer-support';

describe('Settings › Other AI apps', () => {
  let t: RendererHost;
  let config: string;
  let original: string;

  beforeAll(async () => {
    t = await openRendererHost();
    const work = t.folder('work');
    mkdirSync(join(t.home, '.config/Claude'), { recursive: true });
    config = join(t.home, '.config/Claude/claude_desktop_config.json');
    original = `${JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [FILESYSTEM_SERVER, work] }, other: { command: process.execPath, args: [FILESYSTEM_SERVER, work] } } }, null, 2)}\n`;
    writeFileSync(config, original);
    // "notes" goes through the import flow (disclosure) into Airlock first.
    const [file] = await t.host.install.scanImports({ app: 'claude' });
    const entry = file!.entries.find((candidate) => candidate.name === 'notes')!;
    const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
    await t.host.install.commit({ draftId: entry.disclosure!.draftId, name: 'notes', profile, trusted: false, secrets: {}, enable: false });
    for (const other of file!.entries) if (other.name !== 'notes' && other.disclosure) await t.host.install.cancel(other.disclosure.draftId);
    await t.open('#/settings');
  });
  afterAll(() => t?.close());

  it('connects Claude Desktop, taking out only the server already in Airlock, and undoes it', async () => {
    const { page } = t;
    const card = page.getByTestId('connect-claude');
    await waitForText(card, /Not connected/);
    expect(await card.textContent()).toContain('notes, other');
    await card.getByRole('checkbox').check();
    await card.getByRole('button', { name: 'Connect Claude Desktop' }).click();
    await waitForText(card, /Connected/);
    const written = JSON.parse(readFileSync(config, 'utf8'));
    expect(Object.keys(written.mcpServers).sort()).toEqual(['airlock', 'other']);
    expect(written.mcpServers.airlock.args).toEqual(['gateway', '--stdio', '--client', 'Claude Desktop']);
    expect(readdirSync(join(t.home, '.config/Claude')).some((name) => name.includes('.airlock-backup-'))).toBe(true);
    await t.viewShot('settings-other-apps');

    await card.getByRole('button', { name: 'Undo' }).click();
    await waitForText(card, /Not connected/);
    expect(readFileSync(config, 'utf8')).toBe(original);
  });

  it('starts the HTTP gateway; a client with the token lists the tools', async () => {
    const { page } = t;
    const section = page.getByTestId('other-apps');
    await section.getByLabel('Port for the HTTP gateway').fill('0');
    await section.getByRole('button', { name: 'Start the HTTP gateway' }).click();
    const text = await waitForText(section, /Running on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text)![1]!;
    const token = readFileSync(join(t.dataDir, 'gateway-token'), 'utf8').trim();
    const client = new Client({ name: 'settings-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    expect(Array.isArray((await client.listTools()).tools)).toBe(true);
    await client.close();
    await section.getByRole('button', { name: 'Stop the HTTP gateway' }).click();
    await waitForText(section, /Start the HTTP gateway/);
  });
});
