/**
 * Proposed grants: what a server probably needs, read from its command line,
 * its settings and its package — shown with a reason, never granted by
 * themselves (invariant 5): the disclosure's profile stays the default, and a
 * commit grants only what the person passed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile } from '../../../shared/domain';
import { finishCandidate } from '../../../electron/core/install/candidate';
import { prepareLocalCommand, scriptLabel } from '../../../electron/core/install/local-command';
import { proposeGrants } from '../../../electron/core/install/proposals';
import { createTestHost, FILESYSTEM_SERVER, MEMORY_SERVER, type TestHost } from '../host/host-support';

let t: TestHost;
beforeAll(async () => {
  t = await createTestHost();
});
afterAll(() => t.close());

describe('proposeGrants', () => {
  it('a folder on the command line, a file named by a setting, the API a package documents, the host of a URL setting', () => {
    const folder = t.folder('notes');
    const memory = t.folder('memory');
    const candidate = finishCandidate({
      suggestedName: 'gh',
      spec: { command: '/usr/bin/node', args: ['/srv/server.js', folder], env: { MEMORY_FILE_PATH: join(memory, 'memory.json'), API_URL: 'http://127.0.0.1:8080/v1', CONFIG_PATH: '/nonexistent/config.json' } },
      provenance: { kind: 'npm', name: '@modelcontextprotocol/server-github', version: '1.0.0', integrity: 'sha512-x', installDir: '/srv' },
      requested: { secrets: [], userConfig: [] },
      warnings: [],
      skipArgIndexes: [1],
    });
    const { proposals, notes } = proposeGrants(candidate);
    expect(proposals).toEqual([
      { kind: 'write', value: folder, reason: 'its command line names it' },
      { kind: 'write', value: memory, reason: `its setting MEMORY_FILE_PATH keeps ${join(memory, 'memory.json')} there` },
      { kind: 'domain', value: 'api.github.com', reason: 'the GitHub API this package documents' },
      { kind: 'domain', value: '127.0.0.1:8080', reason: 'its setting API_URL points there' },
    ]);
    expect(notes).toEqual(['its setting CONFIG_PATH names /nonexistent/config.json, which does not exist here']);
  });

  it('a name that says which service (an imported entry called "slack")', () => {
    const candidate = finishCandidate({ suggestedName: 'team-slack', spec: { command: '/bin/true', args: [], env: {} }, provenance: { kind: 'local', executable: '/bin/true', executableSha256: 'x' }, requested: { secrets: [], userConfig: [] }, warnings: [] });
    expect(proposeGrants(candidate).proposals).toEqual([{ kind: 'domain', value: 'slack.com', reason: 'its name says Slack, whose API is here' }]);
  });
});

describe('default names', () => {
  it('a script called index.js is named after its package, not "index"', async () => {
    expect(scriptLabel(FILESYSTEM_SERVER)).toBe('filesystem');
    expect(scriptLabel(MEMORY_SERVER)).toBe('memory');
    const own = t.folder('weather-tool/dist');
    writeFileSync(join(own, 'index.js'), '');
    expect(scriptLabel(join(own, 'index.js'))).toBe('weather-tool');
    expect((await prepareLocalCommand({ command: process.execPath, args: [FILESYSTEM_SERVER, '/tmp'] })).suggestedName).toBe('filesystem');
  });
});

describe('imports propose; they never grant by themselves', () => {
  it('a Claude Desktop entry with a folder and a MEMORY_FILE_PATH: proposals shown, the profile left at the defaults', async () => {
    const files = t.folder('claude-files');
    const memory = t.folder('claude-memory');
    const config = join(t.root, 'claude_desktop_config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          filesystem: { command: process.execPath, args: [FILESYSTEM_SERVER, files] },
          memory: { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(memory, 'memory.json') } },
          github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' } },
        },
      }),
    );
    mkdirSync(join(t.home, '.config'), { recursive: true });
    const [file] = await t.host.install.scanImports({ path: config });
    const byName = Object.fromEntries(file!.entries.map((entry) => [entry.name, entry]));
    const fs = byName.filesystem!.disclosure!;
    const mem = byName.memory!.disclosure!;
    expect(fs.proposals).toEqual([{ kind: 'write', value: files, reason: 'its command line names it' }]);
    expect(mem.proposals).toEqual([{ kind: 'write', value: memory, reason: `its setting MEMORY_FILE_PATH keeps ${join(memory, 'memory.json')} there` }]);
    // SECURITY (invariant 5): shown, not granted.
    const { unsandboxed: _u, ...none } = defaultSandboxProfile();
    expect(fs.profile).toEqual(none);
    expect(mem.profile).toEqual(none);
    if (byName.github!.disclosure) expect(byName.github!.disclosure.proposals).toContainEqual({ kind: 'domain', value: 'api.github.com', reason: 'the GitHub API this package documents' });
    // Committing without accepting them grants nothing.
    await t.host.install.commit({ draftId: fs.draftId, name: 'fs', profile: fs.profile, trusted: false, secrets: {}, enable: false });
    expect(t.host.servers.record('fs').profile.filesystem).toMatchObject({ read: [], write: [], persistentData: false });
  }, 120_000);
});
