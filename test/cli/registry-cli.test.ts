/**
 * `airlock search`, `airlock registry` and `airlock add --registry` from the
 * terminal, with the built CLI in a temp data folder against a fixture MCP
 * Registry (loopback, API v0.1) and a fixture package index (pip's index, as
 * an organisation would configure it; the SDK from PyPI or the configured mirror): the publisher's
 * words printed inert and marked, pages by cursor, the setting kept, a PyPI
 * listing installed pinned and called in the sandbox, then updated only when
 * agreed. Bad input gets a clear message and leaves nothing behind.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClockWheel, CLOCK_MCP_NAME, CLOCK_PACKAGE } from '../fixtures/registry/python-package';
import { startFixtureIndex, type FixtureIndex } from '../fixtures/registry/pypi-index';
import { startFixtureRegistry, type FixtureRegistry } from '../fixtures/registry/registry-server';
import { airlockCli } from '../support/cli';

let registry: FixtureRegistry;
let index: FixtureIndex;
/** Where pip finds the Python MCP SDK: the extra indexes the person's pip configuration names (a mirror here), else PyPI. */
let extraIndexes = '';

// Asynchronous on purpose: the fixture registry and index answer from this process.
const cli = airlockCli('airlock-registry-cli-', { env: () => ({ NO_COLOR: '1', PIP_INDEX_URL: index.url, PIP_EXTRA_INDEX_URL: extraIndexes || 'https://pypi.org/simple' }), timeout: 280_000 });
const { root, dataDir, runAsync: airlock } = cli;

beforeAll(async () => {
  // The person's pip configuration (an index mirror, say) applies as it would at home.
  const pipConf = join(homedir(), '.config/pip/pip.conf');
  if (existsSync(pipConf)) {
    mkdirSync(join(root, 'home/.config/pip'), { recursive: true });
    copyFileSync(pipConf, join(root, 'home/.config/pip/pip.conf'));
    extraIndexes = /^\s*extra-index-url\s*=\s*(.*)$/m.exec(readFileSync(pipConf, 'utf8'))?.[1]?.trim() ?? '';
  }
  registry = await startFixtureRegistry();
  index = await startFixtureIndex();
  const wheel = buildClockWheel();
  index.add(CLOCK_PACKAGE, wheel.file, wheel.bytes);
}, 60_000);
afterAll(async () => {
  await registry?.close();
  await index?.close();
  cli.remove();
});

const installed = () => (existsSync(join(dataDir, 'servers')) ? readdirSync(join(dataDir, 'servers')) : []);

describe('airlock registry and airlock search', () => {
  it('uses the official registry until told otherwise, keeps the setting, and refuses a plain-http address that is not loopback', async () => {
    const shown = await airlock(['registry']);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain('https://registry.modelcontextprotocol.io (the official MCP Registry)');
    const bad = await airlock(['registry', 'set', 'http://registry.example.org']);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/https/);
    const set = await airlock(['registry', 'set', registry.url]);
    expect(set.code, set.err).toBe(0);
    expect(JSON.parse((await airlock(['registry', '--json'])).out)).toEqual({ baseUrl: registry.url, official: false });
  });

  it('finds listings with their facts in Airlock’s words and the publisher’s words marked', async () => {
    const found = await airlock(['search', 'clock']);
    expect(found.code, found.err).toBe(0);
    expect(found.out).toContain(`From ${registry.url}`);
    expect(found.out).toContain(`${CLOCK_MCP_NAME}  1.0.0 · active · published 2026-11-02 · PyPI · local`);
    expect(found.out).toContain('publisher’s title: Fixture clock');
    expect(found.out).toContain('publisher’s description: Tells the time in a zone');
    expect(found.out).toContain('repository: https://github.com/airlock-test/clock');
    expect(found.out).toContain(`airlock add NAME --registry ${CLOCK_MCP_NAME}`);

    const both = await airlock(['search', 'everything', '--details']);
    expect(both.out).toContain('local + remote');
    expect(both.out).toMatch(/\[0\] npm @modelcontextprotocol\/server-everything 2026\.8\.31 — can be installed/);
    expect(both.out).toMatch(/\[1\] remote \(streamable-http\) https:\/\/everything\.example\.com\/mcp — can be installed/);

    const remote = await airlock(['search', 'remote-only', '--details']);
    expect(remote.out).toMatch(/\[0\] remote \(sse\) https:\/\/remote\.example\.com\/sse — can be installed/);
    expect(remote.out).toContain('airlock add NAME --registry io.github.airlock-test/remote-only');
    const withdrawn = await airlock(['search', 'withdrawn']);
    expect(withdrawn.out).toContain('DELETED');
  });

  it('pages by cursor: the next page starts where the last ended, no listing twice', async () => {
    const first = JSON.parse((await airlock(['search', 'filler', '--limit', '3', '--json'])).out);
    expect(first.servers.map((s: { name: string }) => s.name)).toEqual(['filler-1', 'filler-2', 'filler-3'].map((n) => `io.github.airlock-test/${n}`));
    const text = await airlock(['search', 'filler', '--limit', '3']);
    expect(text.out).toContain(`More: airlock search "filler" --cursor ${JSON.stringify(first.nextCursor)}`);
    const names: string[] = [];
    let cursor: string | undefined = first.nextCursor;
    names.push(...first.servers.map((s: { name: string }) => s.name));
    while (cursor) {
      const page = JSON.parse((await airlock(['search', 'filler', '--limit', '3', '--cursor', cursor, '--json'])).out);
      names.push(...page.servers.map((s: { name: string }) => s.name));
      cursor = page.nextCursor;
    }
    expect(names).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => `io.github.airlock-test/filler-${n}`));
  });

  it('says clearly when the registry answers garbage, and installs nothing', async () => {
    registry.mode = 'garbage';
    try {
      const result = await airlock(['search', 'garbage-please']);
      expect(result.code).not.toBe(0);
      // The answer's start is quoted as data, and the person is told what is likely wrong.
      expect(result.err).toContain(`${registry.url} answered with something that is not JSON`);
      expect(result.err).toContain('is this an MCP Registry address?');
    } finally {
      registry.mode = 'ok';
    }
  });
});

describe('airlock doctor', () => {
  it('says how Python servers are installed and where uv is (or how to get it)', async () => {
    const { out, err } = await airlock(['doctor']);
    expect(out, err).toContain('Python servers (`add --pypi`, Find servers, imported `uvx` entries):');
    expect(out).toMatch(/installed by Airlock into a virtual environment of their own with \/\S+'s venv and pip, every file checked against its hash; uv is not needed for them\./);
    // Where uv is, or how to install it: whichever is true on this machine.
    expect(out).toMatch(/ {2}uv: (\/\S+.* — from .*; used only by a `uvx` command line you add as it is\.|not found, and not needed for these; .*`airlock add NAME --pypi PACKAGE`)/);
    if (out.includes('uv: not found')) expect(out).toContain('install uv (`python3 -m pip install --user uv` or https://docs.astral.sh/uv/)');
  });
});

describe('airlock add --registry and airlock update for a PyPI server', () => {
  beforeAll(async () => {
    expect((await airlock(['registry', 'set', registry.url])).code).toBe(0);
  }, 60_000);

  it('refuses a name that is not a registry name, a listing that does not exist, and a package claimed by another listing — nothing half-installed', async () => {
    const notAName = await airlock(['add', 'x', '--registry', 'rm -rf ~', '--yes']);
    expect(notAName.code).toBe(2);
    expect(notAName.err).toContain('is not a registry name');
    const missing = await airlock(['add', 'x', '--registry', 'io.github.airlock-test/nothing-here', '--yes']);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toMatch(/io\.github\.airlock-test\/nothing-here/);
    const impostor = await airlock(['add', 'x', '--registry', 'io.github.airlock-test/impostor', '--yes']);
    expect(impostor.code).not.toBe(0);
    expect(impostor.err).toMatch(/impostor|belong|claims|mcpName|mcp-name|server\.json/i);
    const withArgs = await airlock(['add', 'x', '--registry', CLOCK_MCP_NAME, '--yes', '--', 'extra']);
    expect(withArgs.code).toBe(2);
    expect(withArgs.err).toContain('says its own arguments');
    expect(installed()).toEqual([]);
    expect((await airlock(['list', '--json'])).out).not.toContain('"x"');
  }, 300_000);

  it('installs a PyPI listing pinned, with the registry provenance and the secret it asks for, and a call works in the sandbox', async () => {
    const add = await airlock(['add', 'clock', '--registry', `${CLOCK_MCP_NAME}@1.0.0`, '--secret', 'CLOCK_API_KEY', '--yes'], { CLOCK_API_KEY: 'k-123' });
    expect(add.code, add.err).toBe(0);
    expect(add.out).toContain(`package ${CLOCK_PACKAGE}==1.0.0 (PyPI)`);
    expect(add.out).toContain(`listed in the MCP Registry as ${CLOCK_MCP_NAME} 1.0.0, published 2026-11-02T09:30:00Z (${registry.url})`);
    expect(add.out).toMatch(/lock: \d+ package\(s\), every file checked against its hash/);
    const shown = JSON.parse((await airlock(['show', 'clock', '--json'])).out);
    expect(shown.provenance).toMatchObject({ kind: 'pypi', name: CLOCK_PACKAGE, version: '1.0.0', registry: { name: CLOCK_MCP_NAME, version: '1.0.0', status: 'active' } });
    expect(shown.profile.secrets).toEqual(['CLOCK_API_KEY']);
    // An unannotated tool asks; there is no terminal here, so the person allows it first.
    const allow = await airlock(['rules', 'add', 'clock', 'get_time', 'allow', '--confirm-destructive', '--yes']);
    expect(allow.code, allow.err).toBe(0);
    const call = await airlock(['call', 'clock', 'get_time', '--args', JSON.stringify({ zone: 'Europe/Paris' })]);
    expect(call.code, call.err).toBe(0);
    expect(call.out).toContain('12:00 in Europe/Paris (clock 1.0.0)');
  }, 300_000);

  it('updates it only after agreement: without --yes the old version stays; with it, the new one answers', async () => {
    const next = buildClockWheel({ version: '1.1.0' });
    index.add(CLOCK_PACKAGE, next.file, next.bytes);
    const before = JSON.parse((await airlock(['show', 'clock', '--json'])).out);
    const oldDir = before.provenance.installDir as string;

    const refused = await airlock(['update', 'clock', '1.1.0']);
    expect(refused.code).toBe(4);
    expect(JSON.parse((await airlock(['show', 'clock', '--json'])).out).provenance.version).toBe('1.0.0');
    expect(existsSync(oldDir)).toBe(true);

    const update = await airlock(['update', 'clock', '1.1.0', '--yes']);
    expect(update.code, update.err).toBe(0);
    expect(update.out).toContain(`Update ${CLOCK_PACKAGE} from 1.0.0 to 1.1.0`);
    const after = JSON.parse((await airlock(['show', 'clock', '--json'])).out);
    expect(after.provenance).toMatchObject({ kind: 'pypi', version: '1.1.0' });
    expect(after.profile.secrets).toEqual(['CLOCK_API_KEY']);
    expect(existsSync(oldDir)).toBe(false);
    expect((await airlock(['rules', 'add', 'clock', 'get_time', 'allow', '--confirm-destructive', '--yes'])).code).toBe(0);
    const call = await airlock(['call', 'clock', 'get_time', '--args', JSON.stringify({ zone: 'UTC' })]);
    expect(call.out).toContain('12:00 in UTC (clock 1.1.0)');
  }, 400_000);
});
