/**
 * A registry listing's remote, through the real install flow and the same
 * remote install source as `airlock add --url`: the fixture registry lists
 * real MCP servers over HTTP on loopback (the SDK's server side, in their own
 * processes). Disclosure before anything is sent (registry provenance, the
 * header the listing asks for, in the publisher's words); a fixed header
 * value and the key the person gives sealed in the secret store only; the
 * listing's own checks (an http address off this computer, a transport
 * Airlock does not speak, a header naming Airlock's secrets) refused with
 * nothing saved. Checked from outside: the servers' own records and the files
 * on disk.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import type { Disclosure } from '../../../shared/views';
import { createTestHost, type TestHost } from '../host/host-support';
import { recordDir } from '../servers/support/fixtures';
import { startRemoteFixture, type RemoteFixture } from '../remote/support/remote-fixture';
import { defaultListings, startFixtureRegistry, type FixtureRegistry } from '../../fixtures/registry/registry-server';

const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const KEYED = 'io.github.airlock-test/remote-keyed';
const OPEN = 'io.github.airlock-test/remote-open';
const agent = { kind: 'client', name: 'Test Agent' } as const;

function filesUnder(dir: string): Array<{ path: string; text: string }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((entry) => join(dir, entry))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

function remoteListing(name: string, remote: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { server: { $schema: SCHEMA, name, description: `The listing ${name}.`, version: '1.2.0', remotes: [remote], ...extra }, publishedAt: '2026-11-20T12:00:00Z' };
}

describe('a registry listing’s remote', () => {
  let t: TestHost;
  let registry: FixtureRegistry;
  let keyed: RemoteFixture;
  let open: RemoteFixture;
  const keyedRec = recordDir();
  const openRec = recordDir();

  beforeAll(async () => {
    keyed = await startRemoteFixture({ REMOTE_AUTH: 'key', REMOTE_API_KEY: 'k-remote-7f3a', AIRLOCK_RECORD_DIR: keyedRec.dir });
    open = await startRemoteFixture({ AIRLOCK_RECORD_DIR: openRec.dir });
    registry = await startFixtureRegistry([
      ...defaultListings(),
      remoteListing(KEYED, { type: 'streamable-http', url: keyed.url, headers: [{ name: 'X-Api-Key', description: 'Your key for the keyed service.', isRequired: true, isSecret: true }] }),
      remoteListing(OPEN, { type: 'streamable-http', url: open.url, headers: [{ name: 'X-Client', value: 'fixture-client-{edition}', variables: { edition: { default: 'community' } } }] }, { title: 'Open remote' }),
      remoteListing('io.github.airlock-test/remote-plain-http', { type: 'streamable-http', url: 'http://203.0.113.5/mcp' }),
      remoteListing('io.github.airlock-test/remote-websocket', { type: 'websocket', url: 'wss://ws.example.com/mcp' }),
      remoteListing('io.github.airlock-test/remote-borrows', { type: 'sse', url: open.url, headers: [{ name: 'Authorization', value: 'Bearer ${secret.GITHUB_TOKEN}' }] }),
    ]);
    t = await createTestHost();
    t.host.registry.setBaseUrl(registry.url);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await registry?.close();
    await keyed?.stop();
    await open?.stop();
    keyedRec.cleanup();
    openRec.cleanup();
  });

  const serversDir = () => join(t.dataDir, 'servers');
  const installed = () => (existsSync(serversDir()) ? readdirSync(serversDir()) : []);

  it('is offered as a remote choice it can install; what it cannot use says why', async () => {
    const listing = await t.host.registry.listing(KEYED);
    expect(listing.hasRemote).toBe(true);
    expect(listing.options).toEqual([expect.objectContaining({ kind: 'remote', where: 'remote', supported: true })]);
    // A listing with a package and a remote: the sandboxable package still first.
    const everything = await t.host.registry.listing('io.github.modelcontextprotocol/server-everything');
    expect(everything.options.map((o) => [o.kind, o.supported])).toEqual([
      ['npm', true],
      ['remote', true],
    ]);
    expect((await t.host.registry.listing('io.github.airlock-test/remote-plain-http')).options[0]).toMatchObject({ supported: false, reason: expect.stringMatching(/http:\/\/ sends everything unencrypted/) });
    expect((await t.host.registry.listing('io.github.airlock-test/remote-websocket')).options[0]).toMatchObject({ supported: false, reason: expect.stringMatching(/“websocket”/) });
  });

  it('discloses before anything is sent: where it runs, the registry provenance, the key it asks for in the publisher’s words', async () => {
    const d: Disclosure = await t.host.install.prepare({ kind: 'registry', name: KEYED });
    expect(d.sourceLabel).toBe('remote server, listed in the MCP Registry');
    expect(d.provenance).toMatchObject({
      kind: 'remote',
      url: keyed.url,
      host: '127.0.0.1',
      zone: 'loopback',
      transport: 'streamable-http',
      registry: { baseUrl: registry.url, name: KEYED, version: '1.2.0', status: 'active', publishedAt: '2026-11-20T12:00:00Z' },
    });
    expect(d.warnings.join('\n')).toMatch(/Runs on 127\.0\.0\.1:\d+, not on your computer: no sandbox/);
    expect(d.warnings.join('\n')).toMatch(/Sends with every request to 127\.0\.0\.1: X-Api-Key/);
    expect(d.secrets).toEqual([expect.objectContaining({ name: 'HEADER_X_API_KEY', required: true, description: expect.stringMatching(/^Your key for the keyed service\. \(sent in the header X-Api-Key, to 127\.0\.0\.1 only\)$/) })]);
    expect(d.registry).toMatchObject({ name: KEYED, option: { kind: 'remote' }, inputs: [{ kind: 'secret', name: 'HEADER_X_API_KEY', description: 'Your key for the keyed service.' }] });
    expect(keyedRec.lines('requests')).toEqual([]); // nothing sent

    // Inspecting without the key stops before anything is sent, and says which secret is missing.
    await expect(t.host.install.probe(d.draftId)).rejects.toThrow(/^Airlock needs HEADER_X_API_KEY to connect: the server gets it in its headers\. Type it under “Secrets sent to it”/);
    expect(keyedRec.lines('requests')).toEqual([]);

    // The person gives the key: sealed in the secret store only; the server is reached with it.
    const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
    await t.host.install.commit({ draftId: d.draftId, name: 'keyed', profile, trusted: true, secrets: { HEADER_X_API_KEY: 'k-remote-7f3a' }, enable: true });
    expect((await t.host.servers.detail('keyed')).state).toBe('ready');
    // Not inspected, so its tools were never reviewed: the first call asks (nobody here to answer), nothing reaches it.
    const unreviewed = await t.host.calls.call({ server: 'keyed', tool: 'echo', arguments: { message: 'too early' }, caller: agent });
    expect(unreviewed.decision).toMatchObject({ verdict: 'ask', decidedBy: { kind: 'new-tool' } });
    expect(unreviewed.outcome).toBe('denied');
    expect(keyedRec.lines('calls')).toEqual([]);
    await t.host.serverSettings.approveChange('keyed', 'echo', unreviewed.decision.fingerprint!);
    const call = await t.host.calls.call({ server: 'keyed', tool: 'echo', arguments: { message: 'via the registry' }, caller: agent });
    expect(call.outcome, JSON.stringify(call.decision)).toBe('ok');
    expect(keyedRec.lines('api-key').every((line) => line === 'ok')).toBe(true);
    expect(keyedRec.lines('calls')).toEqual(['echo']);

    const files = filesUnder(t.dataDir);
    const secretsFile = files.find((file) => file.path.endsWith('secrets.json'))!;
    expect(secretsFile.text).toContain('k-remote-7f3a');
    for (const file of files.filter((entry) => entry !== secretsFile)) expect(file.text, file.path).not.toContain('k-remote-7f3a');
    const settings = files.find((file) => file.path.endsWith('airlock.json'))!;
    expect(settings.text).toContain('${secret.HEADER_X_API_KEY}');
    expect(settings.text).toContain(KEYED);
    // The audit names the URL the call went to.
    const decisions = filesUnder(join(t.dataDir, 'audit'))
      .flatMap((file) => file.text.split('\n'))
      .filter((line) => line.includes('"type":"decision"') && line.includes('"server":"keyed"'))
      .map((line) => JSON.parse(line) as { remote?: string; final: string });
    expect(decisions.map((entry) => [entry.final, entry.remote])).toEqual([
      ['deny', keyed.url],
      ['allow', keyed.url],
    ]);
  }, 60_000);

  it('inspects a listing whose header has a fixed value after consent, the value sealed like a typed one', async () => {
    const d = await t.host.install.prepare({ kind: 'registry', name: OPEN });
    expect(d.secrets).toEqual([expect.objectContaining({ name: 'HEADER_X_CLIENT', held: true })]);
    expect(openRec.lines('requests')).toEqual([]);
    const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
    const report = await t.host.install.probe(d.draftId, {}, profile);
    expect(report.tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(openRec.lines('requests').length).toBeGreaterThan(0);
    await t.host.install.commit({ draftId: d.draftId, name: 'open-remote', profile, trusted: false, secrets: {}, enable: false });
    const files = filesUnder(t.dataDir);
    const secretsFile = files.find((file) => file.path.endsWith('secrets.json'))!;
    expect(secretsFile.text).toContain('fixture-client-community');
    for (const file of files.filter((entry) => entry !== secretsFile)) expect(file.text, file.path).not.toContain('fixture-client-community');
  }, 60_000);

  it('refuses what it cannot use with the reason, saving nothing', async () => {
    const servers = Object.keys(t.host.store.read().servers).sort();
    const folders = installed();
    await expect(t.host.install.prepare({ kind: 'registry', name: 'io.github.airlock-test/remote-plain-http' })).rejects.toThrow(/cannot be installed: its address is refused: http:\/\/ sends everything unencrypted/);
    await expect(t.host.install.prepare({ kind: 'registry', name: 'io.github.airlock-test/remote-websocket' })).rejects.toThrow(/cannot be installed: a remote over “websocket”/);
    await expect(t.host.install.prepare({ kind: 'registry', name: 'io.github.airlock-test/remote-borrows' })).rejects.toThrow(/names a secret template/);
    expect(openRec.lines('requests').filter((line) => !line.includes('/mcp'))).toEqual([]);
    expect(Object.keys(t.host.store.read().servers).sort()).toEqual(servers);
    expect(installed()).toEqual(folders);
  });
});
