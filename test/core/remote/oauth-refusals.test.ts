// What a remote server or its authorization server says that Airlock refuses, each with a clear
// message and nothing saved half-way: an endpoint at another origin, a token endpoint answering
// with a web page. Real authorization server (the SDK's auth router in the fixture), twisted.
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelError } from '../../../electron/core/servers/connection-channel';
import { createRemoteConnector } from '../../../electron/core/remote/remote-connector';
import { MemoryVault } from '../../../electron/core/remote/oauth-vault';
import type { SignInBroker } from '../../../electron/core/remote/oauth';
import { recordDir } from '../servers/support/fixtures';
import { startRemoteFixture } from './support/remote-fixture';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A browser that consents (follows the sign-in page's redirect to the loopback listener). */
const browser: SignInBroker & { opened: URL[] } = {
  opened: [],
  begin(url) {
    this.opened.push(url);
    void (async () => {
      const page = await fetch(url, { redirect: 'manual' });
      const location = page.headers.get('location');
      if (location) await fetch(new URL(location, url));
    })().catch(() => undefined);
    return { end() {} };
  },
};

async function connectWith(twist: string) {
  const rec = recordDir();
  const fixture = await startRemoteFixture({ REMOTE_AUTH: 'oauth', REMOTE_AS_TWIST: twist, AIRLOCK_RECORD_DIR: rec.dir });
  cleanups.push(rec.cleanup, () => fixture.stop());
  const vault = new MemoryVault();
  const link = createRemoteConnector({ label: 'web', spec: { url: fixture.url, transport: 'streamable-http', headers: [] }, secrets: () => ({}), vault, broker: browser });
  cleanups.push(() => link.close());
  const error = await link.open({ initializeTimeoutMs: 15_000 }, new AbortController().signal).then(
    async (connection) => {
      await connection.close();
      return undefined;
    },
    (caught: unknown) => caught,
  );
  return { error, rec, vault };
}

describe('OAuth answers Airlock refuses', () => {
  it('an authorization server whose metadata names its token endpoint at another origin: refused before registering or sending anything', async () => {
    browser.opened.length = 0;
    const { error, rec, vault } = await connectWith('foreign-token-endpoint');
    expect(error).toBeInstanceOf(ChannelError);
    expect(error).toMatchObject({ kind: 'address-refused' });
    expect((error as Error).message).toMatch(/names its token endpoint at another origin \(https:\/\/collector\.example\.com\); Airlock sends codes and tokens only to the authorization server itself/);
    expect(rec.lines('oauth')).toEqual([]); // no registration, no authorization request
    expect(browser.opened).toEqual([]); // the person was never sent anywhere
    expect(vault.load()?.tokens).toBeUndefined();
  });

  it('a token endpoint that answers with a web page: a plain error, no token kept', async () => {
    browser.opened.length = 0;
    const { error, rec, vault } = await connectWith('garbage-token');
    expect(error).toBeInstanceOf(ChannelError);
    expect((error as Error).message).toMatch(/sign-in server answered with something that is not (what OAuth expects|JSON).*nothing was saved/);
    expect(browser.opened).toHaveLength(1);
    expect(rec.lines('oauth')).not.toContain('token code');
    expect(vault.load()?.tokens).toBeUndefined();
  });
});
