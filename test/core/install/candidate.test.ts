import { describe, expect, it } from 'vitest';
import { ServerNameSchema } from '../../../shared/domain';
import {
  applyUserConfig,
  finishCandidate,
  suggestServerName,
  unresolvedUserConfig,
  UserConfigError,
  type InstallCandidate,
} from '../../../electron/core/install/candidate';
import { parseJsonc } from '../../../electron/core/install/jsonc';

describe('suggested server names', () => {
  it.each([
    ['@modelcontextprotocol/server-filesystem', 'server-filesystem'],
    ['Local Echo', 'local-echo'],
    ['GitHub (work)!', 'github-work'],
    ['---', 'server'],
    ['Ünïcödé', 'unicode'],
    ['a'.repeat(80), 'a'.repeat(48)],
  ])('%s → %s', (label, expected) => {
    expect(suggestServerName(label)).toBe(expected);
    expect(ServerNameSchema.safeParse(suggestServerName(label)).success).toBe(true);
  });
});

function sampleCandidate(): InstallCandidate {
  return finishCandidate({
    suggestedName: 'sample',
    spec: { command: '/usr/bin/node', args: ['/srv/app/index.js', '${user_config.dirs}', '--level=${user_config.level}'], env: { DEBUG: '${user_config.debug}' }, cwd: '/srv/app' },
    provenance: { kind: 'mcpb', name: 'sample', version: '1.0.0', signature: 'none', bundleSha256: 'a'.repeat(64), installDir: '/srv/app' },
    requested: {
      secrets: [{ name: 'TOKEN', required: true, from: 'mcpb-user-config', key: 'token' }],
      userConfig: [
        { key: 'dirs', title: 'Folders', type: 'directory', required: true, multiple: true },
        { key: 'level', title: 'Level', type: 'number', required: false, default: 3, min: 1, max: 5 },
        { key: 'debug', title: 'Debug', type: 'boolean', required: false, default: false },
      ],
    },
    warnings: [],
  });
}

describe('applying user settings', () => {
  it('substitutes values and defaults, expanding a multiple value into several arguments', () => {
    const candidate = sampleCandidate();
    expect(unresolvedUserConfig(candidate.spec).sort()).toEqual(['debug', 'dirs', 'level']);
    const ready = applyUserConfig(candidate, { dirs: ['/data/a', '~/b'] }, { home: '/home/u' });
    expect(ready.spec.args).toEqual(['/srv/app/index.js', '/data/a', '~/b', '--level=3']);
    expect(ready.spec.env).toEqual({ DEBUG: 'false' });
    expect(unresolvedUserConfig(ready.spec)).toEqual([]);
    expect(ready.profileHints.map((hint) => [hint.path, hint.access])).toEqual([
      ['/data/a', 'read-write'],
      ['/home/u/b', 'read-write'],
    ]);
    // The server's own code is not a risk marker; the folders are.
    expect(ready.risks.map((risk) => risk.text)).toEqual(['/data/a', '~/b']);
  });

  it('lists every problem at once', () => {
    try {
      applyUserConfig(sampleCandidate(), { level: 9, debug: 'maybe', token: 'x', extra: 1 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UserConfigError);
      expect((error as UserConfigError).problems).toEqual([
        { key: 'token', message: 'is a secret: store it in the secret store, not as a plain setting' },
        { key: 'extra', message: 'this server does not ask for it' },
        { key: 'dirs', message: 'is required' },
        { key: 'level', message: 'must be at most 5' },
        { key: 'debug', message: 'must be true or false' },
      ]);
    }
  });
});

describe('prototype-named settings', () => {
  it('a field named constructor reads only the values given', () => {
    const candidate = finishCandidate({
      suggestedName: 'x',
      spec: { command: '/bin/x', args: ['${user_config.constructor}'], env: {} },
      provenance: { kind: 'local', executable: '/bin/x', executableSha256: 'b'.repeat(64) },
      requested: { secrets: [], userConfig: [{ key: 'constructor', title: 'C', type: 'string', required: true }] },
      warnings: [],
    });
    expect(() => applyUserConfig(candidate, {})).toThrow('user settings: constructor: is required');
    expect(applyUserConfig(candidate, { constructor: 'ok' }).spec.args).toEqual(['ok']);
  });
});

describe('JSONC', () => {
  it('tolerates comments and trailing commas, keeps strings intact', () => {
    expect(parseJsonc('\uFEFF{\n // c\n "a": [1, 2,], /* x */ "b": "//not a comment", "c": {"d": "/* nor this */", // t\n},\n}')).toEqual({
      a: [1, 2],
      b: '//not a comment',
      c: { d: '/* nor this */' },
    });
  });
  it('reports line and column', () => {
    expect(() => parseJsonc('{\n "a": 1\n "b": 2}')).toThrow(/^line 3, column 2/);
  });
});
