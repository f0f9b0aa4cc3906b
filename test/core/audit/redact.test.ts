import { mkdtempSync, rmSync, writeFileSync, utimesSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REDACTED, SHORTEST_MATCH, redactArguments, redactName, redactString } from '../../../electron/core/audit/redact';
import { acquireFileLock } from '../../../electron/core/audit/file-lock';

describe('redactString', () => {
  it.each([
    ['sk-ant-api03-abcdefghijklmnopqrstuv', REDACTED],
    ['my key is ghp_abcdefghijklmnopqrstuvwxyz0123 ok', `my key is ${REDACTED} ok`],
    ['AKIAIOSFODNN7EXAMPLE', REDACTED],
    ['xoxb-1234567890-abcdefghij', REDACTED],
    ['AIzaSyA1234567890abcdefghijklmnopqrstuv', REDACTED],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk', REDACTED],
    ['Authorization: Bearer abc123def456ghi789', `Authorization: Bearer ${REDACTED}`],
    ['https://bob:s3cret@db.example.com/x', `https://bob:${REDACTED}@db.example.com/x`],
    ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----', REDACTED],
    ['token 9f8A7b6C5d4E3f2A1b0C9d8E7f6A5b4C3d2E1f0A', `token ${REDACTED}`],
  ])('%s', (input, expected) => {
    expect(redactString(input)).toEqual({ value: expected, redacted: true });
  });

  it.each([
    '/home/me/Documents/a-very-long-file-name-that-goes-on-and-on.md',
    'Hello, please summarise this paragraph for me.',
    'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    'https://example.com/path?q=1',
    '2026-12-02T12:00:00.000Z',
  ])('leaves ordinary text alone: %s', (input) => {
    expect(redactString(input)).toEqual({ value: input, redacted: false });
  });

  // Strings shorter than SHORTEST_MATCH skip the patterns: the shortest text each pattern can match is at least that long.
  it.each([
    ['a://b:c@', 'a://b:[redacted]@'],
    ['xoxb-0123456789', REDACTED],
    ['Token abcdefghijkl', `Token ${REDACTED}`],
    ['sk-abcdefghijklmnop', REDACTED],
  ])('the shortest matches are not shorter than the skip: %s', (input, expected) => {
    expect(input.length).toBeGreaterThanOrEqual(SHORTEST_MATCH);
    expect(redactString(input)).toEqual({ value: expected, redacted: true });
    // One character less matches nothing.
    expect(redactString(input.slice(1)).redacted && input.slice(1).length < SHORTEST_MATCH).toBe(false);
  });
});

describe('redactArguments', () => {
  it('what a parameter is called decides nothing: values under "secret" names are kept (issue 9.8)', () => {
    const args = { a: { password: 'x', nested: [{ token: { deep: 'y' } }] }, api_key: 'plain words', count: 3, max_tokens: 50, ok: true, nothing: null };
    const r = redactArguments(args);
    expect(r.value).toEqual(args);
    expect(r.paths).toEqual([]);
  });

  it('hides the values the person marked secret wherever they appear — whole, inside text, in keys — and lists where', () => {
    const secret = 'hunter2-db-pass';
    const r = redactArguments(
      { query: `connect with ${secret} now`, list: ['ok', secret], nested: { [secret]: 1, plain: 'fine' }, pin: '42', short: 'x42y' },
      { secrets: [secret, '42'] },
    );
    expect(r.value).toEqual({ query: `connect with ${REDACTED} now`, list: ['ok', REDACTED], nested: { [`${REDACTED}#1`]: 1, plain: 'fine' }, pin: REDACTED, short: 'x42y' });
    expect(r.paths.sort()).toEqual(['/list/1', `/nested/${REDACTED}#1`, '/pin', '/query']);
    expect(JSON.stringify(r.value)).not.toContain(secret);
  });

  it('a marked secret longer than the cut is still hidden beyond the first 16 KB', () => {
    const secret = 'marked-secret-value';
    const r = redactArguments({ s: `${'x '.repeat(10_000)}${secret}` }, { secrets: [secret] });
    expect(JSON.stringify(r.value)).not.toContain(secret);
  });

  it('keeps __proto__ keys as data without touching prototypes', () => {
    const r = redactArguments(JSON.parse('{"__proto__": {"polluted": "sk-ant-abcdefghijklmnopqrstu"}}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(r.value)).toBe(`{"__proto__":{"polluted":"${REDACTED}"}}`);
  });

  it('caps string length and depth', () => {
    const long = redactArguments({ s: 'x '.repeat(20_000) }).value as { s: string };
    expect(long.s.length).toBeLessThan(17_000);
    expect(long.s).toMatch(/more characters]$/);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 50; i++) deep = { d: deep };
    expect(JSON.stringify(redactArguments(deep).value)).toContain('[too deep]');
  });

  it('a top-level secret string is redacted too; a copy says whether it changed, and lists keys in sorted order', () => {
    expect(redactArguments('sk-abcdefghijklmnopqrstuvwx')).toEqual({ value: REDACTED, paths: ['/'], changed: true });
    expect(redactArguments({ b: 'plain', a: [1, 'two'] })).toEqual({ value: { a: [1, 'two'], b: 'plain' }, paths: [], changed: false });
    expect(Object.keys(redactArguments({ b: 1, a: 2 }).value as object)).toEqual(['a', 'b']);
  });
});

describe('acquireFileLock', () => {
  it('is exclusive, and released locks can be taken again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-lock-'));
    try {
      const path = join(dir, 'x.lock');
      const release = await acquireFileLock(path);
      await expect(acquireFileLock(path, { timeoutMs: 100 })).rejects.toThrow(/Could not lock/);
      await release();
      await release();
      const again = await acquireFileLock(path, { timeoutMs: 100 });
      await again();
      expect(existsSync(path)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes over a lock whose holder died, or that is very old', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-lock-'));
    try {
      const path = join(dir, 'x.lock');
      const { hostname } = await import('node:os');
      writeFileSync(path, `999999999 ${hostname()} dead`);
      const r1 = await acquireFileLock(path, { timeoutMs: 1000 });
      await r1();
      writeFileSync(path, `${process.pid} another-host nonce`);
      const old = (Date.now() - 120_000) / 1000;
      utimesSync(path, old, old);
      const r2 = await acquireFileLock(path, { timeoutMs: 1000, staleMs: 60_000 });
      await r2();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('redaction stays fast on hostile input', () => {
  it.each([
    ['a long run of letters', 'a'.repeat(1_000_000)],
    ['scheme-like letters without ://', 'http'.repeat(250_000)],
    ['many colons', 'a://b:'.repeat(100_000)],
    ['an unterminated private key', `-----BEGIN RSA PRIVATE KEY-----${'A'.repeat(500_000)}`],
  ])('%s (1 MB)', (_n, s) => {
    const t = performance.now();
    redactArguments({ s });
    redactString(s.slice(0, 16 * 1024));
    expect(performance.now() - t).toBeLessThan(2000);
  });
});

describe('redactName: a secret in a name Airlock rewrote (a host name in small letters, a path)', () => {
  const secret = 'OpenSesame4821';
  it.each([
    ['opensesame4821.attacker.example', '[redacted].attacker.example'],
    ['OPENSESAME4821.attacker.example', '[redacted].attacker.example'],
    ['opensesa.me4821.attacker.example', '[redacted].attacker.example'],
    ['o-p-e-n-s-e-s-a-m-e-4-8-2-1.attacker.example', '[redacted].attacker.example'],
    ['x.opensesame4821.opensesame4821.example', 'x.[redacted].[redacted].example'],
    ['/private/tmp/OpenSesame4821/out', '/private/tmp/[redacted]/out'],
    ['api.example.com', 'api.example.com'],
    ['opensesame.example.com', 'opensesame.example.com'],
  ])('%s → %s', (name, shown) => {
    expect(redactName(name, [secret])).toBe(shown);
  });

  it('letters outside ASCII keep their place', () => {
    expect(redactName('/Users/Zoë/PÄSSWÖRT-77/x', ['pässwört77'])).toBe('/Users/Zoë/[redacted]/x');
  });
});
