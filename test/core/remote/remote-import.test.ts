// Remote entries in another app's config (`url`, `type: http|sse`, `headers`): read, disclosed, and —
// after consent — inspected and saved turned off, through a real host against the real HTTP fixture.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { importConfigFile } from '../../../electron/core/install/config-import';
import { createTestHost, type TestHost } from '../host/host-support';
import { recordDir } from '../servers/support/fixtures';
import { startRemoteFixture, type RemoteFixture } from './support/remote-fixture';

describe('importing remote entries', () => {
  let t: TestHost;
  let fixture: RemoteFixture;
  let rec: ReturnType<typeof recordDir>;
  let config: string;

  beforeAll(async () => {
    rec = recordDir();
    fixture = await startRemoteFixture({ REMOTE_AUTH: 'key', REMOTE_API_KEY: 'imported-key-1', AIRLOCK_RECORD_DIR: rec.dir });
    t = await createTestHost();
    config = join(t.folder('configs'), 'claude_desktop_config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          hosted: { type: 'http', url: fixture.url, headers: { 'X-Api-Key': 'imported-key-1' } },
          old: { type: 'sse', url: 'https://mcp.example.com/sse' },
          fromenv: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${input:token}' } },
          plain: { url: 'http://mcp.example.com/mcp' },
        },
      }),
    );
  });
  afterAll(async () => {
    await t?.close();
    await fixture?.stop();
    rec?.cleanup();
  });

  it('reads url, type and headers; a header reading the app’s variables is not carried over, with how to add it', async () => {
    const { entries } = await importConfigFile(config, {});
    expect(entries.map((entry) => [entry.entry, entry.status])).toEqual([
      ['hosted', 'importable'],
      ['old', 'importable'],
      ['fromenv', 'unsupported'],
      ['plain', 'importable'],
    ]);
    expect(entries[1]).toMatchObject({ offer: { kind: 'remote', remote: { transport: 'sse' } } });
    expect(entries[2]).toMatchObject({ reason: expect.stringMatching(/header Authorization reads \$\{input:token\} from the app.*airlock add fromenv --url https:\/\/mcp\.example\.com\/mcp --header "Authorization: …"/) });
  });

  it('discloses, inspects after consent with the header, saves it turned off with the key only in the secret store; refuses plain http to another computer', async () => {
    const [file] = await t.host.install.scanImports({ path: config });
    const hosted = file!.entries.find((entry) => entry.name === 'hosted')!;
    expect(hosted.status).toBe('importable');
    const disclosure = hosted.disclosure!;
    expect(disclosure.sourceLabel).toBe('remote server (by URL), imported from Claude Desktop');
    expect(disclosure.secrets).toEqual([expect.objectContaining({ name: 'HEADER_X_API_KEY', held: true })]);
    expect(rec.lines('requests')).toEqual([]); // nothing sent at disclosure

    const plain = file!.entries.find((entry) => entry.name === 'plain')!;
    expect(plain).toMatchObject({ status: 'invalid', reason: expect.stringMatching(/http:\/\/ sends everything unencrypted/) });

    const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
    const report = await t.host.install.probe(disclosure.draftId, {}, profile);
    expect(report.tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(new Set(rec.lines('api-key'))).toEqual(new Set(['ok']));
    await t.host.install.commit({ draftId: disclosure.draftId, name: 'hosted', profile, trusted: false, secrets: {}, enable: false });
    for (const entry of file!.entries) if (entry.disclosure && entry.name !== 'hosted') await t.host.install.cancel(entry.disclosure.draftId);

    const summary = (await t.host.servers.list()).find((server) => server.name === 'hosted')!;
    expect(summary).toMatchObject({ enabled: false });
    const holding = readdirSync(t.dataDir, { recursive: true, encoding: 'utf8' })
      .map((entry) => join(t.dataDir, entry))
      .filter((path) => statSync(path).isFile() && readFileSync(path, 'utf8').includes('imported-key-1'));
    expect(holding.map((path) => path.slice(t.dataDir.length + 1))).toEqual(['secrets.json']);
  });
});
