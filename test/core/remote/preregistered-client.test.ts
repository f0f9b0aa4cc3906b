// A remote server whose sign-in service does not let apps register themselves: the person registers an
// OAuth client there by hand and gives Airlock its id (and secret). Against a real authorization server
// (the SDK's auth router, no registration endpoint, one client registered by hand): refused plainly
// without the client, signed in as it with, its secret only in the secret store, and its tokens revoked
// as that client when the server is removed — checked from the fixture's own records and the files on disk.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { SecretVault } from '../../../electron/core/remote/oauth-vault';
import { createTestHost, type TestHost } from '../host/host-support';
import { recordDir } from '../servers/support/fixtures';
import { nameAuthorizationServer, startOtherAuthorizationServer } from './support/other-authorization-server';
import { consentingSignInPage, startRemoteFixture, type RemoteFixture } from './support/remote-fixture';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(client: string, env: Record<string, string> = {}) {
  const rec = recordDir();
  cleanups.push(() => rec.cleanup());
  const fixture: RemoteFixture = await startRemoteFixture({ REMOTE_AUTH: 'oauth', REMOTE_NO_REGISTRATION: '1', REMOTE_CLIENT: client, AIRLOCK_RECORD_DIR: rec.dir, ...env });
  cleanups.push(() => fixture.stop());
  const pages: string[] = [];
  const t: TestHost = await createTestHost({
    signInPage: consentingSignInPage(pages),
  });
  cleanups.push(() => t.close());
  return { t, fixture, rec, pages };
}

const { unsandboxed: _u, ...profile } = defaultSandboxProfile();

describe('a remote server whose sign-in service takes only a client registered by hand', () => {
  it('without the client, inspection says what is missing and how to give it; nothing is registered or saved', async () => {
    const { t, fixture, rec, pages } = await setup('airlock-app:s3cret');
    const disclosure = await t.host.install.prepare({ kind: 'remote', url: fixture.url });
    await expect(t.host.install.probe(disclosure.draftId, {}, profile)).rejects.toThrow(/sign-in service does not let apps register themselves\. To sign in, register an OAuth client there yourself .* --client-id with `airlock add`\. Nothing was saved\./);
    expect(pages).toEqual([]);
    expect(rec.lines('oauth')).toEqual([]);
    expect(t.host.store.read().servers).toEqual({});
  });

  it('with its id and secret: disclosed, signed in as that client, the secret sealed; removal revokes as that client', async () => {
    const { t, fixture, rec } = await setup('airlock-app:s3cret-value');
    const disclosure = await t.host.install.prepare({ kind: 'remote', url: fixture.url, oauthClient: { id: 'airlock-app', secret: 's3cret-value' } });
    expect(disclosure.warnings.join('\n')).toMatch(/Signs in \(OAuth\) as the client you registered at its sign-in service, airlock-app \(its secret sealed in Airlock’s secret store\)/);
    expect(disclosure.secrets).toEqual([expect.objectContaining({ name: 'OAUTH_CLIENT_SECRET', held: true })]);

    await t.host.install.probe(disclosure.draftId, {}, profile);
    expect(rec.lines('oauth')).toEqual([`authorize ${fixture.url} mcp:tools`, 'token code by airlock-app']);
    await t.host.install.commit({ draftId: disclosure.draftId, name: 'hosted', profile, trusted: false, secrets: {}, enable: true });
    expect((await t.host.servers.detail('hosted')).state).toBe('ready');
    expect(t.host.remote.status('hosted')).toMatchObject({ signedIn: true, clientId: 'airlock-app' });

    // The secret is in the secret store only; the settings keep the client id.
    expect(readFileSync(join(t.dataDir, 'secrets.json'), 'utf8')).toContain('s3cret-value');
    const settings = readFileSync(join(t.dataDir, 'airlock.json'), 'utf8');
    expect(settings).not.toContain('s3cret-value');
    expect(t.host.store.read().servers.hosted!.spec.remote!.oauth).toEqual({ clientId: 'airlock-app' });

    // The service authenticates revocation as at its token endpoint (client_secret_post here): revoked as that client.
    expect(await t.host.removal.remove('hosted', 'window')).toEqual({ signIn: { revoked: 'yes' } });
    expect(rec.lines('oauth').filter((line) => line.startsWith('revoke'))).toEqual(['revoke refresh_token by airlock-app', 'revoke access_token by airlock-app']);
    expect(readFileSync(join(t.dataDir, 'secrets.json'), 'utf8')).not.toContain('s3cret-value');
  });

  it('a wrong secret fails the sign-in with the service’s answer; nothing is saved', async () => {
    const { t, fixture } = await setup('airlock-app:right');
    const disclosure = await t.host.install.prepare({ kind: 'remote', url: fixture.url, oauthClient: { id: 'airlock-app', secret: 'wrong' } });
    await expect(t.host.install.probe(disclosure.draftId, {}, profile)).rejects.toThrow(/sign-in service refused the client airlock-app \(.*\): check the client id and secret you registered there\. Nothing was saved\./);
    expect(t.host.store.read().servers).toEqual({});
  });

  it('an Authorization header and a client together, or an empty or spaced id, are refused before anything is sent', async () => {
    const { t, fixture, rec } = await setup('airlock-app');
    await expect(t.host.install.prepare({ kind: 'remote', url: fixture.url, headers: [{ name: 'Authorization', value: 'Bearer x' }], oauthClient: { id: 'airlock-app' } })).rejects.toThrow(/An Authorization header and an OAuth client cannot both be given/);
    await expect(t.host.install.prepare({ kind: 'remote', url: fixture.url, oauthClient: { id: '  ' } })).rejects.toThrow(/The OAuth client id is empty/);
    await expect(t.host.install.prepare({ kind: 'remote', url: fixture.url, oauthClient: { id: 'airlock app' } })).rejects.toThrow(/spaces or control characters/);
    expect(rec.lines('requests')).toEqual([]);
  });

  it('once signed in, the client’s secret goes to no other sign-in service the server names later', async () => {
    const { t, fixture, pages } = await setup('airlock-app:pinned-secret');
    const disclosure = await t.host.install.prepare({ kind: 'remote', url: fixture.url, oauthClient: { id: 'airlock-app', secret: 'pinned-secret' } });
    await t.host.install.probe(disclosure.draftId, {}, profile);
    await t.host.install.commit({ draftId: disclosure.draftId, name: 'hosted', profile, trusted: true, secrets: {}, enable: true });
    const other = await startOtherAuthorizationServer();
    cleanups.push(() => other.close());
    await nameAuthorizationServer(fixture.url, other.origin);

    // A call meets a 401; then the person even signs in again: neither sends the client's secret (or id) to the other service.
    await t.host.calls.call({ server: 'hosted', tool: 'echo', arguments: { message: 'x' }, caller: { kind: 'client', name: 'Test' } });
    await expect(t.host.remote.signIn('hosted')).rejects.toThrow(`hosted now sends you to another sign-in service (${other.origin}) than the one you signed in at (${new URL(fixture.url).origin}). Airlock sent it nothing of your sign-in; if you trust the change, remove the server and add it again.`);
    expect(other.seen.some((line) => line.startsWith('GET /.well-known/oauth-authorization-server'))).toBe(true);
    for (const line of other.seen) expect(line).not.toMatch(/pinned-secret|airlock-app/);
    expect(pages.every((page) => !page.startsWith(other.origin))).toBe(true);
  });

  it('a service whose revocation takes the secret only as HTTP Basic gets it that way (its metadata says so)', async () => {
    const { t, fixture, rec } = await setup('airlock-app:basic-secret', { REMOTE_REVOKE_AUTH: 'basic' });
    const disclosure = await t.host.install.prepare({ kind: 'remote', url: fixture.url, oauthClient: { id: 'airlock-app', secret: 'basic-secret' } });
    await t.host.install.probe(disclosure.draftId, {}, profile);
    await t.host.install.commit({ draftId: disclosure.draftId, name: 'hosted', profile, trusted: false, secrets: {}, enable: true });
    expect(await t.host.removal.remove('hosted', 'window')).toEqual({ signIn: { revoked: 'yes' } });
    expect(rec.lines('oauth').filter((line) => line.startsWith('revoke'))).toEqual(['revoke refresh_token by airlock-app', 'revoked with basic', 'revoke access_token by airlock-app', 'revoked with basic']);
  });

  it('stays bound to its sign-in service even when its saved registration is dropped (as after an invalid_client): a new service gets nothing', async () => {
    const { t, fixture, pages } = await setup('airlock-app:bound-secret');
    const disclosure = await t.host.install.prepare({ kind: 'remote', url: fixture.url, oauthClient: { id: 'airlock-app', secret: 'bound-secret' } });
    await t.host.install.probe(disclosure.draftId, {}, profile);
    await t.host.install.commit({ draftId: disclosure.draftId, name: 'hosted', profile, trusted: true, secrets: {}, enable: true });
    // What the SDK's invalidateCredentials('all') leaves: no client saved, no tokens.
    const vault = new SecretVault(t.host.secrets, 'hosted');
    const { client: _client, tokens: _tokens, ...rest } = vault.load()!;
    vault.save(rest);
    const other = await startOtherAuthorizationServer();
    cleanups.push(() => other.close());
    await nameAuthorizationServer(fixture.url, other.origin);

    await expect(t.host.remote.signIn('hosted')).rejects.toThrow(/now sends you to another sign-in service/);
    for (const line of other.seen) expect(line).not.toMatch(/bound-secret|airlock-app/);
    expect(pages.every((page) => !page.startsWith(other.origin))).toBe(true);
  });
});
