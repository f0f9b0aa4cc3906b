/**
 * The Node versions Airlock states are the ones its parts need. package.json
 * `engines.node` (what `npm ci` checks, the command line, the build and the
 * tests) takes no Node that a dependency refuses; `desktopApp.node` (what
 * `npm start` needs) is exactly what Electron asks for. Read from the
 * installed packages, so a dependency that raises its minimum fails here
 * until the stated ranges, the README and `airlock doctor` follow.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { nodeSupport, nodeSupportLines } from '../../electron/cli/node-support';

const REPO = resolve(import.meta.dirname, '../..');
interface Manifest {
  engines?: { node?: string };
  desktopApp: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Manifest;
const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string } }> };
const enginesOf = (name: string) => (JSON.parse(readFileSync(join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as Manifest).engines?.node;

/** Only the desktop app needs these: Electron, and what downloads its binary. */
const DESKTOP_ONLY = new Set(['electron']);

describe('package.json: the Node versions each part needs', () => {
  it('engines.node takes no Node a dependency refuses (what the command line, the build and the tests run on)', () => {
    const range = pkg.engines!.node!;
    const refusing = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]
      .filter((name) => !DESKTOP_ONLY.has(name))
      .map((name) => [name, enginesOf(name)] as const)
      .filter(([, theirs]) => theirs !== undefined && !semver.subset(range, theirs))
      .map(([name, theirs]) => `${name} wants ${theirs}`);
    expect(refusing).toEqual([]);
  });

  it('desktopApp.node is what Electron asks for', () => {
    const electron = enginesOf('electron')!;
    expect(semver.subset(pkg.desktopApp.node, electron) && semver.subset(electron, pkg.desktopApp.node)).toBe(true);
  });

  it('the lockfile states the same engines as package.json', () => {
    expect(lock.packages['']!.engines?.node).toBe(pkg.engines!.node);
  });
});

describe('airlock doctor: what the Node it runs on is enough for', () => {
  it.each([
    ['v20.11.1', false, false],
    ['v20.20.2', true, false],
    ['v22.12.0', false, true], // eslint wants 22.13; Electron is content
    ['v22.13.0', true, true],
    ['v23.11.0', false, true], // vitest and eslint skip 23
    ['v24.1.0', true, true],
  ])('%s: the command line and tests %s, the desktop app %s', (version, commandLine, desktopApp) => {
    const support = nodeSupport(version);
    expect([support.commandLine.enough, support.desktopApp.enough]).toEqual([commandLine, desktopApp]);
    const lines = nodeSupportLines(support).join('\n');
    expect(lines).toContain(`Node: ${version} runs this command.`);
    expect(lines).toContain(commandLine ? `Enough for the command line and the tests (Node ${pkg.engines!.node}).` : 'Not one the command line and the tests support');
    expect(lines).toContain(desktopApp ? `Enough for the desktop app (Node ${pkg.desktopApp.node}).` : `Not enough for the desktop app (\`npm start\` needs Node ${pkg.desktopApp.node})`);
  });
});
