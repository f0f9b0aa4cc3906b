/** The built `airlock` command, run as a person or a script would run it. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findExecutable } from '../../electron/core/sandbox/capability';

const BIN = join(import.meta.dirname, '../../bin/airlock.js');
const pkg = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')));

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'airlock-cli-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

function airlock(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [BIN, ...args], { env: { ...env, AIRLOCK_DATA_DIR: dataDir }, encoding: 'utf8' });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** A PATH holding only the named tools, to simulate a machine missing the rest. */
function pathWith(tools: string[]): string {
  const bin = join(dataDir, 'fake-bin');
  mkdirSync(bin);
  for (const tool of tools) {
    const real = findExecutable(tool, process.env.PATH);
    if (real) symlinkSync(real, join(bin, tool));
  }
  return bin;
}

describe('airlock', () => {
  it('--version prints the package version', () => {
    expect(airlock(['--version'])).toMatchObject({ code: 0, out: `${pkg.version}\n` });
  });

  it('--help lists the commands and global options', () => {
    const { code, out } = airlock(['--help']);
    expect(code).toBe(0);
    for (const text of ['doctor', '--data-dir', '--json']) expect(out).toContain(text);
  });

  it('an unknown command is a usage error (exit 2)', () => {
    const { code, err } = airlock(['frobnicate']);
    expect(code).toBe(2);
    expect(err).toContain("unknown command 'frobnicate'");
  });

  it('doctor reports a ready sandbox on this machine (exit 0)', () => {
    const { code, out } = airlock(['doctor']);
    expect(out).toContain('Sandbox: ready');
    expect(code).toBe(0);
  });

  it('doctor says which Node runs it and what that is enough for, and points to the page for each part', () => {
    const { code, out } = airlock(['doctor']);
    expect(code).toBe(0);
    expect(out).toContain(`Node: ${process.version} runs this command.\n  Enough for the command line and the tests (Node ${pkg.engines.node}).\n`);
    expect(out).toMatch(new RegExp(`  (Enough for the desktop app|Not enough for the desktop app \\(\`npm start\` needs Node) ${pkg.desktopApp.node.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    for (const line of ['See docs/sandbox.md', 'See docs/finding-servers.md#the-programs-servers-run-with.', 'See README.md#what-it-needs.', 'See docs/organisations.md.', 'See docs/where-things-are-kept.md.']) {
      expect(out).toContain(`\n  ${line}`);
    }
    const json = JSON.parse(airlock(['doctor', '--json']).out);
    expect(json.nodeSupport).toMatchObject({ version: process.version, commandLine: { range: pkg.engines.node, enough: true } });
  });

  it('--help ends with the page that lists every command; a command\'s help with its topic\'s page', () => {
    expect(airlock(['--help']).out).toMatch(/\nSee docs\/command-line\.md for every command, its options and exit codes\.\n$/);
    expect(airlock(['help', 'gateway']).out).toMatch(/\nSee docs\/using-from-other-apps\.md\.\n$/);
  });

  it('doctor --json is one parseable document with the data folder given by --data-dir', () => {
    const other = join(dataDir, 'elsewhere');
    const { code, out } = airlock(['--data-dir', other, 'doctor', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.sandbox).toMatchObject({ supported: true, missing: [] });
    expect(report.dataDir).toBe(other);
    expect(readdirSync(other)).toContain('airlock.json');
  });

  it('doctor names bubblewrap and the install command when bwrap is not on PATH (exit 3)', () => {
    const { code, out } = airlock(['doctor'], { ...process.env, PATH: pathWith(['socat', 'rg']) });
    expect(code).toBe(3);
    expect(out).toContain('Missing: bwrap');
    expect(out).toContain('sudo apt-get install -y bubblewrap');
    const json = JSON.parse(airlock(['doctor', '--json'], { ...process.env, PATH: join(dataDir, 'fake-bin') }).out);
    expect(json.sandbox).toMatchObject({ supported: false, missing: ['bwrap'] });
  });

  it('doctor tells about a corrupt settings file it kept aside (exit 1)', () => {
    writeFileSync(join(dataDir, 'airlock.json'), '{ broken');
    const { code, out } = airlock(['doctor']);
    expect(code).toBe(1);
    expect(out).toMatch(/ERROR: .*could not be read.*airlock\.corrupt-/);
  });
});
