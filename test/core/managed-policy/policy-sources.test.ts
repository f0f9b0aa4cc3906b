import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePlist } from '../../../electron/core/managed-policy/plist';
import { darwinPolicySource, windowsPolicySource, type WindowsRunner } from '../../../electron/core/managed-policy/policy-sources';
import { policyState } from '../../../electron/core/managed-policy/policy-state';
import { parseWindowsAcls, registryPolicy, windowsAclProblem, WINDOWS_ACL_SCRIPT } from '../../../electron/core/managed-policy/windows-formats';
import { canUseRealPolicyPaths, inPolicyNamespace, sh } from '../../support/policy-namespace';

const ROOT = resolve(__dirname, '../../..');
const SCRIPT = join(ROOT, 'test/fixtures/managed-policy/at-real-paths.ts');
const NODE = `${sh(process.execPath)} --import tsx ${sh(SCRIPT)}`;
const POLICY = '/etc/airlock/managed-policy.json';
const GOOD = JSON.stringify({ version: 1, allowTrust: false, deniedServers: [{ npm: '@evil/*' }] }, null, 2);

interface Found {
  uid: number;
  state: { status: string; policy?: Record<string, unknown>; problems?: Array<{ location: string; line?: number; problem: string }>; ignored: Array<{ location: string; why: string }> };
}

/** Writes `files` at the real paths (as root), then reads the policy as root or as nobody (65534). */
function readAtRealPaths(files: object[], as: 'root' | 'nobody' = 'root'): Found {
  const reader = as === 'nobody' ? `setpriv --reuid=65534 --regid=65534 --clear-groups ${NODE} read` : `${NODE} read`;
  const result = inPolicyNamespace(`${NODE} setup ${sh(JSON.stringify(files))} && ${reader}`, { cwd: ROOT, env: { ...process.env, TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.node.json') } });
  if (result.status !== 0) throw new Error(`the reader failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as Found;
}

describe.skipIf(!canUseRealPolicyPaths())('the Linux policy at its real path, /etc/airlock/managed-policy.json (a private mount namespace)', () => {
  it('a root-owned policy is in force, for root and for a normal user', () => {
    const files = [{ path: POLICY, content: GOOD, uid: 0, gid: 0, mode: 0o644 }];
    const asRoot = readAtRealPaths(files);
    expect(asRoot.state.status).toBe('active');
    expect(asRoot.state.policy).toMatchObject({ allowTrust: false });
    const asNobody = readAtRealPaths(files, 'nobody');
    expect(asNobody.uid).toBe(65534);
    expect(asNobody.state.status).toBe('active');
  });

  it('no file: no policy', () => {
    expect(readAtRealPaths([]).state.status).toBe('none');
  });

  it.each([
    ['owned by a normal user', [{ path: POLICY, content: GOOD, uid: 65534, gid: 65534, mode: 0o644 }], 'belongs to user 65534'],
    ['writable by anyone', [{ path: POLICY, content: GOOD, uid: 0, gid: 0, mode: 0o666 }], 'anyone can change'],
    ["writable by a normal user's group", [{ path: POLICY, content: GOOD, uid: 0, gid: 65534, mode: 0o664 }], 'group 65534'],
    ['in a folder a normal user owns', [{ path: '/etc/airlock', dir: true, uid: 65534, gid: 65534, mode: 0o755 }, { path: POLICY, content: GOOD, uid: 0, gid: 0, mode: 0o644 }], '/etc/airlock belongs to user 65534'],
    ["a link into a user's folder", [{ path: '/etc/airlock/user', dir: true, uid: 65534, gid: 65534, mode: 0o755 }, { path: '/etc/airlock/user/p.json', content: GOOD, uid: 0, gid: 0, mode: 0o644 }, { path: POLICY, link: '/etc/airlock/user/p.json' }], '/etc/airlock/user belongs to user 65534'],
  ])('a file %s is not a policy: ignored, and said so (read as root and as that user)', (_what, files, why) => {
    for (const as of ['root', 'nobody'] as const) {
      const found = readAtRealPaths(files, as);
      expect(found.state.status).toBe('none');
      expect(found.state.ignored).toEqual([{ location: POLICY, why: expect.stringContaining(why) }]);
    }
  });

  it('a group of administrators (root) may write it', () => {
    expect(readAtRealPaths([{ path: POLICY, content: GOOD, uid: 0, gid: 0, mode: 0o664 }]).state.status).toBe('active');
  });

  it('a policy that does not parse fails closed, with the file and line', () => {
    const found = readAtRealPaths([{ path: POLICY, content: '{\n  "version": 1,\n  "allowTrust": false\n  "mode": "strict"\n}', uid: 0, gid: 0, mode: 0o644 }]);
    expect(found.state.status).toBe('unreadable');
    expect(found.state.problems?.[0]).toMatchObject({ location: POLICY, line: 4 });
  });

  it('a policy a normal user cannot read fails closed for that user (not "no policy")', () => {
    const found = readAtRealPaths([{ path: POLICY, content: GOOD, uid: 0, gid: 0, mode: 0o600 }], 'nobody');
    expect(found.state.status).toBe('unreadable');
    expect(found.state.problems?.[0]?.problem).toContain('EACCES');
  });
});

describe('macOS: managed preferences (a configuration profile) as real property lists', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-mac-policy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** A property list written by Python's plistlib (an implementation of Apple's formats independent of ours). */
  const plist = (value: object, format: 'BINARY' | 'XML'): Buffer => {
    const result = spawnSync('python3', ['-c', `import plistlib,sys,json; sys.stdout.buffer.write(plistlib.dumps(json.loads(sys.argv[1]), fmt=plistlib.FMT_${format}))`, JSON.stringify(value)]);
    if (result.status !== 0) throw new Error(result.stderr.toString());
    return result.stdout;
  };
  const policy = { version: 1, allowTrust: false, requireSandbox: true, deniedServers: [{ npm: '@evil/*' }, { command: ['**/docker', '**'] }], network: { allowedDomains: ['*.acme.example'] }, audit: { otlp: { endpoint: 'https://otel.acme.example:4318', headers: { 'x-api-key': 'k' } } } };

  it.each(['BINARY', 'XML'] as const)('reads a %s property list to the same policy', (format) => {
    expect(JSON.parse(JSON.stringify(parsePlist(plist(policy, format))))).toEqual(policy);
  });

  it('refuses dates and data, naming the key', () => {
    const withDate = spawnSync('python3', ['-c', 'import plistlib,sys,datetime; sys.stdout.buffer.write(plistlib.dumps({"version":1,"when":datetime.datetime(2026,1,1)}, fmt=plistlib.FMT_BINARY))']).stdout;
    expect(() => parsePlist(withDate)).toThrow(/when is a date/);
  });

  it('the profile wins over the JSON file key by key; both are read', () => {
    // As root here, the test's own folders are root-owned (the admin-only check holds).
    const prefs = join(dir, 'Managed Preferences');
    const file = join(dir, 'managed-policy.json');
    spawnSync('mkdir', ['-p', join(prefs, 'me')]);
    writeFileSync(join(prefs, 'dev.airlock.app.plist'), plist({ version: 1, allowTrust: false }, 'BINARY'));
    writeFileSync(file, JSON.stringify({ version: 1, allowTrust: true, mode: 'strict' }));
    const source = darwinPolicySource({ managedPreferencesDir: prefs, file, user: 'me' });
    expect(source.locations).toEqual([join(prefs, 'me', 'dev.airlock.app.plist'), join(prefs, 'dev.airlock.app.plist'), file]);
    const state = policyState(source.read(), source.locations);
    expect(state.status).toBe('active');
    if (state.status !== 'active') return;
    expect(state.policy).toMatchObject({ allowTrust: false, mode: 'strict' });
    expect(state.from).toEqual({ allowTrust: join(prefs, 'dev.airlock.app.plist'), mode: file });
  });
});

describe('Windows: the registry (reg.exe query output) and the ProgramData file (its ACL), as data', () => {
  // What `reg.exe query "HKLM\SOFTWARE\Policies\Airlock" /s` prints (CRLF, four-space columns).
  const REG = [
    '',
    'HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Airlock',
    '    version    REG_DWORD    0x1',
    '    allowTrust    REG_DWORD    0x0',
    '    requireSandbox    REG_DWORD    0x1',
    '    mode    REG_SZ    strict',
    '    registry    REG_SZ    https://registry.acme.example',
    '    deniedServers    REG_SZ    [{"npm":"@evil/*"}]',
    '',
    'HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Airlock\\allowedServers',
    '    2    REG_SZ    {"url":"https://mcp.acme.example/**"}',
    '    1    REG_SZ    {"npm":"@acme/*"}',
    '',
    'HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Airlock\\network',
    '    allowedDomains    REG_MULTI_SZ    *.acme.example\\0api.github.com',
    '',
  ].join('\r\n');

  it('reads values and Chrome-style lists into the policy', () => {
    expect(JSON.parse(JSON.stringify(registryPolicy(REG)))).toEqual({
      version: 1,
      allowTrust: false,
      requireSandbox: true,
      mode: 'strict',
      registry: 'https://registry.acme.example',
      deniedServers: [{ npm: '@evil/*' }],
      allowedServers: [{ npm: '@acme/*' }, { url: 'https://mcp.acme.example/**' }],
      network: { allowedDomains: ['*.acme.example', 'api.github.com'] },
    });
  });

  it('a yes/no value other than 0 or 1, and JSON that does not parse, are errors naming the value', () => {
    expect(() => registryPolicy('HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Airlock\r\n    allowTrust    REG_DWORD    0x2\r\n')).toThrow(/value allowTrust.*0 or 1/);
    expect(() => registryPolicy('HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Airlock\r\n    deniedServers    REG_SZ    [{npm}]\r\n')).toThrow(/value deniedServers.*JSON/);
  });

  const admin = { path: 'C:\\ProgramData\\Airlock\\managed-policy.json', owner: 'S-1-5-32-544', rules: [{ sid: 'S-1-5-18', rights: 2032127, type: 'Allow' }, { sid: 'S-1-5-32-544', rights: 2032127, type: 'Allow' }, { sid: 'S-1-5-32-545', rights: 1179817, type: 'Allow' }] };

  it('an ACL where only administrators may write is a policy; a user with write, or a user owner, is not', () => {
    expect(windowsAclProblem([admin])).toBeUndefined();
    // BUILTIN\Users with Modify.
    expect(windowsAclProblem([{ ...admin, rules: [...admin.rules, { sid: 'S-1-5-32-545', rights: 1245631, type: 'Allow' }] }])).toContain('S-1-5-32-545 may change');
    // Created by a user (CREATOR OWNER's inherited full control lands on them).
    expect(windowsAclProblem([{ ...admin, owner: 'S-1-5-21-1-2-3-1001' }])).toContain('owned by S-1-5-21-1-2-3-1001');
    // An inherit-only rule does not apply to the file itself.
    expect(windowsAclProblem([{ ...admin, rules: [...admin.rules, { sid: 'S-1-3-0', rights: 268435456, type: 'Allow', inheritOnly: true }] }])).toBeUndefined();
  });

  it('the whole Windows source, with recorded reg.exe and PowerShell output', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-win-policy-'));
    const file = join(dir, 'Airlock', 'managed-policy.json');
    spawnSync('mkdir', ['-p', join(dir, 'Airlock')]);
    writeFileSync(file, '{\n  "version": 1,\n  "allowHttpGateway": false\n}');
    const calls: string[][] = [];
    const run: WindowsRunner = (tool, args) => {
      calls.push([tool, ...args]);
      if (tool === 'reg') return { status: 0, stdout: REG, stderr: '' };
      return { status: 0, stdout: JSON.stringify([{ ...admin, path: file }, { ...admin, path: join(dir, 'Airlock') }]), stderr: '' };
    };
    // The test's own file (the real one is in ProgramData, read from the registry, never the environment).
    const source = windowsPolicySource({ run, file });
    const state = policyState(source.read(), source.locations);
    expect(state.status === 'active' && state.policy).toMatchObject({ allowTrust: false, allowHttpGateway: false, mode: 'strict' });
    expect(calls[1]?.slice(0, 4)).toEqual(['powershell', '-NoProfile', '-NonInteractive', '-Command']);
    expect(calls[1]?.[4]).toBe(WINDOWS_ACL_SCRIPT);
    expect(parseWindowsAcls(JSON.stringify(admin))).toHaveLength(1);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a registry key that does not exist is no policy; reg.exe failing otherwise is an unreadable one', () => {
    const missing = windowsPolicySource({ programData: 'C:\\ProgramData', run: (tool) => (tool === 'reg' ? { status: 1, stdout: '', stderr: 'ERROR: The system was unable to find the specified registry key or value.' } : { status: 0, stdout: '[]', stderr: '' }) });
    expect(missing.read()[0]).toMatchObject({ status: 'absent' });
    const broken = windowsPolicySource({ programData: 'C:\\ProgramData', run: () => ({ status: 5, stdout: '', stderr: 'Access is denied.' }) });
    expect(broken.read()[0]).toMatchObject({ status: 'unreadable' });
  });
});
