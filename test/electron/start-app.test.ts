/**
 * `npm start` on a machine without Electron's own program (none downloaded,
 * no internet to download it): it says the app cannot start here and points
 * to the `airlock` command, which is the same Airlock — not Electron's stack
 * trace. Where a program is there (ELECTRON_OVERRIDE_DIST_PATH, as on a
 * machine that has one), it runs it on the app. The real start script, run as
 * `npm start` runs it after the build.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');
const START = join(REPO, 'scripts/start-app.mjs');
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'airlock-start-app-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function start(env: Record<string, string>) {
  const base = { ...process.env };
  delete base.ELECTRON_OVERRIDE_DIST_PATH;
  return spawnSync(process.execPath, [START], { cwd: REPO, encoding: 'utf8', timeout: 120_000, env: { ...base, ...env } });
}

describe('npm start', () => {
  it('without Electron’s program and no way to download it: says what to do, points to the CLI, no stack trace', () => {
    // An empty download cache and a mirror nobody answers: as on a machine without internet.
    const result = start({ electron_config_cache: join(root, 'cache'), ELECTRON_MIRROR: 'http://127.0.0.1:9/' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Airlock's desktop app cannot start here: Electron's own program is not on this computer, and downloading it failed");
    expect(result.stderr).toContain('Everything Airlock does also works from the terminal, with the same data folder:');
    expect(result.stderr).toContain('node bin/airlock.js doctor');
    expect(result.stderr).toContain('ELECTRON_OVERRIDE_DIST_PATH');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stderr).not.toContain('Electron failed to install correctly');
  }, 120_000);

  it('with an Electron program where ELECTRON_OVERRIDE_DIST_PATH says, runs it on the app and passes its exit code on', () => {
    const program = join(root, 'electron');
    writeFileSync(program, `#!/bin/sh\necho "started with: $*"\nexit 3\n`);
    chmodSync(program, 0o755);
    const result = start({ ELECTRON_OVERRIDE_DIST_PATH: root });
    expect(result.stdout).toBe(`started with: ${REPO}\n`);
    expect(result.status).toBe(3);
  });

  it('an ELECTRON_OVERRIDE_DIST_PATH with no program in it says so', () => {
    const result = start({ ELECTRON_OVERRIDE_DIST_PATH: join(root, 'nothing-here') });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Electron's own program was not found in ELECTRON_OVERRIDE_DIST_PATH (${join(root, 'nothing-here')})`);
  });
});
