/**
 * The everyday servers a new user adds first, end to end in the window over
 * the real core and sandbox (issue 11): server-filesystem on a folder inside
 * the home directory; server-memory keeping its graph in a data folder of its
 * own across a restart; and a Claude Desktop config with a filesystem, a
 * memory and a token-using server, each working once the person accepts the
 * grants Airlock proposes.
 *
 * The first two need the inspection to run with the grants being given and
 * the data folder to be passed to the server (issue 11 items 1–2, the
 * sandbox work): until that lands they fail at the inspection / at the
 * restart, and only for that reason.
 */
import { createServer, type Server } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILESYSTEM_SERVER, openRendererHost, REPO, waitForText, type RendererHost, pasteCommand } from './renderer-support';

const MEMORY_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const API_CLIENT = join(REPO, 'test/fixtures/servers/api-client.mjs');

describe('the first servers, in the window', () => {
  let t: RendererHost;
  let api: Server;
  let apiPort: number;
  const apiSeen: string[] = [];

  beforeAll(async () => {
    t = await openRendererHost();
    // A stand-in for a service's API: it answers only with the right token.
    api = createServer((request, response) => {
      apiSeen.push(`${request.url} ${request.headers.authorization ?? '(no token)'}`);
      if (request.headers.authorization === 'Bearer s3cret-token') response.end('{"login":"octo"}');
      else response.writeHead(401).end('bad credentials');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiPort = (api.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => api?.close(resolve));
    await t?.close();
  });

  /** Opens a fresh install screen (from another screen, so an earlier flow left half-way does not stay). */
  async function startInstall(): Promise<void> {
    await t.open('#/servers');
    await t.open('#/install');
  }

  /** Calls a tool from the "Try a tool" section with simple arguments and returns the result's text. */
  async function tryTool(server: string, tool: string, args: Record<string, string> = {}): Promise<string> {
    const { page } = t;
    await t.open(`#/servers/${server}/try`);
    const console_ = page.getByTestId('tool-console');
    await console_.getByLabel('Tool').selectOption(tool);
    for (const [name, value] of Object.entries(args)) await console_.getByLabel(new RegExp(`^${name}`)).fill(value);
    await console_.getByRole('button', { name: 'Call' }).click();
    await waitForText(console_.getByTestId('call-result'), /Done|error|Denied|Not run/i, 60_000);
    return (await console_.getByTestId('call-result').textContent()) ?? '';
  }

  it('server-filesystem on a folder inside the home directory (needs the inspection to run with the grants given)', async () => {
    const { page } = t;
    const documents = join(t.home, 'Documents');
    mkdirSync(documents, { recursive: true });
    writeFileSync(join(documents, 'todo.md'), 'buy milk');
    await startInstall();
    await pasteCommand(page, `${process.execPath} ${FILESYSTEM_SERVER} ${documents}`);
    await page.getByTestId('disclosure').waitFor();
    // The folder it names is proposed, with why; nothing is granted until the person says so.
    const proposal = page.getByTestId('suggested-paths');
    expect(await proposal.textContent()).toContain(`${documents} its command line names it`);
    expect(await page.getByTestId('profile-summary').textContent()).toContain('Writes nowhere that lasts');
    await proposal.getByRole('button', { name: 'Allow changes here' }).click();
    await waitForText(page.getByTestId('profile-summary'), `Can change files in ${documents}`);
    await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    await page.getByTestId('probe-report').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Continue' }).click();
    // The name comes from the package, not from its script (index.js).
    expect(await page.getByLabel('Name in Airlock').inputValue()).toBe('filesystem');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('server-detail').waitFor();
    await waitForText(page.getByTestId('server-badges'), 'Running');
    expect(await tryTool('filesystem', 'read_text_file', { path: join(documents, 'todo.md') })).toContain('buy milk');
  }, 180_000);

  it('server-memory keeps what it learnt in a data folder of its own, across a restart (needs the data folder passed to it)', async () => {
    const { page } = t;
    await startInstall();
    await pasteCommand(page, `${process.execPath} ${MEMORY_SERVER}`);
    await page.getByTestId('disclosure').waitFor();
    await page.getByLabel('Give it a persistent data folder').check();
    await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    await page.getByTestId('probe-report').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await page.getByLabel('Name in Airlock').inputValue()).toBe('memory');
    // With a lasting data folder it is not contained: its reads ask, and the preview says so before saving.
    await waitForText(page.getByTestId('call-preview'), 'Ask you first');
    expect(await page.getByTestId('call-preview').textContent()).not.toContain('Run without asking');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('server-detail').waitFor();
    await waitForText(page.getByTestId('server-badges'), 'Running');
    const created = await t.host.calls.call({
      server: 'memory',
      tool: 'create_entities',
      arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
      caller: { kind: 'user' },
    });
    expect(created.outcome).toBe('ok');
    await t.open('#/servers/memory');
    await page.getByRole('button', { name: 'Restart' }).click();
    await waitForText(page.getByTestId('server-badges'), 'Running');
    expect(await tryTool('memory', 'read_graph')).toContain('wrote the first program');
  }, 180_000);

  it('a Claude Desktop config: filesystem, memory and a token-using server, each working once the proposed grants are accepted', async () => {
    const { page } = t;
    const projects = t.folder('projects');
    const memoryDir = t.folder('claude-memory');
    writeFileSync(join(projects, 'plan.md'), 'the plan');
    const configDir = join(t.home, '.config/Claude');
    mkdirSync(configDir, { recursive: true });
    const config = join(configDir, 'claude_desktop_config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          'my-files': { command: process.execPath, args: [FILESYSTEM_SERVER, projects] },
          'my-memory': { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(memoryDir, 'memory.json') } },
          github: { command: process.execPath, args: [API_CLIENT], env: { API_TOKEN: 's3cret-token', API_URL: `http://127.0.0.1:${apiPort}` } },
        },
      }),
    );
    for (const entry of ['my-files', 'my-memory', 'github']) {
      await startInstall();
      await page.getByRole('radio', { name: 'Import from another app' }).check();
      await page.getByLabel('App', { exact: true }).selectOption('claude');
      await page.getByRole('button', { name: 'Look for servers' }).click();
      const results = page.getByTestId('import-results');
      await results.waitFor({ timeout: 60_000 });
      await results.getByTestId(`import-entry-${entry}`).getByRole('radio').check();
      await page.getByRole('button', { name: 'Review the selected server' }).click();
      await page.getByTestId('disclosure').waitFor();
      const proposals = page.getByTestId('suggested-paths');
      const offered = (await proposals.textContent()) ?? '';
      if (entry === 'my-files') expect(offered).toContain(`${projects} its command line names it`);
      if (entry === 'my-memory') expect(offered).toContain(`${memoryDir} its setting MEMORY_FILE_PATH keeps ${join(memoryDir, 'memory.json')} there`);
      if (entry === 'github') {
        expect(offered).toContain('api.github.com its name says GitHub, whose API is here');
        expect(offered).toContain(`127.0.0.1:${apiPort} its setting API_URL points there`);
      }
      if (entry === 'github') await t.harness.screenshot('install-import-proposals');
      // Accepting is the person's act: one button, the profile summary changes before anything runs.
      const allowAll = proposals.getByRole('button', { name: 'Allow all of these' });
      if (await allowAll.count()) await allowAll.click();
      else await proposals.getByRole('button').first().click();
      await page.getByTestId('suggested-paths').waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
      await page.getByTestId('probe-report').waitFor({ timeout: 60_000 });
      await page.getByRole('button', { name: 'Continue' }).click();
      expect(await page.getByLabel('Name in Airlock').inputValue()).toBe(entry);
      await page.getByRole('button', { name: 'Enable' }).click();
      await page.getByTestId('server-detail').waitFor();
      await waitForText(page.getByTestId('server-badges'), 'Running');
    }

    expect(await tryTool('my-files', 'read_text_file', { path: join(projects, 'plan.md') })).toContain('the plan');
    const created = await t.host.calls.call({ server: 'my-memory', tool: 'create_entities', arguments: { entities: [{ name: 'Grace', entityType: 'person', observations: ['found a moth'] }] }, caller: { kind: 'user' } });
    expect(created.outcome).toBe('ok');
    expect(readFileSync(join(memoryDir, 'memory.json'), 'utf8')).toContain('"name":"Grace"');
    expect(await tryTool('github', 'whoami')).toContain('{"login":"octo"}');
    expect(apiSeen).toEqual(['/user Bearer s3cret-token']);
    // The token went to the secret store: the page never shows it.
    expect(await page.content()).not.toContain('s3cret-token');
  }, 300_000);

  it('made no request outside the app, and logged no error (no CSP violation)', () => {
    expect(t.harness.foreignRequests).toEqual([]);
    expect(t.consoleErrors).toEqual([]);
  });
});
