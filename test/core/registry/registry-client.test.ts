/**
 * The registry client against a fixture registry on loopback speaking API
 * v0.1 as documented: search, paging by cursor, the brief cache (counted at
 * the registry), the base URL, and a registry that is unreachable, slow,
 * answers garbage or answers for another listing — each a clear error.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBaseUrl, RegistryClient, RegistryError } from '../../../electron/core/registry/registry-client';
import { startFixtureRegistry, type FixtureRegistry } from '../../fixtures/registry/registry-server';

describe('the registry client', () => {
  let registry: FixtureRegistry;
  let now = 0;
  const client = () => new RegistryClient({ baseUrl: () => registry.url, timeoutMs: 1_500, cacheMs: 60_000, now: () => now });

  beforeAll(async () => {
    registry = await startFixtureRegistry();
  });
  afterAll(() => registry.close());

  it('searches by name and pages by cursor until the registry says there is no more', async () => {
    const c = client();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await c.search({ search: 'filler', limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.entries.map((entry) => entry.server.name));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 7 }, (_, i) => `io.github.airlock-test/filler-${i + 1}`));
    // The query the registry received is the documented one.
    expect(registry.requests.some((r) => r.startsWith('/v0.1/servers?search=filler&cursor=io.github.airlock-test%2Ffiller-3%3A1.0.0&limit=3&version=latest'))).toBe(true);
  });

  it('reads the registry’s status and dates, and keeps unknown fields out of the way', async () => {
    const old = await client().server('io.github.modelcontextprotocol/server-filesystem', '2026.7.10');
    expect(old.official).toMatchObject({ status: 'deprecated', publishedAt: '2026-07-10T08:00:00Z', isLatest: false });
    // A search lists the newest version of each server only.
    const page = await client().search({ search: 'server-filesystem' });
    expect(page.entries.map((e) => e.server.version)).toEqual(['2026.8.31']);
    const fs = await client().server('io.github.modelcontextprotocol/server-filesystem');
    expect(fs.unknownFields).toEqual(['futureField']);
    expect(fs.server.packages?.[0]?.identifier).toBe('@modelcontextprotocol/server-filesystem');
  });

  it('answers a repeated search from its brief cache, and asks again once it has expired', async () => {
    const c = client();
    const before = registry.requests.length;
    const first = await c.search({ search: 'clock' });
    const second = await c.search({ search: 'clock' });
    expect(first.cached).toBe(false);
    expect(second.cached).toBe(true);
    expect(registry.requests.length).toBe(before + 1);
    now += 61_000;
    expect((await c.search({ search: 'clock' })).cached).toBe(false);
    expect(registry.requests.length).toBe(before + 2);
  });

  it('uses the base URL it is given at each request (a sub-registry)', async () => {
    const other = await startFixtureRegistry([]);
    let base = registry.url;
    const c = new RegistryClient({ baseUrl: () => base, cacheMs: 0 });
    expect((await c.search({ search: 'clock' })).entries).toHaveLength(1);
    base = other.url;
    expect((await c.search({ search: 'clock' })).entries).toHaveLength(0);
    expect(other.requests).toHaveLength(1);
    await other.close();
  });

  it('says a listing it does not have is not found', async () => {
    await expect(client().server('io.github.nobody/nothing')).rejects.toMatchObject({ reason: 'not-found', message: expect.stringMatching(/has no server io\.github\.nobody\/nothing/) });
  });

  it('says when the registry cannot be reached', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const port = (probe.address() as { port: number }).port;
        probe.close(() => resolve(port));
      });
    });
    const c = new RegistryClient({ baseUrl: () => `http://127.0.0.1:${closed}` });
    await expect(c.search({})).rejects.toMatchObject({ reason: 'unreachable', message: expect.stringMatching(/could not reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/) });
  });

  it.each([
    ['slow', /did not answer within 1 s/],
    ['garbage', /not JSON \(it starts “<html><body>Welcome to nginx/],
    ['broken-json', /not in the MCP Registry's format: the answer has no “servers” list/],
  ] as const)('says so when the registry is %s', async (mode, message) => {
    registry.mode = mode;
    try {
      await expect(new RegistryClient({ baseUrl: () => registry.url, timeoutMs: 1_000, cacheMs: 0 }).search({ search: mode })).rejects.toThrow(message);
    } finally {
      registry.mode = 'ok';
    }
  });

  it('refuses an answer for another listing than the one asked for', async () => {
    registry.mode = 'swap';
    try {
      await expect(client().server(`io.github.airlock-test/clock`, '1.0.0')).rejects.toThrow(/answered a request for io\.github\.airlock-test\/clock with .*; Airlock will not use it/);
    } finally {
      registry.mode = 'ok';
    }
  });

  it('skips a listing it cannot read and names it, keeping the others', async () => {
    const bad = await startFixtureRegistry([
      { server: { name: 'io.github.x/good', description: 'fine', version: '1.0.0' } },
      { server: { name: 'io.github.x/no-version', description: 'no version' } },
      { server: { name: 'not a name', description: 'bad name', version: '1' } },
    ]);
    const page = await new RegistryClient({ baseUrl: () => bad.url }).search({});
    expect(page.entries.map((entry) => entry.server.name)).toEqual(['io.github.x/good']);
    expect(page.problems).toEqual([expect.stringMatching(/“io\.github\.x\/no-version” is not a valid server\.json: version:/), expect.stringMatching(/“not a name” is not a valid server\.json: name: must be reverse-DNS/)]);
    await bad.close();
  });

  it.each([
    ['http://registry.example.com', /must start with https:\/\//],
    ['ftp://registry.example.com', /must start with https:\/\//],
    ['https://user:pw@registry.example.com', /user name or password/],
    ['not a url', /is not a web address/],
    ['https://registry.example.com/?x=1', /no “\?…” or “#…” part/],
  ])('refuses the base URL %s', (url, message) => {
    expect(() => checkBaseUrl(url)).toThrow(RegistryError);
    expect(() => checkBaseUrl(url)).toThrow(message);
  });

  it.each([
    ['https://registry.modelcontextprotocol.io/', 'https://registry.modelcontextprotocol.io'],
    ['https://mcp.example.org/registry', 'https://mcp.example.org/registry'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://localhost:9000/', 'http://localhost:9000'],
  ])('accepts the base URL %s', (url, normal) => {
    expect(checkBaseUrl(url)).toBe(normal);
  });
});
