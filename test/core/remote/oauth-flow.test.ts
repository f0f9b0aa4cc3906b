// Signing in to a remote server with OAuth 2.1 against a real authorization server (the SDK's auth
// router in the fixture's process: metadata, dynamic registration, PKCE S256 checked, refresh,
// revocation). The "browser" here follows the sign-in page's redirect to Airlock's loopback listener,
// exactly as a browser would after the person consents; tokens are checked on disk.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type ServerSpec } from '../../../shared/domain';
import { SecretStore, SECRETS_FILE } from '../../../electron/core/secrets/secret-store';
import type { SupervisedServer } from '../../../electron/core/servers/supervisor';
import { createRemoteConnector, type RemoteLink } from '../../../electron/core/remote/remote-connector';
import { SecretVault } from '../../../electron/core/remote/oauth-vault';
import type { SignInBroker } from '../../../electron/core/remote/oauth';
import { testContext } from '../servers/support/pass-through-launcher';
import { eventually, recordDir } from '../servers/support/fixtures';
import { makeSupervisor } from '../servers/support/harness';
import { startRemoteFixture } from './support/remote-fixture';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A browser that consents: opens the sign-in page and follows its redirect to the loopback listener. */
function consentingBrowser(): SignInBroker & { opened: URL[] } {
  const opened: URL[] = [];
  return {
    opened,
    begin(url) {
      opened.push(url);
      void (async () => {
        const page = await fetch(url, { redirect: 'manual' });
        const location = page.headers.get('location');
        if (!location) throw new Error(`the sign-in page did not redirect (${page.status})`);
        await fetch(new URL(location, url));
      })();
      return { end() {} };
    },
  };
}

function setup(url: string, broker?: SignInBroker) {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-oauth-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const secrets = new SecretStore(dataDir, undefined, join(dataDir, 'registry.json'));
  const spec: ServerSpec = { command: url, args: [], env: {}, remote: { url, transport: 'auto', headers: [] } };
  const links: RemoteLink[] = [];
  const server = (withBroker: SignInBroker | undefined): SupervisedServer => {
    const link = createRemoteConnector({ label: 'web', spec: spec.remote!, secrets: () => ({}), vault: new SecretVault(secrets, 'web'), ...(withBroker ? { broker: withBroker } : {}) });
    links.push(link);
    cleanups.push(() => link.close());
    return { spec, profile: defaultSandboxProfile(), context: testContext('web'), remote: link };
  };
  return { dataDir, secrets, server, links, onDisk: () => readFileSync(join(dataDir, SECRETS_FILE), 'utf8'), broker };
}

/** The OAuth fixture, and `web` on it started by a supervisor with a consenting browser (so: signed in). */
async function startedWithSignIn(fixtureEnv: Record<string, string> = {}) {
  const rec = recordDir();
  const fixture = await startRemoteFixture({ REMOTE_AUTH: 'oauth', AIRLOCK_RECORD_DIR: rec.dir, ...fixtureEnv });
  cleanups.push(rec.cleanup, () => fixture.stop());
  const browser = consentingBrowser();
  const env = setup(fixture.url);
  const first = makeSupervisor({ web: env.server(browser) });
  cleanups.push(() => first.supervisor.stopAll());
  await first.supervisor.start('web');
  return { rec, fixture, browser, env, first };
}

describe('OAuth sign-in to a remote server', () => {
  it('needs a person: a background start with no sign-in stops plainly, before registering anywhere', async () => {
    const rec = recordDir();
    const fixture = await startRemoteFixture({ REMOTE_AUTH: 'oauth', AIRLOCK_RECORD_DIR: rec.dir });
    cleanups.push(rec.cleanup, () => fixture.stop());
    const { server } = setup(fixture.url);
    const { supervisor } = makeSupervisor({ web: server(undefined) });
    cleanups.push(() => supervisor.stopAll());

    await supervisor.start('web').catch(() => undefined);
    expect(supervisor.status('web')).toMatchObject({ state: 'stopped' });
    expect(supervisor.status('web').lastError).toMatch(/web needs you to sign in: use Sign in on its page, or `airlock signin web`/);
    expect(rec.lines('oauth')).toEqual([]); // no registration, no authorization request
  });

  it('signs in (discovery, registration, PKCE, resource), seals the tokens, refreshes after expiry without the person, and signs out (revoked, deleted on disk)', async () => {
    // 1. The person adds/starts it: the 401 leads to the sign-in page, then tools.
    const { rec, fixture, browser, env, first } = await startedWithSignIn({ REMOTE_TOKEN_TTL: '3' });
    expect(first.supervisor.state('web')).toBe('ready');
    expect(first.supervisor.tools.lookup('web', 'echo')).toBeDefined();

    const page = browser.opened[0]!;
    expect(browser.opened).toHaveLength(1);
    expect(page.origin).toBe(new URL(fixture.url).origin);
    expect(page.searchParams.get('code_challenge_method')).toBe('S256');
    expect(page.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(page.searchParams.get('resource')).toBe(fixture.url);
    expect(page.searchParams.get('scope')).toBe('mcp:tools');
    expect(page.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(page.searchParams.get('state')?.length).toBeGreaterThanOrEqual(32);
    const oauthLog = rec.lines('oauth');
    expect(oauthLog[0]).toMatch(/^register http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(oauthLog.slice(1, 3)).toEqual([`authorize ${fixture.url} mcp:tools`, 'token code']);

    // Sealed in the secret store (its own slot, not the server's secrets), shown without the token.
    const [access, refresh] = rec.lines('tokens');
    expect(env.onDisk()).toContain(access);
    expect(env.onDisk()).toContain(refresh);
    expect(env.secrets.names('web')).toEqual([]);
    const status = env.links[0]!.oauth!.status();
    expect(status).toMatchObject({ signedIn: true, scopes: 'mcp:tools', renewable: true, authorizationServer: `${new URL(fixture.url).origin}/` });
    expect(JSON.stringify(status)).not.toContain(access);
    await first.supervisor.stop('web');

    // 2. Later, in the background (no person at hand), after the access token expired: refreshed.
    await eventually(() => Date.now() > (status.expiresAt ?? 0) + 200, 10_000, 'the access token to expire');
    const later = makeSupervisor({ web: env.server(undefined) });
    cleanups.push(() => later.supervisor.stopAll());
    await later.supervisor.start('web');
    expect(later.supervisor.state('web')).toBe('ready');
    expect(rec.lines('oauth')).toContain('token refresh');
    expect(browser.opened).toHaveLength(1); // no second sign-in page
    const result = await later.supervisor.callTool('web', 'echo', { message: 'refreshed' }, { timeoutMs: 5000, maxTotalMs: 10_000 });
    expect(result.content).toEqual([{ type: 'text', text: 'refreshed' }]);
    await later.supervisor.stop('web');

    // 3. Sign out: revoked at the authorization server, and no token left on disk.
    const tokensIssued = rec.lines('tokens');
    const outcome = await env.links[1]!.oauth!.signOut();
    expect(outcome).toEqual({ revoked: 'yes' });
    expect(rec.lines('oauth').filter((line) => line.startsWith('revoke'))).toEqual(['revoke refresh_token', 'revoke access_token']);
    const disk = env.onDisk();
    for (const token of tokensIssued) expect(disk).not.toContain(token);
    expect(env.links[1]!.oauth!.status()).toMatchObject({ signedIn: false });

    // Signed out, a background start asks for the person again.
    const after = makeSupervisor({ web: env.server(undefined) });
    cleanups.push(() => after.supervisor.stopAll());
    await after.supervisor.start('web').catch(() => undefined);
    expect(after.supervisor.status('web').lastError).toMatch(/needs you to sign in/);
  });

  it('signing in again uses the address registered before; when its port is taken, registers afresh (the fixture matches addresses exactly)', async () => {
    const { rec, browser, env, first } = await startedWithSignIn();
    await first.supervisor.stop('web');
    const registered = /^register (\S+)$/.exec(rec.lines('oauth')[0]!)![1]!;

    // Signed out, then in again: the same address (the registration kept), nothing registered again.
    env.server(undefined);
    const oauth = env.links.at(-1)!.oauth!;
    await oauth.signOut();
    await oauth.signIn(browser);
    expect(browser.opened[1]!.searchParams.get('redirect_uri')).toBe(registered);
    expect(rec.lines('oauth').filter((line) => line.startsWith('register'))).toHaveLength(1);

    // Another program now holds that port: a new address, registered first (else the sign-in page refuses it).
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(Number(new URL(registered).port), '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
    // A sign-in on the new address cut short (the person closed it): the working sign-in and its client are as they were.
    const before = oauth.status();
    const stop = new AbortController();
    const silent: SignInBroker = { begin: () => (setImmediate(() => stop.abort()), { end() {} }) };
    await expect(oauth.signIn(silent, stop.signal)).rejects.toThrow(/cancelled/);
    expect(oauth.status()).toEqual(before);
    expect(before).toMatchObject({ signedIn: true });
    await oauth.signIn(browser);
    const third = browser.opened[2]!.searchParams.get('redirect_uri')!;
    expect(oauth.status().clientId).not.toBe(before.clientId);
    expect(third).not.toBe(registered);
    // Registered afresh for the cut-short attempt too (its client was never kept), then for this one.
    const registrations = rec.lines('oauth').filter((line) => line.startsWith('register'));
    expect(registrations).toHaveLength(3);
    expect([registrations[0], registrations[2]]).toEqual([`register ${registered}`, `register ${third}`]);
    expect(oauth.status()).toMatchObject({ signedIn: true });
  });
});

describe('more access (step-up)', () => {
  it('a call that needs more access is refused as not run, and the scopes it wants are kept for the page after a restart', async () => {
    const rec = recordDir();
    const fixture = await startRemoteFixture({ REMOTE_AUTH: 'oauth', REMOTE_STEP_UP_SCOPE: 'mcp:admin', AIRLOCK_RECORD_DIR: rec.dir });
    cleanups.push(rec.cleanup, () => fixture.stop());
    const env = setup(fixture.url);
    const first = makeSupervisor({ web: env.server(consentingBrowser()) });
    cleanups.push(() => first.supervisor.stopAll());
    await first.supervisor.start('web');
    await first.supervisor.stop('web');

    // Later, in the background: the call needs mcp:admin; nobody is at hand to grant it.
    const later = makeSupervisor({ web: env.server(undefined) });
    cleanups.push(() => later.supervisor.stopAll());
    await later.supervisor.start('web');
    const error = await later.supervisor.callTool('web', 'echo', { message: 'x' }, { timeoutMs: 5000, maxTotalMs: 10_000 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ kind: 'refused', outcomeUnknown: false });
    expect((error as Error).message).toMatch(/web needs more access than you granted \(mcp:tools mcp:admin\): sign in again to grant it \(Grant more access on its page/);
    expect(rec.lines('calls')).toEqual([]);
    expect(rec.lines('oauth')).toContain('step-up mcp:admin');

    // A fresh connector over the same sealed sign-in (the app restarted) still knows what was asked.
    const fresh = env.server(undefined).remote as ReturnType<typeof createRemoteConnector>;
    expect(fresh.oauth!.status()).toMatchObject({ signedIn: true, stepUpScope: 'mcp:tools mcp:admin' });
  });
});
