import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditEntryViewSchema, AuditVerifyViewSchema } from '../../../shared/views';
import { AuditLog } from '../../../electron/core/audit/audit-log';
import { auditCallerLabel, toAuditEntryViews, toAuditVerifyView } from '../../../electron/core/audit/views';
import type { AuditAnswer, DecisionEntry } from '../../../electron/core/audit/audit-log';

describe('audit views', () => {
  it('entries and verification fit the contract', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-audit-view-'));
    try {
      const log = new AuditLog({ dir });
      const d = await log.appendDecision({
        caller: { kind: 'user' }, server: 'files', tool: 'write_file', fingerprint: null, arguments: { token: 'the-marked-secret' }, secretValues: ['the-marked-secret'],
        verdict: 'ask', final: 'allow', reasons: ['r'], answer: { how: 'allow-once', by: 'window', edited: true },
        rule: { server: 'files', tool: 'write_file', fingerprint: 'a'.repeat(64), effect: 'allow', createdAt: '2026-12-02' },
      });
      const o = await log.appendOutcome({ callId: d.callId, server: 'files', tool: 'write_file', outcome: 'ok', durationMs: 5 });
      const [ov, dv] = toAuditEntryViews({ decision: d, outcome: o }).map((row) => AuditEntryViewSchema.parse(row));
      expect(dv).toMatchObject({ kind: 'decision', caller: 'You (console)', callerKind: 'user', verdict: 'allowed after you answered in the window', answeredBy: 'allow once (window), arguments edited', arguments: { token: '[redacted]' } });
      expect(ov).toMatchObject({ kind: 'outcome', caller: 'You (console)', outcome: 'ok', durationMs: 5 });
      expect(ov!.seq).toBeGreaterThan(dv!.seq);
      expect(AuditVerifyViewSchema.parse(toAuditVerifyView(await log.verify()))).toMatchObject({ ok: true, entries: 2, files: 1, problems: [] });
      const path = join(dir, 'audit.jsonl');
      writeFileSync(path, readFileSync(path, 'utf8').replace('"ok"', '"tool-error"'));
      const bad = AuditVerifyViewSchema.parse(toAuditVerifyView(await log.verify()));
      expect(bad.problems).toEqual([{ file: 'audit.jsonl', line: 2, message: 'edited: This entry was changed after it was written.' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** A decision entry as the log holds it, for the wording table. */
  const decision = (verdict: 'allow' | 'ask' | 'deny', final: 'allow' | 'deny', answer: AuditAnswer | null, caller: unknown = { kind: 'user' }): DecisionEntry =>
    ({ v: 1, seq: 1, time: 't', callId: 'c', server: 's', tool: 't', prevHash: '', hash: '', type: 'decision', caller, fingerprint: null, arguments: {}, verdict, final, reasons: [], decidedBy: 'untrusted', rule: null, answer }) as unknown as DecisionEntry;

  it.each([
    // Issue 11.8: nobody was asked in these two, and the words say so.
    ['the CLI’s own call', decision('ask', 'allow', { how: 'own-call', by: 'command-line' }, { kind: 'cli' }), 'allowed: your own call (command line)', undefined],
    ['the console’s own call', decision('ask', 'allow', { how: 'own-call', by: 'console' }), 'allowed: your own call (console)', undefined],
    ['an entry written before callers were typed', decision('ask', 'allow', { how: 'console', by: 'console' }), 'allowed: your own call (console)', undefined],
    ['a refusal with nobody present', decision('ask', 'deny', { how: 'no-approver' }), 'refused: nobody could be asked', undefined],
    ['an answer in the terminal', decision('ask', 'allow', { how: 'allow-once', by: 'terminal' }), 'allowed after you answered in the terminal', 'allow once (terminal)'],
    ['a denial in the window', decision('ask', 'deny', { how: 'deny-always', by: 'window' }), 'denied after you answered in the window', 'always deny (window)'],
    ['nobody answered', decision('ask', 'deny', { how: 'expired' }), 'denied: nobody answered in time', undefined],
    ['the caller cancelled', decision('ask', 'deny', { how: 'cancelled' }), 'not sent: the confirmation was cancelled', undefined],
    ['a refused approval token', decision('ask', 'deny', { how: 'refused-token' }), 'denied: the approval did not match the call', undefined],
    ['the policy allowed', decision('allow', 'allow', null), 'allowed', undefined],
    ['the policy denied', decision('deny', 'deny', null), 'denied', undefined],
  ])('words %s as what happened', (_name, entry, verdict, answeredBy) => {
    const [row] = toAuditEntryViews({ decision: entry });
    expect(row!.verdict).toBe(verdict);
    expect(row!.answeredBy).toBe(answeredBy);
  });

  it.each([
    [{ kind: 'user' }, 'You (console)'],
    [{ kind: 'cli' }, 'You (command line)'],
    // Issue 10.7: an app that calls itself "You" reads as an app, never as the person.
    [{ kind: 'client', name: 'You' }, 'app “You”'],
    [{ kind: 'client', name: 'You (console)' }, 'app “You (console)”'],
    [{ kind: 'client', name: 'evil\u001b[2J\u001b[31mYou' }, 'app “evil\\u{1b}[2J\\u{1b}[31mYou”'],
    [{ kind: 'agent', name: 'Claude' }, 'app “Claude”'],
    [{ kind: 'agent', provider: 'anthropic', model: 'claude-x' }, "Airlock's agent (claude-x)"],
    [{ kind: 'root' }, 'an unknown caller'],
  ])('names the caller %j by kind', (caller, label) => {
    expect(auditCallerLabel(caller)).toBe(label);
    expect(toAuditEntryViews({ decision: decision('allow', 'allow', null, caller) })[0]!.caller).toBe(label);
  });
});
