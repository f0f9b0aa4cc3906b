import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { createSandboxLauncher, type AirlockSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { ESCAPE_SERVER, makeWorld } from './sandbox-harness';

/** Every live descendant of `root` (by walking /proc's parent links). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(entry), ppid);
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, ppid] of parent) {
      if (ppid === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

const alive = (pid: number) => {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) Z /.test(state);
  } catch {
    return false;
  }
};

describe('a sandboxed server’s process tree', () => {
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let launcher: AirlockSandboxLauncher;

  beforeAll(async () => {
    world = await makeWorld();
    launcher = createSandboxLauncher({ homeDir: world.home, runtimeDir: world.runtimeDir, onNetworkRequest: async () => false });
  });

  afterAll(async () => {
    await launcher?.close();
    await rm(world.base, { recursive: true, force: true });
  });

  // SIGTERM reaches only bwrap (the server runs in its own session); the
  // server and the bridge die with it (PR_SET_PDEATHSIG + the PID namespace).
  it.each(['SIGTERM', 'SIGKILL'] as const)('dies entirely, proxy bridge included, when bwrap gets %s: no orphans', async (signal) => {
    const plan = await launcher.plan({ command: 'node', args: [ESCAPE_SERVER], env: {} }, defaultSandboxProfile(), world.context());
    const child = spawn(plan.command, plan.args, { env: plan.env, cwd: plan.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    // wait until the server and the socat bridge are both up
    let tree: number[] = [];
    let names: string[] = [];
    for (let i = 0; i < 50; i += 1) {
      tree = descendants(child.pid!);
      names = tree.map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        } catch {
          return '';
        }
      });
      if (names.includes('node') && names.includes('socat')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(names).toEqual(expect.arrayContaining(['node', 'socat']));
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
    for (let i = 0; i < 40 && tree.some(alive); i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(tree.filter(alive)).toEqual([]);
    await plan.dispose();
  });
});
