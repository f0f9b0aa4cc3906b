/**
 * Updating an npm server from its page: a new disclosure of the newest
 * version, inspected, installed beside the running one, and swapped in
 * when the person agrees — trust and grants carried over. Real registry.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRendererHost, waitForText, type RendererHost } from './renderer-support';

describe('updating an npm server from the detail page', () => {
  let t: RendererHost;
  let work: string;
  beforeAll(async () => {
    t = await openRendererHost();
    work = t.folder('work');
    const disclosure = await t.host.install.prepare({ kind: 'npm', package: '@modelcontextprotocol/server-filesystem@2026.7.10', args: [work] });
    const { profile } = disclosure;
    await t.host.install.commit({ draftId: disclosure.draftId, name: 'files', profile: { ...profile, filesystem: { ...profile.filesystem, read: [work] } }, trusted: true, secrets: {}, enable: true });
  }, 180_000);
  afterAll(() => t?.close());

  it('shows the change, keeps the name, trust and grants, and removes the old version', async () => {
    const before = await t.host.servers.detail('files');
    expect(before.provenance).toMatchObject({ kind: 'npm', version: '2026.7.10' });
    const oldDir = before.provenance.kind === 'npm' ? before.provenance.installDir : '';
    await t.open('#/servers/files');
    await t.page.getByRole('button', { name: 'Look for a newer version' }).click();
    await waitForText(t.page.locator('main'), /from 2026\.7\.10 to 2026\.8\.31/, 60_000);
    await t.page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    await t.page.getByRole('button', { name: 'Continue' }).waitFor({ timeout: 120_000 });
    await t.page.getByRole('button', { name: 'Continue' }).click();
    expect(await t.page.getByTestId('trust-checkbox').isChecked()).toBe(true);
    await t.page.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(async () => (await t.host.servers.detail('files')).provenance, { timeout: 60_000 }).toMatchObject({ version: '2026.8.31' });
    const after = await t.host.servers.detail('files');
    expect(after.trusted).toBe(true);
    expect(after.profile.filesystem.read).toEqual([work]);
    // The old version's files go once the new one is saved.
    await expect.poll(() => existsSync(oldDir), { timeout: 10_000 }).toBe(false);
  }, 240_000);
});

describe('updating a server with a screen from the detail page', () => {
  let t: RendererHost;
  beforeAll(async () => {
    t = await openRendererHost();
    const disclosure = await t.host.install.prepare({ kind: 'npm', package: '@modelcontextprotocol/server-map@2.0.2', args: ['--stdio'] });
    await t.host.install.probe(disclosure.draftId, undefined, disclosure.profile, {});
    await t.host.install.commit({
      draftId: disclosure.draftId,
      name: 'map',
      profile: disclosure.profile,
      trusted: false,
      secrets: {},
      enable: true,
      screens: { allowed: { connect: ['https://cesium.com'], resource: [], frame: [], baseUri: [] }, permissions: [] },
    });
  }, 240_000);
  afterAll(() => t?.close());

  it('starts the last step with what its screens were allowed (still asked for) ticked, and keeps it', async () => {
    await t.open('#/servers/map');
    await t.page.getByRole('button', { name: 'Look for a newer version' }).click();
    await waitForText(t.page.locator('main'), /from 2\.0\.2 to 2\.0\.3/, 60_000);
    await t.page.getByRole('button', { name: 'Inspect in a locked sandbox' }).click();
    await t.page.getByRole('button', { name: 'Continue' }).waitFor({ timeout: 120_000 });
    await t.page.getByRole('button', { name: 'Continue' }).click();
    const asks = t.page.getByTestId('install-screens');
    await asks.waitFor();
    const box = (words: string) => asks.getByRole('listitem').filter({ hasText: words }).getByTestId('screen-domain');
    expect(await box('It asks to connect to https://cesium.com').isChecked()).toBe(true);
    expect(await box('It asks to load scripts, styles, images and fonts from https://cesium.com').isChecked()).toBe(false);
    expect(await box('It asks to connect to https://*.openstreetmap.org').isChecked()).toBe(false);
    await t.page.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(async () => (await t.host.servers.detail('map')).provenance, { timeout: 60_000 }).toMatchObject({ version: '2.0.3' });
    const screens = await t.host.screens.list('map');
    expect(screens.allowed).toEqual({ connect: ['https://cesium.com'], resource: [], frame: [], baseUri: [] });
    // Approved as read at the update's inspection (read again once the new version runs).
    await expect.poll(async () => (await t.host.screens.list('map')).screens.map((screen) => screen.state), { timeout: 60_000 }).toEqual(['approved']);
  }, 300_000);
});
