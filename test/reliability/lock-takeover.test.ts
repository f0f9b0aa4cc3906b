/**
 * A writer killed between creating the audit log's lock file and writing its
 * pid into it leaves an empty lock (found by the owner-kill soak: the next
 * owner's first call could not be recorded, so it was refused). A live writer
 * fills the file in the same synchronous step that creates it, so an empty
 * lock that has stayed empty for a second is a dead writer's: the next writer
 * takes it over, well within its own wait, and nothing is lost.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../electron/core/audit/audit-log';

const root = mkdtempSync(join(tmpdir(), 'airlock-lock-takeover-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const decision = { caller: { kind: 'user' as const }, server: 'files', tool: 'read', fingerprint: null, arguments: {}, verdict: 'allow' as const, final: 'allow' as const, reasons: [] };

describe('the audit lock left empty by a writer killed as it took it', () => {
  it('is taken over by the next writer within its wait, and the log verifies', async () => {
    const dir = join(root, 'audit');
    const first = new AuditLog({ dir });
    await first.appendDecision(decision);
    await first.close();
    // Killed right after O_CREAT|O_EXCL, before its pid was written: an empty file, two seconds old.
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'audit.lock'), '');
    const then = new Date(Date.now() - 2_000);
    utimesSync(join(dir, 'audit.lock'), then, then);

    const next = new AuditLog({ dir, lockTimeoutMs: 5_000 });
    try {
      await next.appendDecision(decision);
      expect((await next.verify()).ok).toBe(true);
      expect(await next.read({ limit: 10 })).toHaveLength(2);
    } finally {
      await next.close();
    }
  }, 30_000);

  it('is left alone while it is fresh (a live writer is filling it in)', async () => {
    const dir = join(root, 'fresh');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'audit.lock'), '');
    const next = new AuditLog({ dir, lockTimeoutMs: 300 });
    try {
      await expect(next.appendDecision(decision)).rejects.toThrow(/Could not lock/);
    } finally {
      await next.close();
    }
  }, 30_000);
});
