/**
 * Which entries of another app's config Airlock already has, and which are
 * Airlock's own: tables, without mocks, over the real readers.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../../shared/domain';
import { defaultSandboxProfile } from '../../../shared/domain';
import { airlockEntryKind } from '../../../electron/core/install/airlock-entries';
import { importConfigFile } from '../../../electron/core/install/config-import';
import { existingServerFor } from '../../../electron/core/install/import-matching';
import { packageRunnerLine } from '../../../electron/core/install/package-runners';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'airlock-matching-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function npmRecord(name: string, pkg: string, userArgs: string[], env: Record<string, string> = {}, importedFrom?: ServerRecord['importedFrom']): ServerRecord {
  const installDir = `/data/servers/${name}`;
  return {
    name,
    spec: { command: '/usr/bin/node', args: [`${installDir}/node_modules/${pkg}/dist/index.js`, ...userArgs], env, cwd: installDir },
    provenance: { kind: 'npm', name: pkg, version: '1.0.0', integrity: 'sha512-x', installDir },
    ...(importedFrom ? { importedFrom } : {}),
    profile: defaultSandboxProfile(),
    trusted: false,
    enabled: false,
    approvedTools: {},
    createdAt: '2026-12-05T00:00:00.000Z',
  };
}

async function entries(servers: Record<string, unknown>) {
  const path = join(work, `c-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify({ mcpServers: servers }));
  return { path, entries: (await importConfigFile(path, { home: work, pathEnv: '/usr/bin:/bin', platform: 'linux' })).entries };
}

describe('servers Airlock already has', () => {
  it.each([
    ['the same package and arguments', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/notes'] }, 'files'],
    ['a version range on the same package', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem@^2026', '/notes'] }, 'files'],
    ['other arguments (another folder)', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/other'] }, undefined],
    ['another package', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }, 'memory'],
    ['the same package with other settings', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/elsewhere.json' } }, undefined],
  ])('%s', async (_label, entry, expected) => {
    const records = [npmRecord('files', '@modelcontextprotocol/server-filesystem', ['/notes']), npmRecord('memory', '@modelcontextprotocol/server-memory', [])];
    const [read] = (await entries({ entry })).entries;
    expect(existingServerFor(read!, records)?.server).toBe(expected);
  });

  it('a server imported from this very entry stays it after its settings changed in Airlock', async () => {
    const { path, entries: [read] } = await entries({ memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } });
    const changed = npmRecord('memory', '@modelcontextprotocol/server-memory', [], { MEMORY_FILE_PATH: '/kept.json' }, { app: 'claude', path, entry: 'memory' });
    expect(existingServerFor(read!, [changed])).toEqual({ server: 'memory', why: 'the same npm package, @modelcontextprotocol/server-memory, with the same arguments and settings' });
  });

  it('a credential written in the entry that is not the one the server holds: another account, another server', async () => {
    const { entries: [read] } = await entries({ gh: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_TOKEN: 'ghp_work' } } });
    const record = npmRecord('github', '@modelcontextprotocol/server-github', []);
    expect(existingServerFor(read!, [record], () => 'ghp_personal')).toBeUndefined();
    expect(existingServerFor(read!, [record], () => 'ghp_work')?.server).toBe('github');
  });
});

describe("Airlock's own entries", () => {
  it.each([
    ['as connect writes it', 'airlock', { command: '/usr/bin/node', args: ['/opt/airlock/bin/airlock.js', '--data-dir', '/d', 'gateway', '--stdio', '--client', 'Claude Desktop'] }, { kind: 'gateway' }],
    ['installed on PATH', 'gw', { command: 'airlock', args: ['gateway', '--stdio'] }, { kind: 'gateway' }],
    ['one server through Airlock', 'notes', { command: '/usr/bin/node', args: ['/opt/airlock/bin/airlock.js', 'run', 'notes', '--client', 'Claude Desktop'] }, { kind: 'run', server: 'notes' }],
    ['a server of its own', 'files', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/airlock'] }, undefined],
    ['a name that is only a name', 'airlock-docs', { command: 'node', args: ['airlock-docs.js'] }, undefined],
  ])('%s', (_label, name, value, expected) => {
    expect(airlockEntryKind(name, value)).toEqual(expected);
  });

  it('is listed as Airlock’s, never offered for import', async () => {
    const { entries: [read] } = await entries({ airlock: { command: '/usr/bin/node', args: ['/opt/airlock/bin/airlock.js', '--data-dir', work, 'gateway', '--stdio'] } });
    expect(read).toMatchObject({ status: 'airlock', kind: { kind: 'gateway' } });
  });
});

describe('package runners', () => {
  it.each([
    ['npx -y PKG ARGS', 'npx', ['-y', '@modelcontextprotocol/server-filesystem', '/notes'], { kind: 'npm', packageSpec: '@modelcontextprotocol/server-filesystem', userArgs: ['/notes'] }],
    ['npx PKG@VER', 'npx', ['mcp-server-x@1.2.3'], { kind: 'npm', packageSpec: 'mcp-server-x@1.2.3', userArgs: [] }],
    ['uvx PKG', 'uvx', ['mcp-server-time', '--local-timezone=UTC'], { kind: 'pypi', runner: 'uvx', packageSpec: 'mcp-server-time', userArgs: ['--local-timezone=UTC'] }],
    ['pipx run PKG', '/usr/bin/pipx', ['run', 'mcp-server-fetch'], { kind: 'pypi', runner: 'pipx run', packageSpec: 'mcp-server-fetch', userArgs: [] }],
    ['uvx --with', 'uvx', ['--with', 'tzdata', 'mcp-server-time'], { kind: 'pypi-refused', package: 'mcp-server-time', refused: 'and --with tzdata' }],
    ['npx -p (not one package)', 'npx', ['-p', 'a', 'b'], undefined],
    ['a plain command', 'node', ['server.js'], undefined],
  ])('%s', (_label, command, args, expected) => {
    const line = packageRunnerLine(command, args);
    if (expected === undefined) expect(line).toBeUndefined();
    else expect(line).toMatchObject(expected);
  });
});
