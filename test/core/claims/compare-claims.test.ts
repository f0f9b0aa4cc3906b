/**
 * The comparison of what a tool did with what it claims, as a table (pure:
 * no mocks). Only a stated hint is checked; a read-only claim is checked on
 * its own (its `destructiveHint` means nothing); an honest tool, or one that
 * claims nothing, is never contradicted.
 */
import { describe, expect, it } from 'vitest';
import type { ToolAnnotations } from '../../../shared/domain';
import { compareClaims, refusedOperation, statedClaims, type Effect } from '../../../electron/core/claims/compare-claims';

const at = 1_780_000_000_000;
const created: Effect = { kind: 'created', path: '/g/new.txt', replacedExisting: false, at };
const replacedByNew: Effect = { kind: 'created', path: '/g/old.txt', replacedExisting: true, at };
const changedInPlace: Effect = { kind: 'modified', path: '/g/old.txt', existedBefore: true, shrank: false, at };
const shortened: Effect = { kind: 'modified', path: '/g/old.txt', existedBefore: true, shrank: true, at };
const changedOwn: Effect = { kind: 'modified', path: '/g/tmp.txt', existedBefore: false, shrank: true, at };
const deletedOld: Effect = { kind: 'deleted', path: '/g/old.txt', existedBefore: true, at };
const deletedOwn: Effect = { kind: 'deleted', path: '/g/tmp.txt', existedBefore: false, at };
const renamed: Effect = { kind: 'renamed', path: '/g/a.txt', to: '/g/b.txt', existedBefore: true, replacedExisting: false, at };
const renamedOver: Effect = { kind: 'renamed', path: '/g/a.tmp', to: '/g/old.txt', existedBefore: false, replacedExisting: true, at };
const network: Effect = { kind: 'network', host: 'example.com', port: 443, allowed: false, at };
const network6: Effect = { kind: 'network', host: '2001:db8::1', port: 443, allowed: true, at };
const refusedWrite: Effect = { kind: 'refused', operation: 'write', detail: 'deny(1) file-write-create /Users/ann/x', at };
const refusedRead: Effect = { kind: 'refused', operation: 'read', detail: 'deny(1) file-read-data /Users/ann/.ssh/id_rsa', at };
const refusedNet: Effect = { kind: 'refused', operation: 'network', detail: 'deny(1) network-outbound 1.2.3.4:443', at };

const READ_ONLY: ToolAnnotations = { readOnlyHint: true };
const READ_ONLY_LOCAL: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const NOT_DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false };
const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true };
const LOCAL: ToolAnnotations = { openWorldHint: false };
const OPEN: ToolAnnotations = { openWorldHint: true };

type Row = [string, ToolAnnotations | undefined | null, Effect[], Array<[string, string, string]>];
const rows: Row[] = [
  // readOnlyHint: true — any write, change, delete or rename; a write the OS sandbox refused.
  ['read-only, creates a file', READ_ONLY, [created], [['readOnlyHint', 'wrote', '/g/new.txt']]],
  ['read-only, replaces a file with a new one', READ_ONLY, [replacedByNew], [['readOnlyHint', 'overwrote', '/g/old.txt']]],
  ['read-only, changes a file in place', READ_ONLY, [changedInPlace], [['readOnlyHint', 'changed', '/g/old.txt']]],
  ['read-only, deletes a file it made itself', READ_ONLY, [deletedOwn], [['readOnlyHint', 'deleted', '/g/tmp.txt']]],
  ['read-only, renames', READ_ONLY, [renamed], [['readOnlyHint', 'renamed', '/g/a.txt → /g/b.txt']]],
  ['read-only, renames over a file', READ_ONLY, [renamedOver], [['readOnlyHint', 'overwrote', '/g/a.tmp → /g/old.txt']]],
  ['read-only, a write the sandbox refused', READ_ONLY, [refusedWrite], [['readOnlyHint', 'refused', refusedWrite.detail]]],
  ['read-only, a read the sandbox refused (no claim about reads)', READ_ONLY, [refusedRead], []],
  ['read-only (open world unstated), a network attempt', READ_ONLY, [network], []],
  ['read-only and destructive: false (meaningless for read-only), deletes', { readOnlyHint: true, destructiveHint: false }, [deletedOld], [['readOnlyHint', 'deleted', '/g/old.txt']]],
  // destructiveHint: false — deleting, replacing or shortening what was there before the call.
  ['not destructive, deletes a file that was there', NOT_DESTRUCTIVE, [deletedOld], [['destructiveHint', 'deleted', '/g/old.txt']]],
  ['not destructive, replaces a file that was there', NOT_DESTRUCTIVE, [replacedByNew], [['destructiveHint', 'overwrote', '/g/old.txt']]],
  ['not destructive, renames over a file that was there', NOT_DESTRUCTIVE, [renamedOver], [['destructiveHint', 'overwrote', '/g/a.tmp → /g/old.txt']]],
  ['not destructive, shortens a file that was there', NOT_DESTRUCTIVE, [shortened], [['destructiveHint', 'overwrote', '/g/old.txt']]],
  ['not destructive, adds to a file (it grew)', NOT_DESTRUCTIVE, [changedInPlace], []],
  ['not destructive, creates a file', NOT_DESTRUCTIVE, [created], []],
  ['not destructive, renames (nothing lost)', NOT_DESTRUCTIVE, [renamed], []],
  ['not destructive, deletes and shortens its own temporary file', NOT_DESTRUCTIVE, [changedOwn, deletedOwn], []],
  ['not destructive, a write the sandbox refused', NOT_DESTRUCTIVE, [refusedWrite], []],
  // openWorldHint: false — any network attempt, allowed or not; a connection the OS sandbox refused.
  ['stays local, a refused network attempt', LOCAL, [network], [['openWorldHint', 'network', 'example.com:443']]],
  ['stays local, an allowed attempt to an IPv6 address', LOCAL, [network6], [['openWorldHint', 'network', '[2001:db8::1]:443']]],
  ['stays local, a connection the sandbox refused', LOCAL, [refusedNet], [['openWorldHint', 'refused', refusedNet.detail]]],
  ['stays local, writes a file (no claim about writes)', LOCAL, [created, deletedOld], []],
  // Honest claims, and no claims: nothing.
  ['destructive, deletes, replaces, shortens', DESTRUCTIVE, [deletedOld, replacedByNew, shortened], []],
  ['reaches outside, network attempts', OPEN, [network, refusedNet], []],
  ['no annotations, anything', undefined, [created, deletedOld, network, refusedWrite], []],
  ['null annotations, anything', null, [created, network], []],
  ['hints that are not booleans state nothing', { readOnlyHint: 'true', destructiveHint: 0, openWorldHint: 'false' } as unknown as ToolAnnotations, [created, deletedOld, network], []],
  // Several at once: each claim, each target once, in order seen.
  ['read-only and local, writes twice and reaches out', READ_ONLY_LOCAL, [created, created, network, network], [['readOnlyHint', 'wrote', '/g/new.txt'], ['openWorldHint', 'network', 'example.com:443']]],
];

describe('compareClaims(): what a tool did, against what it claims', () => {
  it.each(rows)('%s', (_name, annotations, effects, expected) => {
    const got = compareClaims(annotations, effects).map((c) => [c.claim, c.did, c.effect.kind === 'renamed' ? `${c.effect.path} → ${c.effect.to}` : c.effect.kind === 'network' ? (c.effect.host.includes(':') ? `[${c.effect.host}]:${c.effect.port}` : `${c.effect.host}:${c.effect.port}`) : c.effect.kind === 'refused' ? c.effect.detail : c.effect.path]);
    expect(got).toEqual(expected);
  });

  it('never throws on what it cannot read', () => {
    expect(compareClaims(READ_ONLY, [null as unknown as Effect, 7 as unknown as Effect, created])).toHaveLength(1);
    expect(compareClaims(READ_ONLY, undefined as unknown as Effect[])).toEqual([]);
  });

  it('reads only explicit booleans as claims', () => {
    expect(statedClaims({ readOnlyHint: true, destructiveHint: false, openWorldHint: false })).toEqual({ readOnly: true, notDestructive: false, closedWorld: true });
    expect(statedClaims({ readOnlyHint: false, destructiveHint: false })).toEqual({ readOnly: false, notDestructive: true, closedWorld: false });
    expect(statedClaims(undefined)).toEqual({ readOnly: false, notDestructive: false, closedWorld: false });
  });

  it.each([
    ['deny(1) file-write-create /Users/ann/x', 'write'],
    ['deny(1) file-write-data /Users/ann/x', 'write'],
    ['deny(1) file-read-data /Users/ann/.ssh/id_rsa', 'read'],
    ['deny(1) network-outbound 1.2.3.4:443', 'network'],
    ['deny(1) mach-lookup com.apple.x', 'other'],
    ['something else entirely', 'other'],
  ])('the sandbox line %s is a %s', (line, operation) => {
    expect(refusedOperation(line)).toBe(operation);
  });
});
