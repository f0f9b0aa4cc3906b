// The one reading of "is this address the internet?" as one table, and the three places that decide
// it held to the same table: the sandbox's network proxy (a granted name resolving here), a remote
// server's zone (where it may send Airlock), and URL elicitation (which pages may be offered).
// The red team's case: WHATWG URL writes an IPv4-mapped address in hex ([::ffff:7f00:1]), which the
// old copies of the check only knew in dotted form.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { isPublicAddress, isPublicHost, readHostName, readIpAddress, rangeWords, type AddressRange } from '../../../electron/core/net/address-ranges';
import { classifyAddress, checkSuppliedUrl, isLoopbackName, readRemoteUrl } from '../../../electron/core/remote/address';
import { isNonPublicAddress, startServerProxy, type NetworkDecision } from '../../../electron/core/sandbox/network-proxy';
import { isPrivateAddress, readElicitationUrl, RESOLVE_BOUND_MS, withResolvedName } from '../../../electron/core/server-requests/elicitation-form';

const TABLE: Array<[address: string, range: AddressRange]> = [
  // IPv4
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['1.1.1.1', 'public'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.1', 'public'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'shared'],
  ['100.127.255.254', 'shared'],
  ['100.128.0.1', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'link-local'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.10', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.5', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.1', 'benchmarking'],
  ['192.88.99.1', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  // IPv6, plain
  ['2606:4700::1111', 'public'],
  ['2a00:1450:4001:82a::200e', 'public'],
  ['::', 'unspecified'],
  ['0:0:0:0:0:0:0:0', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['[::1]', 'loopback'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'reserved'],
  ['ff02::1', 'multicast'],
  ['ff05::2', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'reserved'],
  ['100::1', 'reserved'],
  ['5f00::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['e000::1', 'reserved'],
  // IPv4-mapped, every form: exactly the IPv4 address's range
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::FFFF:7F00:0001', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
  ['0000:0000:0000:0000:0000:ffff:127.0.0.1', 'loopback'],
  ['[::ffff:7f00:1]', 'loopback'],
  ['::ffff:c0a8:101', 'private'],
  ['::ffff:192.168.1.1', 'private'],
  ['::ffff:a00:1', 'private'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:6440:1', 'shared'],
  ['::ffff:0:0', 'unspecified'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:e000:1', 'multicast'],
  ['::ffff:808:808', 'public'],
  ['::ffff:8.8.8.8', 'public'],
  // IPv4-compatible (deprecated) and IPv4-translated: never the internet
  ['::127.0.0.1', 'reserved'],
  ['::7f00:1', 'reserved'],
  ['::8.8.8.8', 'reserved'],
  ['::ffff:0:7f00:1', 'reserved'],
  ['::ffff:0:808:808', 'reserved'],
  // NAT64: the well-known prefix reaches the IPv4 internet; never anything else
  ['64:ff9b::808:808', 'public'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['64:ff9b::7f00:1', 'reserved'],
  ['64:ff9b::127.0.0.1', 'reserved'],
  ['64:ff9b::a9fe:a9fe', 'reserved'],
  ['64:ff9b::c0a8:101', 'reserved'],
  ['64:ff9b:1::a00:1', 'private'],
  ['64:ff9b:1::808:808', 'private'],
  // 6to4: public only when the IPv4 address inside is
  ['2002:808:808::1', 'public'],
  ['2002:7f00:1::1', 'reserved'],
  ['2002:a9fe:a9fe::', 'reserved'],
  ['2002:c0a8:101::1', 'reserved'],
  ['2002:a00:1::', 'reserved'],
  ['2002::', 'reserved'],
  // Teredo: never the internet here
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
  ['2001::1', 'reserved'],
];

describe('the one address reading (net/address-ranges.ts)', () => {
  it.each(TABLE)('%s is %s', (address, range) => {
    expect(readIpAddress(address)?.range).toBe(range);
    expect(isPublicAddress(address)).toBe(range === 'public');
  });

  it.each(['example.com', 'localhost', '127.1', '0x7f000001', '2130706433', '1.2.3', '::ffff:1.2.3', 'gggg::1', ''])('%j is not an IP address: never public', (text) => {
    expect(readIpAddress(text)).toBeUndefined();
    expect(isPublicAddress(text)).toBe(false);
  });

  it('says which IPv4 address an IPv6 one carries, and how', () => {
    expect(readIpAddress('::ffff:7f00:1')?.embedded).toEqual({ address: '127.0.0.1', kind: 'mapped', range: 'loopback' });
    expect(readIpAddress('64:ff9b::a9fe:a9fe')?.embedded).toEqual({ address: '169.254.169.254', kind: 'nat64', range: 'link-local' });
    expect(readIpAddress('2002:c0a8:101::1')?.embedded).toEqual({ address: '192.168.1.1', kind: '6to4', range: 'private' });
    expect(readIpAddress('2001:0:4136:e378:8000:63bf:3fff:fdd2')?.embedded).toMatchObject({ address: '192.0.2.45', kind: 'teredo' });
    expect(rangeWords(readIpAddress('64:ff9b::7f00:1')!)).toBe('a reserved address (the NAT64 form of 127.0.0.1, this computer (loopback))');
  });
});

describe('every place that decides "public" reads it the same way', () => {
  it.each(TABLE)('%s (%s)', (address, range) => {
    const isPublic = range === 'public';
    const bracketed = address.includes(':') && !address.startsWith('[') ? `[${address.replace(/%.*$/, '')}]` : address.replace(/%.*$/, '');
    // The sandbox's proxy: a granted name resolving here is refused unless it is the internet.
    expect(isNonPublicAddress(address.replace(/^\[|\]$/g, ''))).toBe(!isPublic);
    // URL elicitation: offered to the person only when public.
    expect(isPrivateAddress(address.replace(/^\[|\]$/g, ''))).toBe(!isPublic);
    const offered = readElicitationUrl(`https://${bracketed}:8443/admin/delete?all=1`);
    expect(offered.problem === undefined, `${offered.href}: ${offered.problem}`).toBe(isPublic);
    // Remote servers: a server on the internet may not send Airlock to anything else.
    expect(classifyAddress(address) === 'public').toBe(isPublic);
    const supplied = () => checkSuppliedUrl(`https://${bracketed}/token`, 'public', 'The token endpoint');
    if (isPublic) expect(supplied).not.toThrow();
    else expect(supplied).toThrow(/Airlock does not let a server send it somewhere more private/);
  });

  it('the red team\u2019s URLs are never offered, and never a remote server\u2019s address', () => {
    for (const url of ['https://[::ffff:7f00:1]:8443/admin/delete?all=1', 'https://[::ffff:c0a8:101]/', 'https://[64:ff9b::a9fe:a9fe]/latest/meta-data/', 'https://[2002:7f00:1::1]/']) {
      expect(readElicitationUrl(url).problem, url).toBe('it points at a private, loopback or link-local address');
    }
    // WHATWG URL turns the dotted form into hex: both are read the same.
    expect(new URL('https://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
    expect(readRemoteUrl('https://[::ffff:a9fe:a9fe]/mcp').problem).toMatch(/link-local address/);
    expect(readRemoteUrl('https://[64:ff9b::7f00:1]/mcp').problem).toMatch(/reserved address/);
    // Plain http goes only to this computer: a NAT64 form of 127.0.0.1 goes out over the network.
    expect(readRemoteUrl('http://[64:ff9b::7f00:1]/mcp').problem).toMatch(/only to this computer/);
    expect(readRemoteUrl('http://[::ffff:7f00:1]:3000/mcp').problem).toBeUndefined();
  });
});

// Names that are never the internet, whatever DNS says: this computer, the local network, a cloud
// machine's metadata service, names without a domain. `undefined`: an ordinary name (public unless it
// resolves elsewhere — only the proxy and remote servers resolve; see docs/addresses.md).
const NAME_TABLE: Array<[name: string, range: AddressRange | undefined]> = [
  ['example.com', undefined],
  ['api.github.com', undefined],
  ['localhost.example.com', undefined],
  ['internal.example.com', undefined],
  ['mylocal.com', undefined],
  ['xn--pple-43d.example', undefined],
  ['localhost', 'loopback'],
  ['LOCALHOST', 'loopback'],
  ['localhost.', 'loopback'],
  ['foo.localhost', 'loopback'],
  ['foo.localhost.', 'loopback'],
  ['localhost.localdomain', 'loopback'],
  ['ip6-localhost', 'loopback'],
  ['ip6-loopback', 'loopback'],
  ['metadata.google.internal', 'link-local'],
  ['metadata.google.internal.', 'link-local'],
  ['printer.local', 'private'],
  ['printer.local.', 'private'],
  ['router.lan', 'private'],
  ['nas.home.arpa', 'private'],
  ['box.home', 'private'],
  ['db.internal', 'private'],
  ['wiki.intranet', 'private'],
  ['git.corp', 'private'],
  ['host.localdomain', 'private'],
  ['vault.private', 'private'],
  ['intranet', 'private'],
  ['printer', 'private'],
  ['1.0.0.127.in-addr.arpa', 'reserved'],
];

describe('the one reading of host names (net/address-ranges.ts)', () => {
  it.each(NAME_TABLE)('%s is %s', (name, range) => {
    expect(readHostName(name)?.range).toBe(range);
    expect(isPublicHost(name)).toBe(range === undefined);
  });

  it('an IP address is read as an address, not a name', () => {
    expect(isPublicHost('8.8.8.8')).toBe(true);
    expect(isPublicHost('[::ffff:7f00:1]')).toBe(false);
    expect(readHostName('8.8.8.8')).toBeUndefined();
  });
});

/** The proxy's answer to CONNECT, over its socket. */
function connectThrough(socketPath: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(socketPath);
    let data = '';
    socket.once('connect', () => socket.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`));
    socket.on('data', (chunk) => {
      data += chunk.toString();
      if (data.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(data);
      }
    });
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

describe('every place that decides "public" reads names the same way', () => {
  it.each(NAME_TABLE)('%s (%s)', (name, range) => {
    const special = range !== undefined;
    // URL elicitation: a page on this computer or the local network is never offered.
    const offered = readElicitationUrl(`https://${name}/admin/delete?all=1`);
    expect(offered.problem !== undefined, `${name}: ${offered.problem}`).toBe(special);
    // Remote servers: a server on the internet may not send Airlock to such a name.
    const supplied = () => checkSuppliedUrl(`https://${name}/token`, 'public', 'The token endpoint');
    if (special) expect(supplied).toThrow(/Airlock does not let a server send it somewhere more private/);
    else expect(supplied).not.toThrow();
    expect(isLoopbackName(name)).toBe(range === 'loopback');
  });

  it('percent-escapes, trailing dots and capitals do not get a name past the check', () => {
    for (const url of ['https://localhost%2e/x', 'https://LOCALHOST./x', 'https://foo.localhost./x', 'https://printer.local./', 'https://Metadata.Google.Internal/computeMetadata/v1/', 'https://nas.home.arpa/']) {
      expect(readElicitationUrl(url).problem, url).toMatch(/this computer or the local network/);
    }
    expect(readRemoteUrl('https://metadata.google.internal/computeMetadata/v1/').problem).toMatch(/link-local/);
    expect(readRemoteUrl('https://printer.local/mcp').warnings.join(' ')).toMatch(/private network/);
    expect(readRemoteUrl('http://localhost./mcp').problem).toBeUndefined();
  });

  it('the sandbox’s proxy refuses them before asking anyone or looking them up', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'airlock-names-'));
    const asked: string[] = [];
    const decisions: NetworkDecision[] = [];
    const proxy = await startServerProxy(join(dir, 'proxy.sock'), {
      serverName: 'names',
      allowedDomains: [],
      ask: (_server, host) => (asked.push(host), Promise.resolve(false)),
      onDecision: (decision) => decisions.push(decision),
    });
    try {
      for (const [name, range] of NAME_TABLE) {
        expect(await connectThrough(proxy.socketPath, name), name).toMatch(/^HTTP\/1.1 403/);
        const decision = decisions.at(-1)!;
        if (range === undefined) expect(decision, name).toMatchObject({ allowed: false, reason: 'user-denied' });
        else expect(decision, name).toMatchObject({ allowed: false, reason: 'non-public-address' });
      }
      expect(asked.sort()).toEqual(NAME_TABLE.filter(([, range]) => range === undefined).map(([name]) => name.toLowerCase()).sort());
    } finally {
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a URL question’s name, looked up as the browser will', () => {
  it('a name any of whose addresses is not the internet gets a problem; a public one, none', async () => {
    const reading = readElicitationUrl('https://admin.127.0.0.1.nip.io/delete');
    expect(reading.problem).toBeUndefined();
    expect((await withResolvedName(reading, async () => ['127.0.0.1'])).problem).toBe('its name leads to 127.0.0.1, this computer or the local network');
    expect((await withResolvedName(reading, async () => ['93.184.216.34', 'fd00::1'])).problem).toMatch(/leads to fd00::1/);
    expect((await withResolvedName(reading, async () => ['93.184.216.34', '2606:2800:220:1::1'])).problem).toBeUndefined();
  });

  it('an address, or a URL already refused, is not looked up; a name that does not resolve keeps its reading', async () => {
    const lookups: string[] = [];
    const resolve = async (host: string) => {
      lookups.push(host);
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    };
    await withResolvedName(readElicitationUrl('https://93.184.216.34/'), resolve);
    await withResolvedName(readElicitationUrl('https://[2606:2800:220:1::1]/'), resolve);
    await withResolvedName(readElicitationUrl('http://example.com/'), resolve);
    expect(lookups).toEqual([]);
    const offline = readElicitationUrl('https://example.com/login');
    expect(await withResolvedName(offline, resolve)).toEqual(offline);
    expect(lookups).toEqual(['example.com']);
  });

  it('a lookup that never answers is given up after its bound, the reading kept', async () => {
    vi.useFakeTimers();
    try {
      const reading = readElicitationUrl('https://slow.example.com/');
      let settled = false;
      const checked = withResolvedName(reading, () => new Promise(() => {})).then((result) => ((settled = true), result));
      await vi.advanceTimersByTimeAsync(RESOLVE_BOUND_MS - 1);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await checked).toEqual(reading);
    } finally {
      vi.useRealTimers();
    }
  });
});
