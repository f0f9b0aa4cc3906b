/**
 * An MCPB bundle through the install screens over the real core: its author
 * and signature state, the settings it needs (user_config) and the secret it
 * asks for; the secret reaches the server but never comes back to the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEchoBundle } from '../fixtures/install/build-bundle';
import { openRendererHost, waitForText, type RendererHost } from './renderer-support';

const SECRET = 's3cret-value-that-must-not-show';

describe('installing an MCPB bundle in the app', () => {
  let t: RendererHost;
  let bundle: string;
  let workspace: string;

  beforeAll(async () => {
    t = await openRendererHost();
    bundle = await buildEchoBundle(t.folder('bundle'));
    workspace = t.folder('workspace');
  });
  afterAll(() => t?.close());

  it('discloses the bundle, asks for its settings and secret, and passes them to the server', async () => {
    const { page } = t;
    await t.open('#/install');
    await page.getByRole('radio', { name: 'MCPB bundle' }).check();
    await page.getByLabel('Path of the .mcpb file').fill(bundle);
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByTestId('disclosure').waitFor({ timeout: 30_000 });
    const provenance = (await page.getByTestId('provenance').textContent()) ?? '';
    expect(provenance).toContain('MCPB bundle mcpb-echo@1.0.0');
    expect(provenance).toContain('Airlock tests');
    expect(provenance).toContain('Unsigned');
    expect(await page.getByTestId('disclosure').textContent()).toMatch(/ECHO_API_KEY\s*Required/);
    const settings = page.getByTestId('user-config');
    expect(await settings.getByLabel('Greeting').inputValue()).toBe('hello');
    await settings.getByLabel('Greeting').fill('bonjour');
    await settings.getByLabel(/^Workspace/).fill(workspace);

    await page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    const report = page.getByTestId('probe-report');
    await report.waitFor({ timeout: 60_000 });
    expect(await report.getByTestId('tool-greeting').textContent()).toContain('read-only');
    await page.getByRole('button', { name: 'Continue' }).click();

    const grant = page.getByTestId('grant-step');
    await grant.waitFor();
    const enable = page.getByRole('button', { name: 'Enable' });
    expect(await enable.isDisabled()).toBe(true);
    await grant.getByLabel(/ECHO_API_KEY/).fill(SECRET);
    await page.getByLabel('Name in Airlock').fill('echo-bundle');
    await enable.click();
    await page.getByTestId('server-detail').waitFor();
    await waitForText(page.getByTestId('server-badges'), 'Running');

    await page.getByRole('tab', { name: 'Permissions' }).click();
    const secrets = page.getByTestId('secrets');
    expect(await secrets.textContent()).toMatch(/ECHO_API_KEY\s*Set/);
    await page.getByRole('tab', { name: 'Try a tool' }).click();
    const console_ = page.getByTestId('tool-console');
    await console_.getByLabel('Tool').selectOption('greeting');
    await console_.getByRole('button', { name: 'Call' }).click();
    await waitForText(console_.getByTestId('call-result'), '"greeting":"bonjour","hasApiKey":true');
    expect(await page.content()).not.toContain(SECRET);
  });

  it('clears the secret from the detail page', async () => {
    const { page } = t;
    await page.getByRole('tab', { name: 'Permissions' }).click();
    const secrets = page.getByTestId('secrets');
    await secrets.getByRole('button', { name: 'Clear' }).click();
    // Clearing deletes the value and takes the grant back: the name leaves the list.
    await expect.poll(async () => (await secrets.textContent())?.includes('ECHO_API_KEY')).toBe(false);
    const detail = await t.host.servers.detail('echo-bundle');
    expect(detail.secretsSet).toEqual([]);
    expect(detail.profile.secrets).not.toContain('ECHO_API_KEY');
    expect(await page.content()).not.toContain(SECRET);
  });

  it('made no request outside the app, and logged no error (no CSP violation)', () => {
    expect(t.harness.foreignRequests).toEqual([]);
    expect(t.consoleErrors).toEqual([]);
  });
});
