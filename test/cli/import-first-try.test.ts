/**
 * A Claude Desktop or VS Code user's first import and first app connection,
 * with the built CLI — as a script runs it, and in a real terminal (tmux)
 * where it asks — on configs written the way those apps write them, with the
 * published servers behind `npx -y`:
 * - what was found is shown first; every question names its entry; a name
 *   already taken by another server is asked for, never silently changed;
 *   inspections run several at a time, each announced;
 * - servers already in Airlock are recognised (not copied as `memory-2`),
 *   Airlock's own entry is never imported, and `connect --move` after an
 *   import leaves the app's config pointing only at Airlock;
 * - VS Code: `${input:…}` becomes a secret to enter (typed unseen, or listed to
 *   set), `${workspaceFolder}` is the folder of the `.vscode/mcp.json` itself or
 *   `--workspace`, and the summary counts every entry with why.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TmuxSession } from '../support/tmux';
import { airlockCli, BIN, REPO } from '../support/cli';
import { startTokenApi, type TokenApi } from '../support/token-api';

const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const ECHO = join(REPO, 'test/fixtures/servers/echo.mjs');
const API_CLIENT = join(REPO, 'test/fixtures/servers/api-client.mjs');

let api: TokenApi;
let apiPort: number;
const sessions: TmuxSession[] = [];
/** What the stand-in API saw (it runs in its own process: the CLI runs synchronously here). */
const apiSeen = () => api.seen();


const cli = airlockCli('airlock-import-first-', { env: { XDG_CONFIG_HOME: '', NO_COLOR: '1' }, timeout: 300_000 });
const { root, dataDir, home, run: airlock } = cli;

function inTerminal(args: string[]): TmuxSession {
  const session = TmuxSession.start([process.execPath, BIN, '--data-dir', dataDir, ...args], { HOME: home, XDG_CONFIG_HOME: '', NO_COLOR: '1' });
  sessions.push(session);
  return session;
}

const names = () => (JSON.parse(airlock(['list', '--json']).out) as Array<{ name: string }>).map((server) => server.name).sort();
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

beforeAll(async () => {
  api = await startTokenApi(join(root, 'api-seen.log'));
  apiPort = api.port;
});
afterAll(() => {
  for (const session of sessions) session.close();
  api.stop();
  cli.remove();
});

describe('a Claude Desktop user: import, import again, then connect --move', () => {
  let config: string;
  let notes: string;
  let gatewayEntry: { command: string; args: string[] };

  beforeAll(() => {
    notes = join(home, 'notes');
    mkdirSync(notes);
    mkdirSync(join(home, '.config/Claude'), { recursive: true });
    config = join(home, '.config/Claude/claude_desktop_config.json');
    // An earlier `airlock connect claude` left Airlock's own entry beside the app's servers.
    gatewayEntry = { command: process.execPath, args: [BIN, '--data-dir', dataDir, 'gateway', '--stdio', '--client', 'Claude Desktop'] };
    writeFileSync(
      config,
      `${JSON.stringify(
        {
          mcpServers: {
            filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', notes] },
            memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
            airlock: gatewayEntry,
          },
        },
        null,
        2,
      )}\n`,
    );
  });

  it('import: what was found first, Airlock’s own entry left alone, the two servers pinned from npm', () => {
    const { code, out, err } = airlock(['import', 'claude', '--yes']);
    expect(code, err).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines.slice(0, 4)).toEqual([
      `${config} (Claude Desktop): 3 servers`,
      `  filesystem       npx -y @modelcontextprotocol/server-filesystem ${notes}`,
      '  memory           npx -y @modelcontextprotocol/server-memory',
      "  airlock          – Airlock's own entry (its gateway), not a server to import: left as it is",
    ]);
    expect(lines[4]).toBe(`✓ filesystem       added, turned off · write ${notes} · network none · 14 tools — \`airlock show filesystem\``);
    expect(lines[5]).toMatch(/^✓ memory {11}added, turned off · reads none of your home folder · write nowhere that lasts · network none · \d+ tools — `airlock show memory`$/);
    expect(lines.slice(6).join('\n')).toBe("\nImported 2 server(s), turned off; 1 left as it is (airlock: Airlock's own entry). Review each with `airlock show NAME`, then `airlock start NAME`.");
    expect(names()).toEqual(['filesystem', 'memory']);
  }, 300_000);

  it('import again: each recognised as the server it already is, none copied', () => {
    const { code, out } = airlock(['import', 'claude', '--yes']);
    expect(code).toBe(0);
    expect(out).toContain(`  filesystem       = already in Airlock as filesystem — the same npm package, @modelcontextprotocol/server-filesystem, with the same arguments; not imported again`);
    expect(out).toContain('  memory           = already in Airlock as memory — the same npm package, @modelcontextprotocol/server-memory, with the same arguments; not imported again');
    expect(out.trim().split('\n').at(-1)).toBe("Imported nothing new; 2 already in Airlock (filesystem, memory); 1 left as it is (airlock: Airlock's own entry).");
    expect(names()).toEqual(['filesystem', 'memory']);
  }, 300_000);

  it('connect claude --move: succeeds, moves the servers Airlock has out of the app, imports nothing again, and the app runs only Airlock', () => {
    const { code, out, err } = airlock(['connect', 'claude', '--move', '--yes']);
    expect(code, err).toBe(0);
    expect(out).toContain('Moved out of Claude Desktop: filesystem, memory');
    const written = JSON.parse(readFileSync(config, 'utf8')) as { mcpServers: Record<string, { args: string[] }> };
    expect(Object.keys(written.mcpServers)).toEqual(['airlock']);
    expect(written.mcpServers.airlock!.args).toEqual(gatewayEntry.args);
    expect(names()).toEqual(['filesystem', 'memory']);
  }, 300_000);
});

describe('import in a terminal: an overview, a question per entry naming it, a taken name asked for, inspections side by side', () => {
  it('shows what it found before asking, asks for a new name instead of renaming, and inspects three at once', async () => {
    const dir = join(root, 'desk');
    const store = join(root, 'desk-memory');
    const docs = join(root, 'desk-docs');
    for (const folder of [dir, store, docs]) mkdirSync(folder);
    const file = join(dir, 'claude_desktop_config.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          // Not the `memory` Airlock has: this one keeps its graph elsewhere.
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: join(store, 'memory.json') } },
          echo: { command: process.execPath, args: [ECHO] },
          docs: { command: process.execPath, args: [FS_SERVER, docs] },
        },
      }),
    );
    // A server called memory that is not this one (the Claude Desktop import above made it; alone, this test makes one).
    if (!names().includes('memory')) expect(airlock(['add', 'memory', '--yes', '--no-probe', '--disabled', '--', process.execPath, FS_SERVER, root]).code).toBe(0);
    const terminal = inTerminal(['import', file]);
    // The overview is on the screen before the first question.
    const first = await terminal.waitFor(/memory: a different server is already called memory in Airlock\. Its name in Airlock \[memory-2\]: $/);
    const before = terminal.text().slice(0, first.index);
    expect(before).toMatch(new RegExp(`${escape(file)} \\(Claude Desktop\\): 3 servers\\n  memory +npx -y @modelcontextprotocol/server-memory\\n  echo +${escape(process.execPath)} ${escape(ECHO)}\\n  docs +`));
    terminal.typeLine('desk-memory');
    await terminal.waitFor(new RegExp(`Import memory as desk-memory \\(turned off\\) with: write ${escape(store)} · network none, after inspecting it in a locked sandbox \\(no network, no writes, no secrets\\)\\? \\[y/N\\] $`));
    terminal.typeLine('y');
    await terminal.waitFor(/Import echo \(turned off\) with: reads none of your home folder · write nowhere that lasts · network none, after inspecting it in a locked sandbox \(no network, no writes, no secrets\)\? \[y\/N\] $/);
    terminal.typeLine('y');
    await terminal.waitFor(new RegExp(`Import docs \\(turned off\\) with: write ${escape(docs)} · network none, after inspecting it .*\\? \\[y/N\\] $`));
    terminal.typeLine('y');
    await terminal.waitFor(/Imported 3 server\(s\), turned off\. Review each/);
    expect(await terminal.exitCode()).toBe(0);
    const screen = terminal.text();
    // All three inspections were under way before the first result: side by side, not one after another.
    const firstResult = screen.indexOf('✓ ');
    expect(screen.indexOf('Inspecting 3 server(s) in a locked sandbox, 3 at a time:')).toBeGreaterThan(-1);
    for (const entry of ['memory: installing @modelcontextprotocol/server-memory@', 'echo: inspecting it…', 'docs: inspecting it…']) {
      const at = screen.indexOf(`  ${entry}`);
      expect(at, entry).toBeGreaterThan(-1);
      expect(at, entry).toBeLessThan(firstResult);
    }
    expect(screen).toMatch(/✓ desk-memory {6}added, turned off/);
    expect(names()).toEqual(expect.arrayContaining(['desk-memory', 'docs', 'echo', 'memory']));
    expect(names()).not.toContain('memory-2');
  }, 300_000);
});

describe('a VS Code user: inputs, the workspace folder, honest counts', () => {
  let workspace: string;
  let mcpJson: string;

  beforeAll(() => {
    workspace = join(root, 'project');
    mkdirSync(join(workspace, '.vscode'), { recursive: true });
    mcpJson = join(workspace, '.vscode/mcp.json');
    writeFileSync(
      mcpJson,
      `{
  // VS Code asks for these when it starts a server.
  "inputs": [{ "type": "promptString", "id": "api-token", "description": "The service's API token", "password": true }],
  "servers": {
    "project-files": { "type": "stdio", "command": "${process.execPath}", "args": ["${FS_SERVER}", "\${workspaceFolder}"] },
    "octo": { "command": "${process.execPath}", "args": ["${API_CLIENT}"], "env": { "API_TOKEN": "\${input:api-token}", "API_URL": "http://127.0.0.1:${apiPort}" } },
    "from-env": { "command": "${process.execPath}", "args": ["\${env:HOME}/server.js"] },
  },
}`,
    );
  });

  it('its own .vscode/mcp.json: ${workspaceFolder} is that folder, the input is a secret listed to set, the count says what was not imported and why', () => {
    const { code, out, err } = airlock(['import', mcpJson, '--yes']);
    expect(code, err).toBe(0);
    expect(out).toContain(`${mcpJson} (VS Code): 3 servers · \${workspaceFolder} is ${workspace}`);
    expect(out).toContain(`✓ project-files    added, turned off · write ${workspace} · network none · 14 tools`);
    expect(out).toContain(
      `✓ octo             added, turned off · reads none of your home folder · write nowhere that lasts · network 127.0.0.1:${apiPort} · 1 tools · set API_TOKEN before starting it: \`API_TOKEN=… airlock grant octo --secret API_TOKEN\` — \`airlock show octo\``,
    );
    expect(out).toMatch(/ {2}from-env {9}– not imported: not supported yet — args\[0\] reads \$\{env:HOME\} from the environment of the app/);
    expect(out.trim().split('\n').at(-1)).toBe('Imported 2 server(s), turned off; 1 not imported (from-env: not supported yet). Review each with `airlock show NAME`, then `airlock start NAME`.');
    // The secret it asked for, set as it says: the server then reaches its API with it.
    expect(airlock(['grant', 'octo', '--secret', 'API_TOKEN', '--yes'], { API_TOKEN: 's3cret-token' }).code).toBe(0);
    expect(airlock(['start', 'octo']).code).toBe(0);
    expect(airlock(['call', 'octo', 'whoami'])).toMatchObject({ code: 0, out: '{"login":"octo"}\n' });
    expect(apiSeen()).toEqual(['GET /user Bearer s3cret-token']);
  }, 300_000);

  it('a user-level mcp.json: ${workspaceFolder} needs --workspace (said so), then imports', () => {
    const other = join(root, 'other-project');
    mkdirSync(other);
    mkdirSync(join(home, '.config/Code/User'), { recursive: true });
    writeFileSync(join(home, '.config/Code/User/mcp.json'), JSON.stringify({ servers: { 'other-files': { command: process.execPath, args: [FS_SERVER, '${workspaceFolder}'] } } }));
    const without = airlock(['import', 'vscode', '--yes']);
    expect(without.code).toBe(0);
    expect(without.out).toContain('  other-files      – not imported: not supported yet — args[1] uses ${workspaceFolder}, and no workspace folder was given: say which folder it is (`airlock import --workspace FOLDER`)');
    expect(without.out.trim().split('\n').at(-1)).toBe('Imported nothing new; 1 not imported (other-files: no workspace folder was given).');
    const withIt = airlock(['import', 'vscode', '--yes', '--workspace', other]);
    expect(withIt.code, withIt.err).toBe(0);
    expect(withIt.out).toContain(`✓ other-files      added, turned off · write ${other} · network none · 14 tools`);
  }, 300_000);

  it('in a terminal the folder ${workspaceFolder} stands for is asked for, then the entry imports with it', async () => {
    const folder = join(root, 'asked-project');
    mkdirSync(folder);
    const file = join(root, 'team-mcp.json');
    writeFileSync(file, JSON.stringify({ servers: { 'team-files': { command: process.execPath, args: [FS_SERVER, '${workspaceFolder}'] } } }));
    const terminal = inTerminal(['import', file]);
    await terminal.waitFor(new RegExp(`team-files in ${escape(file)} uses \\$\\{workspaceFolder\\}: which folder is it\\? Type its path, or press Enter to leave it out: $`));
    terminal.typeLine(folder);
    await terminal.waitFor(new RegExp(`${escape(file)} \\(VS Code\\): 1 server · \\$\\{workspaceFolder\\} is ${escape(folder)}`));
    await terminal.waitFor(new RegExp(`Import team-files \\(turned off\\) with: write ${escape(folder)} · network none, .*\\? \\[y/N\\] $`));
    terminal.typeLine('y');
    await terminal.waitFor(/Imported 1 server\(s\), turned off\./);
    expect(await terminal.exitCode()).toBe(0);
  }, 300_000);

  it('in a terminal the secret is asked for, typed unseen, and kept for the server', async () => {
    const file = join(root, 'octo-mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'api-token', description: "The service's API token", password: true }],
        servers: { octo2: { command: process.execPath, args: [API_CLIENT], env: { API_TOKEN: '${input:api-token}', API_URL: `http://127.0.0.1:${apiPort}`, API_ORG: 'two' } } },
      }),
    );
    const terminal = inTerminal(['import', file]);
    await terminal.waitFor(/octo2 asks for the secret API_TOKEN \(The service's API token\)\. Type it \(it is not shown\), or press Enter to set it later: $/);
    terminal.typeLine('s3cret-token');
    await terminal.waitFor(/Import octo2 \(turned off\) with: .* · secrets API_TOKEN, after inspecting it .*\? \[y\/N\] $/);
    terminal.typeLine('y');
    await terminal.waitFor(/Imported 1 server\(s\), turned off\./);
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.text()).not.toContain('s3cret-token');
    expect(airlock(['start', 'octo2']).code).toBe(0);
    expect(airlock(['call', 'octo2', 'whoami'])).toMatchObject({ code: 0, out: '{"login":"octo"}\n' });
  }, 300_000);
});
