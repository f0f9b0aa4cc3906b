import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { OWNER_FILE } from '../../../electron/core/sandbox/runtime-sweep';
import { createSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { ESCAPE_SERVER, makeWorld } from './sandbox-harness';

const LAUNCH_AND_WAIT = resolve(__dirname, '../../fixtures/sandbox/launch-and-wait.mts');

/** Starts an Airlock-like process that launches one server with a write grant; resolves with its launch folder once the server runs. */
function startAirlock(args: string[]): Promise<{ child: ChildProcess; launchDir: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', LAUNCH_AND_WAIT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolvePromise, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /ready (\S+)/.exec(chunk.toString());
      if (match) resolvePromise({ child, launchDir: match[1]! });
    });
    child.once('exit', (code) => reject(new Error(`the Airlock process exited (${code}) before it was ready: ${stderr}`)));
  });
}

const exited = (child: ChildProcess) => new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));

// Issue 16 item 6b: sandbox temp folders of a crashed Airlock were never
// removed. The next Airlock sweeps them — and finishes their clean-up of the
// grants — but never touches a folder whose owner is alive.
describe('the temp folders of a crashed Airlock are swept at the next start', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let parent: string;
  let crashed: { child: ChildProcess; launchDir: string };
  let live: { child: ChildProcess; launchDir: string };
  let crashedGrant: string;
  let liveGrant: string;
  const notices: Array<[string, string]> = [];

  beforeAll(async () => {
    world = await makeWorld();
    parent = join(world.base, 'rt');
    mkdirSync(parent, { mode: 0o700 });
    crashedGrant = join(world.base, 'crashed-grant');
    liveGrant = join(world.base, 'live-grant');
    mkdirSync(crashedGrant);
    mkdirSync(liveGrant);
    [crashed, live] = await Promise.all([
      startAirlock([parent, world.home, world.airlockDataDir, crashedGrant, ESCAPE_SERVER]),
      startAirlock([parent, world.home, world.airlockDataDir, liveGrant, ESCAPE_SERVER]),
    ]);
    // The crash: SIGKILL, no clean-up of any kind.
    crashed.child.kill('SIGKILL');
    await exited(crashed.child);
    // What a server planted that nobody swept (its watcher died with it).
    mkdirSync(join(crashedGrant, 'sub', '.git'), { recursive: true });
    writeFileSync(join(crashedGrant, 'sub', '.git', 'HEAD'), 'ref: refs/heads/main\n');
  });

  afterAll(async () => {
    live?.child.kill('SIGKILL');
    if (live) await exited(live.child);
    await rm(world.base, { recursive: true, force: true });
  });

  it('the crash left its run folder and its placeholders behind', () => {
    expect(existsSync(dirname(crashed.launchDir))).toBe(true);
    expect(existsSync(join(dirname(crashed.launchDir), OWNER_FILE))).toBe(true);
    expect(existsSync(join(crashedGrant, '.git'))).toBe(true);
  });

  it('the next Airlock removes the crashed run and its placeholders, holds the planted repository aside and says so — and leaves the live one alone', async () => {
    const launcher = createSandboxLauncher({ homeDir: world.home, runtimeParent: parent, onNotice: (server, text) => notices.push([server, text]) });
    const plan = await launcher.plan({ command: process.execPath, args: [ESCAPE_SERVER], env: {} }, defaultSandboxProfile(), world.context('next'));
    try {
      expect(existsSync(dirname(crashed.launchDir))).toBe(false);
      for (const name of ['.git', '.vscode', '.idea']) expect(existsSync(join(crashedGrant, name))).toBe(false);
      expect(readdirSync(join(crashedGrant, 'sub')).some((name) => name.startsWith('.git.airlock-held-'))).toBe(true);
      expect(notices).toContainEqual(['crashy', expect.stringContaining(join(crashedGrant, 'sub', '.git'))]);
      // the live Airlock's folder, and its server's placeholders, untouched
      expect(existsSync(live.launchDir)).toBe(true);
      expect(existsSync(join(liveGrant, '.git'))).toBe(true);
    } finally {
      await plan.dispose();
      await launcher.close();
    }
    // closing the new launcher removes its own run folder, never the live one
    expect(existsSync(live.launchDir)).toBe(true);
    expect(readdirSync(parent).filter((name) => name.startsWith('run-'))).toEqual([dirname(live.launchDir).split('/').pop()]);
  });
});
