/**
 * The built `airlock` command under an organisation's policy at its real
 * path, /etc/airlock/managed-policy.json — written inside a private mount
 * namespace (test/support/policy-namespace.ts), so nothing else on the
 * machine sees it: what `settings`, `doctor` and `--json` show, each key's
 * refusal (exit 7, the key named, nothing changed), a server the policy
 * denies, and an unreadable policy failing closed with its file and line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canUseRealPolicyPaths, inPolicyNamespace, sh } from '../support/policy-namespace';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/airlock.js');
const ECHO = join(ROOT, 'test/fixtures/servers/echo.mjs');
const POLICY = '/etc/airlock/managed-policy.json';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'airlock-organisation-cli-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs `airlock ARGS` with `policy` at the real path (null: none), in its own mount namespace. */
function airlock(policy: object | string | null, args: string[]) {
  const text = policy === null ? null : typeof policy === 'string' ? policy : JSON.stringify(policy, null, 2);
  const write = text === null ? 'true' : `printf '%s' ${sh(text)} > ${POLICY} && chmod 0644 ${POLICY}`;
  const result = inPolicyNamespace(`${write} && ${sh(process.execPath)} ${sh(BIN)} ${args.map(sh).join(' ')}`, {
    env: { ...process.env, AIRLOCK_DATA_DIR: join(root, 'data'), AIRLOCK_AUDIT_KEY_FILE: join(root, 'key'), HOME: join(root, 'home') },
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe.skipIf(!canUseRealPolicyPaths())('airlock under an organisation policy at /etc/airlock/managed-policy.json', () => {
  beforeAll(() => {
    const added = airlock(null, ['--yes', 'add', 'echo', '--', process.execPath, ECHO]);
    expect(added.code, added.err).toBe(0);
  }, 120_000);

  it('settings, --json and doctor show each lock as set by the organisation, with the key and the file', () => {
    const policy = { version: 1, mode: 'strict', allowTrust: false, allowHttpGateway: false, network: { allowedDomains: ['*.acme.example'] }, deniedServers: [{ npm: '@evil/*' }] };
    const shown = airlock(policy, ['settings']);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`Organisation policy: in force (${POLICY})`);
    expect(shown.out).toContain(`Policy mode: strict (set by your organisation (mode: strict, ${POLICY}))`);
    expect(shown.out).toContain(`trust: set by your organisation (allowTrust: false, ${POLICY})`);
    expect(shown.out).toContain('network grants only within: *.acme.example (network.allowedDomains)');
    const json = JSON.parse(airlock(policy, ['--json', 'settings']).out) as { policyMode: string; organisation: { status: string; locks: Array<{ key: string; location: string }> } };
    expect(json.policyMode).toBe('strict');
    expect(json.organisation.status).toBe('active');
    expect(json.organisation.locks.map((lock) => lock.key)).toEqual(['mode', 'allowTrust', 'allowHttpGateway']);
    expect(json.organisation.locks.every((lock) => lock.location === POLICY)).toBe(true);
    const doctor = airlock(policy, ['--json', 'doctor']);
    expect((JSON.parse(doctor.out) as { organisation: { locks: unknown[] } }).organisation.locks).toHaveLength(3);
    expect(airlock(policy, ['doctor']).out).toContain(`trust: set by your organisation (allowTrust: false, ${POLICY})`);
  });

  it.each([
    ['mode', { mode: 'strict' }, ['mode', 'default']],
    ['allowTrust', { allowTrust: false }, ['trust', 'echo', 'on']],
    ['allowHttpGateway', { allowHttpGateway: false }, ['gateway', '--http', '0']],
    ['allowAlwaysForDestructive', { allowAlwaysForDestructive: false }, ['--yes', 'rules', 'add', 'echo', 'echo', 'allow', '--confirm-destructive']],
    ['allowSamplingWithoutReview', { allowSamplingWithoutReview: false }, ['--yes', 'requests', 'echo', '--sampling', 'always']],
    ['registry', { registry: 'https://registry.acme.example' }, ['registry', 'set', 'https://other.example']],
    ['network.allowedDomains', { network: { allowedDomains: ['*.acme.example'] } }, ['--yes', 'grant', 'echo', '--domain', 'api.github.com']],
    ['network.deniedDomains', { network: { deniedDomains: ['api.github.com'] } }, ['--yes', 'grant', 'echo', '--domain', 'api.github.com']],
    ['allowWritesOutsideHome', { allowWritesOutsideHome: false }, ['--yes', 'grant', 'echo', '--write', '/tmp']],
    ['audit.otlp', { audit: { otlp: { endpoint: 'http://127.0.0.1:9/' } } }, ['settings', 'audit-export', 'http://127.0.0.1:10/']],
    ['deniedServers', { deniedServers: [{ command: ['**/node', '**/echo.mjs'] }] }, ['--yes', 'add', 'echo2', '--', process.execPath, ECHO]],
    ['allowedServers', { allowedServers: [{ npm: '@acme/*' }] }, ['--yes', 'add', 'echo3', '--', process.execPath, ECHO]],
  ])('%s: refused with exit 7 and the key named', (key, policy, args) => {
    const refused = airlock({ version: 1, ...policy }, args);
    expect(refused.code, refused.out + refused.err).toBe(7);
    expect(refused.err).toContain(key);
  });

  it('after all those refusals nothing changed: no trust, no grants, no rules, no servers added, the default mode and registry', () => {
    const shown = JSON.parse(airlock(null, ['--json', 'show', 'echo']).out) as { trusted: boolean; profile: { network: { allowedDomains: string[] }; filesystem: { write: string[] } } };
    expect(shown.trusted).toBe(false);
    expect(shown.profile.network.allowedDomains).toEqual([]);
    expect(shown.profile.filesystem.write).toEqual([]);
    const settings = JSON.parse(airlock(null, ['--json', 'settings']).out) as { policyMode: string; auditExport: { state: string } };
    expect(settings.policyMode).toBe('default');
    expect(settings.auditExport.state).toBe('off');
    expect((JSON.parse(airlock(null, ['--json', 'rules']).out) as unknown[]).length).toBe(0);
    expect((JSON.parse(airlock(null, ['--json', 'list']).out) as Array<{ name: string }>).map((server) => server.name)).toEqual(['echo']);
  }, 60_000);

  it('a server the policy denies is shown blocked with the rule, not removed, and runs again without the policy', () => {
    const policy = { version: 1, deniedServers: [{ command: ['**/node', '**/echo.mjs'] }] };
    const list = airlock(policy, ['--json', 'list']);
    const echo = (JSON.parse(list.out) as Array<{ name: string; blockedByOrganisation?: { key: string; rule: string } }>).find((server) => server.name === 'echo')!;
    expect(echo.blockedByOrganisation).toMatchObject({ key: 'deniedServers', rule: '{"command":["**/node","**/echo.mjs"]}' });
    const called = airlock(policy, ['call', 'echo', 'echo', '--args', '{"message":"hi"}']);
    expect(called.code).not.toBe(0);
    expect(called.err + called.out).toContain('deniedServers');
    // Without the policy it is no longer blocked (the call then only needs the person's confirmation: echo does not say it is not destructive).
    const unblocked = (JSON.parse(airlock(null, ['--json', 'list']).out) as Array<{ name: string; blockedByOrganisation?: unknown }>).find((server) => server.name === 'echo')!;
    expect(unblocked.blockedByOrganisation).toBeUndefined();
    const again = airlock(null, ['call', 'echo', 'echo', '--args', '{"message":"hi"}']);
    expect(again.err).not.toContain('organisation');
  }, 60_000);

  it('an unreadable policy: nothing it could forbid runs, and the file and line are named', () => {
    const broken = '{\n  "version": 1,\n  "allowTrust": false,\n  "mode" "strict"\n}';
    const shown = airlock(broken, ['settings']);
    expect(shown.out).toContain('Organisation policy: COULD NOT BE READ');
    expect(shown.out).toContain(`${POLICY}, line 4`);
    const called = airlock(broken, ['call', 'echo', 'echo', '--args', '{"message":"hi"}']);
    expect(called.code).not.toBe(0);
    expect(called.err + called.out).toContain(`${POLICY}, line 4`);
    const unknown = airlock({ version: 1, alowTrust: false }, ['doctor']);
    expect(unknown.out).toMatch(/managed-policy\.json, line 3 \(alowTrust\): unknown key "alowTrust"/);
  }, 60_000);
});
