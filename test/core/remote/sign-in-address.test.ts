// A remote server names its sign-in service (its protected resource metadata's authorization_servers):
// nothing is fetched from that service before its address passes the checks Airlock holds every
// address a server supplies to — https (http only between addresses on this computer), no
// `user:password@`, a known scheme. The red team's case: the authorization server metadata was
// fetched over plain http (or at a credentialed address) first, and refused only after.
// Real fixture server (the SDK's auth router), a real witness listener that counts what reaches it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelError } from '../../../electron/core/servers/connection-channel';
import { createRemoteConnector } from '../../../electron/core/remote/remote-connector';
import { MemoryVault } from '../../../electron/core/remote/oauth-vault';
import type { SignInBroker } from '../../../electron/core/remote/oauth';
import type { Resolve } from '../../../electron/core/remote/safe-fetch';
import { recordDir } from '../servers/support/fixtures';
import { startRemoteFixture, type RemoteFixture } from './support/remote-fixture';

/** The named sign-in service: a listener on this computer that records every request reaching it. */
let witness: Server;
let witnessPort: number;
const reached: string[] = [];
let fixture: RemoteFixture;
let rec: ReturnType<typeof recordDir>;

/** `signin.example` is this computer as far as the test's DNS goes: plain http there would pass the zone check. */
const resolve: Resolve = async (hostname) => (hostname === 'signin.example' || hostname === 'auth.signin.example' ? [{ address: '127.0.0.1', family: 4 }] : []);

const browser: SignInBroker & { opened: URL[] } = {
  opened: [],
  begin(url) {
    this.opened.push(url);
    return { end() {} };
  },
};

beforeAll(async () => {
  witness = createServer((req, res) => {
    reached.push(`${req.method} ${req.headers.host} ${req.url}${req.headers.authorization ? ' (with authorization)' : ''}`);
    res.writeHead(404).end();
  });
  await new Promise<void>((done) => witness.listen(0, '127.0.0.1', done));
  witnessPort = (witness.address() as AddressInfo).port;
  rec = recordDir();
  fixture = await startRemoteFixture({ REMOTE_AUTH: 'oauth', AIRLOCK_RECORD_DIR: rec.dir });
});

afterAll(async () => {
  await fixture?.stop();
  await new Promise((done) => witness?.close(done));
  rec?.cleanup();
});

/** The server names `signInUrl` as its authorization server; Airlock connects and (a person present) tries to sign in. */
async function connectNaming(signInUrl: string): Promise<unknown> {
  const named = await fetch(`http://127.0.0.1:${fixture.port}/__name-authorization-server`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: signInUrl }) });
  expect(named.ok).toBe(true);
  const link = createRemoteConnector({ label: 'web', spec: { url: fixture.url, transport: 'streamable-http', headers: [] }, secrets: () => ({}), vault: new MemoryVault(), broker: browser, resolve });
  try {
    return await link.open({ initializeTimeoutMs: 15_000 }, new AbortController().signal).then(
      async (connection) => {
        await connection.close();
        return undefined;
      },
      (caught: unknown) => caught,
    );
  } finally {
    await link.close();
  }
}

describe('a sign-in service the server names is checked before anything is fetched from it', () => {
  it.each([
    ['plain http to a name (that resolves to this computer)', () => `http://signin.example:${witnessPort}/`, /is plain http; Airlock uses http only between addresses on this computer/],
    ['plain http to a subdomain, with a path', () => `http://auth.signin.example:${witnessPort}/tenant/42`, /is plain http/],
    ['a user name and password in the address', () => `http://user:hunter2@127.0.0.1:${witnessPort}/`, /carries a user name or password/],
    ['a user name alone', () => `http://admin@127.0.0.1:${witnessPort}/`, /carries a user name or password/],
    ['https with a password, to a name', () => `https://user:pw@signin.example:${witnessPort}/`, /carries a user name or password/],
    ['a scheme that is not the web', () => `ftp://127.0.0.1:${witnessPort}/`, /is not an https address/],
  ])('%s: refused, and the service never hears from Airlock', async (_what, url, reason) => {
    reached.length = 0;
    browser.opened.length = 0;
    const error = await connectNaming(url());
    expect(error).toBeInstanceOf(ChannelError);
    expect(error).toMatchObject({ kind: 'address-refused' });
    expect((error as Error).message).toMatch(reason);
    expect(reached).toEqual([]);
    expect(browser.opened).toEqual([]);
    expect(rec.lines('oauth')).toEqual([]);
  });

  it('the check is not a wall: a sign-in service on this computer over http (as the server is) is asked for its metadata', async () => {
    reached.length = 0;
    const error = await connectNaming(`http://127.0.0.1:${witnessPort}/`);
    // The witness publishes no metadata: Airlock then refuses to sign in there, having asked.
    expect(error).toBeInstanceOf(ChannelError);
    expect(reached.some((line) => line.includes('/.well-known/oauth-authorization-server'))).toBe(true);
  });
});
