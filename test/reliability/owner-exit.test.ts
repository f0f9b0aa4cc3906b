/**
 * Airlock exits without stopping its servers (`process.exit()` from an
 * uncaught error, or a quit path that forgot to): the `process.once('exit')`
 * hook (electron/core/servers/process-group.ts) kills every server's process
 * group, so a server and the child it left in its group — both ignoring
 * SIGTERM — are gone within a second, checked in /proc. Unsandboxed (as on a
 * machine without bwrap, with the person's consent: the hook is all there is)
 * and sandboxed (bwrap's --die-with-parent covers it as well: with the hook
 * removed, only the unsandboxed case fails).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from './support/gateway-process';
import { killExactly, processTree, stillAlive, waitUntilGone } from './support/proc';
import { TEARDOWN_LIMIT_MS } from './support/owner-kill';

const root = mkdtempSync(join(tmpdir(), 'airlock-owner-exit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.each(['unsandboxed', 'sandboxed'] as const)('Airlock exits without stopping a %s server', (mode) => {
  it('leaves nothing of the server’s process group running', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'test/reliability/support/exit-owner.ts'), join(root, mode, 'data'), join(root, mode, 'home'), mode], {
      cwd: REPO,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const started = performance.now();
    while (!stdout.includes('ready')) {
      if (child.exitCode !== null || performance.now() - started > 60_000) throw new Error(`the owner did not start its server: ${stderr.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The server and the child it left in its group (plus bwrap when sandboxed).
    const tree = processTree(child.pid!);
    expect(tree.length).toBeGreaterThanOrEqual(2);
    child.stdin.write('exit\n');
    expect(await exited).toBe(0);
    const { left } = await waitUntilGone(() => stillAlive(tree), TEARDOWN_LIMIT_MS);
    killExactly(left);
    expect(left.map((p) => p.cmdline)).toEqual([]);
  }, 120_000);
});
