/** `airlock add NAME --url …` of the built command against a real MCP server over HTTP (the SDK's server side). */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDir } from '../core/servers/support/fixtures';
import { startRemoteFixture, type RemoteFixture } from '../core/remote/support/remote-fixture';
import { airlockCli, BIN } from '../support/cli';


let fixture: RemoteFixture;
let rec: ReturnType<typeof recordDir>;

const cli = airlockCli('airlock-cli-remote-', { timeout: 60_000 });
const { dataDir, home, run: airlock } = cli;

beforeAll(async () => {
  rec = recordDir();
  fixture = await startRemoteFixture({ REMOTE_AUTH: 'key', REMOTE_API_KEY: 'k-cli-123', AIRLOCK_RECORD_DIR: rec.dir });
});
afterAll(async () => {
  await fixture?.stop();
  rec?.cleanup();
  cli.remove();
});

describe('airlock add --url', () => {
  it('refuses plain http to another computer with the reason, and saves nothing', () => {
    const { code, out, err } = airlock(['add', 'web', '--url', 'http://mcp.example.com/mcp', '--yes']);
    expect(code).not.toBe(0);
    expect(out + err).toMatch(/http:\/\/ sends everything unencrypted.*Use https:\/\/mcp\.example\.com\/mcp/);
    expect(JSON.parse(airlock(['list', '--json']).out)).toEqual([]);
  });

  it('refuses a malformed --header as a usage error before anything is sent', () => {
    const { code, err } = airlock(['add', 'web', '--url', fixture.url, '--header', 'no colon here', '--yes']);
    expect(code).toBe(2);
    expect(err).toMatch(/--header takes "Name: value"/);
    expect(rec.lines('requests')).toEqual([]);
  });

  it('shows where it runs, connects after yes with the header, saves the key only in the secret store; a call of a trusted server reaches it', () => {
    const added = airlock(['add', 'web', '--url', fixture.url, '--header', 'X-Api-Key: k-cli-123', '--trust', '--yes']);
    expect(added.code, added.out + added.err).toBe(0);
    expect(added.out).toMatch(/Runs on 127\.0\.0\.1:\d+, not on your computer: no sandbox/);
    expect(added.out).toMatch(/Added web; connected to 127\.0\.0\.1/);
    // Nothing runs here: the disclosure says where it runs and what is sent, not a command line.
    expect(added.out).toMatch(/It runs elsewhere; Airlock connects to:\s+http:\/\/127\.0\.0\.1:\d+\/mcp\s+secrets sent: HEADER_X_API_KEY \(sent in the header X-Api-Key, to 127\.0\.0\.1 only\)/);
    expect(added.out).not.toContain('it runs code on your computer');
    const shownText = airlock(['show', 'web']).out;
    expect(shownText).toMatch(/Address: http:\/\/127\.0\.0\.1:\d+\/mcp \(streamable HTTP\)/);
    expect(shownText).toMatch(/No sandbox: it runs on another computer/);
    expect(shownText).not.toMatch(/enforced by the sandbox|network: none/);
    expect(new Set(rec.lines('api-key'))).toEqual(new Set(['ok']));

    const shown = JSON.parse(airlock(['show', 'web', '--json']).out) as { provenance: { kind: string; url: string; transport: string } };
    expect(shown.provenance).toMatchObject({ kind: 'remote', url: fixture.url, transport: 'streamable-http' });

    const call = airlock(['call', 'web', 'echo', '--args', JSON.stringify({ message: 'from the terminal' })]);
    expect(call.code, call.out + call.err).toBe(0);
    expect(call.out).toContain('from the terminal');
    expect(rec.lines('calls')).toEqual(['echo']);

    // The key is in the secret store only: no other file in the data folder holds it.
    const files = readdirSync(dataDir, { recursive: true, encoding: 'utf8' })
      .map((entry) => join(dataDir, entry))
      .filter((path) => existsSync(path) && statSync(path).isFile());
    const holding = files.filter((path) => readFileSync(path, 'utf8').includes('k-cli-123'));
    expect(holding.map((path) => path.slice(dataDir.length + 1))).toEqual(['secrets.json']);
  });
});

describe('airlock add --url with a header secret named, not typed', () => {
  it('is inspected with the --secret value (it is reached with it); without it, the inspection says what is missing and sends nothing', async () => {
    const header = 'X-Api-Key: ${secret.SERVICE_KEY}';
    const before = rec.lines('requests').length;
    const missing = airlock(['add', 'keyed', '--url', fixture.url, '--header', header, '--yes']);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain('Airlock needs SERVICE_KEY to connect');
    expect(rec.lines('requests').length).toBe(before);

    const added = airlock(['add', 'keyed', '--url', fixture.url, '--header', header, '--secret', 'SERVICE_KEY', '--yes'], { SERVICE_KEY: 'k-cli-123' });
    expect(added.code, added.out + added.err).toBe(0);
    expect(added.out).toMatch(/echo/);
    expect(rec.lines('api-key').at(-1)).toBe('ok');
    expect(readFileSync(join(dataDir, 'airlock.json'), 'utf8')).not.toContain('k-cli-123');
    expect(airlock(['remove', 'keyed', '--yes']).code).toBe(0);
  });
});

describe('airlock add --url with a sign-in, signout', () => {
  let oauth: RemoteFixture;
  let oauthRec: ReturnType<typeof recordDir>;
  beforeAll(async () => {
    oauthRec = recordDir();
    oauth = await startRemoteFixture({ REMOTE_AUTH: 'oauth', AIRLOCK_RECORD_DIR: oauthRec.dir });
  });
  afterAll(async () => {
    await oauth?.stop();
    oauthRec?.cleanup();
  });

  /** Runs `airlock ARGS`, which prints a sign-in page and waits: the person's browser consents; its exit code and output. */
  async function withSignIn(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string; page: string }> {
    const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, ...args], { env: { ...process.env, HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const page = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        const found = /Sign in to [\w-]+: open this page in your browser[^\n]*\n\s+(\S+)/.exec(err);
        if (found) resolve(found[1]!);
      });
      child.once('exit', (code) => reject(new Error(`airlock exited (${code}) without printing a sign-in page:\n${out}\n${err}`)));
    });
    // The person's browser: the sign-in page sends it back to the CLI's loopback listener.
    const answer = await fetch(page, { redirect: 'manual' });
    const signedIn = await fetch(new URL(answer.headers.get('location')!, page));
    expect(await signedIn.text()).toContain('Signed in');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { code, out, err, page };
  }

  it('prints the sign-in page and waits for the browser; signout revokes and deletes the tokens; so does remove', async () => {
    const added = await withSignIn(['add', 'hosted', '--url', oauth.url, '--yes']);
    expect(new URL(added.page).origin).toBe(new URL(oauth.url).origin);
    expect(added.code, added.out + added.err).toBe(0);
    expect(added.out).toMatch(/Added hosted; connected to 127\.0\.0\.1/);

    const tokens = oauthRec.lines('tokens');
    expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).toContain(tokens[0]!);
    const signout = airlock(['signout', 'hosted']);
    expect(signout.code, signout.out + signout.err).toBe(0);
    expect(signout.out).toContain('Signed out of hosted. The server revoked the sign-in, and its tokens were deleted here.');
    const secrets = readFileSync(join(dataDir, 'secrets.json'), 'utf8');
    for (const token of tokens) expect(secrets).not.toContain(token);

    const again = await withSignIn(['signin', 'hosted']);
    expect(again.code, again.out + again.err).toBe(0);
    const newTokens = oauthRec.lines('tokens').filter((token) => !tokens.includes(token));
    expect(newTokens).toHaveLength(2);
    const revokedBefore = oauthRec.lines('oauth').filter((line) => line.startsWith('revoke')).length;
    const removed = airlock(['remove', 'hosted', '--yes']);
    expect(removed.code, removed.out + removed.err).toBe(0);
    expect(removed.out).toContain('Removed hosted. The server revoked the sign-in, and its tokens were deleted here.');
    expect(oauthRec.lines('oauth').filter((line) => line.startsWith('revoke')).slice(revokedBefore)).toEqual(['revoke refresh_token', 'revoke access_token']);
    for (const token of newTokens) expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).not.toContain(token);
  });

  it('--client-id with --client-secret-env: signs in as a client registered by hand where the service lets no app register itself', async () => {
    const handRec = recordDir();
    const hand = await startRemoteFixture({ REMOTE_AUTH: 'oauth', REMOTE_NO_REGISTRATION: '1', REMOTE_CLIENT: 'cli-app:cli-secret-42', AIRLOCK_RECORD_DIR: handRec.dir });
    try {
      const missing = airlock(['add', 'byhand', '--url', hand.url, '--client-id', 'cli-app', '--client-secret-env', 'AIRLOCK_TEST_UNSET_VAR', '--yes']);
      expect(missing.code).toBe(2);
      expect(missing.err).toContain('--client-secret-env AIRLOCK_TEST_UNSET_VAR: set the environment variable AIRLOCK_TEST_UNSET_VAR to the client');
      expect(handRec.lines('requests')).toEqual([]);

      const added = await withSignIn(['add', 'byhand', '--url', hand.url, '--client-id', 'cli-app', '--client-secret-env', 'MY_CLIENT_SECRET', '--yes'], { MY_CLIENT_SECRET: 'cli-secret-42' });
      expect(added.code, added.out + added.err).toBe(0);
      expect(added.out).toMatch(/Signs in \(OAuth\) as the client you registered at its sign-in service, cli-app/);
      expect(handRec.lines('oauth')).toContain('token code by cli-app');
      expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).toContain('cli-secret-42');
      expect(readFileSync(join(dataDir, 'airlock.json'), 'utf8')).not.toContain('cli-secret-42');
      const removed = airlock(['remove', 'byhand', '--yes']);
      expect(removed.out).toContain('Removed byhand. The server revoked the sign-in, and its tokens were deleted here.');
      expect(handRec.lines('oauth').filter((line) => line.startsWith('revoke'))).toEqual(['revoke refresh_token by cli-app', 'revoke access_token by cli-app']);
    } finally {
      await hand.stop();
      handRec.cleanup();
    }
  });
});
