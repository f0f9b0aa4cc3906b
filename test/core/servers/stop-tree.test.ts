/**
 * Stopping a server where the OS has no process groups (Windows): the
 * launch plan carries the platform's way to end a process and everything
 * it started (`endTree`; on Windows `taskkill /PID <pid> /T /F`, and
 * srt-win's kill-on-close job object ends the sandbox's processes with it),
 * and the supervisor's stop uses it instead of POSIX group signals: close
 * stdin, wait, then end the tree while the pid is still the server's.
 *
 * On Windows (the CI workflow) `endTree` is the Windows backend's own
 * (real taskkill); elsewhere a stand-in does what taskkill /T /F does —
 * kills the process and its descendants (here: its POSIX group). Either
 * way the supervisor, the transport and the fixture servers are real, and
 * "no process left" is checked from outside by pid.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LaunchPlan } from '../../../electron/core/sandbox/launcher';
import { endWindowsProcessTree, win32Backend } from '../../../electron/core/sandbox/platform/win32';
import { createSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { defaultSandboxProfile } from '../../../shared/domain';
import { isLive as alive } from '../sandbox/sandbox-harness';
import { fixtureSpec, recordDir, supervised } from './support/fixtures';
import { makeSupervisor } from './support/harness';
import { PassThroughLauncher, testContext } from './support/pass-through-launcher';

/** A pass-through launcher whose plans end their tree as Windows does (the real one on Windows). */
class TreeEndingLauncher extends PassThroughLauncher {
  readonly ended: number[] = [];
  override async plan(...args: Parameters<PassThroughLauncher['plan']>): Promise<LaunchPlan> {
    const plan = await super.plan(...args);
    return {
      ...plan,
      endTree: (pid: number) => {
        this.ended.push(pid);
        if (process.platform === 'win32') win32Backend.endProcessTree!(pid, process.env);
        else process.kill(-pid, 'SIGKILL'); // the stand-in for taskkill /T /F: the process and what it started
      },
    };
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function supervise(fixture: string, rec: ReturnType<typeof recordDir>) {
  const launcher = new TreeEndingLauncher();
  const { supervisor } = makeSupervisor({ s: supervised('s', fixtureSpec(fixture, [], { AIRLOCK_RECORD_DIR: rec.dir })) }, { launcher });
  cleanups.push(rec.cleanup, () => supervisor.stopAll());
  return { supervisor, launcher };
}

describe('stopping a server whose platform ends process trees (Windows)', () => {
  it('ends a server that ignores its input closing, and the child it started, through the plan — no group signal — and leaves no process', async () => {
    const rec = recordDir();
    const { supervisor, launcher } = supervise('fork-grandchild.mjs', rec);
    await supervisor.start('s');
    const pid = supervisor.status('s').pid!;
    const grandchild = Number(rec.lines('grandchild')[0]);
    expect([alive(pid), alive(grandchild)]).toEqual([true, true]);
    await supervisor.stop('s');
    expect(launcher.ended).toEqual([pid]);
    expect(alive(pid)).toBe(false);
    expect(alive(grandchild)).toBe(false);
    expect(supervisor.log('s').some((line) => /did not stop when its input closed; it and everything it started were ended/.test(line.text))).toBe(true);
    expect(launcher.disposed).toBe(1);
  });

  it('sends no SIGTERM: stdin closes, then the tree is ended', async () => {
    const rec = recordDir();
    const { supervisor, launcher } = supervise('ignore-sigterm.mjs', rec);
    await supervisor.start('s');
    const pid = supervisor.status('s').pid!;
    await supervisor.stop('s');
    expect(rec.lines('signals')).toEqual(['stdin-end']);
    expect(launcher.ended).toEqual([pid]);
    expect(alive(pid)).toBe(false);
  });

  it('a server that exits when its input closes is not ended by force (its pid may no longer be its own)', async () => {
    const rec = recordDir();
    const { supervisor, launcher } = supervise('echo.mjs', rec);
    await supervisor.start('s');
    await supervisor.stop('s');
    expect(launcher.ended).toEqual([]);
  });
});

describe("the Windows backend's way to end a tree", () => {
  it("runs Windows' own taskkill from its system folder (never from PATH) on the process and its tree, by force", () => {
    const ran: string[][] = [];
    const command = endWindowsProcessTree(4242, { SystemRoot: 'D:\\Windows', PATH: 'C:\\evil' }, (file, args) => void ran.push([file, ...args]));
    expect(ran).toEqual([['D:\\Windows\\System32\\taskkill.exe', '/PID', '4242', '/T', '/F']]);
    expect(command).toEqual(ran[0]);
    expect(endWindowsProcessTree(7, {}, () => {})[0]).toBe('C:\\Windows\\System32\\taskkill.exe');
  });

  it('refuses anything but a process id', () => {
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(() => endWindowsProcessTree(pid, {}, () => {})).toThrow(RangeError);
  });

  it('is on every Windows plan (sandboxed or run with consent), and on no Linux plan', async () => {
    const consent = { ...defaultSandboxProfile(), unsandboxed: { consentedAt: '2026-12-04T10:00:00Z' } };
    const spec = fixtureSpec('echo.mjs');
    const windows = createSandboxLauncher({ capabilityProbe: { platform: 'win32', pathEnv: '', windowsSandboxStatus: () => ({ user: { provisioned: false, credPresent: false }, wfp: { state: 'absent' } }) } });
    const plan = await windows.plan(spec, consent, testContext('w'));
    expect(plan.sandboxed).toBe(false);
    expect(typeof plan.endTree).toBe('function');
    await plan.dispose();
    await windows.close();
    const elsewhere = createSandboxLauncher({ capabilityProbe: { platform: 'freebsd', pathEnv: '' } });
    const posix = await elsewhere.plan(spec, consent, testContext('p'));
    expect(posix.endTree).toBeUndefined();
    await posix.dispose();
    await elsewhere.close();
  });
});
