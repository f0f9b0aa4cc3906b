import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findElectron, platformExecutable } from './find-electron';

const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-find-electron-'));
  made.push(dir);
  return dir;
}
function writeFile(file: string, mode: number): void {
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, mode);
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('findElectron', () => {
  it('gives a reason naming ELECTRON_OVERRIDE_DIST_PATH when there is no binary and no override', () => {
    const result = findElectron({ env: {}, electronPackageDir: tempDir(), platform: 'linux' });
    expect(result).not.toHaveProperty('path');
    expect(result).toEqual({ reason: expect.stringMatching(/no Electron binary.*ELECTRON_OVERRIDE_DIST_PATH=/) });
  });

  it('returns the executable inside ELECTRON_OVERRIDE_DIST_PATH', () => {
    const dist = tempDir();
    writeFile(join(dist, 'electron'), 0o755);
    const result = findElectron({
      env: { ELECTRON_OVERRIDE_DIST_PATH: dist },
      electronPackageDir: tempDir(),
      platform: 'linux',
    });
    expect(result).toEqual({ path: join(dist, 'electron') });
  });

  it('reports an override that points at a folder without the binary, instead of looking elsewhere', () => {
    const dist = tempDir();
    const pkg = tempDir();
    // A downloaded binary exists, but the override is what the user asked for.
    mkdirSync(join(pkg, 'dist'));
    writeFileSync(join(pkg, 'path.txt'), 'electron');
    writeFile(join(pkg, 'dist', 'electron'), 0o755);
    const result = findElectron({ env: { ELECTRON_OVERRIDE_DIST_PATH: dist }, electronPackageDir: pkg, platform: 'linux' });
    expect(result).toEqual({ reason: expect.stringContaining(`${join(dist, 'electron')} does not exist`) });
  });

  it('refuses a file that is not executable', () => {
    const dist = tempDir();
    writeFile(join(dist, 'electron'), 0o644);
    const result = findElectron({ env: { ELECTRON_OVERRIDE_DIST_PATH: dist }, electronPackageDir: tempDir(), platform: 'linux' });
    expect(result).toEqual({ reason: expect.stringContaining('is not executable') });
  });

  it('finds a binary the electron package downloaded (path.txt + dist/)', () => {
    const pkg = tempDir();
    mkdirSync(join(pkg, 'dist'));
    writeFileSync(join(pkg, 'path.txt'), 'electron');
    writeFile(join(pkg, 'dist', 'electron'), 0o755);
    expect(findElectron({ env: {}, electronPackageDir: pkg, platform: 'linux' })).toEqual({
      path: join(pkg, 'dist', 'electron'),
    });
  });

  it('gives a reason when path.txt names a binary that is missing', () => {
    const pkg = tempDir();
    writeFileSync(join(pkg, 'path.txt'), 'electron');
    expect(findElectron({ env: {}, electronPackageDir: pkg, platform: 'linux' })).toEqual({
      reason: expect.stringContaining('does not exist'),
    });
  });

  it.each([
    ['linux', 'electron'],
    ['darwin', 'Electron.app/Contents/MacOS/Electron'],
    ['win32', 'electron.exe'],
  ] as const)('names the %s executable %s, as electron/install.js does', (platform, name) => {
    expect(platformExecutable(platform)).toBe(name);
  });
});
