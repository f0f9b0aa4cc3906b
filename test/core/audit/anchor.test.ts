/**
 * The end of the log is anchored (issue 9.6): the record of where it ended
 * carries an HMAC with a key the data folder does not hold. Each red-team
 * variant from the issue, and more, done to the files on disk the way an
 * attacker with write access to the data folder (but not the key) would:
 * - the head deleted (alone, or with the tail cut) → "cannot confirm the end";
 * - the head rewritten to an earlier entry, with or without a MAC, or in the
 *   old unkeyed format → tampered;
 * - the tail cut, or the last files deleted, the head kept → truncated;
 * - the next append does not launder any of it: what it found stays in the chain.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { auditKeyFromBytes, defaultAuditKeyPath, fileAuditKey } from '../../../electron/core/audit/audit-key';
import { ACTIVE_FILE, AuditLog, HEAD_FILE, headBytes, type AuditEntry, type DecisionInput } from '../../../electron/core/audit/audit-log';
import { sha256OfCanonical } from '../../../electron/core/tools/canonical-json';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'airlock-anchor-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const key = auditKeyFromBytes(randomBytes(32));
const input = (i: number): DecisionInput => ({
  caller: { kind: 'client', name: 'Claude' },
  server: 'files',
  tool: 'write_file',
  fingerprint: null,
  arguments: { i },
  verdict: 'allow',
  final: 'allow',
  reasons: ['test'],
});

async function logWith(n: number, options: { maxFileBytes?: number } = {}) {
  const dir = tempDir();
  const log = new AuditLog({ dir, key, ...options });
  for (let i = 0; i < n; i++) await log.appendDecision(input(i));
  await log.close();
  return { dir, log, fresh: () => new AuditLog({ dir, key, ...options }) };
}

const lines = (dir: string, file = ACTIVE_FILE) => readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean);
const keepLines = (dir: string, n: number, file = ACTIVE_FILE) => writeFileSync(join(dir, file), lines(dir, file).slice(0, n).map((l) => `${l}\n`).join(''));
const entryAt = (dir: string, i: number, file = ACTIVE_FILE) => JSON.parse(lines(dir, file)[i]!) as AuditEntry;

describe('the end of the audit log is anchored by a key', () => {
  it('an untouched log verifies and its end is confirmed', async () => {
    const { fresh } = await logWith(5);
    expect(await fresh().verify()).toMatchObject({ ok: true, entries: 5, end: 'confirmed', notes: [] });
  });

  it('the head deleted, nothing else → "cannot confirm the end" (was: not reported)', async () => {
    const { dir, fresh } = await logWith(5);
    rmSync(join(dir, HEAD_FILE));
    expect(await fresh().verify()).toMatchObject({ ok: false, end: 'unconfirmed', problem: { kind: 'end-unconfirmed', message: expect.stringMatching(/cannot confirm the end/) } });
  });

  it('the head deleted and the tail cut → "cannot confirm the end" (was: verified)', async () => {
    const { dir, fresh } = await logWith(5);
    rmSync(join(dir, HEAD_FILE));
    keepLines(dir, 3);
    expect(await fresh().verify()).toMatchObject({ ok: false, problem: { kind: 'end-unconfirmed' } });
  });

  it('the tail cut, the head kept → truncated, naming what is missing', async () => {
    const { dir, fresh } = await logWith(5);
    keepLines(dir, 3);
    expect(await fresh().verify()).toMatchObject({ ok: false, end: 'truncated', problem: { kind: 'truncated', line: 3, message: expect.stringMatching(/ends at entry 3, but Airlock wrote up to entry 5/) } });
  });

  it('the head rewritten (JSON edited, no key) to the cut tail → tampered (was: verified)', async () => {
    const { dir, fresh } = await logWith(5);
    keepLines(dir, 3);
    const head = JSON.parse(readFileSync(join(dir, HEAD_FILE), 'utf8')) as Record<string, unknown>;
    const third = entryAt(dir, 2);
    writeFileSync(join(dir, HEAD_FILE), JSON.stringify({ ...head, seq: third.seq, hash: third.hash, durable: 3 }));
    expect(await fresh().verify()).toMatchObject({ ok: false, end: 'tampered', problem: { kind: 'head-tampered' } });
  });

  it('the head rewritten in the old unkeyed format to the cut tail → tampered (the tail was written by a keyed Airlock)', async () => {
    const { dir, fresh } = await logWith(5);
    keepLines(dir, 3);
    const third = entryAt(dir, 2);
    writeFileSync(join(dir, HEAD_FILE), JSON.stringify({ seq: third.seq, hash: third.hash }));
    expect(await fresh().verify()).toMatchObject({ ok: false, end: 'tampered', problem: { kind: 'head-tampered' } });
  });

  it('the head rewritten with a MAC under another key → cannot confirm the end', async () => {
    const { dir, fresh } = await logWith(5);
    keepLines(dir, 3);
    const third = entryAt(dir, 2);
    writeFileSync(join(dir, HEAD_FILE), headBytes(third.seq, third.hash, 3, auditKeyFromBytes(randomBytes(32))));
    expect(await fresh().verify()).toMatchObject({ ok: false, end: 'unconfirmed', problem: { kind: 'end-unconfirmed', message: expect.stringMatching(/another key/) } });
  });

  it('the whole tail rewritten with a recomputed chain, the head kept → the entry Airlock recorded is not there', async () => {
    const { dir, fresh } = await logWith(5);
    const ls = lines(dir);
    const forged = JSON.parse(ls[4]!) as Record<string, unknown>;
    forged.final = 'deny';
    const { hash: _h, ...rest } = forged;
    forged.hash = sha256OfCanonical(rest);
    writeFileSync(join(dir, ACTIVE_FILE), [...ls.slice(0, 4), JSON.stringify(forged)].map((l) => `${l}\n`).join(''));
    expect(await fresh().verify()).toMatchObject({ ok: false, problem: { kind: 'edited', line: 5, message: expect.stringMatching(/differs from the one Airlock last recorded/) } });
  });

  it('the last files deleted (rotated and active), the head kept → truncated; with the head deleted too → cannot confirm', async () => {
    const { dir, fresh } = await logWith(40, { maxFileBytes: 2000 });
    const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
    expect(files.length).toBeGreaterThan(3);
    // audit.jsonl sorts first; delete it and the newest rotated file.
    const rotated = files.filter((f) => f !== ACTIVE_FILE);
    rmSync(join(dir, ACTIVE_FILE));
    rmSync(join(dir, rotated.at(-1)!));
    expect(await fresh().verify()).toMatchObject({ ok: false, problem: { kind: 'truncated' } });
    rmSync(join(dir, HEAD_FILE));
    expect(await fresh().verify()).toMatchObject({ ok: false, problem: { kind: 'end-unconfirmed' } });
  });

  it('an append after the cut does not launder it: the finding stays in the chain, and verify keeps failing there', async () => {
    const { dir, fresh } = await logWith(5);
    keepLines(dir, 3);
    const log = fresh();
    await log.appendDecision(input(99));
    const note = entryAt(dir, 3);
    expect(note).toMatchObject({ type: 'anchor', finding: 'truncated', headSeq: 5, seq: 4 });
    const result = await log.verify();
    expect(result).toMatchObject({ ok: false, problem: { kind: 'truncated', line: 4, message: expect.stringMatching(/entries 4–5 were cut off/) } });
  });

  it('an append after the head was deleted keeps "cannot confirm" in the chain', async () => {
    const { dir, fresh } = await logWith(5);
    rmSync(join(dir, HEAD_FILE));
    keepLines(dir, 4);
    const log = fresh();
    await log.appendDecision(input(99));
    expect(entryAt(dir, 4)).toMatchObject({ type: 'anchor', finding: 'head-missing' });
    expect(await log.verify()).toMatchObject({ ok: false, problem: { kind: 'end-unconfirmed', line: 5 } });
  });

  it('an append after the head was forged keeps "tampered" in the chain', async () => {
    const { dir, fresh } = await logWith(5);
    keepLines(dir, 3);
    const third = entryAt(dir, 2);
    writeFileSync(join(dir, HEAD_FILE), JSON.stringify({ v: 2, seq: third.seq, hash: third.hash, durable: 3, key: key.id, mac: 'f'.repeat(64) }));
    const log = fresh();
    await log.appendDecision(input(99));
    expect(entryAt(dir, 3)).toMatchObject({ type: 'anchor', finding: 'head-forged' });
    expect(await log.verify()).toMatchObject({ ok: false, problem: { kind: 'head-tampered', line: 4 } });
  });

  it('a log written before keyed heads (v1 entries, unkeyed head) is taken as found once, with a note, then anchored', async () => {
    const { dir } = await logWith(3);
    // Rewrite as an older Airlock left it: v1 entries, unkeyed head.
    const v1 = lines(dir).map((l) => JSON.parse(l) as Record<string, unknown>);
    let prev = '0'.repeat(64);
    const rewritten = v1.map((e) => {
      const { hash: _h, ...rest } = { ...e, v: 1, prevHash: prev } as Record<string, unknown>;
      const hash = sha256OfCanonical(rest);
      prev = hash;
      return JSON.stringify({ ...rest, hash });
    });
    writeFileSync(join(dir, ACTIVE_FILE), rewritten.map((l) => `${l}\n`).join(''));
    writeFileSync(join(dir, HEAD_FILE), JSON.stringify({ seq: 3, hash: prev }).padEnd(159) + '\n');
    const log = new AuditLog({ dir, key });
    expect(await log.verify()).toMatchObject({ ok: false, problem: { kind: 'end-unconfirmed', message: expect.stringMatching(/older Airlock/) } });
    await log.appendDecision(input(4));
    const result = await log.verify();
    expect(result).toMatchObject({ ok: true, end: 'confirmed', notes: [{ line: 4, message: expect.stringMatching(/older Airlock/) }] });
  });

  it('entries lost in a power cut (written, not yet flushed) read as lost or removed, not simply removed', async () => {
    const dir = tempDir();
    const log = new AuditLog({ dir, key, timer: { set: () => ({ cancel() {} }) } });
    for (let i = 0; i < 3; i++) await log.appendDecision(input(i));
    keepLines(dir, 2);
    expect(await new AuditLog({ dir, key }).verify()).toMatchObject({ ok: false, problem: { kind: 'truncated', message: expect.stringMatching(/lost \(they had not yet been flushed/) } });
  });

  it('verifying with the wrong key cannot confirm the end', async () => {
    const { dir } = await logWith(3);
    expect(await new AuditLog({ dir, key: auditKeyFromBytes(randomBytes(32)) }).verify()).toMatchObject({ ok: false, problem: { kind: 'end-unconfirmed' } });
  });
});

describe('the headless audit key', () => {
  it('lives outside the data folder, is made once (0600 in a 0700 folder) and read back the same', () => {
    const home = tempDir();
    const path = defaultAuditKeyPath({}, home);
    expect(path).toBe(join(home, '.config', 'airlock-keys', 'audit-head.key'));
    const a = fileAuditKey(path, join(home, '.config', 'Airlock'));
    const b = fileAuditKey(path, join(home, '.config', 'Airlock'));
    expect(a.id).toBe(b.id);
    expect(a.mac('x')).toBe(b.mac('x'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.config', 'airlock-keys')).mode & 0o777).toBe(0o700);
    expect(readFileSync(path, 'utf8')).toMatch(/^airlock-audit-key v1 [0-9a-f]{64}\n$/);
  });

  it('refuses a key inside the data folder, and says why', () => {
    const home = tempDir();
    expect(() => fileAuditKey(join(home, 'data', 'k.key'), join(home, 'data'))).toThrow(/outside Airlock's data folder/);
    expect(existsSync(join(home, 'data', 'k.key'))).toBe(false);
  });

  it('a damaged key file is an error that says what to do, not a silent new key', () => {
    const home = tempDir();
    const path = join(home, 'k.key');
    writeFileSync(path, 'not a key');
    expect(() => fileAuditKey(path)).toThrow(/cannot use its audit key .* not an Airlock audit key/);
    expect(readFileSync(path, 'utf8')).toBe('not a key');
  });

  it('AIRLOCK_AUDIT_KEY_FILE chooses the file', () => {
    expect(defaultAuditKeyPath({ AIRLOCK_AUDIT_KEY_FILE: '/somewhere/k' }, '/home/u')).toBe('/somewhere/k');
    expect(defaultAuditKeyPath({ XDG_CONFIG_HOME: '/x' }, '/home/u')).toBe('/x/airlock-keys/audit-head.key');
  });
});
