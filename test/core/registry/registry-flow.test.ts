/**
 * From a registry listing to a server that answers, through the real install
 * flow: a Python server (the fixture clock, written with the Python MCP SDK)
 * pinned from a package index, inspected and run in the real sandbox; an npm
 * listing's exact argv, settings and secret prompt; a deprecated listing
 * warned about; a package that belongs to another listing refused with
 * nothing half-installed; an update of the PyPI server that keeps the old
 * version until it is agreed; a tampered file refused by its hash.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Disclosure } from '../../../shared/views';
import { createTestHost, type TestHost } from '../host/host-support';
import { buildClockWheel, CLOCK_MCP_NAME, CLOCK_PACKAGE } from '../../fixtures/registry/python-package';
import { startFixtureIndex, type FixtureIndex } from '../../fixtures/registry/pypi-index';
import { startFixtureRegistry, type FixtureRegistry } from '../../fixtures/registry/registry-server';

const textOf = (content: unknown[]) => content.map((item) => (item as { text?: string }).text ?? '').join('\n');

describe('installing from the MCP Registry', () => {
  let t: TestHost;
  let registry: FixtureRegistry;
  let index: FixtureIndex;
  let clock: Disclosure;

  beforeAll(async () => {
    registry = await startFixtureRegistry();
    index = await startFixtureIndex();
    const wheel = buildClockWheel();
    index.add(CLOCK_PACKAGE, wheel.file, wheel.bytes);
    t = await createTestHost({ pypiIndexUrl: index.url });
    t.host.registry.setBaseUrl(registry.url);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await registry?.close();
    await index?.close();
  });

  const serversDir = () => join(t.dataDir, 'servers');
  const installed = () => (existsSync(serversDir()) ? readdirSync(serversDir()) : []);

  it('finds the listing, with where it runs and what it offers', async () => {
    const page = await t.host.registry.search({ search: 'clock' });
    expect(page.baseUrl).toBe(registry.url);
    expect(page.servers.map((s) => [s.name, s.sources, s.hasLocal, s.hasRemote, s.version])).toEqual([[CLOCK_MCP_NAME, ['PyPI'], true, false, '1.0.0']]);
  });

  it('discloses a PyPI listing: registry provenance, the exact argv from the pinned venv, the secret it asks for in the publisher’s words', async () => {
    clock = await t.host.install.prepare({ kind: 'registry', name: CLOCK_MCP_NAME });
    expect(clock.sourceLabel).toBe('Python package (PyPI), listed in the MCP Registry');
    expect(clock.provenance).toMatchObject({
      kind: 'pypi',
      name: CLOCK_PACKAGE,
      version: '1.0.0',
      file: 'airlock_fixture_clock-1.0.0-py3-none-any.whl',
      registry: { baseUrl: registry.url, name: CLOCK_MCP_NAME, version: '1.0.0', status: 'active', publishedAt: '2026-11-02T09:30:00Z' },
    });
    const p = clock.provenance as Extract<Disclosure['provenance'], { kind: 'pypi' }>;
    expect(p.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(p.packageCount).toBeGreaterThan(5);
    expect(clock.argv).toEqual([join(p.installDir, 'venv/bin/python'), join(p.installDir, 'venv/bin/airlock-fixture-clock')]);
    expect(clock.secrets).toEqual([{ name: 'CLOCK_API_KEY', description: 'The key for the time service.', required: true }]);
    expect(clock.registry).toMatchObject({ name: CLOCK_MCP_NAME, description: 'Tells the time in a zone (a Python server for Airlock’s tests).', inputs: [{ kind: 'secret', name: 'CLOCK_API_KEY', description: 'The key for the time service.' }] });
    // Nothing is installed before consent: the folder does not exist yet.
    expect(existsSync(p.installDir)).toBe(false);
  }, 120_000);

  it('inspects it in the locked sandbox, then enables it; a call works and its own code stays read-only to it', async () => {
    const report = await t.host.install.probe(clock.draftId);
    expect(report.tools.map((tool) => tool.name).sort()).toEqual(['get_time', 'write_file']);
    const p = clock.provenance as Extract<Disclosure['provenance'], { kind: 'pypi' }>;
    expect(existsSync(join(p.installDir, 'requirements.lock.txt'))).toBe(true);
    await t.host.install.commit({ draftId: clock.draftId, name: 'clock', profile: clock.profile, trusted: false, secrets: { CLOCK_API_KEY: 'k-123' }, enable: true });
    const result = await t.host.calls.call({ server: 'clock', tool: 'get_time', arguments: { zone: 'Europe/Paris' }, caller: { kind: 'user' } });
    expect(result.outcome).toBe('ok');
    expect(textOf(result.result!.content)).toContain('12:00 in Europe/Paris (clock 1.0.0)');
    const target = join(p.installDir, 'venv', 'planted.py');
    const write = await t.host.calls.call({ server: 'clock', tool: 'write_file', arguments: { path: target }, caller: { kind: 'user' } });
    expect(textOf(write.result!.content)).toMatch(/could not write .*planted\.py: (Read-only file system|Permission denied)/);
    expect(existsSync(target)).toBe(false);
    const detail = await t.host.servers.detail('clock');
    expect(detail.source).toBe(`PyPI ${CLOCK_PACKAGE}==1.0.0 (listed in the MCP Registry as ${CLOCK_MCP_NAME} 1.0.0)`);
    expect(detail.profile.secrets).toEqual(['CLOCK_API_KEY']);
  }, 240_000);

  it('updates the PyPI server like an npm one: the old version runs until the new one is agreed', async () => {
    const next = buildClockWheel({ version: '1.1.0' });
    index.add(CLOCK_PACKAGE, next.file, next.bytes);
    const before = (await t.host.servers.detail('clock')).provenance as Extract<Disclosure['provenance'], { kind: 'pypi' }>;
    const update = await t.host.install.prepare({ kind: 'update', server: 'clock', range: 'latest' });
    expect(update.warnings[0]).toBe(`Update ${CLOCK_PACKAGE} from 1.0.0 to 1.1.0: review it as a new install.`);
    expect(update.replaces).toMatchObject({ name: 'clock', version: '1.0.0' });
    await t.host.install.probe(update.draftId);
    // Inspected and installed beside it; the running server is still 1.0.0.
    const still = await t.host.calls.call({ server: 'clock', tool: 'get_time', arguments: {}, caller: { kind: 'user' } });
    expect(textOf(still.result!.content)).toContain('(clock 1.0.0)');
    expect(existsSync(before.installDir)).toBe(true);
    await t.host.install.commit({ draftId: update.draftId, name: 'clock', profile: update.profile, trusted: false, secrets: {}, enable: true });
    const after = await t.host.calls.call({ server: 'clock', tool: 'get_time', arguments: {}, caller: { kind: 'user' } });
    expect(textOf(after.result!.content)).toContain('(clock 1.1.0)');
    expect(existsSync(before.installDir)).toBe(false);
    expect((await t.host.servers.detail('clock')).profile.secrets).toEqual(['CLOCK_API_KEY']);
  }, 240_000);

  it('refuses a file that does not match its hash, and keeps nothing of the attempt', async () => {
    const next = buildClockWheel({ version: '1.2.0' });
    index.add(CLOCK_PACKAGE, next.file, next.bytes);
    const draft = await t.host.install.prepare({ kind: 'pypi', package: `${CLOCK_PACKAGE}==1.2.0` });
    const dir = (draft.provenance as { installDir: string }).installDir;
    index.tamper(next.file, buildClockWheel({ version: '1.2.0', mcpName: 'io.github.evil/clock' }).bytes);
    const before = installed();
    await expect(t.host.install.probe(draft.draftId)).rejects.toThrow(/Installing failed, and nothing was kept: pip could not install .*(HASH|hash)/);
    expect(existsSync(dir)).toBe(false);
    expect(installed()).toEqual(before.filter((name) => join(serversDir(), name) !== dir));
    await t.host.install.cancel(draft.draftId);
  }, 240_000);

  it('warns about a deprecated listing, and shows an npm listing’s exact argv, settings and secret', async () => {
    const old = await t.host.install.prepare({ kind: 'registry', name: 'io.github.modelcontextprotocol/server-filesystem', version: '2026.7.10' });
    expect(old.provenance).toMatchObject({ kind: 'npm', version: '2026.7.10', registry: { status: 'deprecated' } });
    expect(old.warnings[0]).toMatch(/DEPRECATED/);
    await t.host.install.cancel(old.draftId);
    const everything = await t.host.install.prepare({ kind: 'registry', name: 'io.github.modelcontextprotocol/server-everything' });
    expect(everything.argv.slice(-2)).toEqual([expect.stringMatching(/server-everything\/dist\/index\.js$/), 'stdio']);
    expect(everything.env).toEqual({ EVERYTHING_MODE: 'quiet' });
    expect(everything.secrets).toEqual([{ name: 'EVERYTHING_TOKEN', description: 'Your token for the everything service.', required: true }]);
    expect(everything.registry?.option).toMatchObject({ kind: 'npm', supported: true });
    expect(everything.registry?.optionCount).toBe(2);
    await t.host.install.cancel(everything.draftId);
  }, 120_000);

  it('shows a shell-injection-looking argument exactly, as one argument, flagged', async () => {
    const fs = await t.host.install.prepare({ kind: 'registry', name: 'io.github.modelcontextprotocol/server-filesystem' });
    expect(fs.argv.at(-1)).toBe('/tmp; rm -rf ~');
    expect(fs.risks.some((risk) => risk.arg === fs.argv.length - 1)).toBe(true);
    await t.host.install.cancel(fs.draftId);
  }, 120_000);

  it('refuses a listing whose package names another listing as its own, with nothing installed', async () => {
    const before = installed();
    await expect(t.host.install.prepare({ kind: 'registry', name: 'io.github.airlock-test/impostor' })).rejects.toThrow(
      /says it belongs to the listing io\.github\.modelcontextprotocol\/server-filesystem, not io\.github\.airlock-test\/impostor.*Nothing was installed/,
    );
    expect(installed()).toEqual(before);
  }, 120_000);

  it('refuses an unknown listing with clear words (remotes: registry-remote.test.ts)', async () => {
    await expect(t.host.install.prepare({ kind: 'registry', name: 'io.github.nobody/nothing' })).rejects.toMatchObject({ code: 'not-found' });
  });
});
