import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditEntryViewSchema, AuditVerifyViewSchema } from '../../../shared/views';
import { AuditLog } from '../../../electron/core/audit/audit-log';
import { toAuditEntryView, toAuditVerifyView } from '../../../electron/core/audit/views';

describe('audit views', () => {
  it('entries and verification fit the contract', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-audit-view-'));
    try {
      const log = new AuditLog({ dir });
      const d = await log.appendDecision({
        caller: { kind: 'user' }, server: 'files', tool: 'write_file', fingerprint: null, arguments: { token: 'x' },
        verdict: 'ask', final: 'allow', reasons: ['r'], answer: { how: 'allow-once', by: 'window', edited: true },
        rule: { server: 'files', tool: 'write_file', fingerprint: 'a'.repeat(64), effect: 'allow', createdAt: '2026-12-02' },
      });
      const o = await log.appendOutcome({ callId: d.callId, server: 'files', tool: 'write_file', outcome: 'ok', durationMs: 5 });
      const dv = AuditEntryViewSchema.parse(toAuditEntryView(d));
      expect(dv).toMatchObject({ caller: 'You', verdict: 'ask → allow', answeredBy: 'allow-once (window, edited)', arguments: { token: '[redacted]' } });
      expect(AuditEntryViewSchema.parse(toAuditEntryView(o))).toMatchObject({ kind: 'outcome', outcome: 'ok', durationMs: 5 });
      expect(AuditVerifyViewSchema.parse(toAuditVerifyView(await log.verify()))).toEqual({ ok: true, entries: 2, files: 1, problems: [] });
      const path = join(dir, 'audit.jsonl');
      writeFileSync(path, readFileSync(path, 'utf8').replace('"ok"', '"tool-error"'));
      const bad = AuditVerifyViewSchema.parse(toAuditVerifyView(await log.verify()));
      expect(bad.problems).toEqual([{ file: 'audit.jsonl', line: 2, message: 'edited: This entry was changed after it was written.' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
