/**
 * How the choke point asks for durability (issue 15), checked where the
 * order happens: the real pipeline, the real audit log on recorded file
 * operations, and a real MCP server (the echo fixture, counting what reaches
 * it) behind `callServer`, which marks the moment of sending.
 * - an allowed call: its decision is written before the call is sent, and not
 *   waited on for the disk; the flush is armed within the window;
 * - a confirmation a person answered: the decision is flushed before the send;
 * - strict durability: flushed before the send, for every call.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rule } from '../../../shared/domain';
import { ConfirmationRegistry, SessionGrants, systemClock } from '../../../electron/core/approvals';
import { ACTIVE_FILE, AuditLog, DEFAULT_FLUSH_WINDOW_MS } from '../../../electron/core/audit/audit-log';
import { CallPipeline } from '../../../electron/core/calls/call-pipeline';
import { manualTimer, recordingFs, type FsEvent } from '../audit/support/recording-fs';
import { echoRecord, startEcho, type EchoServer } from './support/echo-fixture';

let echo: EchoServer;
beforeAll(async () => {
  echo = await startEcho('pipeline-durability');
});
afterAll(() => echo.close());

const callsReached = () => echo.reached();

function pipeline(options: { strict?: boolean; rule?: boolean }) {
  const dir = mkdtempSync(join(echo.root, 'audit-'));
  const fs = recordingFs();
  const timer = manualTimer();
  const audit = new AuditLog({ dir, fs, timer });
  const { record, fingerprint, allow } = echoRecord(echo.definition);
  const rules: Rule[] = options.rule ? [allow] : [];
  const sessionGrants = new SessionGrants(systemClock);
  const confirmations = new ConfirmationRegistry({ sessionGrants, defaultTimeoutMs: 10_000 });
  // At the moment of sending: what had been written and flushed.
  const atSend: FsEvent[][] = [];
  const auditErrors: string[] = [];
  const calls = new CallPipeline({
    state: () => ({ servers: { echo: record }, rules, settings: { policyMode: 'default', strictDurability: options.strict === true } }),
    lookupTool: (server, tool) => (server === 'echo' && tool === 'echo' ? { server, name: tool, definition: echo.definition, fingerprint } : undefined),
    ensureReady: async () => {},
    toolsSettled: async () => true,
    codeChange: async () => null,
    callServer: async (_server, tool, args) => {
      atSend.push([...fs.events]);
      fs.mark('send');
      return (await echo.client.callTool({ name: tool, arguments: args })) as never;
    },
    saveRule: () => {},
    sessionGrants,
    confirmations,
    audit,
    sandboxAvailable: () => true,
    canAsk: () => true,
    now: () => Date.now(),
    onAuditError: (message) => auditErrors.push(message),
  });
  return { fs, timer, audit, calls, confirmations, atSend, auditErrors };
}

async function answer(confirmations: ConfirmationRegistry, choice: 'allow-once' | 'deny'): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const open = confirmations.pending()[0];
    if (open) {
      expect(confirmations.answer(open.id, { choice, answeredBy: { shell: 'test' } }).ok).toBe(true);
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no confirmation opened');
}

const decisionWrite = (events: FsEvent[], message: string) =>
  events.findIndex((e) => e.op === 'write' && e.file === ACTIVE_FILE && e.text!.includes('"type":"decision"') && e.text!.includes(message));
const logSyncAfter = (events: FsEvent[], index: number) => events.findIndex((e, i) => i > index && e.op === 'fsync' && e.file === ACTIVE_FILE);

describe('the choke point asks the audit log for the right durability', () => {
  it('an allowed call: the decision is written before the call is sent, without waiting for the disk; the flush follows within the window', async () => {
    const { fs, timer, audit, calls, atSend } = pipeline({ rule: true });
    const before = callsReached();
    const result = await calls.call({ server: 'echo', tool: 'echo', arguments: { message: 'auto-1' }, caller: { kind: 'client', name: 'Agent' } });
    expect(result.outcome).toBe('ok');
    expect(callsReached()).toBe(before + 1);
    const sent = atSend[0]!;
    const written = decisionWrite(sent, 'auto-1');
    expect(written).toBeGreaterThanOrEqual(0);
    expect(logSyncAfter(sent, written)).toBe(-1);
    // The flush is armed, no later than the window, and covers the decision when it fires.
    expect(timer.armed.length).toBeGreaterThan(0);
    expect(Math.max(...timer.armed.map((t) => t.ms))).toBeLessThanOrEqual(DEFAULT_FLUSH_WINDOW_MS);
    timer.fire();
    await audit.flush();
    expect(logSyncAfter(fs.events, decisionWrite(fs.events, 'auto-1'))).toBeGreaterThan(-1);
  });

  it('a confirmation a person answered: the decision is flushed before the call is sent', async () => {
    const { calls, confirmations, atSend } = pipeline({});
    const before = callsReached();
    const pending = calls.call({ server: 'echo', tool: 'echo', arguments: { message: 'asked-1' }, caller: { kind: 'client', name: 'Agent' } });
    await answer(confirmations, 'allow-once');
    expect((await pending).outcome).toBe('ok');
    expect(callsReached()).toBe(before + 1);
    const sent = atSend[0]!;
    expect(logSyncAfter(sent, decisionWrite(sent, 'asked-1'))).toBeGreaterThan(-1);
  });

  it('a confirmation a person denied: the decision is flushed before the caller hears, and nothing is sent', async () => {
    const { fs, calls, confirmations, atSend } = pipeline({});
    const before = callsReached();
    const pending = calls.call({ server: 'echo', tool: 'echo', arguments: { message: 'denied-1' }, caller: { kind: 'client', name: 'Agent' } });
    await answer(confirmations, 'deny');
    expect((await pending).outcome).toBe('denied');
    expect(atSend).toHaveLength(0);
    expect(callsReached()).toBe(before);
    expect(logSyncAfter(fs.events, decisionWrite(fs.events, 'denied-1'))).toBeGreaterThan(-1);
  });

  it('strict durability: every call’s decision is flushed before it is sent', async () => {
    const { calls, atSend } = pipeline({ strict: true, rule: true });
    for (const message of ['strict-1', 'strict-2']) {
      expect((await calls.call({ server: 'echo', tool: 'echo', arguments: { message }, caller: { kind: 'client', name: 'Agent' } })).outcome).toBe('ok');
    }
    for (const [i, message] of ['strict-1', 'strict-2'].entries()) {
      const sent = atSend[i]!;
      expect(logSyncAfter(sent, decisionWrite(sent, message))).toBeGreaterThan(-1);
    }
  });

  it('an allowed call: its outcome is written once the caller has the result, off its path', async () => {
    const { fs, calls, auditErrors } = pipeline({ rule: true });
    const outcomeWrites = () => fs.events.filter((e) => e.op === 'write' && e.file === ACTIVE_FILE && e.text!.includes('"type":"outcome"')).length;
    const result = await calls.call({ server: 'echo', tool: 'echo', arguments: { message: 'later-1' }, caller: { kind: 'client', name: 'Agent' } });
    expect(result).toMatchObject({ outcome: 'ok', message: undefined });
    expect(outcomeWrites()).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcomeWrites()).toBe(1);
    expect(auditErrors).toEqual([]);
  });

  it('an outcome that cannot be written after the call returned reaches onAuditError, and the caller kept its result', async () => {
    const { fs, calls, auditErrors, atSend } = pipeline({ rule: true });
    const originalMark = fs.mark;
    // Fail the first log write after the send: the outcome's.
    fs.mark = (label) => {
      originalMark(label);
      if (label === 'send') fs.failNext('write', { code: 'ENOSPC', file: ACTIVE_FILE });
    };
    const result = await calls.call({ server: 'echo', tool: 'echo', arguments: { message: 'later-3' }, caller: { kind: 'client', name: 'Agent' } });
    expect(result.outcome).toBe('ok');
    expect(atSend).toHaveLength(1);
    for (let i = 0; i < 50 && auditErrors.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(auditErrors).toEqual([expect.stringMatching(/could not record how this call ended: .*full/)]);
  });

  it('strict durability: the outcome is flushed before the caller hears', async () => {
    const { fs, calls } = pipeline({ strict: true, rule: true });
    expect((await calls.call({ server: 'echo', tool: 'echo', arguments: { message: 'strict-out' }, caller: { kind: 'client', name: 'Agent' } })).outcome).toBe('ok');
    const outcome = fs.events.findIndex((e) => e.op === 'write' && e.file === ACTIVE_FILE && e.text!.includes('"type":"outcome"'));
    expect(outcome).toBeGreaterThan(-1);
    expect(logSyncAfter(fs.events, outcome)).toBeGreaterThan(-1);
  });

  it('a decision that cannot be written (disk full) is not sent: the caller is told why', async () => {
    const { fs, calls, atSend } = pipeline({ rule: true });
    const before = callsReached();
    await calls.call({ server: 'echo', tool: 'echo', arguments: { message: 'warm' }, caller: { kind: 'user' } });
    fs.failNext('write', { code: 'ENOSPC', file: ACTIVE_FILE });
    await expect(calls.call({ server: 'echo', tool: 'echo', arguments: { message: 'full-1' }, caller: { kind: 'client', name: 'Agent' } })).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/did not send this call.*disk .* is full/s),
    });
    expect(atSend).toHaveLength(1);
    expect(callsReached()).toBe(before + 1);
  });
});
