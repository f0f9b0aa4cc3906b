/**
 * server.json → install choices and the plan the install flow resolves:
 * local and sandboxable first, remotes "not supported yet", arguments as
 * exact argv entries (a shell injection stays one inert argument), secrets
 * only as environment variables, unpinned or unknown packages refused with
 * a reason.
 */
import { describe, expect, it } from 'vitest';
import { installOptions, listingView, planInstall, RegistryPlanError } from '../../../electron/core/registry/install-plan';
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
