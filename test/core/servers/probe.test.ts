import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probe, ProbeError } from '../../../electron/core/servers/probe';
import { fingerprintTool } from '../../../electron/core/tools/fingerprint';
import { defaultSandboxProfile } from '../../../shared/domain';
import { fixtureSpec, publishedSpec } from './support/fixtures';
import { PassThroughLauncher, testContext } from './support/pass-through-launcher';

/** Live processes whose command line contains `marker`, read from /proc. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('probe', () => {
  it('records server-everything: info, capabilities, instructions, fingerprinted tools, prompts, resources; then stops it', async () => {
    const launcher = new PassThroughLauncher();
    const result = await probe(publishedSpec('server-everything', ['stdio']), defaultSandboxProfile(), launcher, testContext('everything'));
    expect(result.serverInfo?.name).toBeTruthy();
    expect(result.capabilities.tools).toBeDefined();
    expect(result.sandboxed).toBe(false);
    expect(result.tools.truncated).toBe(false);
    const echo = result.tools.items.find((t) => t.definition.name === 'echo')!;
    expect(echo.fingerprint).toBe(fingerprintTool(echo.definition));
    expect(result.prompts?.items.length).toBeGreaterThan(0);
    expect(result.resources?.items.length).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result); // plain data
    expect(launcher.disposed).toBe(1);
  });

  it('records server-filesystem tool annotations as the server claims them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-probe-fs-'));
    try {
      const result = await probe(publishedSpec('server-filesystem', [dir]), defaultSandboxProfile(), new PassThroughLauncher(), testContext('fs'));
      const byName = new Map(result.tools.items.map((t) => [t.definition.name, t.definition]));
      expect(byName.get('read_text_file')?.annotations).toMatchObject({ readOnlyHint: true });
      expect(byName.get('write_file')?.annotations).toMatchObject({ destructiveHint: true });
      expect(result.prompts).toBeUndefined(); // not declared, not asked
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records a fixture’s instructions and skips lists it does not declare', async () => {
    const result = await probe(fixtureSpec('echo.mjs'), defaultSandboxProfile(), new PassThroughLauncher(), testContext('echo'));
    expect(result).toMatchObject({ serverInfo: { name: 'echo-fixture' }, instructions: 'Use echo to echo.' });
    expect(result.tools.items.map((t) => t.definition.name)).toEqual(['echo']);
    expect(result.resources).toBeUndefined();
  });

  it('probes a server with prompts and no tools', async () => {
    const result = await probe(fixtureSpec('prompts-only.mjs'), defaultSandboxProfile(), new PassThroughLauncher(), testContext('p'));
    expect(result.tools.items).toEqual([]);
    expect(result.prompts?.items.map((p) => p.name)).toEqual(['greet']);
  });

  it('gives up on a server that never answers within the overall deadline, and leaves nothing running', async () => {
    const marker = `airlock-probe-hang-${process.pid}-${Date.now()}`;
    const launcher = new PassThroughLauncher();
    const spec = { command: process.execPath, args: ['-e', `/*${marker}*/ setInterval(() => {}, 1000)`], env: {} };
    const error = await probe(spec, defaultSandboxProfile(), launcher, testContext('hang'), {
      timeoutMs: 400,
      connection: { shutdown: { graceMs: 100, termMs: 200, killMs: 1000 } },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProbeError);
    expect(error).toMatchObject({ timedOut: true });
    expect(launcher.disposed).toBe(1);
    expect(processesWith(marker)).toEqual([]);
  });

  it('reports a server that exits at once, with its stderr', async () => {
    const error = (await probe(fixtureSpec('crash-on-start.mjs'), defaultSandboxProfile(), new PassThroughLauncher(), testContext('x')).catch((e: unknown) => e)) as ProbeError;
    expect(error).toBeInstanceOf(ProbeError);
    expect(error.timedOut).toBe(false);
    expect(error.log.some((l) => /giving up/.test(l.text))).toBe(true);
  });
});
