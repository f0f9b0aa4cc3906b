/**
 * Adding a remote server by URL in Chromium over the real core, against a real MCP server over HTTP
 * with a real OAuth authorization server (the SDK's server side and auth router, in their own
 * process): the disclosure before anything is sent (the URL with its host marked), Connect → the
 * sign-in page opened in the browser (Chromium follows its redirect to Airlock's loopback listener)
 * → tools listed → Enable; the server page's sign-in (scopes, expiry, renewable) and Sign out, which
 * deletes the tokens on disk.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDir } from '../core/servers/support/fixtures';
import { startRemoteFixture, type RemoteFixture } from '../core/remote/support/remote-fixture';
import { openRendererHost, waitForText, type RendererHost } from './renderer-support';

describe('a remote server in the app', () => {
  let t: RendererHost;
  let fixture: RemoteFixture;
  let rec: ReturnType<typeof recordDir>;
  const pages: string[] = [];

  beforeAll(async () => {
    rec = recordDir();
    fixture = await startRemoteFixture({ REMOTE_AUTH: 'oauth', AIRLOCK_RECORD_DIR: rec.dir });
    t = await openRendererHost({ signInPage: (url) => pages.push(url) });
  });
  afterAll(async () => {
    await t?.close();
    await fixture?.stop();
    rec?.cleanup();
  });

  it('add by URL → disclosure (nothing sent) → connect and sign in in the browser → tools listed → enabled; sign out deletes the tokens', async () => {
    const { page } = t;
    await t.open('#/install');
    await page.getByRole('radio', { name: 'Server by URL' }).check();
    await page.getByLabel('The server’s address (https, or http on this computer)').fill(fixture.url);
    await page.getByRole('button', { name: 'Continue' }).click();

    const disclosure = page.getByTestId('disclosure');
    await disclosure.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('remote-url').textContent()).toBe(fixture.url);
    expect(await page.getByTestId('remote-url').locator('mark').textContent()).toBe('127.0.0.1');
    expect(await disclosure.textContent()).toMatch(/Nothing has been sent to this server yet/);
    expect(await disclosure.textContent()).toMatch(/Runs on 127\.0\.0\.1:\d+, not on your computer/);
    expect(rec.lines('requests')).toEqual([]);
    await t.harness.screenshot('remote-disclosure');

    await page.getByRole('button', { name: 'Connect and list its tools' }).click();
    // The person's browser: the sign-in page opens; the authorization server sends it back to Airlock's listener.
    for (let i = 0; i < 400 && pages.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(pages).toHaveLength(1);
    // The system browser: a context of its own (the app's window context allows only the app).
    const browser = await page.context().browser()!.newContext();
    const tab = await browser.newPage();
    await tab.goto(pages[0]!);
    await waitForText(tab.locator('h1'), 'Signed in');
    expect(new URL(tab.url()).pathname).toBe('/callback');
    await browser.close();

    const report = page.getByTestId('probe-report');
    await report.waitFor({ timeout: 60_000 });
    expect(await report.textContent()).toContain('echo');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('grant-step').waitFor();
    await page.getByLabel('Name in Airlock').fill('hosted');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('server-detail').waitFor({ timeout: 60_000 });
    await waitForText(page.getByTestId('server-badges'), 'Running');

    // The page does not describe sandbox grants that mean nothing for a server elsewhere.
    expect(await page.getByTestId('overview-summary').textContent()).toMatch(/runs on another computer, not under Airlock: no sandbox/);
    expect(await page.getByTestId('server-detail').textContent()).not.toMatch(/Has no internet or network access|The exact command/);
    await page.getByRole('tab', { name: 'Permissions' }).click();
    expect(await page.getByTestId('detail-summary').textContent()).toMatch(/no sandbox around it, so there are no file or network grants to choose/);
    expect(await page.getByTestId('server-detail').textContent()).not.toMatch(/You allowed it on|Take that back/);
    await page.getByRole('tab', { name: 'Overview' }).click();
    const signIn = page.getByTestId('sign-in');
    await signIn.waitFor();
    expect(await signIn.textContent()).toMatch(/Access granted\s*mcp:tools/);
    expect(await signIn.textContent()).toMatch(/Airlock renews it without asking you/);
    const tokens = rec.lines('tokens');
    expect(await page.content()).not.toContain(tokens[0]!);
    await t.harness.screenshot('remote-signed-in');

    expect(readFileSync(join(t.dataDir, 'secrets.json'), 'utf8')).toContain(tokens[0]!);
    await signIn.getByRole('button', { name: 'Sign out' }).click();
    await waitForText(signIn, /Not signed in/);
    const secrets = readFileSync(join(t.dataDir, 'secrets.json'), 'utf8');
    for (const token of tokens) expect(secrets).not.toContain(token);
    expect(rec.lines('oauth').filter((line) => line.startsWith('revoke'))).toEqual(['revoke refresh_token', 'revoke access_token']);
    // What the server did is said: here it revoked them, so nothing is left to do at the service.
    expect(await signIn.getByTestId('signed-out').textContent()).toBe('Signed out. The server revoked the sign-in, and its tokens were deleted here.');
    await t.viewShot('remote-signed-out');

    // Signed in again (the address registered before), then removed: the sign-in is revoked at the server
    // too, and the Servers page says so once the page it was asked on is gone.
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    for (let i = 0; i < 400 && pages.length < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(new URL(pages[1]!).searchParams.get('redirect_uri')).toBe(new URL(pages[0]!).searchParams.get('redirect_uri'));
    const again = await page.context().browser()!.newContext();
    const tab2 = await again.newPage();
    await tab2.goto(pages[1]!);
    await waitForText(tab2.locator('h1'), 'Signed in');
    await again.close();
    await waitForText(signIn, /Access granted/);
    expect(await signIn.getByTestId('signed-out').count()).toBe(0);
    const removal = page.getByTestId('remove-server');
    expect(await removal.textContent()).toMatch(/A sign-in it holds is revoked at its server first, where the server offers that\./);
    await removal.getByLabel(/Type .* to confirm/).fill('hosted');
    await removal.getByRole('button', { name: 'Remove hosted' }).click();
    const notice = page.getByTestId('carried-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toBe('hosted was removed. The server revoked the sign-in, and its tokens were deleted here.');
    expect(rec.lines('oauth').filter((line) => line.startsWith('revoke'))).toHaveLength(4);
    await t.viewShot('remote-removed');
    // Shown once: back on the Servers page later, it is gone.
    await t.open('#/activity');
    await t.open('#/servers');
    await page.getByTestId('servers-empty').waitFor();
    expect(await page.getByTestId('carried-notice').count()).toBe(0);
    expect(t.consoleErrors).toEqual([]);
  });

  it('a service that lets no app register itself: the sign-in client registered by hand is given on the form, disclosed, and signed in as', async () => {
    const handRec = recordDir();
    const hand = await startRemoteFixture({ REMOTE_AUTH: 'oauth', REMOTE_NO_REGISTRATION: '1', REMOTE_CLIENT: 'app-by-hand:hand-secret-7', AIRLOCK_RECORD_DIR: handRec.dir });
    try {
      const { page } = t;
      await t.open('#/install');
      await page.getByRole('radio', { name: 'Server by URL' }).check();
      await page.getByLabel('The server’s address (https, or http on this computer)').fill(hand.url);
      const client = page.getByTestId('sign-in-client');
      await client.locator('summary').click();
      await client.getByLabel('Client id').fill('app-by-hand');
      await client.getByLabel('Client secret (if it has one)').fill('hand-secret-7');
      await t.viewShot('remote-sign-in-client');
      await page.getByRole('button', { name: 'Continue' }).click();

      const disclosure = page.getByTestId('disclosure');
      await disclosure.waitFor({ timeout: 30_000 });
      expect(await disclosure.textContent()).toMatch(/Signs in \(OAuth\) as the client you registered at its sign-in service, app-by-hand \(its secret sealed in Airlock’s secret store\)/);
      expect(await page.content()).not.toContain('hand-secret-7');
      const before = pages.length;
      await page.getByRole('button', { name: 'Connect and list its tools' }).click();
      for (let i = 0; i < 400 && pages.length === before; i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(new URL(pages[before]!).searchParams.get('client_id')).toBe('app-by-hand');
      const browser = await page.context().browser()!.newContext();
      const tab = await browser.newPage();
      await tab.goto(pages[before]!);
      await waitForText(tab.locator('h1'), 'Signed in');
      await browser.close();
      await page.getByTestId('probe-report').waitFor({ timeout: 60_000 });
      expect(handRec.lines('oauth')).toContain('token code by app-by-hand');
      expect(t.consoleErrors).toEqual([]);
    } finally {
      await hand.stop();
      handRec.cleanup();
    }
  });

  it('a header whose secret is not given yet: typed before connecting, it reaches the server and is kept for enabling', async () => {
    const keyRec = recordDir();
    const keyed = await startRemoteFixture({ REMOTE_AUTH: 'key', REMOTE_API_KEY: 'k-window-9', AIRLOCK_RECORD_DIR: keyRec.dir });
    try {
      const { page } = t;
      await t.open('#/servers');
      await t.open('#/install');
      await page.getByRole('radio', { name: 'Server by URL' }).check();
      await page.getByLabel('The server’s address (https, or http on this computer)').fill(keyed.url);
      await page.getByRole('button', { name: 'Add a header' }).click();
      await page.getByLabel('Header 1 name').fill('X-Api-Key');
      await page.getByLabel('Header 1 value').fill('${secret.SERVICE_KEY}');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByTestId('disclosure').waitFor({ timeout: 30_000 });

      const connect = page.getByRole('button', { name: 'Connect and list its tools' });
      expect(await connect.isDisabled()).toBe(true);
      expect(await page.getByTestId('inspect-note').textContent()).toMatch(/^Type SERVICE_KEY above to connect: the server gets it in its headers\./);
      await page.getByLabel('Value of SERVICE_KEY').fill('k-window-9');
      await t.viewShot('remote-header-secret');
      await connect.click();
      await page.getByTestId('probe-report').waitFor({ timeout: 60_000 });
      expect(keyRec.lines('api-key').length).toBeGreaterThan(0);
      expect(new Set(keyRec.lines('api-key'))).toEqual(new Set(['ok']));
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByTestId('grant-step').waitFor();
      expect(await page.getByTestId('grant-step').textContent()).toContain('SERVICE_KEY (given already; type a new one only to replace it)');
      await page.getByLabel('Name in Airlock').fill('keyed');
      await page.getByRole('button', { name: 'Enable' }).click();
      await page.getByTestId('server-detail').waitFor({ timeout: 60_000 });
      await waitForText(page.getByTestId('server-badges'), 'Running');
      expect(readFileSync(join(t.dataDir, 'secrets.json'), 'utf8')).toContain('k-window-9');
      expect(await page.content()).not.toContain('k-window-9');
      expect(t.consoleErrors).toEqual([]);
    } finally {
      await keyed.stop();
      keyRec.cleanup();
    }
  });
});
