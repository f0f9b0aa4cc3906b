// TESTING.md hostile behaviour 7: lifecycle — crashes, SIGTERM ignored, grandchildren, backoff and quarantine.
import { afterEach, describe, expect, it } from 'vitest';
import { processGroupMembers } from '../../../electron/core/servers/process-group';
import { ToolCallError } from '../../../electron/core/servers/tool-call-error';
import { fixtureSpec, isAlive, recordDir, supervised } from './support/fixtures';
import { makeSupervisor, waitForState } from './support/harness';
import { ManualClock } from './support/manual-clock';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const fastPolicy = { backoffInitialMs: 100, backoffFactor: 2, backoffMaxMs: 10_000, maxCrashes: 5, crashWindowMs: 60_000 };

describe('server lifecycle', () => {
  it('a crash during a call is "disconnected — outcome unknown", never retried, and restarts after backoff', async () => {
    const rec = recordDir();
    const clock = new ManualClock();
    const { supervisor, launcher, states } = makeSupervisor(
      { c: supervised('c', fixtureSpec('crash-on-call.mjs', [], { AIRLOCK_RECORD_DIR: rec.dir })) },
      { clock, policy: fastPolicy },
    );
    cleanups.push(rec.cleanup, () => supervisor.stopAll());
    await supervisor.start('c');

    const backoff = waitForState(supervisor, 'c', 'backoff');
    const error = await supervisor.callTool('c', 'explode', {}, { timeoutMs: 5000, maxTotalMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolCallError);
    expect(error).toMatchObject({ kind: 'disconnected', outcomeUnknown: true });
    await backoff;
    expect(rec.lines('calls')).toEqual(['explode']);
    expect(clock.requestedDelays).toEqual([100]);
    expect(launcher.disposed).toBe(1);

    const ready = waitForState(supervisor, 'c', 'ready');
    clock.advance(100);
    await ready;
    expect(states.c).toEqual(['starting', 'ready', 'crashed', 'backoff', 'starting', 'ready']);
    expect(rec.lines('calls')).toEqual(['explode']); // still once: the restart did not replay it
    expect(supervisor.status('c').recentCrashes).toBe(1);
  });

  it('kills a server that ignores stdin closing and SIGTERM with SIGKILL to its group', async () => {
    const rec = recordDir();
    const { supervisor } = makeSupervisor({ t: supervised('t', fixtureSpec('ignore-sigterm.mjs', [], { AIRLOCK_RECORD_DIR: rec.dir })) });
    cleanups.push(rec.cleanup, () => supervisor.stopAll());
    await supervisor.start('t');
    const pid = supervisor.status('t').pid!;
    await supervisor.stop('t');
    expect(isAlive(pid)).toBe(false);
    expect(rec.lines('signals')).toEqual(['stdin-end', 'SIGTERM']);
    expect(supervisor.log('t').some((l) => /did not stop on SIGTERM; its process group was killed/.test(l.text))).toBe(true);
  });

  it('leaves no process of the group behind — grandchildren included — over repeated start/stop cycles', async () => {
    const rec = recordDir();
    const { supervisor, launcher } = makeSupervisor({ g: supervised('g', fixtureSpec('fork-grandchild.mjs', [], { AIRLOCK_RECORD_DIR: rec.dir })) });
    cleanups.push(rec.cleanup, () => supervisor.stopAll());
    for (let cycle = 1; cycle <= 3; cycle++) {
      await supervisor.start('g');
      const pid = supervisor.status('g').pid!;
      const grandchild = Number(rec.lines('grandchild')[cycle - 1]);
      expect(isAlive(grandchild)).toBe(true);
      expect(processGroupMembers(pid)).toEqual(expect.arrayContaining([pid, grandchild]));
      await supervisor.stop('g');
      // Checked from outside, through /proc: nothing of that group is left running.
      expect(processGroupMembers(pid)).toEqual([]);
      expect(isAlive(grandchild)).toBe(false);
    }
    expect(launcher.disposed).toBe(3);
  });

  it('also kills a grandchild that left the process group with setsid while its parent lived', async () => {
    const rec = recordDir();
    const { supervisor } = makeSupervisor({ e: supervised('e', fixtureSpec('escape-group.mjs', [], { AIRLOCK_RECORD_DIR: rec.dir })) });
    cleanups.push(rec.cleanup, () => supervisor.stopAll());
    await supervisor.start('e');
    const pid = supervisor.status('e').pid!;
    const escapee = Number(rec.lines('escapee')[0]);
    expect(isAlive(escapee)).toBe(true);
    expect(processGroupMembers(pid)).not.toContain(escapee);
    await supervisor.stop('e');
    expect(isAlive(escapee)).toBe(false);
    expect(supervisor.log('e').some((l) => /moved out of its process group/.test(l.text))).toBe(true);
  });

  it('backs off exponentially, quarantines after 5 crashes in the window, and only a user restart lifts it', async () => {
    const rec = recordDir();
    const clock = new ManualClock();
    const { supervisor, launcher, states } = makeSupervisor(
      { q: supervised('q', fixtureSpec('crash-on-start.mjs', [], { AIRLOCK_RECORD_DIR: rec.dir })) },
      { clock, policy: fastPolicy },
    );
    cleanups.push(rec.cleanup, () => supervisor.stopAll());

    await expect(supervisor.start('q')).rejects.toThrow(/did not start/);
    for (let crash = 1; crash < 5; crash++) {
      await waitForState(supervisor, 'q', 'backoff');
      const next = waitForState(supervisor, 'q', 'crashed');
      clock.advance(clock.requestedDelays.at(-1)!);
      await next;
    }
    await waitForState(supervisor, 'q', 'quarantined');
    expect(clock.requestedDelays).toEqual([100, 200, 400, 800]);
    expect(rec.lines('starts')).toHaveLength(5);
    expect(launcher.disposed).toBe(5);
    expect(clock.pending).toBe(0); // nothing will restart it on its own
    expect(supervisor.log('q').some((l) => l.source === 'stderr' && /giving up/.test(l.text))).toBe(true);

    await expect(supervisor.start('q')).rejects.toThrow(/quarantined/);
    expect(rec.lines('starts')).toHaveLength(5);

    // A user restart clears quarantine and the crash history: it is tried again, from one crash.
    await expect(supervisor.restart('q')).rejects.toThrow(/did not start/);
    await waitForState(supervisor, 'q', 'backoff');
    expect(supervisor.status('q').recentCrashes).toBe(1);
    expect(rec.lines('starts')).toHaveLength(6);
    expect(states.q!.filter((s) => s === 'quarantined')).toHaveLength(1);
    await supervisor.stop('q');
    expect(supervisor.state('q')).toBe('stopped');
    expect(clock.pending).toBe(0);
  });
});
