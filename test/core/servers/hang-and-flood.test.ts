// TESTING.md hostile behaviour 6: hang and flood.
import { afterEach, describe, expect, it } from 'vitest';
import { ToolCallError } from '../../../electron/core/servers/tool-call-error';
import { eventually, fixtureSpec, recordDir, supervised } from './support/fixtures';
import { makeSupervisor } from './support/harness';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function callFailure(promise: Promise<unknown>): Promise<ToolCallError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolCallError);
    return error as ToolCallError;
  }
  throw new Error('the call succeeded');
}

describe('a server that hangs', () => {
  async function hangServer() {
    const rec = recordDir();
    const { supervisor } = makeSupervisor({ h: supervised('h', fixtureSpec('hang.mjs', [], { AIRLOCK_RECORD_DIR: rec.dir })) });
    cleanups.push(rec.cleanup, () => supervisor.stopAll());
    await supervisor.start('h');
    return { supervisor, rec };
  }

  it('times out a call that is never answered — outcome unknown — and the server receives the cancellation', async () => {
    const { supervisor, rec } = await hangServer();
    const error = await callFailure(supervisor.callTool('h', 'hang', {}, { timeoutMs: 300, maxTotalMs: 5000 }));
    expect(error).toMatchObject({ kind: 'timeout', outcomeUnknown: true, details: { sent: true, hardMaximum: false } });
    await eventually(() => rec.lines('cancelled').some((l) => l.startsWith('hang ')), 5000, 'the cancellation to reach the server');
    expect(rec.lines('calls')).toEqual(['hang']); // sent once, never retried
    expect(supervisor.state('h')).toBe('ready');
  });

  it('stops a call at its hard maximum although progress keeps arriving, and cancels it', async () => {
    const { supervisor, rec } = await hangServer();
    let progress = 0;
    const error = await callFailure(
      supervisor.callTool('h', 'progress_forever', {}, { timeoutMs: 200, maxTotalMs: 900, onProgress: () => progress++ }),
    );
    expect(error).toMatchObject({ kind: 'timeout', outcomeUnknown: true, details: { hardMaximum: true } });
    // Progress came faster than the inactivity timeout, so only the hard maximum could end it.
    expect(progress).toBeGreaterThan(5);
    await eventually(() => rec.lines('cancelled').some((l) => l.startsWith('progress_forever ')), 5000, 'the cancellation to reach the server');
  });

  it('tells an aborted call apart from a timeout, and cancels it on the server', async () => {
    const { supervisor, rec } = await hangServer();
    const controller = new AbortController();
    setTimeout(() => controller.abort('the user gave up'), 100);
    const error = await callFailure(supervisor.callTool('h', 'hang', {}, { timeoutMs: 5000, maxTotalMs: 10_000, signal: controller.signal }));
    expect(error).toMatchObject({ kind: 'aborted', outcomeUnknown: true });
    await eventually(() => rec.lines('cancelled').some((l) => l.includes('the user gave up')), 5000, 'the cancellation to reach the server');
    const early = await callFailure(supervisor.callTool('h', 'hang', {}, { signal: AbortSignal.abort() }));
    expect(early).toMatchObject({ kind: 'aborted', outcomeUnknown: false, details: { sent: false } });
  });
});

describe('a server that floods', () => {
  it('keeps log notifications rate-limited and the log capped, and still answers calls', async () => {
    const { supervisor } = makeSupervisor(
      { l: supervised('l', fixtureSpec('log-flood.mjs', [], { LOG_FLOOD_COUNT: '20000' })) },
      { logLimits: { maxLines: 200 } },
    );
    cleanups.push(() => supervisor.stopAll());
    await supervisor.start('l');
    await supervisor.callTool('l', 'flood_logs', {});
    expect((await supervisor.callTool('l', 'echo', { message: 'during' })).content).toEqual([{ type: 'text', text: 'during' }]);
    await eventually(() => supervisor.log('l').some((l) => /log notifications (dropped|a second)/.test(l.text)), 20_000, 'the rate limit to drop notifications');
    const log = supervisor.log('l');
    expect(log.length).toBeLessThanOrEqual(200);
    expect(supervisor.state('l')).toBe('ready');
  });

  it('keeps endless stderr to a capped ring', async () => {
    const limits = { maxLines: 100, maxChars: 16 * 1024, maxLineChars: 1024 };
    const { supervisor } = makeSupervisor({ s: supervised('s', fixtureSpec('log-flood.mjs')) }, { logLimits: limits });
    cleanups.push(() => supervisor.stopAll());
    await supervisor.start('s');
    await supervisor.callTool('s', 'flood_stderr', {});
    await eventually(() => supervisor.log('s').some((l) => /^\d{4,} stderr noise/.test(l.text)), 10_000, 'stderr to flow');
    expect((await supervisor.callTool('s', 'echo', { message: 'alive' })).content).toEqual([{ type: 'text', text: 'alive' }]);
    const log = supervisor.log('s');
    expect(log.length).toBeLessThanOrEqual(limits.maxLines + 1);
    expect(log.reduce((n, l) => n + l.text.length, 0)).toBeLessThanOrEqual(limits.maxChars + 2 * limits.maxLineChars);
  });
});
