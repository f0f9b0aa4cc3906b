import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstallCandidate } from '../../../electron/core/install/candidate';
import {
  checkLockfile,
  installNpmPackage,
  NpmSourceError,
  parseNpmSpec,
  resolveNpm,
  resolveNpmUpdate,
  type InstalledNpmPackage,
} from '../../../electron/core/install/npm-source';
import { removeServerDir } from '../../../electron/core/install/server-dir';
import { compareVersions } from '../../../electron/core/install/version-order';

const PACKAGE = '@modelcontextprotocol/server-filesystem';

describe('npm package specs', () => {
  it.each([
    ['@modelcontextprotocol/server-filesystem', { name: '@modelcontextprotocol/server-filesystem', range: 'latest' }],
    ['@scope/pkg@^1.2.3', { name: '@scope/pkg', range: '^1.2.3' }],
    ['pkg@2026.8.31', { name: 'pkg', range: '2026.8.31' }],
    ['pkg@next', { name: 'pkg', range: 'next' }],
    ['pkg@>=1 <2', { name: 'pkg', range: '>=1 <2' }],
  ])('accepts %s', (spec, expected) => {
    expect(parseNpmSpec(spec)).toEqual(expected);
  });

  it.each([
    ['--registry=https://evil.example', 'an option'],
    ['git+https://github.com/x/y.git', 'a git URL'],
    ['file:../x', 'a local path'],
    ['https://evil.example/x.tgz', 'a tarball URL'],
    ['Uppercase', 'an invalid name'],
    ['pkg@-x', 'a range that looks like an option'],
    ['pkg@npm:other@1', 'an alias'],
    ['', 'nothing'],
  ])('refuses %s (%s)', (spec) => {
    expect(() => parseNpmSpec(spec)).toThrow(NpmSourceError);
  });

  it.each([
    ['1.0.0', '1.0.1', -1],
    ['1.10.0', '1.9.0', 1],
    ['2025.12.18', '2025.8.21', 1],
    ['1.0.0-beta.2', '1.0.0-beta.10', -1],
    ['1.0.0-alpha', '1.0.0', -1],
    ['1.0.0-1', '1.0.0-alpha', -1],
    ['1.0.0', '1.0.0+build', 0],
    ['not-semver', '0.0.1', -1],
  ])('orders %s against %s', (a, b, expected) => {
    expect(Math.sign(compareVersions(a, b))).toBe(expected);
  });
});

describe('lockfile check', () => {
  const lock = JSON.stringify({
    lockfileVersion: 3,
    packages: { '': { dependencies: { x: '1.0.0' } }, 'node_modules/x': { version: '1.0.0', integrity: 'sha512-AAAA' }, 'node_modules/y': { version: '2.0.0' } },
  });
  it('accepts the exact version and integrity', () => {
    expect(checkLockfile(lock, 'x', '1.0.0', 'sha512-AAAA')).toEqual({ packageCount: 2 });
  });
  it('refuses another integrity', () => {
    expect(() => checkLockfile(lock, 'x', '1.0.0', 'sha512-BBBB')).toThrow(/integrity mismatch for x@1.0.0/);
  });
  it('refuses another version', () => {
    expect(() => checkLockfile(lock, 'x', '1.0.1', 'sha512-AAAA')).toThrow(/does not hold x@1.0.1 \(found 1.0.0\)/);
  });
});

describe('npm source against the real registry', () => {
  let data: string;
  let serverDir: string;
  let granted: string;
  let candidate: InstallCandidate;
  let installed: InstalledNpmPackage;

  beforeAll(async () => {
    data = await mkdtemp(join(tmpdir(), 'airlock-npm-'));
    serverDir = join(data, 'servers', 'filesystem');
    granted = join(data, 'granted');
    await mkdir(granted);
    await writeFile(join(granted, 'hello.txt'), 'hi');
    candidate = await resolveNpm(PACKAGE, { serverDir, userArgs: [granted] });
    // The one install of this suite (npm, real registry, scripts off).
    installed = await installNpmPackage(candidate, serverDir);
  }, 240_000);
  afterAll(async () => {
    await rm(data, { recursive: true, force: true });
  });

  it('resolves to one exact version with its integrity and publish date', () => {
    expect(candidate.provenance.kind).toBe('npm');
    if (candidate.provenance.kind !== 'npm') return;
    expect(candidate.provenance.name).toBe(PACKAGE);
    expect(candidate.provenance.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(candidate.provenance.integrity).toMatch(/^sha512-[A-Za-z0-9+/]+=*$/);
    expect(Date.parse(candidate.provenance.publishedAt!)).not.toBeNaN();
    expect(candidate.provenance.installDir).toBe(serverDir);
    expect(candidate.suggestedName).toBe('filesystem');
    expect(candidate.npm).toMatchObject({ requested: 'latest', binName: 'mcp-server-filesystem', userArgs: [granted] });
    expect(candidate.npm?.tarball).toMatch(/^https:\/\//);
    // Never npx: node runs the installed bin script directly.
    expect(candidate.spec).toEqual({
      command: process.execPath,
      args: [join(serverDir, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js'), granted],
      env: {},
      cwd: serverDir,
    });
    // The folder on its command line is a hint to show, with a path risk marker.
    expect(candidate.profileHints).toEqual([expect.objectContaining({ path: granted, access: 'read-write', argIndex: 2 })]);
    expect(candidate.risks.map((risk) => [risk.code, risk.text])).toEqual([['path', granted]]);
  });

  it('installs the pinned version with a lockfile whose integrity matches', async () => {
    if (candidate.provenance.kind !== 'npm') throw new Error('not npm');
    const manifest = JSON.parse(await readFile(join(serverDir, 'package.json'), 'utf8'));
    expect(manifest.dependencies).toEqual({ [PACKAGE]: candidate.provenance.version });
    const lock = JSON.parse(await readFile(installed.lockfilePath, 'utf8'));
    expect(lock.packages[`node_modules/${PACKAGE}`]).toMatchObject({
      version: candidate.provenance.version,
      integrity: candidate.provenance.integrity,
    });
    expect(installed.lockfilePath).toBe(join(serverDir, 'package-lock.json'));
    expect(installed.lockfileSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(installed.packageCount).toBeGreaterThan(1);
  });

  it('runs from the install folder and lists its tools', async () => {
    const transport = new StdioClientTransport({ ...installed.candidate.spec, stderr: 'pipe' });
    const client = new Client({ name: 'airlock-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory']));
      const listing = await client.callTool({ name: 'list_directory', arguments: { path: granted } });
      expect(JSON.stringify(listing.content)).toContain('hello.txt');
    } finally {
      await client.close();
    }
  });

  it('resolves an exact version to itself and a range to its highest match', async () => {
    const exact = await resolveNpm(`${PACKAGE}@2025.8.21`, { serverDir: join(data, 'servers', 'exact') });
    expect(exact.provenance).toMatchObject({ version: '2025.8.21' });
    const ranged = await resolveNpm(`${PACKAGE}@~2025.8.0`, { serverDir: join(data, 'servers', 'ranged') });
    expect(ranged.provenance).toMatchObject({ version: '2025.8.21' });
    expect(ranged.warnings).toContain('“~2025.8.0” resolved to 2025.8.21; Airlock pins that exact version');
  });

  it('an update is a new candidate for the same folder, arguments kept', async () => {
    const update = await resolveNpmUpdate(installed.candidate, '2025.8.21');
    expect(update.provenance).toMatchObject({ kind: 'npm', name: PACKAGE, version: '2025.8.21', installDir: serverDir });
    expect(update.spec.args.slice(1)).toEqual([granted]);
    expect(update.warnings[0]).toMatch(/^update @modelcontextprotocol\/server-filesystem from \S+ to 2025\.8\.21: review it as a new install$/);
  });

  it('says clearly when a package or version does not exist', async () => {
    await expect(resolveNpm('airlock-no-such-package-zz9', { serverDir: join(data, 'servers', 'none') })).rejects.toThrow(
      /npm could not find airlock-no-such-package-zz9.*E404/,
    );
    await expect(resolveNpm(`${PACKAGE}@2099`, { serverDir: join(data, 'servers', 'none') })).rejects.toThrow(/E404 No match found for version 2099/);
  });

  it('refuses to install into another folder than the one disclosed, without running npm', async () => {
    const elsewhere = join(data, 'servers', 'elsewhere');
    await expect(installNpmPackage(candidate, elsewhere)).rejects.toThrow(/resolved for/);
    await expect(stat(elsewhere)).rejects.toThrow();
  });

  it('removes a server folder only inside the servers root', async () => {
    await expect(removeServerDir(data, join(data, 'servers'))).rejects.toThrow(/not inside/);
    await expect(removeServerDir(join(data, 'servers'), join(data, 'servers'))).rejects.toThrow(/not inside/);
    await removeServerDir(serverDir, join(data, 'servers'));
    await expect(stat(serverDir)).rejects.toThrow();
  });
});
