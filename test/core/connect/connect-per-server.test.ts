/**
 * `airlock connect --move --per-server` as a library: each moved entry is
 * replaced in place, under its own name, by `airlock run NAME`, so the app
 * keeps a switch per server; every other byte of the file stays, the
 * original is backed up and comes back with undo.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appConfigPath, connectApp, undoConnect, type ConnectApp } from '../../../electron/core/connect/connect-app';
import { parseJsonc } from '../../../electron/core/install/jsonc';

let home: string;
let tick: number;
const env = () => ({ home, platform: 'linux' as const, env: {}, now: () => new Date(Date.UTC(2026, 11, 2, 12, 0, 0, tick++)) });

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'airlock-connect-per-server-'));
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

const run = (name: string) => ({ command: '/usr/bin/node', args: ['/opt/airlock/bin/airlock.js', 'run', name, '--client', 'Claude Desktop'] });

describe('connectApp with perServerEntries', () => {
  it('replaces only the named entries, in place, keeping every other byte', async () => {
    const original = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"] },
    "github": { "command": "docker", "args": ["run", "ghcr.io/github/github-mcp-server"] }
  }
}
`;
    const path = await place('claude', original);
    const result = await connectApp('claude', { ...env(), perServerEntries: { filesystem: run('filesystem') } });
    expect(result).toMatchObject({ changed: true, replacedServers: ['filesystem'], removedServers: [] });
    const text = await readFile(path, 'utf8');
    const parsed = JSON.parse(text);
    expect(parsed.mcpServers.filesystem).toEqual(run('filesystem'));
    expect(parsed.mcpServers.github).toEqual({ command: 'docker', args: ['run', 'ghcr.io/github/github-mcp-server'] });
    expect(parsed.mcpServers.airlock).toBeUndefined();
    // Outside the replaced value, the file is the same text.
    const start = original.indexOf('{ "command": "npx"');
    const end = original.indexOf('},', start) + 1;
    expect(text.slice(0, start)).toBe(original.slice(0, start));
    expect(text.slice(text.length - (original.length - end))).toBe(original.slice(end));
    expect((await undoConnect('claude', env())).restoredFrom).toBe(result.backupPath);
    expect(await readFile(path, 'utf8')).toBe(original);
  });

  it('keeps VS Code’s comments and gives the entry its type', async () => {
    const original = `{
  // my servers
  "servers": {
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }, // keep this note
  },
}
`;
    const path = await place('vscode', original);
    await connectApp('vscode', { ...env(), perServerEntries: { memory: run('memory') } });
    const text = await readFile(path, 'utf8');
    expect(text).toContain('// my servers');
    expect(text).toContain('// keep this note');
    expect((parseJsonc(text) as { servers: Record<string, unknown> }).servers.memory).toEqual({ type: 'stdio', ...run('memory') });
  });

  it('refuses an entry the file does not have, writing nothing', async () => {
    const original = '{ "mcpServers": { "a": { "command": "x" } } }\n';
    const path = await place('claude', original);
    await expect(connectApp('claude', { ...env(), perServerEntries: { b: run('b') } })).rejects.toThrow(/has no server “b” to replace; nothing was written/);
    expect(await readFile(path, 'utf8')).toBe(original);
  });

  it('running it again changes nothing and makes no backup', async () => {
    await place('claude', '{ "mcpServers": { "a": { "command": "x" } } }\n');
    expect((await connectApp('claude', { ...env(), perServerEntries: { a: run('a') } })).changed).toBe(true);
    const again = await connectApp('claude', { ...env(), perServerEntries: { a: run('a') } });
    expect(again.changed).toBe(false);
    expect(again.backupPath).toBeUndefined();
  });
});
