// A remote server whose header carries a secret the person has not given yet (a registry listing's API key,
// or `${secret.NAME}` typed in a header): its inspection says what is missing before anything is sent; given
// with the inspection, the key reaches the server (its own record says so) and is kept for the commit.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { createTestHost, type TestHost } from '../host/host-support';
import { recordDir } from '../servers/support/fixtures';
import { startRemoteFixture, type RemoteFixture } from './support/remote-fixture';

const ECHO_SERVER = join(import.meta.dirname, '../../fixtures/servers/echo.mjs');
const { unsandboxed: _u, ...profile } = defaultSandboxProfile();

describe('a remote server whose header needs a secret not given yet', () => {
  let t: TestHost;
  let fixture: RemoteFixture;
  let rec: ReturnType<typeof recordDir>;
  beforeAll(async () => {
    rec = recordDir();
    fixture = await startRemoteFixture({ REMOTE_AUTH: 'key', REMOTE_API_KEY: 'k-live-123', AIRLOCK_RECORD_DIR: rec.dir });
    t = await createTestHost();
  });
  afterAll(async () => {
    await t?.close();
    await fixture?.stop();
    rec?.cleanup();
  });

  it('is not inspected without it: the refusal names it and where to type it, and nothing is sent', async () => {
    const disclosure = await t.host.install.prepare({ kind: 'remote', url: fixture.url, headers: [{ name: 'X-Api-Key', value: '${secret.SERVICE_KEY}' }] });
    expect(disclosure.secrets).toEqual([expect.objectContaining({ name: 'SERVICE_KEY', required: true })]);
    expect(disclosure.secrets[0]!.held).toBeUndefined();
    await expect(t.host.install.probe(disclosure.draftId, {}, profile)).rejects.toThrow(
      'Airlock needs SERVICE_KEY to connect: the server gets it in its headers. Type it under “Secrets sent to it” (on the command line: --secret NAME, the value in the environment variable NAME), or skip the inspection. Nothing was sent.',
    );
    expect(rec.lines('requests')).toEqual([]);
  });

  it('given with the inspection, the key reaches the server; kept, the commit needs it no more and it is only in the secret store', async () => {
    const disclosure = await t.host.install.prepare({ kind: 'remote', url: fixture.url, headers: [{ name: 'X-Api-Key', value: '${secret.SERVICE_KEY}' }] });
    await expect(t.host.install.probe(disclosure.draftId, {}, profile, { secrets: { SERVICE_KEY: 'k-wrong' } })).rejects.toThrow(/401|refused|key/i);
    expect(rec.lines('api-key')).toContain('wrong');
    // A key the server refused is not kept: without a new one, the inspection (and the commit) still need it.
    await expect(t.host.install.probe(disclosure.draftId, {}, profile)).rejects.toThrow(/^Airlock needs SERVICE_KEY to connect/);
    const report = await t.host.install.probe(disclosure.draftId, {}, profile, { secrets: { SERVICE_KEY: 'k-live-123' } });
    expect(report.tools.map((tool) => tool.name)).toContain('echo');
    expect(rec.lines('api-key').at(-1)).toBe('ok');

    await t.host.install.commit({ draftId: disclosure.draftId, name: 'keyed', profile, trusted: false, secrets: {}, enable: true });
    expect((await t.host.servers.detail('keyed')).state).toBe('ready');
    expect(readFileSync(join(t.dataDir, 'secrets.json'), 'utf8')).toContain('k-live-123');
    expect(readFileSync(join(t.dataDir, 'airlock.json'), 'utf8')).not.toContain('k-live-123');
  });

  it('secrets are taken only for a remote server’s headers: a local server is inspected without any, and an unasked name is refused', async () => {
    const remote = await t.host.install.prepare({ kind: 'remote', url: fixture.url, headers: [{ name: 'X-Api-Key', value: '${secret.SERVICE_KEY}' }] });
    await expect(t.host.install.probe(remote.draftId, {}, profile, { secrets: { OTHER: 'x' } })).rejects.toThrow("OTHER is not a secret this server's headers send.");
    const client = await t.host.install.prepare({ kind: 'remote', url: fixture.url, oauthClient: { id: 'app', secret: 'held-secret' } });
    await expect(t.host.install.probe(client.draftId, {}, profile, { secrets: { OAUTH_CLIENT_SECRET: 'swapped' } })).rejects.toThrow("OAUTH_CLIENT_SECRET is not a secret this server's headers send.");
    const local = await t.host.install.prepare({ kind: 'local', argv: [process.execPath, ECHO_SERVER] });
    await expect(t.host.install.probe(local.draftId, {}, profile, { secrets: { SERVICE_KEY: 'x' } })).rejects.toThrow(/inspected without its secrets/);
  });
});
