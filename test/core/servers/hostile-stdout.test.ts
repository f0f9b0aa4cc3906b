// TESTING.md hostile behaviour 4: garbage on stdout.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_STDIO_LIMITS } from '../../../electron/core/servers/stdio-transport';
import { fixtureSpec, isAlive, supervised } from './support/fixtures';
import { makeSupervisor, waitForState } from './support/harness';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('garbage on stdout', () => {
  it('survives log lines, invalid UTF-8, a 9 MiB line, deep nesting and __proto__ keys, holding at most one line cap', async () => {
    const { supervisor } = makeSupervisor({ g: supervised('g', fixtureSpec('garbage-stdout.mjs')) });
    cleanups.push(() => supervisor.stopAll());
    await supervisor.start('g');

    const echoed = await supervisor.callTool('g', 'echo', { message: 'still here' });
    expect(echoed.content).toEqual([{ type: 'text', text: 'still here' }]);
    await supervisor.callTool('g', 'garbage_again', {});
    expect((await supervisor.callTool('g', 'echo', { message: 'again' })).content).toEqual([{ type: 'text', text: 'again' }]);

    const stats = supervisor.status('g').stdio!;
    expect(stats.faults['not-json']).toBeGreaterThanOrEqual(2);
    expect(stats.faults['invalid-utf8']).toBe(2);
    expect(stats.faults['oversize-line']).toBeGreaterThanOrEqual(2);
    expect(stats.faults['too-deep']).toBe(2);
    expect(stats.faults['not-jsonrpc']).toBe(2);
    expect(stats.sanitizedMessages).toBe(4);
    // Memory bound: never more than one line cap held for an unfinished line.
    expect(stats.highWaterLineBytes).toBeLessThanOrEqual(DEFAULT_STDIO_LIMITS.maxLineBytes);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(supervisor.state('g')).toBe('ready');
    expect(supervisor.log('g').some((l) => l.source === 'airlock' && /not valid UTF-8/.test(l.text))).toBe(true);
  });

  it.each([
    ['endless non-JSON lines', 'lines'],
    ['endless bytes with no newline', 'no-newline'],
  ])('marks a server that sends %s faulty, stops it and holds it until a user restart', async (_what, mode) => {
    const maxLineBytes = 64 * 1024;
    const { supervisor } = makeSupervisor(
      { f: supervised('f', fixtureSpec('garbage-flood.mjs', [mode])) },
      { connection: { stdio: { maxFaults: 20, maxLineBytes }, shutdown: { graceMs: 200, termMs: 300, killMs: 1000 } } },
    );
    cleanups.push(() => supervisor.stopAll());
    await supervisor.start('f');
    const pid = supervisor.status('f').pid!;
    const quarantined = waitForState(supervisor, 'f', 'quarantined');
    await supervisor.callTool('f', 'flood', {});
    await quarantined;

    const status = supervisor.status('f');
    expect(status.lastError).toMatch(/not MCP/);
    expect(status.stdio!.highWaterLineBytes).toBeLessThanOrEqual(maxLineBytes);
    await supervisor.stop('f'); // waits for the cleanup that quarantine started
    expect(isAlive(pid)).toBe(false);
    await expect(supervisor.start('f')).rejects.toThrow(/quarantined/);
  });
});
