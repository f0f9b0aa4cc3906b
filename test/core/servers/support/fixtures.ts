import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defaultSandboxProfile, type ServerSpec } from '../../../../shared/domain';
import type { SupervisedServer } from '../../../../electron/core/servers/supervisor';
import { testContext } from './pass-through-launcher';

const root = resolve(__dirname, '../../../..');

/** The spec that runs a fixture server under test/fixtures/servers with `node`. */
export function fixtureSpec(fixture: string, args: string[] = [], env: Record<string, string> = {}): ServerSpec {
  return { command: process.execPath, args: [join(root, 'test/fixtures/servers', fixture), ...args], env };
}

/** The spec that runs a published reference server from node_modules. */
export function publishedSpec(pkg: 'server-everything' | 'server-memory' | 'server-filesystem', args: string[] = [], env: Record<string, string> = {}): ServerSpec {
  return { command: process.execPath, args: [join(root, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js'), ...args], env };
}

/** A catalog entry for a spec, with the default (strictest) profile. */
export function supervised(name: string, spec: ServerSpec): SupervisedServer {
  return { spec, profile: defaultSandboxProfile(), context: testContext(name) };
}

/** A scratch folder a fixture writes its records into; the test reads them from outside. */
export function recordDir(): { dir: string; file: (name: string) => string; lines: (name: string) => string[]; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-record-'));
  return {
    dir,
    file: (name) => join(dir, name),
    lines: (name) => {
      const path = join(dir, name);
      return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Polls until `check` holds or `timeoutMs` passes. */
export async function eventually(check: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether a pid names a live (non-zombie) process, read from /proc. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
