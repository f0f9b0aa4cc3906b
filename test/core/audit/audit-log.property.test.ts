import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTIVE_FILE, AuditLog } from '../../../electron/core/audit/audit-log';
import { canonicalText, sealEntry } from '../../../electron/core/audit/entries';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../electron/core/tools/canonical-json';

type Tamper =
  | { kind: 'edit'; at: number }
  | { kind: 'delete'; at: number }
  | { kind: 'swap'; at: number }
  | { kind: 'truncate'; keep: number };

const tamperArb = (n: number): fc.Arbitrary<Tamper> =>
  fc.oneof(
    fc.integer({ min: 0, max: n - 1 }).map((at) => ({ kind: 'edit' as const, at })),
    fc.integer({ min: 0, max: n - 1 }).map((at) => ({ kind: 'delete' as const, at })),
    fc.integer({ min: 0, max: n - 2 }).map((at) => ({ kind: 'swap' as const, at })),
    fc.integer({ min: 0, max: n - 1 }).map((keep) => ({ kind: 'truncate' as const, keep })),
  );

describe('AuditLog.verify: any single tamper is found at the right line', () => {
  it('edit, delete, swap or truncate anywhere → not ok, at the expected line', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 10 }).chain((n) => fc.tuple(fc.constant(n), tamperArb(n))),
        async ([n, tamper]) => {
          const dir = mkdtempSync(join(tmpdir(), 'airlock-audit-prop-'));
          try {
            const log = new AuditLog({ dir });
            for (let i = 0; i < n; i++) {
              await log.appendDecision({
                caller: { kind: 'user' },
                server: 's',
                tool: 't',
                fingerprint: null,
                arguments: { i },
                verdict: 'allow',
                final: 'allow',
                reasons: [],
              });
            }
            const path = join(dir, ACTIVE_FILE);
            const ls = readFileSync(path, 'utf8').split('\n').filter(Boolean);
            let expectedLine: number;
            if (tamper.kind === 'edit') {
              ls[tamper.at] = ls[tamper.at]!.replace(`"i":${tamper.at}`, `"i":${tamper.at + 100}`);
              expectedLine = tamper.at + 1;
            } else if (tamper.kind === 'delete') {
              ls.splice(tamper.at, 1);
              // The gap shows where the next entry now sits; deleting the last one is a truncation.
              expectedLine = tamper.at === n - 1 ? n - 1 : tamper.at + 1;
            } else if (tamper.kind === 'swap') {
              [ls[tamper.at], ls[tamper.at + 1]] = [ls[tamper.at + 1]!, ls[tamper.at]!];
              expectedLine = tamper.at + 1;
            } else {
              ls.length = tamper.keep;
              expectedLine = tamper.keep;
            }
            writeFileSync(path, ls.map((l) => `${l}\n`).join(''));
            const r = await log.verify();
            expect(r.ok).toBe(false);
            expect(r.problem!.line).toBe(expectedLine);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('canonicalText is canonicalJson, built faster', () => {
  it('gives the same text for any JSON-like value (with undefined members, __proto__ keys, odd numbers)', () => {
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constant(-0)),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'hash', 'constructor', '0', '1', '10', '2', '01', '4294967294', '4294967295', '-1')), tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalText(v)).toBe(canonicalJson(v) ?? 'null');
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same text for values already in canonical order (the native fast path); objects that are not plain data keep their old text', () => {
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(-0)),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'hash', 'constructor', '0', '1', '10', '01', '-1', 'toJSON')), tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const text = canonicalJson(v) ?? 'null';
        // Parsed back, every object has its keys in canonical order.
        expect(canonicalText(JSON.parse(text))).toBe(text);
        expect(canonicalText(v)).toBe(text);
      }),
      { numRuns: 500 },
    );
    // Not plain data: never the native path (it would call toJSON, unbox, or write NaN as null where the
    // canonical form differs); these keep the text they always had.
    expect(canonicalText({ a: new Date(0) })).toBe('{"a":{}}');
    expect(canonicalText({ a: { toJSON: () => 'x' } })).toBe('{"a":{}}');
    expect(canonicalText([new String('xy')])).toBe('[{"0":"x","1":"y"}]');
  });
});

describe('sealEntry writes the canonical line and hashes the canonical text, by either path', () => {
  // An entry's own members are named by Airlock (never array-index-like); anything may be nested in them.
  it('for entries whose members are in canonical order (native) or not (member by member)', () => {
    const member = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('hash', 'a', 'z', '0', 'toJSON')), tie('node'), { maxKeys: 3 })),
    })).node;
    const body = fc.dictionary(fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom('arguments', 'seq', 'type', 'prevHash', 'v', 'time')).filter((key) => key !== 'hash' && key !== '__proto__' && !/^[0-9]/.test(key)), member, { maxKeys: 8 });
    fc.assert(
      fc.property(body, fc.boolean(), (raw, sortFirst) => {
        // Either as generated, or parsed back from canonical text (every object in canonical order).
        const withoutHash = (sortFirst ? JSON.parse(canonicalJson(raw) ?? '{}') : raw) as Record<string, unknown>;
        const { entry, line } = sealEntry(withoutHash);
        const hash = createHash('sha256').update(canonicalJson(withoutHash) ?? '').digest('hex');
        expect(entry.hash).toBe(hash);
        expect(line).toBe(canonicalJson({ ...withoutHash, hash }));
      }),
      { numRuns: 500 },
    );
  });
});
