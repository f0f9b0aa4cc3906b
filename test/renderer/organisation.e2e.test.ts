/**
 * The organisation's policy in Chromium over the real core: Settings shows
 * every locked setting as set by the organisation (key, value, file), the
 * mode cannot be changed there, attempts the screens still offer are refused
 * with the key named (trust, network grants, the audit log's collector), a
 * server the policy forbids is shown blocked with its rule — and shown
 * running again when the policy relaxes — and an unreadable policy names
 * its file and line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linuxPolicySource } from '../../electron/core/managed-policy/policy-sources';
import { openRendererHost, REPO, waitForText, type RendererHost } from './renderer-support';

const ECHO = join(REPO, 'test/fixtures/servers/echo.mjs');

describe('the organisation’s policy on the screens', () => {
  let t: RendererHost;
  let dir: string;
  let policyFile: string;
  const apply = async (policy: object | string | null) => {
    if (policy === null) rmSync(policyFile, { force: true });
    else writeFileSync(policyFile, typeof policy === 'string' ? policy : JSON.stringify(policy, null, 2));
    await t.host.organisation.reload();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-ui-policy-'));
    policyFile = join(dir, 'managed-policy.json');
    t = await openRendererHost({ host: { managedPolicy: { source: linuxPolicySource({ path: policyFile }), pollMs: 0 }, auditExport: { env: {} } } });
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
    await waitForText(t.page.getByTestId('organisation-lock').first(), `(allowTrust: false, ${policyFile})`);
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

  it('an unreadable policy: Settings names the file and line; the server is blocked meanwhile', async () => {
    await apply('{\n  "version": 1,\n  "alowTrust": false\n}');
    await t.open('#/settings');
    await waitForText(t.page.getByTestId('organisation-problems'), new RegExp(`${policyFile}, line 3 \\(alowTrust\\): unknown key "alowTrust"`));
    await t.open('#/servers/echo');
    await waitForText(t.page.getByTestId('organisation-block'), /Rule: unreadable/);
    await apply(null);
    expect(t.consoleErrors).toEqual([]);
  });
});
