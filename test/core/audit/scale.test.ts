/**
 * The first page of a long log reads only its tail (issue 15): the Activity
 * page and `airlock audit` stay bounded however long the log grows. Proved
 * without a clock: the oldest files are replaced by folders, which any read
 * of them would fail on (EISDIR); the first page, read from the end
 * backwards, never touches them. (Its speed at 1,000,000 entries is in
 * `npm run bench`.)
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../electron/core/audit/audit-log';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function longLog(calls: number) {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-scale-'));
  dirs.push(dir);
  const log = new AuditLog({ dir, maxFileBytes: 4096 });
  for (let i = 0; i < calls; i++) {
    const d = await log.appendDecision({ caller: { kind: 'user' }, server: i % 5 ? 'files' : 'memory', tool: 'read', fingerprint: null, arguments: { i }, verdict: 'allow', final: 'allow', reasons: [] });
    await log.appendOutcome({ callId: d.callId, server: d.server, tool: 'read', outcome: 'ok', durationMs: 1 });
  }
  await log.close();
  return { dir, log };
}

describe('the first page reads only the tail', () => {
  it('newest first, joined with outcomes, across file boundaries, without opening the older files', async () => {
    const { dir, log } = await longLog(200);
    const rotated = readdirSync(dir).filter((f) => /^audit-\d+\.jsonl$/.test(f)).sort();
    expect(rotated.length).toBeGreaterThan(20);
    const complete = await log.read({ limit: 30 });
    // The oldest files become unreadable: reading them would throw.
    for (const name of rotated.slice(0, -8)) {
      rmSync(join(dir, name));
      mkdirSync(join(dir, name));
    }
    const page = await log.read({ limit: 30 });
    expect(page).toEqual(complete);
    expect(page.map((r) => (r.decision.arguments as { i: number }).i)).toEqual(Array.from({ length: 30 }, (_, k) => 199 - k));
    expect(page.every((r) => r.outcome?.outcome === 'ok')).toBe(true);
    // And verify, which must read everything, does touch them.
    await expect(log.verify()).rejects.toThrow(/EISDIR/);
  });

  it('a filtered page reads back only as far as it needs', async () => {
    const { dir, log } = await longLog(200);
    const rotated = readdirSync(dir).filter((f) => /^audit-\d+\.jsonl$/.test(f)).sort();
    for (const name of rotated.slice(0, -10)) {
      rmSync(join(dir, name));
      mkdirSync(join(dir, name));
    }
    const page = await log.read({ server: 'memory', limit: 5 });
    expect(page.map((r) => (r.decision.arguments as { i: number }).i)).toEqual([195, 190, 185, 180, 175]);
  });
});

describe('an overlong line cannot grow memory', () => {
  it('verify names it as malformed and read skips it (a 17 MB line in the middle)', async () => {
    const { dir } = await longLog(3);
    const { appendFileSync } = await import('node:fs');
    appendFileSync(join(dir, 'audit.jsonl'), `${'x'.repeat(17 * 1024 * 1024)}\n`);
    const fresh = new AuditLog({ dir });
    expect(await fresh.verify()).toMatchObject({ ok: false, problem: { kind: 'malformed', file: 'audit.jsonl', line: 7 } });
    expect((await fresh.read({ limit: 10 })).map((r) => (r.decision.arguments as { i: number }).i)).toEqual([2, 1, 0]);
  });
});
