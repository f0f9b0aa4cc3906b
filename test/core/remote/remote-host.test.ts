// A remote server added to a real Airlock host by URL, end to end in the core: disclosure before
// anything is sent, inspection with an OAuth sign-in (a real authorization server: the SDK's auth
// router), commit, calls through the choke point (policy: never contained; audit names the URL),
// and removal — checked from outside: the fixture's records and the files on disk.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { createTestHost, type TestHost } from '../host/host-support';
import { recordDir } from '../servers/support/fixtures';
import { consentingSignInPage, startRemoteFixture, type RemoteFixture } from './support/remote-fixture';

const agent = { kind: 'client', name: 'Test Agent' } as const;

/** Every file under a folder, with its text. */
function filesUnder(dir: string): Array<{ path: string; text: string }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((entry) => join(dir, entry))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

describe('a remote server in the host', () => {
  let t: TestHost;
  let fixture: RemoteFixture;
  let rec: ReturnType<typeof recordDir>;
  const pages: string[] = [];

  beforeAll(async () => {
    rec = recordDir();
    fixture = await startRemoteFixture({ REMOTE_AUTH: 'oauth', AIRLOCK_RECORD_DIR: rec.dir });
    t = await createTestHost({
      signInPage: consentingSignInPage(pages),
    });
  });
  afterAll(async () => {
    await t?.close();
    await fixture?.stop();
    rec?.cleanup();
  });

  it('discloses before anything is sent, inspects after consent (signing in), saves the header value and the tokens only in the secret store', async () => {
    const disclosure = await t.host.install.prepare({ kind: 'remote', url: fixture.url, headers: [{ name: 'X-Trace', value: 'literal-header-value' }] });
    expect(disclosure.provenance).toMatchObject({ kind: 'remote', url: fixture.url, host: '127.0.0.1', zone: 'loopback' });
    expect(disclosure.sourceLabel).toBe('remote server (by URL)');
    expect(disclosure.warnings.join('\n')).toMatch(/Runs on 127\.0\.0\.1:\d+, not on your computer: no sandbox/);
    expect(disclosure.warnings.join('\n')).toMatch(/Sends with every request to 127\.0\.0\.1: X-Trace \(values sealed/);
    expect(disclosure.secrets).toEqual([expect.objectContaining({ name: 'HEADER_X_TRACE', held: true })]);
    expect(rec.lines('requests')).toEqual([]); // nothing sent yet

    const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
    const report = await t.host.install.probe(disclosure.draftId, {}, profile);
    expect(report.tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(report.warnings).toEqual([]);
    expect(pages).toHaveLength(1);
    expect(rec.lines('oauth').some((line) => line.startsWith('token code'))).toBe(true);

    await t.host.install.commit({ draftId: disclosure.draftId, name: 'web', profile, trusted: false, secrets: {}, enable: true });
    const detail = await t.host.servers.detail('web');
    expect(detail.state).toBe('ready');
    expect(pages).toHaveLength(1); // the sign-in made at inspection carried over: no second page

    // Settings and everything else on disk but the secret store hold neither the header value nor a token.
    const tokens = rec.lines('tokens');
    const files = filesUnder(t.dataDir);
    const secretsFile = files.find((file) => file.path.endsWith('secrets.json'))!;
    expect(secretsFile.text).toContain('literal-header-value');
    expect(secretsFile.text).toContain(tokens[0]);
    for (const file of files.filter((entry) => entry !== secretsFile)) {
      expect(file.text, file.path).not.toContain('literal-header-value');
      for (const token of tokens) expect(file.text, file.path).not.toContain(token);
    }
  });

  it('a read-only tool of an untrusted remote server asks (never contained); trusted, it runs; the audit names the URL', async () => {
    t.ask.available = false;
    const untrusted = await t.host.calls.call({ server: 'web', tool: 'echo', arguments: { message: 'a' }, caller: agent });
    expect(untrusted.decision.verdict).toBe('ask');
    expect(untrusted.outcome).toBe('denied');
    expect(rec.lines('calls')).toEqual([]);

    t.host.serverSettings.setTrust('web', true);
    const trusted = await t.host.calls.call({ server: 'web', tool: 'echo', arguments: { message: 'b' }, caller: agent });
    expect(trusted.outcome).toBe('ok');
    expect(rec.lines('calls')).toEqual(['echo']);

    const audit = filesUnder(join(t.dataDir, 'audit'))
      .flatMap((file) => file.text.split('\n'))
      .filter((line) => line.includes('"type":"decision"'))
      .map((line) => JSON.parse(line) as { server: string; remote?: string; final: string });
    expect(audit.filter((entry) => entry.server === 'web').map((entry) => [entry.final, entry.remote])).toEqual([
      ['deny', fixture.url],
      ['allow', fixture.url],
    ]);
  });

  it('signs out: revoked at the server, tokens deleted on disk; removal leaves no sign-in behind', async () => {
    const before = t.host.remote.status('web');
    expect(before).toMatchObject({ signedIn: true, renewable: true });
    const outcome = await t.host.remote.signOut('web');
    expect(outcome).toEqual({ revoked: 'yes' });
    const secrets = readFileSync(join(t.dataDir, 'secrets.json'), 'utf8');
    for (const token of rec.lines('tokens')) expect(secrets).not.toContain(token);
    expect(t.host.remote.status('web')).toMatchObject({ signedIn: false });

    await t.host.removal.remove('web', 'window');
    expect(readFileSync(join(t.dataDir, 'secrets.json'), 'utf8')).not.toMatch(/oauth:web|literal-header-value/);
  });
});
