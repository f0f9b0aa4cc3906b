import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type SandboxProfile } from '../../../shared/domain';
import { createTestHost, FILESYSTEM_SERVER, fixture, type TestHost } from '../host/host-support';

type Editable = Omit<SandboxProfile, 'unsandboxed'>;

// Issue 11 item 1: the inspection ran with nothing granted and home hidden,
// so server-filesystem on a folder inside home could not even start ("None
// of the specified directories are accessible"). The probe now runs with the
// grants being given — read-only, no network, no secrets.
describe('the install probe runs with the grants being given, read-only', () => {
  let t: TestHost;
  let documents: string;

  beforeAll(async () => {
    t = await createTestHost();
    documents = join(t.home, 'Documents');
    mkdirSync(documents, { recursive: true });
  });
  afterAll(() => t.close());

  it('server-filesystem on a folder inside home: inspected with its write grant, it starts and lists its tools', async () => {
    const disclosure = await t.host.install.prepare({ kind: 'local', argv: [process.execPath, FILESYSTEM_SERVER, documents] });
    const profile: Editable = { ...defaultSandboxProfile(), filesystem: { read: [], write: [documents], persistentData: false } };
    const report = await t.host.install.probe(disclosure.draftId, {}, profile);
    expect(report.tools.map((tool) => tool.name)).toContain('write_file');
    await t.host.install.cancel(disclosure.draftId);
  });

  it('…while with nothing granted it cannot (why the grants matter): home is hidden', async () => {
    const disclosure = await t.host.install.prepare({ kind: 'local', argv: [process.execPath, FILESYSTEM_SERVER, documents] });
    await expect(t.host.install.probe(disclosure.draftId, {}, defaultSandboxProfile())).rejects.toThrow(/did not start in the locked sandbox/);
    await t.host.install.cancel(disclosure.draftId);
  });

  it('a server that writes at start-up: nothing lands during the probe; no secret, no proxy; its data folder is a throwaway', async () => {
    const disclosure = await t.host.install.prepare({ kind: 'local', argv: [process.execPath, fixture('escape/start-writer.mjs'), documents] });
    const profile: Editable = {
      filesystem: { read: [], write: [documents], persistentData: true },
      network: { allowedDomains: ['example.com'] },
      secrets: ['API_KEY'],
    };
    const report = await t.host.install.probe(disclosure.draftId, {}, profile);
    const startup = JSON.parse(report.tools[0]!.description!);
    expect(startup.writes[documents]).toMatch(/EROFS|EACCES|EPERM/);
    expect(existsSync(join(documents, 'written-at-start'))).toBe(false);
    expect(startup.secret).toBeNull();
    expect(startup.proxy).toBeNull();
    expect(startup.dataDir).not.toBeNull();
    expect(startup.dataDir.startsWith(t.dataDir)).toBe(false);
    expect(startup.dataWrite).toBe('ok');

    // Committed with the same grants, the real start does what the probe could not.
    await t.host.install.commit({ draftId: disclosure.draftId, name: 'writer', profile, trusted: false, secrets: { API_KEY: 'granted' }, enable: true });
    expect((await t.host.servers.detail('writer')).state).toBe('ready');
    expect(readFileSync(join(documents, 'written-at-start'), 'utf8')).toBe('planted\n');
    expect(existsSync(join(t.host.servers.serverDataDir('writer'), 'state.json'))).toBe(true);
  });
});
