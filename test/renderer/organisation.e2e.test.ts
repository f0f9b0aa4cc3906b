/**
 * The organisation's policy in Chromium over the real core: Settings shows
 * every locked setting as set by the organisation (key, value, file), the
 * mode cannot be changed there, each lock and bound is shown where its
 * setting lives, and every attempt the screens still offer is refused with
 * the key named (trust, running unsandboxed, sampling, the registry, network
 * and write grants, the HTTP gateway, "always" for a destructive tool, the
 * audit log's collector, an install the allow list does not name); a server
 * the policy forbids is shown blocked with its rule — and shown running again
 * when the policy relaxes —, a server the organisation provides is added
 * through the usual install, a file a normal user owns is ignored and said
 * so, an unreadable policy names its file and line and pauses the audit
 * export, and the export's headers and backlog warning show in Settings.
 */
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxSupport } from '../../shared/domain';
import { linuxPolicySource } from '../../electron/core/managed-policy/policy-sources';
import { checkSandboxSupport } from '../../electron/core/sandbox/capability';
import { OtlpReceiver } from '../support/otlp-receiver';
import { openRendererHost, REPO, waitForText, type RendererHost, pasteCommand } from './renderer-support';

const ECHO = join(REPO, 'test/fixtures/servers/echo.mjs');

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the organisation’s policy on the screens', () => {
  let t: RendererHost;
  let dir: string;
  let policyFile: string;
  // This machine's sandbox check, or one that finds nothing (a machine that cannot sandbox).
  let sandboxCheck: () => SandboxSupport = () => checkSandboxSupport();
  const apply = async (policy: object | string | null) => {
    if (policy === null) rmSync(policyFile, { force: true });
    else writeFileSync(policyFile, typeof policy === 'string' ? policy : JSON.stringify(policy, null, 2));
    await t.host.organisation.reload();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-ui-policy-'));
    policyFile = join(dir, 'managed-policy.json');
    t = await openRendererHost({
      host: {
        managedPolicy: { source: linuxPolicySource({ path: policyFile }), pollMs: 0 },
        auditExport: { env: {}, tuning: { pollMs: 50, batchDelayMs: 20, backoff: { initialMs: 50, maxMs: 400 }, timeoutMs: 2_000, backlogWarning: { entries: 8, ageMs: 60 * 60 * 1000 } } },
        checkSandbox: () => sandboxCheck(),
      },
    });
    await t.add('echo', [process.execPath, ECHO]);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('Settings lists every lock as set by the organisation, and the mode cannot be changed there', async () => {
    await apply({ version: 1, mode: 'strict', allowTrust: false, allowHttpGateway: false, registry: 'https://registry.acme.example', audit: { otlp: { endpoint: 'http://127.0.0.1:9' } }, network: { allowedDomains: ['*.acme.example'] } });
    await t.open('#/settings');
    const section = t.page.getByTestId('organisation');
    await waitForText(section, new RegExp(`Your organisation manages some of Airlock’s settings: ${policyFile}`));
    const locks = section.getByTestId('organisation-locks');
    for (const [setting, key] of [['mode', 'mode: strict'], ['trust', 'allowTrust: false'], ['httpGateway', 'allowHttpGateway: false'], ['registry', 'registry: https://registry.acme.example'], ['otlp', 'audit.otlp: http://127.0.0.1:9']] as const) {
      await waitForText(locks.locator(`[data-setting="${setting}"]`), `set by your organisation (${key}, ${policyFile})`);
    }
    await waitForText(section, /only these domains: \*\.acme\.example \(network\.allowedDomains\)/);
    const mode = t.page.getByTestId('policy-mode');
    await waitForText(mode.getByTestId('organisation-lock'), `Set by your organisation. (mode: strict, ${policyFile})`);
    expect(await mode.getByRole('radio', { name: /Default/ }).isDisabled()).toBe(true);
    expect(await mode.getByRole('radio', { name: /Strict/ }).isChecked()).toBe(true);
    expect(t.consoleErrors).toEqual([]);
  });

  it('the activity log’s collector: locked, and an attempt is refused naming audit.otlp', async () => {
    const exportSection = t.page.getByTestId('audit-export');
    await waitForText(exportSection.getByTestId('organisation-lock'), /audit\.otlp: http:\/\/127\.0\.0\.1:9/);
    await exportSection.getByLabel('Collector').fill('http://127.0.0.1:4318');
    await exportSection.getByRole('button', { name: 'Stream to it' }).click();
    await waitForText(exportSection.locator('.field-error'), /set by your organisation \(audit\.otlp: http:\/\/127\.0\.0\.1:9/);
    expect(t.host.store.read().settings.auditExport).toBeUndefined();
  });

  it('the server’s page: trusting it is refused naming allowTrust, and the switch shows what is saved', async () => {
    await t.open('#/servers/echo/permissions');
    // Shown as the organisation's before anyone tries.
    await waitForText(t.page.getByTestId('organisation-lock').filter({ hasText: 'allowTrust' }), `(allowTrust: false, ${policyFile})`);
    const trust = t.page.getByTestId('trust-toggle');
    await trust.click();
    await waitForText(t.page.getByTestId('detail-error'), /set by your organisation \(allowTrust: false/);
    expect(t.host.servers.record('echo').trusted).toBe(false);
    expect(await trust.isChecked()).toBe(false);
  });

  it('a confirmation for a destructive tool: “always” is not offered as an allow (allowAlwaysForDestructive), and the core refuses it too', async () => {
    await apply({ version: 1, allowAlwaysForDestructive: false });
    await t.open('#/servers');
    const pending = t.host.calls.call({ server: 'echo', tool: 'echo', arguments: { message: 'x' }, caller: { kind: 'client', name: 'Test Agent' } });
    const dialog = t.page.getByRole('dialog');
    await expect.poll(() => dialog.getByTestId('confirmation-deny').getAttribute('aria-disabled'), { timeout: 30_000 }).toBe(null);
    await dialog.getByRole('radio', { name: /^Always, for/ }).check();
    await waitForText(dialog.getByTestId('always-forbidden'), /allowAlwaysForDestructive: false/);
    await dialog.getByTestId('confirm-object').getByRole('checkbox').check();
    await dialog.getByTestId('confirm-always').getByRole('checkbox').check();
    expect(await dialog.getByRole('button', { name: 'Always allow' }).isDisabled()).toBe(true);
    // A shell that sends the answer anyway is refused, naming the key; the question stays open.
    const id = t.host.approvals.pending()[0]!.id;
    const refused = t.host.approvals.answer(id, { choice: 'allow-always', confirmDestructiveAlways: true }, { shell: 'window' });
    expect(refused).toEqual({ accepted: false, reason: expect.stringContaining('allowAlwaysForDestructive: false') });
    await dialog.getByRole('radio', { name: 'Only this time' }).check();
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    expect((await pending).outcome).toBe('denied');
    expect(t.host.store.read().rules).toEqual([]);
    await t.settled();
    // The server's Tools: the lock shown above the rules, and an "always allow" made there refused naming the key.
    await t.open('#/servers/echo/tools');
    await waitForText(t.page.getByTestId('organisation-lock'), `(allowAlwaysForDestructive: false, ${policyFile})`);
    await t.page.getByRole('button', { name: 'Always allow…' }).click();
    await t.page.getByRole('button', { name: 'Yes, always allow' }).click();
    await waitForText(t.page.locator('.field-error'), /set by your organisation \(allowAlwaysForDestructive: false/);
    expect(t.host.store.read().rules).toEqual([]);
    await apply(null);
  });

  it('a server the new policy forbids is shown blocked with its rule, kept, and shown running again when the policy relaxes', async () => {
    await apply({ version: 1, deniedServers: [{ command: ['**/node', '**/echo.mjs'] }] });
    await t.open('#/servers');
    await waitForText(t.page.getByTestId('organisation-blocked-badge').first(), 'Blocked by your organisation');
    await t.open('#/servers/echo');
    const block = t.page.getByTestId('organisation-block');
    await waitForText(block, /Blocked by your organisation's policy\..*its settings are kept/s);
    await waitForText(block, 'Rule: deniedServers {"command":["**/node","**/echo.mjs"]}');
    await t.page.getByRole('button', { name: 'Start', exact: true }).click();
    await waitForText(t.page.getByTestId('detail-error'), /deniedServers/);
    await t.open('#/settings');
    await waitForText(t.page.getByTestId('organisation-blocked'), /echo — deniedServers/);
    await apply(null);
    await t.open('#/servers/echo');
    await t.page.getByTestId('organisation-block').waitFor({ state: 'detached' });
    for (let i = 0; i < 200 && t.host.supervisor.state('echo') !== 'ready'; i++) await new Promise((r) => setTimeout(r, 25));
    expect(t.host.supervisor.state('echo')).toBe('ready');
  });

  it('running without a sandbox (on a machine that cannot sandbox): the consent is refused naming allowUnsandboxed, then requireSandbox', async () => {
    sandboxCheck = () => checkSandboxSupport({ platform: 'linux', pathEnv: '' });
    t.host.app.recheckSandbox();
    try {
      for (const [key, policy] of [
        ['allowUnsandboxed: false', { allowUnsandboxed: false }],
        ['requireSandbox: true', { requireSandbox: true }],
      ] as const) {
        await apply({ version: 1, ...policy });
        await t.open('#/servers/echo/permissions');
        // Shown as the organisation's before anyone tries.
        await waitForText(t.page.getByTestId('organisation-lock').filter({ hasText: key }), `(${key}, ${policyFile})`);
        const consent = t.page.getByTestId('unsandboxed-consent');
        await consent.getByRole('checkbox').check();
        await consent.getByRole('button', { name: 'Run echo without a sandbox' }).click();
        await waitForText(consent.locator('.field-error'), `set by your organisation (${key}`);
        expect(t.host.servers.record('echo').profile.unsandboxed).toBeUndefined();
      }
    } finally {
      sandboxCheck = () => checkSandboxSupport();
      t.host.app.recheckSandbox();
      await apply(null);
    }
  });

  it('a server’s model requests without review: Asks back shows the lock, and “Always” is refused naming allowSamplingWithoutReview', async () => {
    await apply({ version: 1, allowSamplingWithoutReview: false });
    await t.open('#/servers/echo/asks');
    const form = t.page.getByTestId('request-settings');
    await waitForText(form.getByTestId('organisation-lock'), `(allowSamplingWithoutReview: false, ${policyFile})`);
    await form.getByRole('radio', { name: /Always, without asking/ }).check();
    await form.getByTestId('request-settings-save').click();
    await waitForText(form.locator('.field-error'), /set by your organisation \(allowSamplingWithoutReview: false/);
    expect(t.host.servers.record('echo').serverRequests?.sampling.rule ?? 'ask').not.toBe('always');
    await apply(null);
  });

  it('the registry: Find servers shows the organisation’s, locked, and Change › Save is refused naming registry', async () => {
    const before = (await t.host.ipcHandlers()['registry.settings']({})).baseUrl;
    await apply({ version: 1, registry: 'https://registry.acme.example' });
    await t.open('#/find');
    const setting = t.page.getByTestId('registry-setting');
    await waitForText(setting.getByTestId('organisation-lock'), `(registry: https://registry.acme.example, ${policyFile})`);
    await waitForText(setting, 'Searching https://registry.acme.example');
    await setting.getByRole('button', { name: 'Change' }).click();
    await setting.getByLabel(/Registry address/).fill('https://other.example');
    await setting.getByRole('button', { name: 'Save' }).click();
    await waitForText(setting.getByRole('alert'), /set by your organisation \(registry: https:\/\/registry\.acme\.example/);
    await apply(null);
    expect((await t.host.ipcHandlers()['registry.settings']({})).baseUrl).toBe(before);
  });

  it('network and write grants: the grant editor shows the organisation’s bounds, and a grant outside them is refused naming the key', async () => {
    await apply({ version: 1, network: { allowedDomains: ['*.acme.example'], deniedDomains: ['evil.acme.example'] }, allowWritesOutsideHome: false });
    await t.open('#/servers/echo/permissions');
    const network = t.page.getByTestId('grants-network');
    await waitForText(network, 'network.allowedDomains: *.acme.example');
    await waitForText(network, 'network.deniedDomains: evil.acme.example');
    const write = t.page.getByTestId('grants-write');
    await waitForText(write.getByTestId('organisation-lock'), 'allowWritesOutsideHome: false');
    const before = JSON.stringify(t.host.servers.record('echo').profile);
    for (const [domain, key] of [['api.github.com', 'network.allowedDomains'], ['evil.acme.example', 'network.deniedDomains']] as const) {
      await network.getByLabel('Add a domain').fill(domain);
      await network.getByRole('button', { name: 'Add a domain' }).click();
      await waitForText(t.page.getByTestId('detail-error'), `(${key}:`);
    }
    await write.getByLabel('Add a folder to change').fill('/srv');
    await write.getByRole('button', { name: 'Add a folder to change' }).click();
    await waitForText(t.page.getByTestId('detail-error'), /allowWritesOutsideHome: false.*\/srv/s);
    expect(JSON.stringify(t.host.servers.record('echo').profile)).toBe(before);
    await apply(null);
  });

  it('the HTTP gateway: Other AI apps shows the lock, and starting it is refused naming allowHttpGateway', async () => {
    await apply({ version: 1, allowHttpGateway: false });
    await t.open('#/settings');
    const apps = t.page.getByTestId('other-apps');
    await waitForText(apps.getByTestId('organisation-lock'), `(allowHttpGateway: false, ${policyFile})`);
    await apps.getByRole('button', { name: 'Start the HTTP gateway' }).click();
    await waitForText(apps.locator('.field-error'), /set by your organisation \(allowHttpGateway: false/);
    expect((await t.host.ipcHandlers()['gateway.status']({})).http.running).toBe(false);
    await apply(null);
  });

  it('an install the allow list does not name: refused at the inspection, naming allowedServers; nothing is added', async () => {
    await apply({ version: 1, allowedServers: [{ npm: '@acme/*' }] });
    await t.open('#/install');
    await pasteCommand(t.page, `${process.execPath} ${ECHO} --other`);
    await t.page.getByTestId('disclosure').waitFor();
    await t.page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    await waitForText(t.page.getByTestId('install-error'), /allowedServers: not in the list/);
    await t.page.getByRole('button', { name: 'Cancel' }).click();
    expect(t.host.servers.list().map((server) => server.name)).toEqual(['echo']);
    await apply(null);
  });

  it('a server the organisation provides: “Add…” opens the usual install with the policy’s source, shown before anything runs; once added it shows as added', async () => {
    await apply({ version: 1, allowedServers: [{ npm: '@acme/*' }], servers: { 'team-echo': { command: [process.execPath, ECHO, '--team'], description: 'The team’s echo' } } });
    await t.open('#/settings');
    const item = t.page.getByTestId('organisation-provided').locator('[data-provided="team-echo"]');
    await waitForText(item, 'The team’s echo');
    await item.getByRole('link', { name: 'Add team-echo' }).click();
    // What it would get, with the exact command, before anything runs.
    await t.page.getByTestId('disclosure').waitFor();
    await waitForText(t.page.getByTestId('argv'), `${ECHO}`);
    await waitForText(t.page.getByTestId('argv'), '--team');
    expect(t.host.servers.list().map((server) => server.name)).toEqual(['echo']);
    await t.page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    await t.page.getByTestId('probe-report').waitFor({ timeout: 60_000 });
    await t.page.getByRole('button', { name: 'Continue' }).click();
    // Named as the organisation names it.
    expect(await t.page.getByLabel('Name in Airlock').inputValue()).toBe('team-echo');
    await t.page.getByRole('button', { name: 'Enable' }).click();
    await t.page.getByTestId('server-detail').waitFor();
    await t.open('#/settings');
    await waitForText(item, '(added as team-echo)');
    expect(t.host.organisation.view().providedServers[0]!.installedAs).toBe('team-echo');
    await t.host.ipcHandlers()['servers.remove']({ name: 'team-echo', confirm: true });
    await apply(null);
  });

  it('a policy file a normal user owns is not a policy: Settings and the app’s notices say it was ignored, and it locks nothing', async () => {
    await apply({ version: 1, allowTrust: false, mode: 'strict' });
    chownSync(policyFile, 65534, 65534);
    await t.host.organisation.reload();
    await t.open('#/settings');
    await waitForText(t.page.getByTestId('organisation-ignored'), `Ignored ${policyFile}: ${policyFile} belongs to user 65534, not to root: that user can change it. Only a file that only an administrator can change is a policy.`);
    expect(await t.page.getByTestId('organisation-locks').count()).toBe(0);
    expect(await t.page.getByTestId('policy-mode').getByRole('radio', { name: /Default/ }).isDisabled()).toBe(false);
    // The app's notice, at the top of every screen.
    await t.page.reload();
    await waitForText(t.page.locator('main [role="alert"]').first(), `Airlock ignored ${policyFile} as an organisation policy`);
    await t.open('#/servers/echo/permissions');
    await t.page.getByTestId('trust-toggle').waitFor();
    expect(await t.page.getByTestId('organisation-lock').filter({ hasText: 'allowTrust' }).count()).toBe(0);
    await apply(null);
    await t.page.reload();
  });

  it('Streaming the activity log: headers typed in Settings are sent, their values never shown again; a backlog past its threshold is a warning', async () => {
    const receiver = new OtlpReceiver();
    await receiver.start();
    try {
      await t.open('#/settings');
      const section = t.page.getByTestId('audit-export');
      await section.getByLabel('Collector').fill(receiver.url);
      // A line that is not NAME=VALUE is refused before anything is sent, without quoting it back.
      await section.getByLabel(/Headers sent with every export/).fill('x-collector-key: k-ui-123');
      await waitForText(section, 'Line 1: each line is NAME=VALUE');
      expect(await section.getByRole('button', { name: 'Stream to it' }).isDisabled()).toBe(true);
      await section.getByLabel(/Headers sent with every export/).fill('x-collector-key=k-ui-123');
      await section.getByRole('button', { name: 'Stream to it' }).click();
      await waitForText(section.getByTestId('audit-export-status'), 'Sent with the headers x-collector-key (their values are kept as secrets and never shown)');
      expect(await section.getByLabel(/Headers sent with every export/).inputValue()).toBe('');
      expect(await t.page.locator('body').innerText()).not.toContain('k-ui-123');
      await until(() => receiver.requests.length > 0, 'records at the collector');
      expect(receiver.requests[0]!.headers['x-collector-key']).toBe('k-ui-123');
      // The collector goes down; entries pile up past the threshold (8 here): a warning, nothing lost.
      await receiver.stop();
      for (let i = 0; i < 10; i++) await apply({ version: 1, allowTrust: i % 2 === 0 });
      await apply(null);
      await waitForText(section.getByTestId('audit-export-warning'), /Streaming the activity log is falling behind: the collector has not taken \d+ entries/);
      await receiver.start();
      await until(() => t.host.auditExport.view().backlog === 0, 'the backlog to be caught up');
      await t.open('#/servers');
      await t.open('#/settings');
      await t.page.getByTestId('audit-export-status').waitFor();
      expect(await t.page.getByTestId('audit-export-warning').count()).toBe(0);
      await t.page.getByTestId('audit-export').getByRole('button', { name: 'Stop streaming' }).click();
      await waitForText(t.page.getByTestId('audit-export-status'), 'Not streamed.');
    } finally {
      await receiver.stop();
    }
  });

  it('an unreadable policy: Settings names the file and line; the server is blocked meanwhile', async () => {
    await apply('{\n  "version": 1,\n  "alowTrust": false\n}');
    await t.open('#/settings');
    await waitForText(t.page.getByTestId('organisation-problems'), new RegExp(`${policyFile}, line 3 \\(alowTrust\\): unknown key "alowTrust"`));
    await t.open('#/servers/echo');
    await waitForText(t.page.getByTestId('organisation-block'), /Rule: unreadable/);
    // Nothing is streamed anywhere meanwhile, and Settings says why.
    await t.open('#/settings');
    await waitForText(t.page.getByTestId('audit-export-status'), `Paused: your organisation's policy could not be read (${policyFile}, line 3`);
    await apply(null);
    expect(t.consoleErrors).toEqual([]);
  });
});
