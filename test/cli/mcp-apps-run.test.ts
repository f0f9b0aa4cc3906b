/**
 * Nothing of MCP Apps is lost in transit: a client of `airlock run NAME`
 * sees each tool's `_meta` (its screen, `_meta.ui.resourceUri`) and reads
 * the screen's `ui://` resource back byte for byte — the same as a direct
 * client of the same published server (`server-basic-vanillajs`,
 * `server-basic-react`, run in the real sandbox) — and a server that offers
 * its screen only to a host that can show one (it checks the client's
 * `io.modelcontextprotocol/ui` capability) offers it through Airlock too.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airlockCli, BIN, REPO } from '../support/cli';

const VANILLA = join(REPO, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
const REACT = join(REPO, 'node_modules/@modelcontextprotocol/server-basic-react/dist/index.js');
const CAPABILITY = join(REPO, 'test/fixtures/screens/ui-capability.mjs');
const FIXTURE = join(REPO, 'test/fixtures/screens/screen-fixture.mjs');
/** A screen page with a terminal escape (ESC), a bell (BEL) and a right-to-left override (U+202E) in it. */
const CONTROL_PAGE = '<!doctype html><title>inert</title><p>\u001b[2J\u001b[31mred\u001b[0m ring\u0007 \u202eexe.txt</p>';
const UI_CAPABILITY = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };


const cli = airlockCli('airlock-mcp-apps-run-', { env: { XDG_CONFIG_HOME: '' }, timeout: 90_000 });
const { root, dataDir, home, run: airlock } = cli;

/** A client of the server itself, declaring what a screen-showing host declares. */
async function direct(argv: string[]): Promise<Client> {
  const client = new Client({ name: 'direct-host', version: '1.0.0' }, { capabilities: UI_CAPABILITY });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: argv, stderr: 'pipe', env: { ...process.env, HOME: home } as Record<string, string> }));
  return client;
}

/** A client of `airlock run NAME` over stdio, as another app's config entry runs it (by default one that shows screens). */
async function throughAirlock(name: string, capabilities: Record<string, unknown> = UI_CAPABILITY): Promise<Client> {
  const client = new Client({ name: 'host-behind-airlock', version: '1.0.0' }, { capabilities });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, '--data-dir', dataDir, 'run', name, '--no-terminal', '--client', 'Screen Host'], env: cli.env(), stderr: 'pipe' }),
  );
  return client;
}

beforeAll(() => {
  writeFileSync(join(root, 'controls.html'), CONTROL_PAGE);
  writeFileSync(join(root, 'apps.html'), '<!doctype html><title>apps</title><p>apps</p>');
  for (const [name, argv] of [
    ['vanilla', [VANILLA, '--stdio']],
    ['react', [REACT, '--stdio']],
    ['capability', [CAPABILITY]],
    ['controls', [FIXTURE, '--html', join(root, 'controls.html')]],
    ['apps', [FIXTURE, '--html', join(root, 'apps.html')]],
    ['apps2', [FIXTURE, '--html', join(root, 'apps.html')]],
  ] as const) {
    const added = airlock(['add', name, '--yes', '--', process.execPath, ...argv]);
    expect(added.code, added.err).toBe(0);
  }
}, 180_000);
afterAll(() => cli.remove());

describe.each([
  ['vanilla', VANILLA],
  ['react', REACT],
])('airlock run %s (a published MCP Apps server)', (name, script) => {
  it('gives each tool its _meta (the screen it names) and the screen’s HTML byte for byte, as the server itself does', async () => {
    const own = await direct([script, '--stdio']);
    const relayed = await throughAirlock(name);
    try {
      const ownTools = (await own.listTools()).tools;
      const relayedTools = (await relayed.listTools()).tools;
      expect(ownTools.length).toBeGreaterThan(0);
      for (const tool of ownTools) {
        const seen = relayedTools.find((candidate) => candidate.name === tool.name);
        expect(seen, tool.name).toBeDefined();
        expect(seen!._meta).toEqual(tool._meta);
      }
      const uri = (ownTools[0]!._meta as { ui: { resourceUri: string } }).ui.resourceUri;
      expect(uri).toMatch(/^ui:\/\//);
      const ownRead = await own.readResource({ uri });
      const relayedRead = await relayed.readResource({ uri });
      expect(relayedRead.contents).toHaveLength(ownRead.contents.length);
      const [mine, theirs] = [ownRead.contents[0] as { text: string; mimeType: string; uri: string }, relayedRead.contents[0] as { text: string; mimeType: string; uri: string }];
      expect(theirs.uri).toBe(mine.uri);
      expect(theirs.mimeType).toBe('text/html;profile=mcp-app');
      expect(theirs.text.length).toBeGreaterThan(10_000);
      expect(Buffer.from(theirs.text).equals(Buffer.from(mine.text))).toBe(true);
      expect(relayedRead.contents[0]).toEqual(ownRead.contents[0]);
    } finally {
      await relayed.close();
      await own.close();
    }
  }, 90_000);
});

describe('airlock gateway (several servers behind one)', () => {
  it('names each screen ui://airlock/SERVER/… in the tool’s _meta, and reads it back byte for byte', async () => {
    const own = await direct([VANILLA, '--stdio']);
    const gateway = new Client({ name: 'host-behind-gateway', version: '1.0.0' }, { capabilities: UI_CAPABILITY });
    await gateway.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, '--data-dir', dataDir, 'gateway', '--stdio', '--client', 'Screen Host'], env: cli.env(), stderr: 'pipe' }),
    );
    try {
      const tool = (await gateway.listTools()).tools.find((candidate) => candidate.name === 'vanilla__get-time');
      const meta = tool?._meta as { ui: { resourceUri: string }; 'ui/resourceUri': string };
      expect(meta.ui.resourceUri).toBe('ui://airlock/vanilla/get-time/mcp-app.html');
      expect(meta['ui/resourceUri']).toBe('ui://airlock/vanilla/get-time/mcp-app.html');
      const read = (await gateway.readResource({ uri: meta.ui.resourceUri })).contents[0] as { text: string; mimeType: string; uri: string };
      const mine = (await own.readResource({ uri: 'ui://get-time/mcp-app.html' })).contents[0] as { text: string };
      expect(read.uri).toBe('ui://airlock/vanilla/get-time/mcp-app.html');
      expect(read.mimeType).toBe('text/html;profile=mcp-app');
      expect(Buffer.from(read.text).equals(Buffer.from(mine.text))).toBe(true);
    } finally {
      await gateway.close();
      await own.close();
    }
  }, 90_000);
});

/** A client of `airlock gateway --stdio` (several servers behind one), by default one that shows screens. */
async function throughGateway(capabilities: Record<string, unknown> = UI_CAPABILITY): Promise<Client> {
  const client = new Client({ name: 'host-behind-gateway', version: '1.0.0' }, { capabilities });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, '--data-dir', dataDir, 'gateway', '--stdio', '--no-terminal', '--client', 'Screen Host'], env: cli.env(), stderr: 'pipe' }),
  );
  return client;
}

/** The JSON-RPC error a promise rejects with (or the value it resolved to, to fail the test with). */
async function refusal(pending: Promise<unknown>): Promise<{ code?: number; message?: string }> {
  return pending.then(
    (value) => ({ message: `resolved: ${JSON.stringify(value).slice(0, 300)}` }),
    (error: unknown) => error as { code: number; message: string },
  );
}

describe('a screen’s call through the gateway, by its own tool name', () => {
  it('reaches its server once the app read that server’s screen — never a server whose screen it did not read, never a guess between two', async () => {
    const gateway = await throughGateway();
    try {
      // Before any screen is read, a bare name is no tool at all.
      expect(await refusal(gateway.callTool({ name: 'app-count', arguments: {} }))).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: app-count') });
      // The app shows apps's screen (it reads it first), whose button calls app-count: it reaches apps.
      await gateway.readResource({ uri: 'ui://airlock/apps/fixture/screen.html' });
      const counted = await gateway.callTool({ name: 'app-count', arguments: {} });
      expect(counted.isError, JSON.stringify(counted)).toBeFalsy();
      expect((counted.content as Array<{ text: string }>)[0]!.text).toBe('count 1');
      // Only tools meant for screens: its model-only tool is not a screen's to call.
      expect(await refusal(gateway.callTool({ name: 'model-only', arguments: {} }))).toMatchObject({ code: -32602 });
      // A server whose screen this app never read is not reached by a bare name.
      expect(await refusal(gateway.callTool({ name: 'told-capabilities', arguments: {} }))).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: told-capabilities') });
      // The published server's screen button (get-time) through the gateway: decided by Airlock's policy for vanilla › get-time.
      await gateway.readResource({ uri: 'ui://airlock/vanilla/get-time/mcp-app.html' });
      const time = await gateway.callTool({ name: 'get-time', arguments: {} });
      expect(JSON.stringify(time)).toContain('vanilla › get-time');
      // Two servers whose screens were read offer app-count: which screen asked is not known, so neither is called.
      await gateway.readResource({ uri: 'ui://airlock/apps2/fixture/screen.html' });
      expect(await refusal(gateway.callTool({ name: 'app-count', arguments: {} }))).toMatchObject({
        code: -32602,
        message: expect.stringContaining('The screens of apps and apps2 were opened here and each offers a tool of that name; Airlock cannot tell which screen asked, so it calls none. Call it as apps__app-count or apps2__app-count.'),
      });
      const direct = await gateway.callTool({ name: 'apps2__app-count', arguments: {} });
      expect((direct.content as Array<{ text: string }>)[0]!.text).toBe('count 1');
    } finally {
      await gateway.close();
    }
    // Decided and recorded as this app's calls, like any other it makes.
    expect(airlock(['audit', '--json', '--server', 'apps', '--limit', '50']).out).toContain('Screen Host');
  }, 120_000);
});

describe('a client that shows no screens (it did not declare io.modelcontextprotocol/ui)', () => {
  it('through airlock run: is offered no screen-only tool and no screen, and the tools it gets name none', async () => {
    const plain = await throughAirlock('apps', {});
    const shows = await throughAirlock('apps');
    try {
      const tools = (await plain.listTools()).tools;
      expect(tools.map((tool) => tool.name).sort()).toEqual(['model-only', 'show-screen', 'wipe']);
      for (const tool of tools) expect(tool._meta, tool.name).toBeUndefined();
      expect((await plain.listResources()).resources.map((resource) => resource.uri)).toEqual([]);
      expect(await refusal(plain.readResource({ uri: 'ui://fixture/screen.html' }))).toMatchObject({ code: -32602, message: expect.stringContaining('this app did not say it can show screens') });
      expect(await refusal(plain.callTool({ name: 'app-count', arguments: {} }))).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: app-count') });
      // Control: an app that shows screens gets them all, as the server offers them.
      expect((await shows.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['app-count', 'model-only', 'show-screen', 'wipe']);
      expect((await shows.listTools()).tools.find((tool) => tool.name === 'show-screen')!._meta).toEqual({ ui: { resourceUri: 'ui://fixture/screen.html' } });
      expect((await shows.listResources()).resources.map((resource) => resource.uri)).toEqual(['ui://fixture/screen.html']);
    } finally {
      await plain.close();
      await shows.close();
    }
  }, 90_000);

  it('through airlock gateway: the same, for every server', async () => {
    const plain = await throughGateway({});
    try {
      const tools = (await plain.listTools()).tools;
      expect(tools.find((tool) => tool.name === 'vanilla__get-time')?._meta).toBeUndefined();
      expect(tools.some((tool) => tool.name === 'apps__app-count')).toBe(false);
      expect(tools.some((tool) => tool.name === 'apps__show-screen')).toBe(true);
      expect((await plain.listResources()).resources.filter((resource) => resource.uri.startsWith('ui://'))).toEqual([]);
      expect(await refusal(plain.readResource({ uri: 'ui://airlock/vanilla/get-time/mcp-app.html' }))).toMatchObject({ code: -32602 });
    } finally {
      await plain.close();
    }
  }, 90_000);
});

describe('the client’s io.modelcontextprotocol/ui capability', () => {
  it('reaches the server, which then offers its screen through Airlock as it does to a direct client', async () => {
    const own = await direct([CAPABILITY]);
    const relayed = await throughAirlock('capability');
    try {
      const ownTools = (await own.listTools()).tools;
      const relayedTools = (await relayed.listTools()).tools;
      expect(ownTools.map((tool) => tool.name)).toEqual(['told-capabilities', 'with-screen']);
      expect(relayedTools.map((tool) => tool.name)).toEqual(['told-capabilities', 'with-screen']);
      expect(relayedTools[1]!._meta).toEqual({ ui: { resourceUri: 'ui://capability/screen.html', visibility: ['model', 'app'] } });
      const told = await relayed.callTool({ name: 'told-capabilities', arguments: {} });
      const capabilities = JSON.parse((told.content as Array<{ text: string }>)[0]!.text) as typeof UI_CAPABILITY;
      expect(capabilities.extensions['io.modelcontextprotocol/ui']).toEqual({ mimeTypes: ['text/html;profile=mcp-app'] });
      // The resource's own _meta (the addresses the screen asks for) comes through unchanged.
      const read = await relayed.readResource({ uri: 'ui://capability/screen.html' });
      expect(read.contents[0]).toEqual((await own.readResource({ uri: 'ui://capability/screen.html' })).contents[0]);
      expect(read.contents[0]!._meta).toEqual({ ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } });
    } finally {
      await relayed.close();
      await own.close();
    }
  }, 90_000);
});

describe('airlock add (a server with a screen that asks for an address)', () => {
  it('says the inspected screen is approved by saving it, and allows its asks only with --allow-screen', () => {
    const plain = airlock(['add', 'asks-plain', '--yes', '--', process.execPath, CAPABILITY]);
    expect(plain.code, plain.err).toBe(0);
    // The commit approves the screen it read: the inspection says so, not that it waits for approval.
    expect(plain.out).toContain('ui://capability/screen.html  for with-screen\n      read now; saving the server approves it as it is');
    expect(plain.out).not.toContain('NEW — not shown until you approve it');
    expect(plain.out).toContain('asks to connect to https://api.example.com: refused');
    expect(plain.out).toContain('allow it with --allow-screen ADDRESS-OR-PERMISSION on this command, or later with `airlock screens asks-plain --allow …`');
    expect(JSON.parse(airlock(['show', 'asks-plain', '--json']).out).screens.screens[0]).toMatchObject({ state: 'approved', allowed: { connect: [] } });

    const allowed = airlock(['add', 'asks-allowed', '--yes', '--allow-screen', 'https://api.example.com', '--', process.execPath, CAPABILITY]);
    expect(allowed.code, allowed.err).toBe(0);
    expect(allowed.out).toContain('asks to connect to https://api.example.com: allowed');
    const shown = JSON.parse(airlock(['show', 'asks-allowed', '--json']).out).screens;
    expect(shown.allowed.connect).toEqual(['https://api.example.com']);
    expect(shown.screens[0]).toMatchObject({ state: 'approved', allowed: { connect: ['https://api.example.com'] } });
    // Recorded with the server's other grants, as the person's decision at install.
    expect(airlock(['audit', '--json', '--server', 'asks-allowed', '--limit', '20']).out).toContain('screens may connect to https://api.example.com');

    // An address no screen asks for is a mistake said plainly, and nothing is saved.
    const typo = airlock(['add', 'asks-typo', '--yes', '--allow-screen', 'https://api.example.org', '--', process.execPath, CAPABILITY]);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('No screen of asks-typo asks for https://api.example.org. Its screens ask for: https://api.example.com. Nothing was saved.');
    expect(airlock(['show', 'asks-typo']).code).not.toBe(0);
    const blind = airlock(['add', 'asks-blind', '--yes', '--no-probe', '--allow-screen', 'https://api.example.com', '--', process.execPath, CAPABILITY]);
    expect(blind.code).toBe(2);
    expect(blind.err).toContain('--allow-screen needs the inspection');
  }, 120_000);
});

describe('airlock show | read | screens (the person’s view of a server’s screens)', () => {
  it('show lists the tools with screens and what each asks for; read prints the screen’s page inert', () => {
    const shown = airlock(['show', 'vanilla']);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain('Screens (1)');
    expect(shown.out).toContain('ui://get-time/mcp-app.html  for get-time');
    expect(shown.out).toContain('asks for no addresses and no permissions (no network)');
    expect(shown.out).toMatch(/page sha256 [0-9a-f]{64}, \d+ bytes/);
    const json = JSON.parse(airlock(['show', 'vanilla', '--json']).out) as { screens: { screens: Array<{ state: string; tools: string[] }> } };
    expect(json.screens.screens[0]).toMatchObject({ state: 'approved', tools: ['get-time'] });
    const read = airlock(['read', 'vanilla', 'ui://get-time/mcp-app.html']);
    expect(read.code, read.err).toBe(0);
    expect(read.out).toContain('(text/html;profile=mcp-app)');
    expect(read.out).toContain('<button id="get-time-btn">Get Server Time</button>');
  });

  it('read prints a page’s terminal escapes, bells and bidi overrides as visible text, never as themselves', () => {
    const read = airlock(['read', 'controls', 'ui://fixture/screen.html']);
    expect(read.code, read.err).toBe(0);
    // The page really holds them (the server sent them): each is shown as its code, and none reaches the terminal.
    expect(read.out).toContain('\\u{1b}[2J\\u{1b}[31mred\\u{1b}[0m ring\\u{7} \\u{202e}exe.txt');
    expect(read.out).not.toContain('\u001b');
    expect(read.out).not.toContain('\u0007');
    expect(read.out).not.toContain('\u202e');
    const json = JSON.parse(airlock(['read', 'controls', 'ui://fixture/screen.html', '--json']).out) as { contents: Array<{ text: string }> };
    expect(json.contents[0]!.text).toBe(CONTROL_PAGE);
  });

  it('screens discloses an asked-for address as refused, and allows it only when told to (a recorded grant)', () => {
    const before = airlock(['screens', 'capability']);
    expect(before.out).toContain('asks to connect to https://api.example.com: refused');
    const allowed = airlock(['screens', 'capability', '--allow', 'https://api.example.com']);
    expect(allowed.code, allowed.err).toBe(0);
    expect(allowed.out).toContain('asks to connect to https://api.example.com: allowed');
    const bad = airlock(['screens', 'capability', '--allow', "https://x.example.com; script-src 'unsafe-eval'"]);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/not a web address Airlock can allow exactly/);
    const audit = airlock(['audit', '--json', '--server', 'capability', '--limit', '20']).out;
    expect(audit).toContain('screens may connect to https://api.example.com');
  });
});
