/**
 * The Activity page's check after an append reads only what was appended
 * since the last clean check (issue 15, item 6), and falls back to reading
 * everything whenever the files before that point are not exactly the ones
 * it read. Proved on disk: an edit in place to an already-checked entry is
 * not read by `verifyNew()` (so it read only the new lines) while `verify()`
 * finds it; a new entry edited, a removed entry that moves the checked ones,
 * and rotations are all seen from the mark.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../electron/core/audit/audit-log';
import { auditKeyFromBytes } from '../../../electron/core/audit/audit-key';
import type { VerifyResult } from '../../../electron/core/audit/audit-reader';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function newLog(maxFileBytes = 10 * 1024 * 1024) {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-incremental-'));
  dirs.push(dir);
  return { dir, log: new AuditLog({ dir, key: auditKeyFromBytes(randomBytes(32)), maxFileBytes }) };
}

async function calls(log: AuditLog, from: number, count: number) {
  for (let i = from; i < from + count; i++) {
    const d = await log.appendDecision({ caller: { kind: 'user' }, server: 'files', tool: 'read', fingerprint: null, arguments: { i, note: 'abcdef' }, verdict: 'allow', final: 'allow', reasons: [] });
    await log.appendOutcome({ callId: d.callId, server: d.server, tool: 'read', outcome: 'ok', durationMs: 1 });
  }
  await log.flush();
}

/** What a person is shown, without how it was found. */
const seen = ({ ok, entries, files, problem, repaired, notes, end }: VerifyResult) => ({ ok, entries, files, problem, repaired, notes, end });

/** Replaces `from` with `to` (same length) in the active file, in place. */
function editInPlace(dir: string, from: string, to: string) {
  expect(to.length).toBe(from.length);
  const path = join(dir, 'audit.jsonl');
  const text = readFileSync(path, 'utf8');
  expect(text).toContain(from);
  writeFileSync(path, text.replace(from, to));
}

describe('verifyNew: only what was appended since the last clean check', () => {
  it('reads only the new lines: an edit in place to a checked entry is left to the whole check, which finds it', async () => {
    const { dir, log } = newLog();
    await calls(log, 0, 2);
    const first = await log.verify();
    expect(first).toMatchObject({ ok: true, entries: 4, end: 'confirmed' });
    await calls(log, 2, 10);
    // Entry 1 edited in place (same length): only a check that reads it again can see it.
    editInPlace(dir, '"i":0,"note":"abcdef"', '"i":0,"note":"ABCDEF"');
    const fromMark = await log.verifyNew();
    expect(fromMark).toMatchObject({ ok: true, entries: 24, files: ['audit.jsonl'], scope: 'new', end: 'confirmed' });
    const whole = await log.verify();
    expect(whole).toMatchObject({ ok: false, problem: { file: 'audit.jsonl', line: 1, kind: 'edited' } });
    // The failed chain forgot the mark: the next check from it reads everything, and finds it too.
    expect(await log.verifyNew()).toMatchObject({ ok: false, scope: 'all', problem: { line: 1, kind: 'edited' } });
    await log.close();
  });

  it('the last entry checked is read again each time: an edit to it sends the check back to the whole log, which names it', async () => {
    const { dir, log } = newLog();
    await calls(log, 0, 2);
    expect((await log.verify()).ok).toBe(true);
    // Entry 4 (the outcome of call 1) is the last one checked; its line is edited in place.
    const path = join(dir, 'audit.jsonl');
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines[3]).toContain('"durationMs":1,');
    lines[3] = lines[3]!.replace('"durationMs":1,', '"durationMs":9,');
    writeFileSync(path, lines.join('\n'));
    await calls(log, 2, 1);
    expect(await log.verifyNew()).toMatchObject({ ok: false, scope: 'all', problem: { line: 4, kind: 'edited' } });
    await log.close();
  });

  it('without an earlier check, reads everything', async () => {
    const { log } = newLog();
    await calls(log, 0, 3);
    expect(await log.verifyNew()).toMatchObject({ ok: true, entries: 6, scope: 'all', end: 'confirmed' });
    await log.close();
  });

  it('finds an edit to an entry appended after the mark, by its line', async () => {
    const { dir, log } = newLog();
    await calls(log, 0, 2);
    expect((await log.verify()).ok).toBe(true);
    await calls(log, 2, 3);
    editInPlace(dir, '"i":3,"note":"abcdef"', '"i":3,"note":"ABCDEF"');
    expect(await log.verifyNew()).toMatchObject({ ok: false, scope: 'new', problem: { file: 'audit.jsonl', line: 7, kind: 'edited' } });
    await log.close();
  });

  it('a removed entry before the mark moves the last checked one: the whole log is read and the gap named', async () => {
    const { dir, log } = newLog();
    await calls(log, 0, 3);
    expect((await log.verify()).ok).toBe(true);
    await calls(log, 3, 5);
    const path = join(dir, 'audit.jsonl');
    const lines = readFileSync(path, 'utf8').split('\n');
    writeFileSync(path, [...lines.slice(0, 1), ...lines.slice(2)].join('\n'));
    expect(await log.verifyNew()).toMatchObject({ ok: false, scope: 'all', problem: { file: 'audit.jsonl', line: 2, kind: 'removed' } });
    await log.close();
  });

  it('across rotations, says what the whole check says, line for line', async () => {
    const { dir, log } = newLog(2048);
    await calls(log, 0, 5);
    expect(await log.verify()).toMatchObject({ ok: true });
    for (let round = 0; round < 4; round++) {
      await calls(log, 5 + round * 7, 7);
      const fromMark = await log.verifyNew();
      expect(fromMark.scope).toBe('new');
      expect(seen(fromMark)).toEqual(seen(await log.verify()));
    }
    expect(readdirSync(dir).filter((f) => /^audit-\d+\.jsonl$/.test(f)).length).toBeGreaterThan(3);
    // And an edit in a rotated file after the mark is still found.
    const rotated = readdirSync(dir).filter((f) => /^audit-\d+\.jsonl$/.test(f)).sort().at(-1)!;
    await log.verify();
    await calls(log, 100, 12);
    const newest = readdirSync(dir).filter((f) => /^audit-\d+\.jsonl$/.test(f)).sort().at(-1)!;
    expect(newest).not.toBe(rotated);
    const path = join(dir, newest);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/"note":"abcdef"/, '"note":"ABCDEF"'));
    expect(await log.verifyNew()).toMatchObject({ ok: false, scope: 'new', problem: { file: newest, kind: 'edited' } });
    await log.close();
  });

  it('the end is checked every time: entries cut from the end after the mark are named', async () => {
    const { dir, log } = newLog();
    await calls(log, 0, 3);
    expect((await log.verify()).ok).toBe(true);
    await calls(log, 3, 2);
    const path = join(dir, 'audit.jsonl');
    const lines = readFileSync(path, 'utf8').split('\n');
    writeFileSync(path, lines.slice(0, -3).join('\n') + '\n');
    expect(await log.verifyNew()).toMatchObject({ ok: false, end: 'truncated', problem: { kind: 'truncated' } });
    await log.close();
  });
});
