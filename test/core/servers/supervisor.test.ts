import { afterEach, describe, expect, it } from 'vitest';
import type { ServerToolsChange } from '../../../electron/core/servers/supervisor';
import { fingerprintTool } from '../../../electron/core/tools/fingerprint';
import { eventually, fixtureSpec, isAlive, recordDir, supervised } from './support/fixtures';
import { makeSupervisor } from './support/harness';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('Supervisor with a well-behaved fixture', () => {
  it('starts, lists fingerprinted tools, calls, stops and disposes the plan', async () => {
    const rec = recordDir();
    const { supervisor, launcher, states } = makeSupervisor({ echo: supervised('echo', fixtureSpec('echo.mjs', [], { AIRLOCK_RECORD_DIR: rec.dir })) });
    cleanups.push(rec.cleanup, () => supervisor.stopAll());

    await supervisor.start('echo');
    const status = supervisor.status('echo');
    expect(status).toMatchObject({ state: 'ready', sandboxed: false, serverInfo: { name: 'echo-fixture' } });
    const pid = status.pid as number;
    expect(isAlive(pid)).toBe(true);

    const tool = supervisor.tools.lookup('echo', 'echo');
    expect(tool?.fingerprint).toBe(fingerprintTool(tool!.definition));
    expect(supervisor.tools.get('echo')).toMatchObject({ truncated: false, duplicateNames: [] });

    const result = await supervisor.callTool('echo', 'echo', { message: 'hello' }, { timeoutMs: 5000, maxTotalMs: 10_000 });
    expect(result.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(rec.lines('calls')).toEqual(['echo']);

    // Unbounded-looking bounds are clamped, not turned into an instant timeout by Node's timer overflow.
    const unbounded = await supervisor.callTool('echo', 'echo', { message: 'inf' }, { timeoutMs: Infinity, maxTotalMs: Number.MAX_SAFE_INTEGER });
    expect(unbounded.content).toEqual([{ type: 'text', text: 'inf' }]);

    await supervisor.stop('echo');
    expect(supervisor.state('echo')).toBe('stopped');
    expect(isAlive(pid)).toBe(false);
    expect(launcher.disposed).toBe(launcher.planned);
    expect(states.echo).toEqual(['starting', 'ready', 'stopped']);

    await expect(supervisor.callTool('echo', 'echo', {})).rejects.toMatchObject({ kind: 'not-running', outcomeUnknown: false });
  });

  it('refreshes tools on list_changed and reports the changed definition', async () => {
    const { supervisor } = makeSupervisor({ lc: supervised('lc', fixtureSpec('list-changed.mjs')) }, { refreshDelayMs: 10 });
    cleanups.push(() => supervisor.stopAll());
    const changes: ServerToolsChange[] = [];
    supervisor.onDidChangeTools((c) => changes.push(c));
    await supervisor.start('lc');
    const before = supervisor.tools.lookup('lc', 'target')!.fingerprint;
    expect(changes).toHaveLength(1); // the first listing

    await supervisor.callTool('lc', 'mutate', {});
    await eventually(() => changes.length === 2, 5000, 'a tools change');
    expect(changes[1]!.diff).toEqual({ added: [], removed: [], changed: ['target'] });
    expect(supervisor.tools.lookup('lc', 'target')!.fingerprint).not.toBe(before);
    expect(supervisor.tools.lookup('lc', 'target')!.definition.description).toMatch(/id_rsa/);
  });

  it('coalesces a flood of list_changed into a few refreshes', async () => {
    const rec = recordDir();
    const { supervisor } = makeSupervisor({ lc: supervised('lc', fixtureSpec('list-changed.mjs', [], { AIRLOCK_RECORD_DIR: rec.dir })) }, { refreshDelayMs: 20 });
    cleanups.push(rec.cleanup, () => supervisor.stopAll());
    await supervisor.start('lc');
    expect(rec.lines('list-requests')).toHaveLength(1);
    await supervisor.callTool('lc', 'spam', {});
    await eventually(() => rec.lines('list-requests').length >= 2, 5000, 'a refresh');
    await new Promise((r) => setTimeout(r, 300));
    // At most one refresh running and one queued at any time: a handful, not a thousand.
    expect(rec.lines('list-requests').length).toBeLessThanOrEqual(5);
    expect(supervisor.state('lc')).toBe('ready');
  });

  it('runs a server that offers no tools, without asking it for any', async () => {
    const { supervisor } = makeSupervisor({ p: supervised('p', fixtureSpec('prompts-only.mjs')) });
    cleanups.push(() => supervisor.stopAll());
    await supervisor.start('p');
    expect(supervisor.tools.get('p')).toMatchObject({ tools: [], truncated: false });
    expect(supervisor.log('p').filter((l) => /protocol/.test(l.text))).toEqual([]);
    await supervisor.remove('p');
    expect(supervisor.tools.get('p')).toBeUndefined();
    expect(supervisor.state('p')).toBe('stopped');
  });

  it('does not start, or retry, when the launcher refuses (fail closed)', async () => {
    const { supervisor, launcher, states } = makeSupervisor({ s: supervised('s', fixtureSpec('echo.mjs')) });
    launcher.refuse = 'the sandbox cannot start: bwrap is missing';
    await expect(supervisor.start('s')).rejects.toThrow(/bwrap is missing/);
    expect(supervisor.state('s')).toBe('stopped');
    expect(states.s).toEqual(['starting', 'stopped']);
    expect(supervisor.status('s').lastError).toMatch(/launcher refused/);
  });

  it('reports a command that does not exist as a launch failure, not a crash loop', async () => {
    const { supervisor } = makeSupervisor({ s: supervised('s', { command: '/nonexistent/airlock-server', args: [], env: {} }) });
    await expect(supervisor.start('s')).rejects.toThrow(/ENOENT/);
    expect(supervisor.state('s')).toBe('stopped');
  });

  it('refuses an unknown server', async () => {
    const { supervisor } = makeSupervisor({});
    await expect(supervisor.start('nope')).rejects.toThrow(/no server named nope/);
  });
});

describe('Supervisor stop and restart', () => {
  it('stops a server that is still in its handshake, leaving nothing running', async () => {
    const marker = `airlock-never-initializes-${process.pid}-${Date.now()}`;
    const { supervisor, launcher, states } = makeSupervisor({
      mute: supervised('mute', { command: process.execPath, args: ['-e', `/*${marker}*/ setInterval(() => {}, 1000)`], env: {} }),
    });
    const starting = supervisor.start('mute').catch((e: unknown) => e);
    await eventually(() => supervisor.status('mute').pid !== undefined, 5000, 'the process to spawn');
    const pid = supervisor.status('mute').pid!;
    await supervisor.stop('mute');
    expect(await starting).toBeInstanceOf(Error);
    expect(supervisor.state('mute')).toBe('stopped');
    expect(isAlive(pid)).toBe(false);
    expect(launcher.disposed).toBe(1);
    expect(states.mute).toEqual(['starting', 'stopped']);
  });

  it('restarts a ready server into a new process after the old group is gone', async () => {
    const { supervisor, launcher } = makeSupervisor({ echo: supervised('echo', fixtureSpec('echo.mjs')) });
    cleanups.push(() => supervisor.stopAll());
    await supervisor.start('echo');
    const first = supervisor.status('echo').pid!;
    await supervisor.restart('echo');
    const second = supervisor.status('echo').pid!;
    expect(second).not.toBe(first);
    expect(isAlive(first)).toBe(false);
    expect(launcher.disposed).toBe(1);
    expect((await supervisor.callTool('echo', 'echo', { message: 'again' })).content).toEqual([{ type: 'text', text: 'again' }]);
  });
});
