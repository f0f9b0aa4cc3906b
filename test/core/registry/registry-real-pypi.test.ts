/**
 * The real thing, when the package index can be reached: `mcp-server-time`
 * 0.6.2 from PyPI (or the index pip is configured with), listed in a fixture
 * MCP Registry the way the official one lists it, installed pinned through the
 * install flow, inspected in the locked sandbox, enabled, and called there.
 *
 * Machines without PyPI skip it and say so (this one did: only a partial
 * mirror is reachable). `AIRLOCK_REQUIRE_PYPI=1` turns the skip into a
 * failure, for CI that promises PyPI.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHost, type TestHost } from '../host/host-support';
import { startFixtureRegistry, type FixtureRegistry } from '../../fixtures/registry/registry-server';

const NAME = 'io.github.modelcontextprotocol/server-time';
const VERSION = '0.6.2';

/** Whether pip's configured index has the wheel; the reason when not. */
function indexHasTime(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-pypi-check-'));
  try {
    const result = spawnSync('python3', ['-m', 'pip', 'download', '--no-deps', '--only-binary', ':all:', '--quiet', '--dest', dir, `mcp-server-time==${VERSION}`], {
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, PIP_RETRIES: '0', PIP_DISABLE_PIP_VERSION_CHECK: '1' },
    });
    if (result.status === 0) return undefined;
    return `pip's package index does not offer mcp-server-time ${VERSION} here: ${(result.stderr || result.error?.message || '').trim().split('\n').pop()}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('mcp-server-time from real PyPI, through a registry listing', () => {
  let unreachable: string | undefined;
  let t: TestHost | undefined;
  let registry: FixtureRegistry;

  beforeAll(async () => {
    unreachable = indexHasTime();
    registry = await startFixtureRegistry([
      {
        server: {
          $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
          name: NAME,
          description: 'A Model Context Protocol server providing tools for time queries and timezone conversions for LLMs',
          version: VERSION,
          repository: { url: 'https://github.com/modelcontextprotocol/servers', source: 'github', subfolder: 'src/time' },
          packages: [
            {
              registryType: 'pypi',
              registryBaseUrl: 'https://pypi.org',
              identifier: 'mcp-server-time',
              version: VERSION,
              transport: { type: 'stdio' },
              packageArguments: [{ type: 'named', name: '--local-timezone', value: 'Europe/Paris', description: 'The time zone to answer in by default.' }],
            },
          ],
        },
        publishedAt: '2025-09-01T00:00:00Z',
      },
    ]);
    if (!unreachable) {
      t = await createTestHost();
      t.host.registry.setBaseUrl(registry.url);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await registry?.close();
  });

  it('installs it pinned from the listing, inspects it locked, and a call answers in the sandbox', async (context) => {
    if (unreachable) {
      if (process.env.AIRLOCK_REQUIRE_PYPI === '1') throw new Error(unreachable);
      context.skip(unreachable);
    }
    const host = t!.host;
    const d = await host.install.prepare({ kind: 'registry', name: NAME });
    expect(d.provenance).toMatchObject({ kind: 'pypi', name: 'mcp-server-time', version: VERSION, registry: { name: NAME, version: VERSION, status: 'active' } });
    const p = d.provenance as { installDir: string; sha256: string };
    expect(p.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(d.argv).toEqual([join(p.installDir, 'venv/bin/python'), join(p.installDir, 'venv/bin/mcp-server-time'), '--local-timezone', 'Europe/Paris']);
    expect(existsSync(p.installDir)).toBe(false);

    const report = await host.install.probe(d.draftId);
    expect(report.tools.map((tool) => tool.name).sort()).toEqual(['convert_time', 'get_current_time']);
    await host.install.commit({ draftId: d.draftId, name: 'time', profile: d.profile, trusted: false, secrets: {}, enable: true });
    const result = await host.calls.call({ server: 'time', tool: 'get_current_time', arguments: { timezone: 'Asia/Tokyo' }, caller: { kind: 'user' } });
    expect(result.outcome).toBe('ok');
    expect(JSON.stringify(result.result!.content)).toContain('Asia/Tokyo');
  }, 600_000);
});
