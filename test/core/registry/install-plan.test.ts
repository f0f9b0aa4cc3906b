/**
 * server.json → install choices and the plan the install flow resolves:
 * local and sandboxable first, remotes "not supported yet" without the hook
 * and planned for the remote install source with it, arguments as
 * exact argv entries (a shell injection stays one inert argument), secrets
 * only as environment variables, unpinned or unknown packages refused with
 * a reason.
 */
import { describe, expect, it } from 'vitest';
import { installOptions, listingView, planInstall, planListing, RegistryPlanError, remoteSupport } from '../../../electron/core/registry/install-plan';
import { readEntry } from '../../../electron/core/registry/server-json';
import { defaultListings } from '../../fixtures/registry/registry-server';

const BASE = 'http://127.0.0.1:1';

function entry(server: Record<string, unknown>, status: 'active' | 'deprecated' | 'deleted' = 'active', publishedAt = '2026-01-02T03:04:05Z') {
  return { ...readEntry({ server: { description: 'd', version: '1.0.0', ...server }, _meta: { 'io.modelcontextprotocol.registry/official': { status, publishedAt } } }), baseUrl: BASE };
}

function listing(name: string, version?: string) {
  const found = defaultListings().find((l) => l.server.name === name && (version ? l.server.version === version : l.isLatest !== false))!;
  return entry(found.server, found.status, found.publishedAt);
}

describe('install choices', () => {
  it('puts the local, sandboxable package first and the remote last, marked not supported yet', () => {
    const options = installOptions(listing('io.github.modelcontextprotocol/server-everything'));
    expect(options.map((o) => [o.kind, o.where, o.supported, o.reason])).toEqual([
      ['npm', 'local', true, undefined],
      ['remote', 'remote', false, 'remote — not supported yet'],
    ]);
  });

  it('lists a container image after the npm package, with why it cannot be used', () => {
    const options = installOptions(listing('io.github.modelcontextprotocol/server-filesystem'));
    expect(options.map((o) => o.kind)).toEqual(['npm', 'oci']);
    expect(options[1]).toMatchObject({ supported: false, reason: expect.stringMatching(/container image/) });
  });

  it('orders a remote-first listing with the local package still first', () => {
    const e = entry({ name: 'io.github.x/y', remotes: [{ type: 'sse', url: 'https://x.example/sse' }], packages: [{ registryType: 'pypi', identifier: 'y', version: '1.0.0' }] });
    expect(installOptions(e).map((o) => [o.index, o.kind])).toEqual([
      [0, 'pypi'],
      [1, 'remote'],
    ]);
  });

  it('uses a remote hook when the remote work provides one', () => {
    const e = listing('io.github.airlock-test/remote-only');
    expect(installOptions(e, { unsupported: () => undefined })[0]).toMatchObject({ kind: 'remote', supported: true });
  });

  it.each([
    [{ registryType: 'npm', identifier: 'x' }, /names no version/],
    [{ registryType: 'npm', identifier: 'x', version: '^1.2.0' }, /a range \(\^1\.2\.0\)/],
    [{ registryType: 'npm', identifier: 'x', version: 'latest' }, /a range/],
    [{ registryType: 'npm', identifier: 'x', version: '1.0.0', registryBaseUrl: 'https://npm.evil.example' }, /published on https:\/\/npm\.evil\.example/],
    [{ registryType: 'npm', identifier: 'x', version: '1.0.0', transport: { type: 'streamable-http', url: 'http://localhost:3000/mcp' } }, /serves streamable-http from a local process/],
    [{ registryType: 'cargo', identifier: 'x', version: '1.0.0' }, /“cargo” package/],
    [{ registryType: 'mcpb', identifier: 'https://x.example/x.mcpb', version: '1.0.0', fileSha256: 'a'.repeat(64) }, /MCPB bundle from a download link/],
  ])('refuses %j with a reason', (pkg, reason) => {
    const [option] = installOptions(entry({ name: 'io.github.x/y', packages: [pkg] }));
    expect(option).toMatchObject({ supported: false, reason: expect.stringMatching(reason) });
  });
});

describe('listings as the screen shows them', () => {
  it.each([
    ['io.github.modelcontextprotocol/server-filesystem@2026.7.10', /DEPRECATED/],
    ['io.github.airlock-test/withdrawn', /DELETED: it was withdrawn/],
    ['io.github.modelcontextprotocol/server-filesystem', /fields Airlock does not know \(futureField\)/],
  ])('warns about %s', (name, warning) => {
    const [bare, version] = name.split('@');
    expect(listingView(listing(bare!, version)).warnings).toEqual(expect.arrayContaining([expect.stringMatching(warning)]));
  });

  it('says local or remote and which sources it has', () => {
    const view = listingView(listing('io.github.modelcontextprotocol/server-everything'));
    expect(view).toMatchObject({ hasLocal: true, hasRemote: true, sources: ['npm', 'remote'], status: 'active', repository: 'https://github.com/modelcontextprotocol/servers', publishedAt: '2026-08-31T10:00:00Z' });
  });
});

describe('the plan for one choice', () => {
  it('turns arguments, settings and secrets into the argv, env and a secret prompt; npx’s own flags are not used', () => {
    const plan = planInstall(listing('io.github.modelcontextprotocol/server-everything'));
    expect(plan).toMatchObject({ kind: 'npm', identifier: '@modelcontextprotocol/server-everything', version: '2026.8.31', runtimeArgs: [], packageArgs: ['stdio'] });
    expect({ ...plan.env }).toEqual({ EVERYTHING_MODE: 'quiet' });
    expect(plan.secrets).toEqual([{ name: 'EVERYTHING_TOKEN', description: 'Your token for the everything service.', required: true, from: 'registry' }]);
    expect(plan.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/arguments for npx \(-y\).*not used/)]));
    expect(plan.origin).toEqual({ baseUrl: BASE, name: 'io.github.modelcontextprotocol/server-everything', version: '2026.8.31', status: 'active', publishedAt: '2026-08-31T10:00:00Z' });
    expect(plan.disclosure.inputs).toEqual([
      { kind: 'argument', name: 'transport', description: 'Which transport to serve.' },
      { kind: 'secret', name: 'EVERYTHING_TOKEN', description: 'Your token for the everything service.' },
      { kind: 'setting', name: 'EVERYTHING_MODE', description: 'How chatty it is.' },
    ]);
  });

  it('keeps an argument that looks like a shell injection as one exact argument', () => {
    const plan = planInstall(listing('io.github.modelcontextprotocol/server-filesystem'));
    expect(plan.packageArgs).toEqual(['/tmp; rm -rf ~']);
  });

  it('asks the person for a required value the listing leaves open, and fills variables', () => {
    const plan = planInstall(
      entry({
        name: 'io.github.x/y',
        packages: [
          {
            registryType: 'pypi',
            identifier: 'y',
            version: '1.0.0',
            packageArguments: [
              { type: 'named', name: '--root', isRequired: true, format: 'filepath', description: 'Where to look.' },
              { type: 'named', name: '--mode=', value: '{mode}-{level}', variables: { mode: { default: 'fast' }, level: { isRequired: true, choices: ['1', '2'] } } },
              { type: 'named', name: '--optional', description: 'Left out.' },
              { type: 'positional', valueHint: 'files', isRequired: true, isRepeated: true },
            ],
            environmentVariables: [{ name: 'REGION', isRequired: true, description: 'Your region.' }, { name: 'API_KEY' }],
          },
        ],
      }),
    );
    expect(plan.packageArgs).toEqual(['--root', '${user_config.root}', '--mode=fast-${user_config.level}', '${user_config.files}']);
    expect({ ...plan.env }).toEqual({ REGION: '${user_config.REGION}' });
    expect(plan.userConfig).toEqual([
      { key: 'root', title: '--root', description: 'Where to look.', type: 'file', required: true },
      { key: 'level', title: 'level', description: '(one of: 1, 2)', type: 'string', required: true },
      { key: 'files', title: 'files', type: 'string', required: true, multiple: true },
      { key: 'REGION', title: 'REGION', description: 'Your region.', type: 'string', required: true },
    ]);
    // A name that looks like a secret is asked for as one, even unmarked.
    expect(plan.secrets.map((s) => s.name)).toEqual(['API_KEY']);
    expect(plan.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/optional argument “--optional” is left out/)]));
  });

  it.each([
    [{ packageArguments: [{ type: 'named', name: '--token', isSecret: true, isRequired: true }] }, /wants the secret “--token” on its command line/],
    [{ packageArguments: [{ type: 'named', name: '--auth', value: 'Bearer {token}', variables: { token: { isSecret: true } } }] }, /puts the secret “token” inside “--auth”/],
    [{ environmentVariables: [{ name: 'LD_PRELOAD', value: '/tmp/evil.so' }] }, /wants to set LD_PRELOAD/],
    [{ environmentVariables: [{ name: 'BAD-NAME', value: 'x' }] }, /not an environment variable name/],
  ])('refuses %j', (extra, message) => {
    const e = entry({ name: 'io.github.x/y', packages: [{ registryType: 'npm', identifier: 'y', version: '1.0.0', ...extra }] });
    expect(() => planInstall(e)).toThrow(RegistryPlanError);
    expect(() => planInstall(e)).toThrow(message);
  });

  it('refuses a remote and an unpinned package, and a choice that does not exist', () => {
    expect(() => planInstall(listing('io.github.airlock-test/remote-only'))).toThrow(/remote \(sse\) https:\/\/remote\.example\.com\/sse cannot be installed: remote — not supported yet/);
    expect(() => planInstall(listing('io.github.airlock-test/unpinned'))).toThrow(/names no version/);
    expect(() => planInstall(listing('io.github.modelcontextprotocol/server-everything'), 7)).toThrow(/no install choice number 7/);
  });

  it('carries the deprecated status into the origin and the warnings', () => {
    const plan = planInstall(listing('io.github.modelcontextprotocol/server-filesystem', '2026.7.10'));
    expect(plan.origin.status).toBe('deprecated');
    expect(plan.warnings[0]).toMatch(/DEPRECATED/);
  });
});

describe('remotes (the remote install source takes them)', () => {
  const remote = (item: Record<string, unknown>) => entry({ name: 'io.github.x/r', remotes: [item] });

  it('offers streamable HTTP and SSE at an address Airlock would use; says why not for the rest', () => {
    const reasons = [
      { type: 'streamable-http', url: 'https://mcp.example.com/mcp' },
      { type: 'sse', url: 'http://localhost:8080/sse' },
      { type: 'websocket', url: 'wss://mcp.example.com/ws' },
      { type: 'streamable-http', url: 'http://mcp.example.com/mcp' },
      { type: 'streamable-http', url: 'https://{tenant}.example.com/mcp' },
      { type: 'streamable-http', url: 'https://user:pw@mcp.example.com/mcp' },
    ].map((item) => installOptions(remote(item), remoteSupport)[0]!.reason);
    expect(reasons[0]).toBeUndefined();
    expect(reasons[1]).toBeUndefined();
    expect(reasons[2]).toMatch(/a remote over “websocket”/);
    expect(reasons[3]).toMatch(/its address is refused: http:\/\/ sends everything unencrypted/);
    expect(reasons[4]).toMatch(/parts to fill in/);
    expect(reasons[5]).toMatch(/user name or password/);
  });

  it('plans headers: a value the person supplies becomes a secret (the publisher’s words kept), a fixed one stays, an optional unset one is left out', () => {
    const plan = planListing(
      remote({
        type: 'sse',
        url: 'https://mcp.example.com/sse',
        headers: [
          { name: 'X-Api-Key', description: 'Your key.', isRequired: true, isSecret: true },
          { name: 'Authorization', value: 'Bearer {token}', variables: { token: { isSecret: true, description: 'A personal token.' } } },
          { name: 'X-Region', value: '{region}', variables: { region: { default: 'eu' } } },
          { name: 'X-Debug', description: 'Optional.' },
        ],
      }),
      undefined,
      remoteSupport,
    );
    expect(plan.kind).toBe('remote');
    if (plan.kind !== 'remote') return;
    expect(plan).toMatchObject({ url: 'https://mcp.example.com/sse', transport: 'sse', origin: { name: 'io.github.x/r', status: 'active' } });
    expect(plan.headers).toEqual([
      { name: 'X-Api-Key', value: '${secret.HEADER_X_API_KEY}' },
      { name: 'Authorization', value: 'Bearer ${secret.TOKEN}' },
      { name: 'X-Region', value: 'eu' },
    ]);
    expect(plan.secrets).toEqual([
      { name: 'HEADER_X_API_KEY', description: 'Your key.', required: true, from: 'registry' },
      { name: 'TOKEN', description: 'A personal token.', required: true, from: 'registry' },
    ]);
    expect(plan.disclosure.inputs).toEqual([
      { kind: 'secret', name: 'HEADER_X_API_KEY', description: 'Your key.' },
      { kind: 'secret', name: 'TOKEN', description: 'A personal token.' },
    ]);
    expect(plan.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/optional header X-Debug is not sent/)]));
  });

  it('refuses a header that names Airlock’s secrets, and a remote without the hook', () => {
    const borrowing = remote({ type: 'sse', url: 'https://mcp.example.com/sse', headers: [{ name: 'Authorization', value: 'Bearer ${secret.GITHUB_TOKEN}' }] });
    expect(() => planListing(borrowing, undefined, remoteSupport)).toThrow(/names a secret template/);
    expect(() => planListing(remote({ type: 'sse', url: 'https://mcp.example.com/sse' }))).toThrow(/remote — not supported yet/);
  });

  it('still plans the local package first when a listing offers both', () => {
    const plan = planListing(listing('io.github.modelcontextprotocol/server-everything'), undefined, remoteSupport);
    expect(plan.kind).toBe('npm');
    const chosen = planListing(listing('io.github.modelcontextprotocol/server-everything'), 1, remoteSupport);
    expect(chosen).toMatchObject({ kind: 'remote', url: 'https://everything.example.com/mcp', transport: 'streamable-http', disclosure: { option: { index: 1, kind: 'remote' }, optionCount: 2 } });
  });
});
