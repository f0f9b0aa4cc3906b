/**
 * The organisation's policy in a real host, with real servers in the real
 * sandbox: a running server stopped by a new policy and started again when
 * it relaxes (its record untouched), every locked key refused with its name
 * through the same handlers the window and the CLI use, precedence over the
 * person's settings, and an unreadable policy failing closed with the file
 * and line. The policy file is the test's own (an explicit host option); the
 * real /etc/airlock path is tested in policy-sources.test.ts and the CLI's.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultServerRequestSettings } from '../../../shared/domain';
import type { IpcHandlers } from '../../../shared/ipc';
import { linuxPolicySource } from '../../../electron/core/managed-policy/policy-sources';
import { AirlockError } from '../../../electron/core/errors';
import { WINDOW_SHELL } from '../../../electron/core/ipc/shell-identity';
import { createTestHost, fixture, type TestHost } from '../host/host-support';

const ECHO = fixture('servers/echo.mjs');

/** The handler's refusal: code and message. */
async function refusal(run: () => unknown): Promise<{ code: string; message: string }> {
  try {
    await run();
  } catch (error) {
    if (error instanceof AirlockError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('it was not refused');
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the managed policy in a running host', () => {
  let t: TestHost;
  let policyFile: string;
  let handlers: IpcHandlers;
  const writePolicy = (policy: object | string) => writeFileSync(policyFile, typeof policy === 'string' ? policy : JSON.stringify(policy, null, 2), { mode: 0o644 });
  const apply = async (policy: object | string | null) => {
    if (policy === null) rmSync(policyFile, { force: true });
    else writePolicy(policy);
    await t.host.organisation.reload();
  };
  const auditLines = () => readFileSync(join(t.dataDir, 'audit', 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

  beforeAll(async () => {
    // The test's own folder is root-owned and 0700 under a sticky /tmp: a policy only an administrator can change.
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'airlock-policy-'));
    policyFile = join(dir, 'managed-policy.json');
    t = await createTestHost({ managedPolicy: { source: linuxPolicySource({ path: policyFile }), pollMs: 0 } });
    handlers = t.host.ipcHandlers(WINDOW_SHELL);
    await t.add('echo', [process.execPath, ECHO]);
  });
  afterAll(async () => {
    await t.close();
    rmSync(policyFile, { force: true });
  });

  it('no policy: nothing is locked, the server runs', async () => {
    expect(t.host.organisation.view().status).toBe('none');
    expect(t.host.supervisor.state('echo')).toBe('ready');
    const result = await handlers['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'hi' } });
    expect(result.outcome).toBe('ok');
  });

  it('a new policy that forbids the running server stops it, shows the rule, keeps it; relaxing it runs it again', async () => {
    await apply({ version: 1, deniedServers: [{ command: ['**/node', '**/echo.mjs'] }] });
    await until(() => t.host.supervisor.state('echo') === 'stopped', 'echo to stop');
    const summary = t.host.servers.list().find((server) => server.name === 'echo')!;
    expect(summary.blockedByOrganisation).toMatchObject({ key: 'deniedServers', rule: '{"command":["**/node","**/echo.mjs"]}' });
    expect(summary.stateNote).toContain("Blocked by your organisation's policy (deniedServers:");
    // Not deleted, not turned off: the person's record is as it was.
    expect(t.host.servers.record('echo').enabled).toBe(true);
    // A call is denied with the rule; starting it is refused with the key.
    const call = await handlers['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'hi' } });
    expect(call.outcome).toBe('denied');
    expect(call.message).toContain('deniedServers');
    const start = await refusal(() => handlers['servers.start']({ name: 'echo' }));
    expect(start.message).toContain('deniedServers');
    // Relaxed: it runs again, and takes calls.
    await apply(null);
    await until(() => t.host.supervisor.state('echo') === 'ready', 'echo to run again');
    expect(t.host.servers.list().find((server) => server.name === 'echo')!.blockedByOrganisation).toBeUndefined();
    expect((await handlers['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'back' } })).outcome).toBe('ok');
    // Each step is in the audit log, by the organisation.
    await t.host.changes.settled();
    const changes = auditLines().filter((entry) => entry.type === 'change' && entry.change === 'managed-policy').map((entry) => (entry.changes as string[]).join(' | '));
    expect(changes.some((line) => line.includes('policy changed') && line.includes('deniedServers'))).toBe(true);
    expect(changes.some((line) => line.includes('server stopped') && line.includes('deniedServers'))).toBe(true);
    expect(changes.some((line) => line.includes('the organisation policy was removed'))).toBe(true);
    expect(changes.some((line) => line.includes('server may run again'))).toBe(true);
    const decision = auditLines().filter((entry) => entry.type === 'decision' && entry.decidedBy === 'organisation');
    expect(decision.length).toBeGreaterThan(0);
  });

  it('an unreadable policy stops everything it could forbid and names the file and line; fixed, the server runs again', async () => {
    await apply('{\n  "version": 1,\n  "allowTrust": false,\n  "mode" "strict"\n}');
    await until(() => t.host.supervisor.state('echo') === 'stopped', 'echo to stop');
    const view = t.host.organisation.view();
    expect(view.status).toBe('unreadable');
    expect(view.problems?.[0]).toMatchObject({ location: policyFile, line: 4 });
    expect(t.host.servers.list()[0]!.stateNote).toContain(`${policyFile}, line 4`);
    expect(t.host.app.info().notices.some((notice) => notice.message.includes(`${policyFile}, line 4`))).toBe(true);
    // Every setting it could lock is locked meanwhile.
    expect((await refusal(() => handlers['servers.setTrust']({ name: 'echo', trusted: true }))).code).toBe('locked-by-organisation');
    await apply({ version: 1 });
    await until(() => t.host.supervisor.state('echo') === 'ready', 'echo to run again');
  });

  it.each([
    ['mode', { mode: 'strict' }, (h: IpcHandlers) => h['settings.setPolicyMode']({ mode: 'default' })],
    ['allowTrust', { allowTrust: false }, (h: IpcHandlers) => h['servers.setTrust']({ name: 'echo', trusted: true })],
    ['allowUnsandboxed', { allowUnsandboxed: false }, (h: IpcHandlers) => h['servers.setUnsandboxed']({ name: 'echo', consent: true })],
    ['requireSandbox', { requireSandbox: true }, (h: IpcHandlers) => h['servers.setUnsandboxed']({ name: 'echo', consent: true })],
    ['allowHttpGateway', { allowHttpGateway: false }, (h: IpcHandlers) => h['gateway.startHttp']({ port: 0 })],
    ['allowAlwaysForDestructive', { allowAlwaysForDestructive: false }, async (h: IpcHandlers, fingerprint: string) => h['rules.add']({ server: 'echo', tool: 'echo', effect: 'allow', fingerprint, confirmDestructive: true })],
    ['allowSamplingWithoutReview', { allowSamplingWithoutReview: false }, (h: IpcHandlers) => h['requests.setSettings']({ name: 'echo', settings: { ...defaultServerRequestSettings(), sampling: { ...defaultServerRequestSettings().sampling, rule: 'always' } } })],
    ['registry', { registry: 'https://registry.acme.example' }, (h: IpcHandlers) => h['registry.setBaseUrl']({ baseUrl: 'https://other.example' })],
    ['network.allowedDomains', { network: { allowedDomains: ['*.acme.example'] } }, (h: IpcHandlers) => h['servers.updateProfile']({ name: 'echo', profile: { filesystem: { read: [], write: [], persistentData: false }, network: { allowedDomains: ['api.github.com'] }, secrets: [] } })],
    ['network.deniedDomains', { network: { deniedDomains: ['*.github.com'] } }, (h: IpcHandlers) => h['servers.updateProfile']({ name: 'echo', profile: { filesystem: { read: [], write: [], persistentData: false }, network: { allowedDomains: ['api.github.com'] }, secrets: [] } })],
    ['allowWritesOutsideHome', { allowWritesOutsideHome: false }, (h: IpcHandlers) => h['servers.updateProfile']({ name: 'echo', profile: { filesystem: { read: [], write: ['/srv'], persistentData: false }, network: { allowedDomains: [] }, secrets: [] } })],
    ['audit.otlp', { audit: { otlp: { endpoint: 'http://127.0.0.1:1/' } } }, (h: IpcHandlers) => h['audit.setExport']({ endpoint: 'http://127.0.0.1:2/' })],
  ] as const)('%s: the change is refused with the key named, and nothing changes', async (key, policy, attempt) => {
    await apply({ version: 1, ...policy });
    const before = JSON.stringify(t.host.servers.record('echo'));
    const fingerprint = t.host.supervisor.tools.lookup('echo', 'echo')?.fingerprint ?? t.host.servers.record('echo').approvedTools.echo!.fingerprint;
    const refused = await refusal(() => attempt(handlers, fingerprint));
    expect(refused.code).toBe('locked-by-organisation');
    expect(refused.message).toContain(key);
    expect(JSON.stringify(t.host.servers.record('echo'))).toBe(before);
    // The attempt is recorded.
    await t.host.changes.settled();
    expect(auditLines().some((entry) => entry.type === 'change' && (entry.changes as string[]).some((line) => line.startsWith('refused:') && line.includes(`(${key})`)))).toBe(true);
    await apply({ version: 1 });
  });

  it('precedence: the policy over the person’s setting, which is kept for when the policy goes', async () => {
    await handlers['settings.setPolicyMode']({ mode: 'default' });
    await apply({ version: 1, mode: 'strict' });
    expect((await handlers['settings.get']({})).policyMode).toBe('strict');
    // Strict asks even for the person's own `airlock call` of a tool they would otherwise run unasked.
    const view = t.host.organisation.view();
    expect(view.locks).toContainEqual(expect.objectContaining({ setting: 'mode', key: 'mode', value: 'strict', location: policyFile }));
    await apply({ version: 1, registry: 'https://registry.acme.example' });
    expect((await handlers['registry.settings']({})).baseUrl).toBe('https://registry.acme.example');
    await apply(null);
    expect((await handlers['settings.get']({})).policyMode).toBe('default');
    expect((await handlers['registry.settings']({})).baseUrl).not.toBe('https://registry.acme.example');
  });

  it('allowedServers: a server not listed cannot even be inspected, let alone added', async () => {
    await apply({ version: 1, allowedServers: [{ npm: '@acme/*' }] });
    const disclosure = await t.host.install.prepare({ kind: 'local', argv: [process.execPath, ECHO] });
    const refused = await refusal(() => handlers['install.probe']({ draftId: disclosure.draftId, userConfig: {}, profile: { filesystem: { read: [], write: [], persistentData: false }, network: { allowedDomains: [] }, secrets: [] } }));
    expect(refused.message).toContain('allowedServers');
    await t.host.install.cancel(disclosure.draftId);
    await apply(null);
  });

  it('servers the organisation provides: listed with their source, installed through the usual install (beside an allow list that does not name them), then shown as installed', async () => {
    await apply({ version: 1, allowedServers: [{ npm: '@acme/*' }], servers: { 'team-echo': { command: [process.execPath, ECHO, '--team'], description: 'The team’s echo' } } });
    const listed = t.host.organisation.view().providedServers;
    expect(listed).toEqual([{ name: 'team-echo', source: `${process.execPath} ${ECHO} --team`, installSource: { kind: 'local', argv: [process.execPath, ECHO, '--team'] }, description: 'The team’s echo', install: 'airlock add team-echo --provided' }]);
    // The source the view gives is what the install flow takes: disclosed, inspected, committed like any other.
    const disclosure = await handlers['install.prepare']({ source: listed[0]!.installSource });
    expect(disclosure.argv).toEqual([process.execPath, ECHO, '--team']);
    const profile = { filesystem: { read: [], write: [], persistentData: false }, network: { allowedDomains: [] }, secrets: [] };
    await handlers['install.probe']({ draftId: disclosure.draftId, userConfig: {}, profile });
    await handlers['install.commit']({ draftId: disclosure.draftId, name: 'team-echo', profile, trusted: false, secrets: {}, enable: true });
    expect(t.host.organisation.view().providedServers[0]!.installedAs).toBe('team-echo');
    // Provided, so it runs although the allow list does not name it; the person's own echo is not on the list, and is blocked.
    await until(() => t.host.supervisor.state('team-echo') === 'ready', 'the provided server to run');
    expect(t.host.organisation.block(t.host.servers.record('team-echo'))).toBeUndefined();
    expect(t.host.organisation.block(t.host.servers.record('echo'))?.key).toBe('allowedServers');
    await handlers['servers.remove']({ name: 'team-echo', confirm: true });
    await apply(null);
    await until(() => t.host.supervisor.state('echo') === 'ready', 'echo to run again');
  });

  it('changes are picked up while running, without being asked to read again', async () => {
    const dir = join(t.root, 'polled');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { mode: 0o700 });
    const file = join(dir, 'managed-policy.json');
    const polled = await createTestHost({ managedPolicy: { source: linuxPolicySource({ path: file }), pollMs: 100 } });
    try {
      expect(polled.host.organisation.view().status).toBe('none');
      writeFileSync(file, JSON.stringify({ version: 1, allowTrust: false }));
      await until(() => polled.host.organisation.view().status === 'active', 'the policy to be read');
      expect(polled.host.organisation.lock('trust')?.key).toBe('allowTrust');
    } finally {
      await polled.close();
    }
  });
});

describe('a policy read at start-up never drops a server for good', () => {
  it.each([
    ['forbids it', JSON.stringify({ version: 1, deniedServers: [{ command: ['**/node', '**/echo.mjs'] }] })],
    ['cannot be read', '{ "version": 1, '],
  ])('Airlock starts while the policy %s: the server does not start, stays on, and starts once the policy is fixed', async (_what, text) => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'airlock-policy-start-'));
    const policyFile = join(dir, 'managed-policy.json');
    const first = await createTestHost();
    await first.add('echo', [process.execPath, ECHO]);
    await first.host.dispose();
    writeFileSync(policyFile, text);
    const { AirlockHost } = await import('../../../electron/core/host');
    const host = new AirlockHost({ dataDir: first.dataDir, version: '0.0.0-test', homeDir: first.home, hooks: { emit: () => {} }, managedPolicy: { source: linuxPolicySource({ path: policyFile }), pollMs: 0 } });
    try {
      await host.servers.startEnabled();
      expect(host.supervisor.state('echo')).not.toBe('ready');
      expect(host.servers.record('echo').enabled).toBe(true);
      expect(host.servers.list()[0]!.blockedByOrganisation).toBeDefined();
      rmSync(policyFile);
      await host.organisation.reload();
      await until(() => host.supervisor.state('echo') === 'ready', 'echo to start');
    } finally {
      await host.dispose();
      rmSync(first.root, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
