/**
 * Imports of Python entries from another app's config: `uvx PKG` (and
 * `uv tool run`, `pipx run`) become an offer to install the package pinned
 * into its own virtual environment — resolved only when asked, against a
 * fixture package index — instead of a download at every start; options that
 * make it more than one package are refused with a way forward; `python -m
 * MODULE` stays the command it is (what this computer has installed), with a
 * hint, never a guess at a PyPI name that could be someone else's package.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importConfigFile, resolveImportedPypi, type ImportEntry } from '../../../electron/core/install/config-import';
import { buildClockWheel, CLOCK_PACKAGE } from '../../fixtures/registry/python-package';
import { startFixtureIndex, type FixtureIndex } from '../../fixtures/registry/pypi-index';
import { createTestHost } from '../host/host-support';

let work: string;
let home: string;
let path: string;
let index: FixtureIndex;
const pathEnv = ['/usr/local/bin', '/usr/bin', '/bin', dirname(process.execPath)].join(':');

function byEntry(entries: ImportEntry[], name: string): ImportEntry {
  const entry = entries.find((e) => e.entry === name);
  if (!entry) throw new Error(`no entry ${name}`);
  return entry;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'airlock-pypi-import-'));
  home = join(work, 'home');
  path = join(home, '.config', 'Claude', 'claude_desktop_config.json');
  await mkdir(dirname(path), { recursive: true });
  await writeFile(
    path,
    JSON.stringify({
      mcpServers: {
        clock: { command: 'uvx', args: [`${CLOCK_PACKAGE}@1.0.0`, '--zone=Europe/Paris'], env: { CLOCK_API_KEY: 'sk-live-not-real', LOG_LEVEL: 'debug' } },
        'clock-from': { command: '/home/me/.local/bin/uv', args: ['tool', 'run', '--from', `${CLOCK_PACKAGE}==1.0.0`, CLOCK_PACKAGE] },
        time: { command: 'uvx', args: ['mcp-server-time', '--local-timezone=Europe/London'] },
        pipx: { command: 'pipx', args: ['run', 'mcp-server-fetch'] },
        'with-extra': { command: 'uvx', args: ['--with', 'requests', 'mcp-server-fetch'] },
        'other-index': { command: 'uvx', args: ['--index-url', 'https://evil.example/simple', 'mcp-server-fetch'] },
        module: { command: 'python3', args: ['-m', 'json.tool'] },
      },
    }),
  );
  index = await startFixtureIndex();
  const wheel = buildClockWheel();
  index.add(CLOCK_PACKAGE, wheel.file, wheel.bytes);
});
afterAll(async () => {
  await index?.close();
  await rm(work, { recursive: true, force: true });
});

describe('importing Python entries', () => {
  it('offers uvx, uv tool run and pipx run entries as pinned PyPI installs, with the entry’s arguments and secrets', async () => {
    const { entries } = await importConfigFile(path, { home, pathEnv, platform: 'linux' });
    const clock = byEntry(entries, 'clock');
    if (clock.status !== 'importable' || clock.offer.kind !== 'pypi') throw new Error(`expected a PyPI offer, got ${JSON.stringify(clock)}`);
    expect(clock.enabled).toBe(false);
    expect(clock.offer.pypi).toMatchObject({ packageSpec: `${CLOCK_PACKAGE}@1.0.0`, userArgs: ['--zone=Europe/Paris'], env: { LOG_LEVEL: 'debug' }, originalArgv: ['uvx', `${CLOCK_PACKAGE}@1.0.0`, '--zone=Europe/Paris'] });
    expect(clock.offer.pypi.scriptName).toBeUndefined();
    // SECURITY: the credential in the file goes to the secret store, not the server record.
    expect(clock.offer.pypi.secrets.map((secret) => secret.name)).toEqual(['CLOCK_API_KEY']);
    expect(clock.secretValues).toEqual({ CLOCK_API_KEY: 'sk-live-not-real' });

    const from = byEntry(entries, 'clock-from');
    if (from.status !== 'importable' || from.offer.kind !== 'pypi') throw new Error('expected a PyPI offer');
    expect(from.offer.pypi).toMatchObject({ packageSpec: `${CLOCK_PACKAGE}==1.0.0`, scriptName: CLOCK_PACKAGE, userArgs: [] });
    const time = byEntry(entries, 'time');
    if (time.status !== 'importable' || time.offer.kind !== 'pypi') throw new Error('expected a PyPI offer');
    expect(time.offer.pypi).toMatchObject({ packageSpec: 'mcp-server-time', userArgs: ['--local-timezone=Europe/London'] });
    const pipx = byEntry(entries, 'pipx');
    expect(pipx.status === 'importable' && pipx.offer.kind === 'pypi' && pipx.offer.pypi.packageSpec).toBe('mcp-server-fetch');
  });

  it('refuses options that make it more than one pinned package, saying how to add it by hand', async () => {
    const { entries } = await importConfigFile(path, { home, pathEnv, platform: 'linux' });
    const extra = byEntry(entries, 'with-extra');
    expect(extra.status).toBe('unsupported');
    expect(extra.status === 'unsupported' && extra.reason).toContain('with uvx and --with requests, which Airlock cannot pin as one package');
    expect(extra.status === 'unsupported' && extra.reason).toContain('`airlock add with-extra -- ~/.local/bin/mcp-server-fetch`');
    const other = byEntry(entries, 'other-index');
    expect(other.status === 'unsupported' && other.reason).toContain('--index-url https://evil.example/simple');
  });

  it('keeps `python -m MODULE` the command it is, with a hint to pin it, and no guess at a PyPI name', async () => {
    const { entries } = await importConfigFile(path, { home, pathEnv, platform: 'linux' });
    const module = byEntry(entries, 'module');
    if (module.status !== 'importable' || module.offer.kind !== 'local') throw new Error(`expected a local command, got ${JSON.stringify(module)}`);
    expect(module.offer.candidate.spec.args).toEqual(['-m', 'json.tool']);
    expect(module.offer.candidate.warnings.join('\n')).toContain('it runs the Python module json.tool installed on this computer, as it is now; if it comes from PyPI, `airlock add module --pypi PACKAGE`');
  });

  it('resolves an imported uvx entry only when asked: one exact version, every file by its hash, the entry’s arguments after the program', async () => {
    const { entries } = await importConfigFile(path, { home, pathEnv, platform: 'linux' });
    const serverDir = join(work, 'data', 'servers', 'clock');
    const candidate = await resolveImportedPypi(byEntry(entries, 'clock'), { serverDir, indexUrl: index.url });
    expect(candidate.provenance).toMatchObject({ kind: 'pypi', name: CLOCK_PACKAGE, version: '1.0.0', installDir: serverDir });
    expect((candidate.provenance as { sha256: string }).sha256).toMatch(/^[0-9a-f]{64}$/);
    expect([candidate.spec.command, ...candidate.spec.args]).toEqual([join(serverDir, 'venv/bin/python'), join(serverDir, 'venv/bin', CLOCK_PACKAGE), '--zone=Europe/Paris']);
    expect(candidate.spec.env).toEqual({ LOG_LEVEL: 'debug' });
    expect(candidate.importedFrom).toEqual({ app: 'claude', path, entry: 'clock' });
    expect(candidate.requested.secrets.map((secret) => secret.name)).toEqual(['CLOCK_API_KEY']);
    expect(candidate.warnings.join('\n')).toContain(`where it ran uvx ${CLOCK_PACKAGE}@1.0.0 --zone=Europe/Paris (a download from PyPI at every start)`);
    // Resolved, not installed: nothing is in the server's folder before consent.
    expect(existsSync(serverDir)).toBe(false);
  }, 180_000);
});

describe('an imported uvx entry through the install flow', () => {
  it('is disclosed pinned, installed only after consent, and answers in the sandbox with the secret from the file', async () => {
    const t = await createTestHost({ pypiIndexUrl: index.url });
    try {
      const [scan] = await t.host.install.scanImports({ path });
      const clock = scan!.entries.find((entry) => entry.name === 'clock')!;
      if (clock.status !== 'importable' || !clock.disclosure) throw new Error(`expected a disclosure, got ${JSON.stringify(clock)}`);
      const d = clock.disclosure;
      expect(d.provenance).toMatchObject({ kind: 'pypi', name: CLOCK_PACKAGE, version: '1.0.0' });
      expect(d.importedFrom).toEqual({ app: 'claude', path, entry: 'clock' });
      expect(d.argv.slice(1)).toEqual([expect.stringMatching(/\/venv\/bin\/airlock-fixture-clock$/), '--zone=Europe/Paris']);
      expect(d.secrets.map((secret) => secret.name)).toEqual(['CLOCK_API_KEY']);
      const installDir = (d.provenance as { installDir: string }).installDir;
      expect(existsSync(installDir)).toBe(false);
      // The other Python entries were resolved too (uvx mcp-server-time is not on the fixture index): each says why, none dropped.
      expect(scan!.entries.map((entry) => entry.name).sort()).toEqual(['clock', 'clock-from', 'module', 'other-index', 'pipx', 'time', 'with-extra']);

      const report = await t.host.install.probe(d.draftId);
      expect(report.tools.map((tool) => tool.name).sort()).toEqual(['get_time', 'write_file']);
      expect(existsSync(join(installDir, 'venv', 'bin', CLOCK_PACKAGE))).toBe(true);
      await t.host.install.commit({ draftId: d.draftId, name: 'clock', profile: d.profile, trusted: false, secrets: {}, enable: true });
      const detail = await t.host.servers.detail('clock');
      expect(detail.profile.secrets).toEqual(['CLOCK_API_KEY']);
      const result = await t.host.calls.call({ server: 'clock', tool: 'get_time', arguments: { zone: 'UTC' }, caller: { kind: 'user' } });
      expect(result.outcome).toBe('ok');
      expect(JSON.stringify(result.result!.content)).toContain('12:00 in UTC (clock 1.0.0)');
    } finally {
      await t.close();
    }
  }, 400_000);
});
