import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LaunchContext, LaunchPlan, SandboxLauncher } from '../../../../electron/core/sandbox/launcher';
import type { SandboxProfile, ServerSpec } from '../../../../shared/domain';

/**
 * A launcher for supervisor tests: no sandbox (`sandboxed: false`), a
 * scrubbed environment (PATH, a throwaway HOME and TMPDIR, plus the spec's
 * own env) and a temporary folder removed on dispose. Counts plans and
 * disposals so tests can check every plan is disposed.
 */
export class PassThroughLauncher implements SandboxLauncher {
  planned = 0;
  disposed = 0;
  refuse?: string;

  async plan(spec: ServerSpec, _profile: SandboxProfile, _context: LaunchContext): Promise<LaunchPlan> {
    if (this.refuse) throw new Error(this.refuse);
    this.planned++;
    const temp = mkdtempSync(join(tmpdir(), 'airlock-test-server-'));
    return {
      command: spec.command,
      args: [...spec.args],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: temp, TMPDIR: temp, ...spec.env },
      cwd: spec.cwd,
      sandboxed: false,
      dispose: async () => {
        this.disposed++;
        rmSync(temp, { recursive: true, force: true });
      },
    };
  }
}

/** A launch context for tests (the folders are not used by the pass-through launcher). */
export function testContext(serverName: string): LaunchContext {
  return { serverName, airlockDataDir: join(tmpdir(), 'airlock-test-data'), serverDataDir: join(tmpdir(), 'airlock-test-data', serverName), secrets: {} };
}
