import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LocalCommandError,
  prepareLocalCommand,
  resolveExecutable,
  scriptArgumentIndex,
  sha256File,
} from '../../../electron/core/install/local-command';

let work: string;
let bin: string;
const nodeDir = dirname(process.execPath);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'airlock-local-'));
  bin = join(work, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'my-server'), '#!/bin/sh\necho hi\n');
  await chmod(join(bin, 'my-server'), 0o755);
  await writeFile(join(bin, 'not-executable'), 'data');
  await writeFile(join(work, 'server.js'), 'console.log(1)\n');
  await writeFile(join(work, 'server.py'), 'print(1)\n');
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('resolving the executable', () => {
  it('finds a bare name on PATH as an absolute path', async () => {
    expect(await resolveExecutable('my-server', { pathEnv: `/nonexistent:${bin}` })).toBe(join(bin, 'my-server'));
  });
  it('skips files that are not executable', async () => {
    await expect(resolveExecutable('not-executable', { pathEnv: bin })).rejects.toThrow('“not-executable” was not found on PATH');
  });
  it('ignores relative PATH entries', async () => {
    await expect(resolveExecutable('my-server', { pathEnv: 'bin', cwd: work })).rejects.toThrow(LocalCommandError);
  });
  it('resolves a relative path against cwd', async () => {
    expect(await resolveExecutable('./bin/my-server', { cwd: work })).toBe(join(bin, 'my-server'));
  });
});

describe('script detection', () => {
  it.each([
    ['node', ['server.js'], 0],
    ['/usr/bin/node', ['--enable-source-maps', '-r', 'dotenv/config', 'dist/index.js', '--port', '1'], 3],
    ['node', ['-e', 'console.log(1)'], undefined],
    ['python3', ['-u', 'server.py'], 1],
    ['python3', ['-m', 'mcp_server_fetch'], undefined],
    ['deno', ['run', '--allow-read=/tmp', 'main.ts'], 2],
    ['deno', ['run', 'npm:some-server'], undefined],
    ['bun', ['run', 'server.ts'], 1],
    ['bun', ['server.ts'], 0],
    ['uvx', ['mcp-server-fetch'], undefined],
  ])('%s %j → %s', (command, args, expected) => {
    expect(scriptArgumentIndex(command, args)).toBe(expected);
  });
});

describe('a local command candidate', () => {
  it('hashes the executable and, for node x.js, the script', async () => {
    const candidate = await prepareLocalCommand({ command: 'node', args: ['server.js', '/srv/data'], cwd: work }, { pathEnv: nodeDir });
    expect(candidate.spec).toEqual({ command: process.execPath, args: ['server.js', '/srv/data'], env: {}, cwd: work });
    expect(candidate.provenance).toEqual({
      kind: 'local',
      executable: process.execPath,
      executableSha256: await sha256File(process.execPath),
      script: { path: join(work, 'server.js'), sha256: await sha256File(join(work, 'server.js')) },
    });
    // "server.js" says nothing about the server: with no package.json, its folder names it.
    expect(candidate.suggestedName).toBe(basename(work).toLowerCase());
    // The script is the server's own code; the data folder is a hint, never a grant.
    expect(candidate.profileHints).toEqual([expect.objectContaining({ path: '/srv/data', access: 'read-write', argIndex: 2 })]);
    expect(candidate.risks.map((risk) => risk.text)).toEqual(['/srv/data']);
  });

  it('hashes what a symlinked command points to', async () => {
    await symlink(join(bin, 'my-server'), join(bin, 'linked'));
    const candidate = await prepareLocalCommand({ command: 'linked', args: [] }, { pathEnv: bin });
    expect(candidate.provenance).toMatchObject({ executable: join(bin, 'linked'), executableSha256: await sha256File(join(bin, 'my-server')) });
    expect(candidate.suggestedName).toBe('linked');
  });

  it('warns when the script is missing rather than inventing a hash', async () => {
    const candidate = await prepareLocalCommand({ command: 'node', args: ['missing.js'], cwd: work }, { pathEnv: nodeDir });
    expect(candidate.provenance).not.toHaveProperty('script');
    expect(candidate.warnings[0]).toMatch(/the script “missing.js” was not found/);
  });

  it('fails clearly when the command is not there', async () => {
    await expect(prepareLocalCommand({ command: 'no-such-airlock-cmd', args: [] }, { pathEnv: bin })).rejects.toThrow('“no-such-airlock-cmd” was not found on PATH');
    await expect(prepareLocalCommand({ command: '  ', args: [] })).rejects.toThrow('the command is empty');
  });

  it('keeps the env names for disclosure and marks sudo', async () => {
    await writeFile(join(bin, 'sudo'), '#!/bin/sh\n');
    await chmod(join(bin, 'sudo'), 0o755);
    const candidate = await prepareLocalCommand({ command: 'sudo', args: ['my-server'], env: { B: '2', A: '1' } }, { pathEnv: bin });
    expect(candidate.requested.env).toEqual(['A', 'B']);
    expect(candidate.risks[0]).toMatchObject({ code: 'elevated-privileges', severity: 'danger' });
  });
});
