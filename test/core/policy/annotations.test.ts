import { describe, expect, it } from 'vitest';
import type { ToolAnnotations } from '../../../shared/domain';
import { defaultSandboxProfile } from '../../../shared/domain';
import { describeClaims, normaliseAnnotations, readTool } from '../../../electron/core/policy/annotations';
import { containmentGaps, isContained, summariseSandbox } from '../../../electron/core/policy/containment';

describe('normaliseAnnotations: the spec defaults', () => {
  it('fills readOnly false, destructive true, idempotent false, openWorld true', () => {
    expect(normaliseAnnotations(undefined)).toEqual({ readOnly: false, destructive: true, idempotent: false, openWorld: true });
    expect(normaliseAnnotations({})).toEqual({ readOnly: false, destructive: true, idempotent: false, openWorld: true });
  });

  it('keeps stated booleans and ignores non-booleans', () => {
    expect(normaliseAnnotations({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: false,
    });
    const junk = { readOnlyHint: 'yes', destructiveHint: 0, idempotentHint: 1, openWorldHint: null } as unknown as ToolAnnotations;
    expect(normaliseAnnotations(junk)).toEqual({ readOnly: false, destructive: true, idempotent: false, openWorld: true });
  });
});

describe('readTool: Airlock’s reading', () => {
  it.each([
    ['nothing stated', undefined, 'destructive', false],
    ['readOnlyHint true only', { readOnlyHint: true }, 'read-only', false],
    ['readOnlyHint true, destructiveHint false', { readOnlyHint: true, destructiveHint: false }, 'read-only', false],
    ['readOnlyHint true + explicit destructiveHint true', { readOnlyHint: true, destructiveHint: true }, 'destructive', true],
    ['readOnlyHint false only', { readOnlyHint: false }, 'destructive', false],
    ['destructiveHint false only', { destructiveHint: false }, 'changes-things', false],
    ['destructiveHint true only', { destructiveHint: true }, 'destructive', false],
    ['readOnlyHint "true" (a string)', { readOnlyHint: 'true' }, 'destructive', false],
  ] as [string, ToolAnnotations | undefined, string, boolean][])('%s → %s', (_n, a, toolClass, contradictory) => {
    const r = readTool(a);
    expect(r.toolClass).toBe(toolClass);
    expect(r.contradictory).toBe(contradictory);
  });

  it('open world is the default; closed only when stated', () => {
    expect(readTool({ readOnlyHint: true }).openWorld).toBe(true);
    expect(readTool({ openWorldHint: false }).openWorld).toBe(false);
    expect(readTool({ openWorldHint: false }).stated.openWorldHint).toBe(true);
    expect(readTool({}).stated.openWorldHint).toBe(false);
  });

  it('describes claims as claims, and missing hints as not stated', () => {
    const lines = describeClaims({ readOnlyHint: true, destructiveHint: true });
    expect(lines).toContain('The server says: read-only');
    expect(lines).toContain('Safe to repeat: not stated — treated as not safe to repeat');
    expect(lines.at(-1)).toMatch(/^Contradictory/);
  });
});

describe('isContained: exact', () => {
  it('the default profile is contained', () => {
    expect(isContained(defaultSandboxProfile())).toBe(true);
    expect(containmentGaps(defaultSandboxProfile())).toEqual([]);
  });

  it.each([
    ['network domain', (p: ReturnType<typeof defaultSandboxProfile>) => p.network.allowedDomains.push('*.example.com')],
    ['secret', (p: ReturnType<typeof defaultSandboxProfile>) => p.secrets.push('TOKEN')],
    ['write grant', (p: ReturnType<typeof defaultSandboxProfile>) => p.filesystem.write.push('/tmp/keep')],
    ['persistent data folder', (p: ReturnType<typeof defaultSandboxProfile>) => (p.filesystem.persistentData = true)],
    ['unsandboxed', (p: ReturnType<typeof defaultSandboxProfile>) => (p.unsandboxed = { consentedAt: 'now' })],
  ])('any %s ends containment', (_n, mutate) => {
    const p = defaultSandboxProfile();
    mutate(p);
    expect(isContained(p)).toBe(false);
    expect(containmentGaps(p)).toHaveLength(1);
  });

  it('read grants do not end containment', () => {
    const p = defaultSandboxProfile();
    p.filesystem.read.push('/home/me');
    expect(isContained(p)).toBe(true);
  });

  it('malformed profiles fail closed', () => {
    expect(isContained(undefined)).toBe(false);
    expect(isContained(null)).toBe(false);
    expect(isContained({} as never)).toBe(false);
    expect(isContained({ ...defaultSandboxProfile(), filesystem: { read: [], write: [] } } as never)).toBe(false);
    expect(isContained({ ...defaultSandboxProfile(), network: { allowedDomains: 'x' } } as never)).toBe(false);
  });

  it('summarises a profile in plain phrases', () => {
    expect(summariseSandbox(defaultSandboxProfile()).line).toBe('writes nowhere that lasts · no internet · no secrets');
    const git = { ...defaultSandboxProfile(), filesystem: { read: [], write: ['/repo'], persistentData: false, writeTrusted: ['/repo/.git'] } };
    expect(summariseSandbox(git).line).toBe('writes to /repo · may change what git or your shell runs, in /repo/.git · no internet · no secrets');
    const p = defaultSandboxProfile();
    p.filesystem.read.push('~/Projects');
    p.filesystem.persistentData = true;
    p.network.allowedDomains.push('api.github.com');
    p.secrets.push('GITHUB_TOKEN');
    p.unsandboxed = { consentedAt: 'x' };
    const s = summariseSandbox(p);
    expect(s.line).toBe('NOT SANDBOXED — can do anything you can · Can read ~/Projects · writes to its own data folder · internet: api.github.com · secrets: GITHUB_TOKEN');
    expect(s.contained).toBe(false);
  });
});
