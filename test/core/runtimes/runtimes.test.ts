/**
 * Finding node, python and uv where a desktop app misses them: the person's
 * setting first (never silently replaced when wrong), then PATH, the login
 * shell's PATH, then nvm / volta / fnm / asdf / Homebrew folders.
 */
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRuntime, runtimeFor, searchPath } from '../../../electron/core/runtimes';

function fakeHome(): string {
  return mkdtempSync(join(tmpdir(), 'airlock-runtimes-'));
}
/** A stand-in program that prints a version, as the real ones do. */
function program(path: string, version: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `#!/bin/sh\necho ${version}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('findRuntime', () => {
  it('finds the newest node nvm installed when PATH and the login shell have none', async () => {
    const home = fakeHome();
    program(join(home, '.nvm/versions/node/v18.19.0/bin/node'), 'v18.19.0');
    const newest = program(join(home, '.nvm/versions/node/v22.11.0/bin/node'), 'v22.11.0');
    program(join(home, '.nvm/versions/node/v9.0.0/bin/node'), 'v9.0.0');
    expect(await findRuntime('node', undefined, { home, pathEnv: '/nonexistent', loginShellPath: null })).toEqual({ name: 'node', path: newest, from: 'nvm', version: 'v22.11.0' });
  });

  it('volta, and uv from its installer’s folder', async () => {
    const home = fakeHome();
    const volta = program(join(home, '.volta/bin/node'), 'v20.1.0');
    const uv = program(join(home, '.local/bin/uv'), 'uv 0.13.1');
    expect(await findRuntime('node', undefined, { home, pathEnv: '', loginShellPath: null })).toMatchObject({ path: volta, from: 'volta' });
    expect(await findRuntime('uv', undefined, { home, pathEnv: '', loginShellPath: null })).toMatchObject({ path: uv, from: 'uv’s installer', version: '0.13.1' });
  });

  it('the login shell’s PATH comes before the managers’ folders', async () => {
    const home = fakeHome();
    const shellBin = join(home, 'shell-bin');
    const fromShell = program(join(shellBin, 'node'), 'v21.0.0');
    program(join(home, '.volta/bin/node'), 'v20.1.0');
    expect(await findRuntime('node', undefined, { home, pathEnv: '', loginShellPath: shellBin })).toMatchObject({ path: fromShell, from: 'your login shell’s PATH' });
  });

  it('a setting wins; a wrong one is a problem, never silently replaced', async () => {
    const home = fakeHome();
    const chosen = program(join(home, 'opt/node'), 'v20.0.0');
    program(join(home, '.volta/bin/node'), 'v20.1.0');
    expect(await findRuntime('node', chosen, { home, pathEnv: '', loginShellPath: null })).toMatchObject({ path: chosen, from: 'your setting' });
    const wrong = await findRuntime('node', join(home, 'nope/node'), { home, pathEnv: '', loginShellPath: null });
    expect(wrong.problem).toBe(`Your setting for node (${join(home, 'nope/node')}) is not an executable file. Change it in Settings or with \`airlock runtimes set node PATH\`.`);
    expect((await findRuntime('node', 'node', { home })).problem).toMatch(/must be an absolute path/);
  });

  it('says what to do when nothing is found', async () => {
    const home = fakeHome();
    const found = await findRuntime('python', undefined, { home, pathEnv: '', loginShellPath: null });
    if (found.path) return; // this machine has a system python in /usr/bin: found, as it should be
    expect(found.problem).toMatch(/No python3 was found/);
  });

  it('a bare command is searched beside the runtimes found, then PATH, then the login shell', () => {
    const home = fakeHome();
    const node = program(join(home, '.nvm/versions/node/v22.0.0/bin/node'), 'v22');
    symlinkSync(node, join(home, '.nvm/versions/node/v22.0.0/bin/npx'));
    expect(searchPath([{ name: 'node', path: node, from: 'nvm' }], '/usr/bin:relative', '/opt/homebrew/bin')).toBe(`${join(home, '.nvm/versions/node/v22.0.0/bin')}:/usr/bin:/opt/homebrew/bin`);
    expect([runtimeFor('npx'), runtimeFor('/x/uvx'), runtimeFor('python3.12'), runtimeFor('deno')]).toEqual(['node', 'uv', 'python', undefined]);
  });
});
