// Reading the URL a person gives, and checking every address a server supplies: the zone rules
// (SECURITY.md rule 9) as a table, with no network.
import { describe, expect, it } from 'vitest';
import { checkSuppliedUrl, classifyAddress, readRemoteUrl, zoneAllowed } from '../../../electron/core/remote/address';
import { resolveAllowed } from '../../../electron/core/remote/safe-fetch';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd00::1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['not-an-ip', 'reserved'],
    ['93.184.216.34', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (address, zone) => {
    expect(classifyAddress(address)).toBe(zone);
  });

  it('never lets a server send Airlock somewhere more private, nor to link-local or reserved addresses', () => {
    expect(zoneAllowed('public', 'public')).toBe(true);
    expect(zoneAllowed('public', 'private')).toBe(false);
    expect(zoneAllowed('public', 'loopback')).toBe(false);
    expect(zoneAllowed('private', 'public')).toBe(true);
    expect(zoneAllowed('private', 'loopback')).toBe(false);
    expect(zoneAllowed('loopback', 'loopback')).toBe(true);
    expect(zoneAllowed('loopback', 'link-local')).toBe(false);
    expect(zoneAllowed('loopback', 'reserved')).toBe(false);
  });
});

describe('readRemoteUrl (what the person typed)', () => {
  it('accepts https anywhere and http only on this computer', () => {
    expect(readRemoteUrl('https://mcp.example.com/mcp')).toMatchObject({ scheme: 'https', host: 'mcp.example.com', loopback: false, warnings: [] });
    expect(readRemoteUrl('https://mcp.example.com/mcp').problem).toBeUndefined();
    expect(readRemoteUrl('http://localhost:3000/mcp')).toMatchObject({ loopback: true, scheme: 'http' });
    expect(readRemoteUrl('http://localhost:3000/mcp').problem).toBeUndefined();
    expect(readRemoteUrl('http://127.0.0.1:3000/mcp').problem).toBeUndefined();
    expect(readRemoteUrl('http://mcp.example.com/mcp').problem).toMatch(/http:\/\/ sends everything unencrypted.*https:\/\/mcp\.example\.com\/mcp/);
    expect(readRemoteUrl('http://10.0.0.5/mcp').problem).toMatch(/only to this computer/);
  });

  it.each([
    ['not a url', /is not a web address/],
    ['ftp://example.com/mcp', /https only/],
    ['https://user:pw@example.com/mcp', /user name or password/],
    ['https://169.254.169.254/latest', /link-local address/],
    ['https://0.0.0.0/mcp', /reserved address/],
  ])('refuses %s with a reason', (url, reason) => {
    expect(readRemoteUrl(url).problem).toMatch(reason);
  });

  it('warns about a Punycode name, showing both forms', () => {
    const reading = readRemoteUrl('https://xn--pypal-4ve.com/mcp');
    expect(reading.punycode).toBe(true);
    expect(reading.asciiHost).toBe('xn--pypal-4ve.com');
    expect(reading.host).not.toBe(reading.asciiHost);
    expect(reading.host).toMatch(/^p.ypal\.com$/u);
    expect(reading.warnings.join(' ')).toMatch(/internationalised \(Punycode\).*letter by letter/);
  });
});

describe('checkSuppliedUrl (what a server names: redirects, metadata, endpoints)', () => {
  it.each([
    ['public', 'https://auth.example.com/token', undefined],
    ['public', 'https://10.0.0.1/token', /private network address.*more private/],
    ['public', 'https://127.0.0.1/token', /this computer.*more private/],
    ['public', 'https://localhost/token', /this computer.*more private/],
    ['public', 'https://[::ffff:169.254.169.254]/latest/meta-data', /link-local/],
    ['public', 'http://auth.example.com/token', /plain http/],
    ['loopback', 'http://127.0.0.1:9000/token', undefined],
    ['loopback', 'http://auth.example.com/token', /plain http/],
    ['public', 'javascript:alert(1)', /not an https address/],
    ['public', 'https://u:p@auth.example.com/', /user name or password/],
  ] as const)('from a %s server, %s', (zone, url, refusal) => {
    if (refusal) expect(() => checkSuppliedUrl(url, zone, 'The token endpoint')).toThrow(refusal);
    else expect(checkSuppliedUrl(url, zone, 'The token endpoint').href).toBe(url);
  });
});

describe('resolveAllowed (the socket’s own lookup)', () => {
  const table = (addresses: string[]) => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('passes a public name for a public server', async () => {
    await expect(resolveAllowed('mcp.example.com', 'public', table(['93.184.216.34']))).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('refuses a name with one private answer among public ones (how rebinding hides)', async () => {
    await expect(resolveAllowed('mcp.example.com', 'public', table(['93.184.216.34', '192.168.0.10']))).rejects.toThrow(/resolves to 192\.168\.0\.10, a private network address/);
  });

  it('refuses a cloud metadata address even from a loopback server', async () => {
    await expect(resolveAllowed('metadata.internal', 'loopback', table(['169.254.169.254']))).rejects.toThrow(/link-local/);
  });
});
