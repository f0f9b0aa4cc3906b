// The supervisor with the real sandbox launcher (bubblewrap), where this machine has it:
// a sandboxed server and the grandchild it forks are all gone after stop.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxLauncher } from '../../../electron/core/sandbox/sandbox-launcher';
import { descendantsOf, type ProcessIdentity } from '../../../electron/core/servers/process-group';
import { probe } from '../../../electron/core/servers/probe';
import { Supervisor } from '../../../electron/core/servers/supervisor';
import { defaultSandboxProfile } from '../../../shared/domain';
import { fixtureSpec, publishedSpec } from './support/fixtures';

const base = mkdtempSync(join(tmpdir(), 'airlock-supervised-sbx-'));
const launcher = createSandboxLauncher({ homeDir: join(base, 'home'), runtimeDir: join(base, 'run') });
const support = launcher.support();

afterAll(async () => {
  await launcher.close();
  rmSync(base, { recursive: true, force: true });
});

/** True while the process that had this pid and start time still runs. */
function stillRunning(p: ProcessIdentity): boolean {
  try {
    const f = readFileSync(`/proc/${p.pid}/stat`, 'latin1');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return fields[19] === p.startTime && fields[0] !== 'Z';
  } catch {
    return false;
  }
}

describe.skipIf(!support.supported)('supervision inside the real sandbox', () => {
  it('runs a sandboxed server, calls it, and leaves none of its processes behind', async () => {
    const supervisor = new Supervisor({
      launcher,
      catalog: {
        lookup: (name) => ({
          spec: fixtureSpec('fork-grandchild.mjs'),
          profile: defaultSandboxProfile(),
          context: { serverName: name, airlockDataDir: join(base, 'data'), serverDataDir: join(base, 'data', name), secrets: {} },
        }),
      },
      connection: { shutdown: { graceMs: 300, termMs: 300, killMs: 1000 } },
    });
    try {
      await supervisor.start('boxed');
      expect(supervisor.status('boxed').sandboxed).toBe(true);
      expect((await supervisor.callTool('boxed', 'echo', { message: 'in the box' })).content).toEqual([{ type: 'text', text: 'in the box' }]);
      const pid = supervisor.status('boxed').pid!;
      const tree = descendantsOf(pid);
      // bwrap's helpers, the server and its grandchild
      expect(tree.length).toBeGreaterThanOrEqual(2);
      await supervisor.stop('boxed');
      expect(tree.filter(stillRunning)).toEqual([]);
    } finally {
      await supervisor.stopAll();
    }
  });

  it('probes a published server through the launcher’s strictest probe plan', async () => {
    // The install flow adapts `planProbe` (the intended grants, read-only; home unreadable) to the probe's launcher.
    const probeLauncher = { plan: launcher.planProbe };
    const context = { serverName: 'everything', airlockDataDir: join(base, 'data'), serverDataDir: join(base, 'data', 'everything'), secrets: {} };
    const result = await probe(publishedSpec('server-everything', ['stdio']), defaultSandboxProfile(), probeLauncher, context);
    expect(result.sandboxed).toBe(true);
    expect(result.tools.items.map((t) => t.definition.name)).toContain('echo');
  });
});
