/**
 * `airlock connect` as a library, on config files in a temporary home:
 * each app's file gains the gateway entry with the rest kept byte for byte,
 * the original is backed up and comes back with undo, and a file Airlock
 * cannot read is refused and left alone.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appConfigPath, connectApp, previewConnect, undoConnect, type ConnectApp } from '../../../electron/core/connect/connect-app';
import { parseJsonc } from '../../../electron/core/install/jsonc';

let home: string;
let tick: number;
const env = () => ({ home, platform: 'linux' as const, env: {}, now: () => new Date(Date.UTC(2026, 11, 2, 12, 0, 0, tick++)) });

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'airlock-connect-'));
  tick = 0;
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function place(app: ConnectApp, text: string): Promise<string> {
  const path = appConfigPath(app, env());
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

const CLAUDE = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]
    },
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_TOKEN": "ghp_secret" }
    }
  }
}
`;

const VSCODE = `// My MCP servers
{
  "inputs": [
    { "type": "promptString", "id": "key", "description": "API key", "password": true },
  ],
  "servers": {
    /* the memory server */
    "memory": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-memory"], // pinned later
    }, // keep this comment
  },
}
`;

describe('paths', () => {
  it.each([
    ['claude', 'linux', '/h/.config/Claude/claude_desktop_config.json'],
    ['claude', 'darwin', '/h/Library/Application Support/Claude/claude_desktop_config.json'],
    ['vscode', 'linux', '/h/.config/Code/User/mcp.json'],
    ['vscode', 'darwin', '/h/Library/Application Support/Code/User/mcp.json'],
    ['cursor', 'linux', '/h/.cursor/mcp.json'],
  ] as const)('%s on %s', (app, platform, path) => {
    expect(appConfigPath(app, { home: '/h', platform, env: {} })).toBe(path);
  });

  it('uses %APPDATA% on Windows', () => {
    expect(appConfigPath('claude', { home: 'C:\\Users\\me', platform: 'win32', env: { APPDATA: 'C:\\Users\\me\\AppData\\Roaming' } })).toBe(
      'C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    );
    expect(appConfigPath('vscode', { home: 'C:\\Users\\me', platform: 'win32', env: { APPDATA: 'C:\\R' } })).toBe('C:\\R\\Code\\User\\mcp.json');
  });
});

describe('connect and undo', () => {
  it('Claude Desktop: adds the entry, keeps every other byte, backs up, lists the other servers, undoes', async () => {
    const path = await place('claude', CLAUDE);
    const preview = await previewConnect('claude', env());
    expect(preview).toMatchObject({ exists: true, connected: false });
    expect(preview.otherServers.map((s) => s.name)).toEqual(['filesystem', 'github']);

    const result = await connectApp('claude', env());
    expect(result).toMatchObject({ changed: true, formatting: 'preserved', removedServers: [] });
    const after = await readFile(path, 'utf8');
    expect(after).toBe(CLAUDE.replace(`"env": { "GITHUB_TOKEN": "ghp_secret" }\n    }\n`, `"env": { "GITHUB_TOKEN": "ghp_secret" }\n    },\n    "airlock": {\n      "command": "airlock",\n      "args": [\n        "gateway",\n        "--stdio"\n      ]\n    }\n`));
    expect(JSON.parse(after).mcpServers.airlock).toEqual({ command: 'airlock', args: ['gateway', '--stdio'] });
    expect(await readFile(result.backupPath!, 'utf8')).toBe(CLAUDE);
    expect((await stat(result.backupPath!)).mode & 0o777).toBe(0o600);

    // Connecting again changes nothing and makes no second backup.
    const again = await connectApp('claude', env());
    expect(again.changed).toBe(false);
    expect((await previewConnect('claude', env())).connected).toBe(true);

    const undone = await undoConnect('claude', env());
    expect(undone.restoredFrom).toBe(result.backupPath);
    expect(await readFile(path, 'utf8')).toBe(CLAUDE);
    await expect(undoConnect('claude', env())).rejects.toThrow(/nothing to undo/);
  });

  it('VS Code: tolerates JSONC, writes the stdio form under "servers", keeps comments and trailing commas', async () => {
    const path = await place('vscode', VSCODE);
    const result = await connectApp('vscode', env());
    expect(result.formatting).toBe('preserved');
    const after = await readFile(path, 'utf8');
    const config = parseJsonc(after) as { servers: Record<string, unknown>; inputs: unknown[] };
    expect(config.servers.airlock).toEqual({ type: 'stdio', command: 'airlock', args: ['gateway', '--stdio'] });
    expect(Object.keys(config.servers)).toEqual(['memory', 'airlock']);
    for (const comment of ['// My MCP servers', '/* the memory server */', '// pinned later', '}, // keep this comment']) expect(after).toContain(comment);
    // Only an insertion: removing the new lines gives the original back.
    const inserted = after.replace(/\n    "airlock": \{\n(?:.*\n)*?    \},/, '');
    expect(inserted).toBe(VSCODE);
    await undoConnect('vscode', env());
    expect(await readFile(path, 'utf8')).toBe(VSCODE);
  });

  it('Cursor: creates the file when the app has none, and undo removes it again', async () => {
    await mkdir(join(home, '.cursor'));
    const path = appConfigPath('cursor', env());
    const result = await connectApp('cursor', env());
    expect(result).toMatchObject({ changed: true, exists: false, formatting: 'new-file' });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ mcpServers: { airlock: { command: 'airlock', args: ['gateway', '--stdio'] } } });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const undone = await undoConnect('cursor', env());
    expect(undone.removedFile).toBe(true);
    await expect(stat(path)).rejects.toThrow();
  });

  it('refuses when the app’s folder is missing (not installed)', async () => {
    await expect(connectApp('cursor', env())).rejects.toThrow(/is Cursor installed/);
  });

  it('adds "mcpServers" to a config that has none, and updates a stale entry in place', async () => {
    const path = await place('claude', '{\n  "theme": "dark"\n}\n');
    await connectApp('claude', env());
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ theme: 'dark', mcpServers: { airlock: { command: 'airlock', args: ['gateway', '--stdio'] } } });
    const updated = await connectApp('claude', { ...env(), command: '/opt/airlock/bin/airlock', args: ['gateway', '--stdio', '--servers', 'fs'] });
    expect(updated.changed).toBe(true);
    expect(JSON.parse(await readFile(path, 'utf8')).mcpServers.airlock).toEqual({ command: '/opt/airlock/bin/airlock', args: ['gateway', '--stdio', '--servers', 'fs'] });
    // Two connects, two backups: undo steps back one at a time.
    await undoConnect('claude', env());
    expect(JSON.parse(await readFile(path, 'utf8')).mcpServers.airlock.command).toBe('airlock');
    await undoConnect('claude', env());
    expect(await readFile(path, 'utf8')).toBe('{\n  "theme": "dark"\n}\n');
  });

  it('moves the app’s servers out only when asked, keeping the rest', async () => {
    const path = await place('claude', CLAUDE);
    const some = await connectApp('claude', { ...env(), moveServers: ['github'] });
    expect(some).toMatchObject({ formatting: 'servers-block-rewritten', removedServers: ['github'] });
    const config = JSON.parse(await readFile(path, 'utf8'));
    expect(Object.keys(config.mcpServers)).toEqual(['filesystem', 'airlock']);
    expect(config.globalShortcut).toBe('Ctrl+Space');
    expect(await readFile(path, 'utf8')).toContain('"args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]');
    await connectApp('claude', { ...env(), moveServers: true });
    expect(Object.keys(JSON.parse(await readFile(path, 'utf8')).mcpServers)).toEqual(['airlock']);
    await expect(connectApp('claude', { ...env(), moveServers: ['nope'] })).rejects.toThrow(/no server “nope”/);
    await undoConnect('claude', env());
    await undoConnect('claude', env());
    expect(await readFile(path, 'utf8')).toBe(CLAUDE);
  });

  it('keeps what changed after connecting when undoing', async () => {
    const path = await place('cursor', '{"mcpServers": {}}');
    await connectApp('cursor', env());
    expect(await readFile(path, 'utf8')).toBe('{"mcpServers": { "airlock": {"command":"airlock","args":["gateway","--stdio"]} }}');
    await writeFile(path, '{"mcpServers": {"later": {"command": "x"}}}');
    const undone = await undoConnect('cursor', env());
    expect(await readFile(undone.savedCurrentAs!, 'utf8')).toBe('{"mcpServers": {"later": {"command": "x"}}}');
    expect(await readFile(path, 'utf8')).toBe('{"mcpServers": {}}');
  });

  it('keeps Windows line endings and a byte-order mark', async () => {
    const original = '\uFEFF{\r\n  "mcpServers": {\r\n    "a": { "command": "x" }\r\n  }\r\n}\r\n';
    const path = await place('claude', original);
    await connectApp('claude', env());
    const after = await readFile(path, 'utf8');
    expect(after.startsWith('\uFEFF{\r\n')).toBe(true);
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
    expect(JSON.parse(after.slice(1)).mcpServers).toEqual({ a: { command: 'x' }, airlock: { command: 'airlock', args: ['gateway', '--stdio'] } });
  });

  it('edits a linked config where it lives and keeps the link', async () => {
    const real = join(home, 'dotfiles', 'mcp.json');
    await mkdir(dirname(real), { recursive: true });
    await writeFile(real, '{ "mcpServers": {} }\n');
    await mkdir(join(home, '.cursor'));
    await symlink(real, appConfigPath('cursor', env()));
    await connectApp('cursor', env());
    expect(JSON.parse(await readFile(real, 'utf8')).mcpServers.airlock).toBeDefined();
    expect((await readdir(join(home, '.cursor')))).toEqual(['mcp.json']);
  });
});

describe('refusals: nothing is written', () => {
  it.each([
    ['claude', '{ "mcpServers": { "a": { "command": "x" } ', /not valid JSON \(line/],
    ['claude', '[1, 2]', /must hold a JSON object/],
    ['cursor', '{ "mcpServers": ["x"] }', /must be an object of named servers/],
    ['cursor', '{ "mcpServers": {}, "mcpServers": {} }', /twice/],
    ['vscode', '{ "servers": { "a": {}, "a": {} } }', /lists the server “a” twice/],
  ] as const)('%s: %s', async (app, text, message) => {
    const path = await place(app, text);
    await expect(connectApp(app, env())).rejects.toThrow(message);
    expect(await readFile(path, 'utf8')).toBe(text);
    expect((await readdir(dirname(path))).filter((name) => name.includes('airlock'))).toEqual([]);
  });
});
