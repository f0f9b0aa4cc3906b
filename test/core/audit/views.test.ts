import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditEntryViewSchema, AuditVerifyViewSchema } from '../../../shared/views';
import { AuditLog } from '../../../electron/core/audit/audit-log';
import { toAuditEntryViews, toAuditVerifyView } from '../../../electron/core/audit/views';

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
      expect(dv).toMatchObject({ kind: 'decision', caller: 'You', verdict: 'allowed after asking', answeredBy: 'allow-once (window), arguments edited', arguments: { token: '[redacted]' } });
      expect(ov).toMatchObject({ kind: 'outcome', caller: 'You', outcome: 'ok', durationMs: 5 });
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
});
