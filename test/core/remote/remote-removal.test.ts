// Removing a remote server ends its sign-in at the authorization server too (RFC 7009), not only here:
// checked from outside — the fixture's own records of revocation, its answer to the old access token,
// the secret store on disk and the change recorded in the audit log — for a server that revokes, one
// whose revocation fails and one whose revocation never answers (removal does not wait on it).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { createTestHost, type TestHost } from '../host/host-support';
import { eventually, recordDir } from '../servers/support/fixtures';
import { nameAuthorizationServer, startOtherAuthorizationServer } from './support/other-authorization-server';
import { consentingSignInPage, startRemoteFixture, type RemoteFixture } from './support/remote-fixture';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A host with the remote fixture added as `web` and signed in (the browser consents), with the fixture's records. */
async function signedInRemote(env: Record<string, string>, hostOptions: { revokeWithinMs?: number } = {}) {
  const rec = recordDir();
  cleanups.push(() => rec.cleanup());
  const fixture: RemoteFixture = await startRemoteFixture({ REMOTE_AUTH: 'oauth', AIRLOCK_RECORD_DIR: rec.dir, ...env });
  cleanups.push(() => fixture.stop());
  const t: TestHost = await createTestHost({
    ...hostOptions,
    signInPage: consentingSignInPage(),
  });
  cleanups.push(() => t.close());
  const disclosure = await t.host.install.prepare({ kind: 'remote', url: fixture.url });
  const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
  await t.host.install.probe(disclosure.draftId, {}, profile);
  await t.host.install.commit({ draftId: disclosure.draftId, name: 'web', profile, trusted: true, secrets: {}, enable: true });
  expect(t.host.remote.status('web')).toMatchObject({ signedIn: true });
  const [access, refresh] = rec.lines('tokens');
  return { t, fixture, rec, access: access!, refresh: refresh! };
}

/** The fixture's answer to an MCP request made with `token`: 401 once the token is revoked there. */
async function statusWith(fixture: RemoteFixture, token: string): Promise<number> {
  const answer = await fetch(fixture.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }),
  });
  await answer.body?.cancel();
  return answer.status;
}

/** The `changes` of the audit log's server-removed record for `server`. */
function removalRecord(dataDir: string, server: string): string[] {
  const dir = join(dataDir, 'audit');
  const lines = readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n'))
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; change?: string; server?: string; changes?: string[] });
  const entry = lines.find((line) => line.type === 'change' && line.change === 'server-removed' && line.server === server);
  if (!entry) throw new Error('no server-removed record in the audit log');
  return entry.changes ?? [];
}

function secretsOnDisk(dataDir: string): string {
  const file = join(dataDir, 'secrets.json');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

describe('removing a remote server ends its sign-in', () => {
  it('revokes both tokens at the authorization server: the old access token is refused there, and nothing is left here', async () => {
    const { t, fixture, rec, access, refresh } = await signedInRemote({});
    expect(await statusWith(fixture, access)).toBe(200);

    const removed = await t.host.removal.remove('web', 'window');

    expect(removed).toEqual({ signIn: { revoked: 'yes' } });
    expect(rec.lines('oauth').filter((line) => line.startsWith('revoke'))).toEqual(['revoke refresh_token', 'revoke access_token']);
    expect(await statusWith(fixture, access)).toBe(401);
    for (const token of [access, refresh]) expect(secretsOnDisk(t.dataDir)).not.toContain(token);
    expect(removalRecord(t.dataDir, 'web')).toEqual(['removed with its grants, secrets and data', 'The server revoked the sign-in, and its tokens were deleted here.']);
  });

  it('a revocation that fails is said, with what is left to do; the server is removed and its tokens deleted here all the same', async () => {
    const { t, fixture, access, refresh } = await signedInRemote({ REMOTE_REVOKE: 'fail' });

    const removed = await t.host.removal.remove('web', 'window');

    expect(removed.signIn).toMatchObject({ revoked: 'failed', detail: expect.stringMatching(/500/) });
    expect(t.host.store.read().servers.web).toBeUndefined();
    for (const token of [access, refresh]) expect(secretsOnDisk(t.dataDir)).not.toContain(token);
    // The server never revoked it: the person is told it may still work there, and where to end it.
    expect(await statusWith(fixture, access)).toBe(200);
    expect(removalRecord(t.dataDir, 'web')[1]).toMatch(/revoking them at the server failed \(.*500.*\), so they may work there until they expire: to end that, remove Airlock's access in your account/);
  });

  it('a revocation endpoint that never answers does not hold the removal: it is given up after the bound, and said', async () => {
    const { t, rec, access } = await signedInRemote({ REMOTE_REVOKE: 'hang' }, { revokeWithinMs: 1000 });

    const removal = t.host.removal.remove('web', 'window');
    // While it waits on the sign-in service, the server is neither started nor signed in again (tokens nobody would revoke).
    await eventually(() => rec.lines('oauth').includes('revoke refresh_token'), 5000, 'the revocation to reach the server');
    await expect(t.host.servers.start('web')).rejects.toThrow('web is being removed.');
    await expect(t.host.remote.signIn('web')).rejects.toThrow('web is being removed.');
    await expect(t.host.removal.remove('web', 'window')).rejects.toThrow('web is being removed.');
    const removed = await removal;

    expect(removed.signIn).toEqual({ revoked: 'failed', detail: 'it did not answer within 1 s' });
    expect(rec.lines('oauth').filter((line) => line.startsWith('revoke'))).toEqual(['revoke refresh_token']);
    expect(t.host.store.read().servers.web).toBeUndefined();
    expect(secretsOnDisk(t.dataDir)).not.toContain(access);
    // Without the bound, the removal would wait out the fetch's own 30 s limit: this test's timeout is far below that.
  }, 15_000);

  it('a server that never signed in is removed without a word about a sign-in', async () => {
    const { t } = await signedInRemote({});
    await t.host.remote.signOut('web');
    expect(await t.host.removal.remove('web', 'window')).toEqual({});
    expect(removalRecord(t.dataDir, 'web')).toEqual(['removed with its grants, secrets and data']);
  });
});

describe('a server that names another authorization server after the sign-in', () => {
  it('cannot have the tokens revoked — that is, sent — there: removal revokes them only at the service that issued them', async () => {
    const { t, fixture, rec, access, refresh } = await signedInRemote({});
    // Another authorization server, on this computer like the fixture: metadata of its own, revocation, no registration.
    const other = await startOtherAuthorizationServer();
    cleanups.push(() => other.close());
    const seen = other.seen;
    await nameAuthorizationServer(fixture.url, other.origin);

    // The next call meets a 401; renewing the sign-in now discovers the other server (and cannot sign in there alone).
    const call = await t.host.calls.call({ server: 'web', tool: 'echo', arguments: { message: 'x' }, caller: { kind: 'client', name: 'Test' } });
    expect(call.outcome).not.toBe('ok');
    expect(seen.some((line) => line.startsWith('GET /.well-known/oauth-authorization-server'))).toBe(true);

    const removed = await t.host.removal.remove('web', 'window');
    expect(removed.signIn).toEqual({ revoked: 'yes' });
    expect(rec.lines('oauth').filter((line) => line.startsWith('revoke'))).toEqual(['revoke refresh_token', 'revoke access_token']);
    // Nothing but its metadata was asked of the other server: no token reached it.
    for (const line of seen) for (const token of [access, refresh]) expect(line).not.toContain(token);
    expect(seen.filter((line) => line.startsWith('POST'))).toEqual([]);
  });
});
