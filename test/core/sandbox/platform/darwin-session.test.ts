/**
 * Refusals Seatbelt reports (macOS `log stream`, read by sandbox-runtime's
 * monitor) attributed to the server whose profile carries the tag: into
 * that launch's log and, through the real recorder, the real audit log as
 * `sandbox` entries in the verified chain. The `log stream` process itself
 * only exists on a Mac: here a stand-in hands the monitor's callback
 * events shaped as the package parses them (`command` = the decoded tag).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../../electron/core/audit/audit-log';
import { SandboxRefusalRecorder } from '../../../../electron/core/audit/sandbox-refusal-record';
import { toActivityViews } from '../../../../electron/core/audit/views';
import { darwinCommandId, darwinPlan } from '../../../../electron/core/sandbox/platform/darwin';
import { darwinBackend } from '../../../../electron/core/sandbox/platform/darwin';
import { DarwinSession, MAX_VIOLATION_NOTES } from '../../../../electron/core/sandbox/platform/darwin-session';
import { macWorld, planInputFor } from './plan-inputs';
import { loadSandboxLibrary } from '../../../../electron/core/sandbox';

// sandbox-runtime's macOS module is loaded before a macOS plan is made (as a host does on macOS).
await loadSandboxLibrary('darwin');

const dir = mkdtempSync(join(tmpdir(), 'airlock-refusals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Seatbelt's refusals, attributed", () => {
  it("go to the launch whose profile carries the tag, and to the audit log; another server's tag, or none, is ignored", async () => {
    const audit = new AuditLog({ dir });
    const recorder = new SandboxRefusalRecorder(audit);
    let deliver: ((violation: { line: string; command?: string }) => void) | undefined;
    let stopped = 0;
    const session = new DarwinSession(
      { probe: { platform: 'darwin', pathEnv: '' }, runtime: () => ({}), onViolation: (server, text) => recorder.record(server, text) },
      { plan: darwinPlan, commandId: darwinCommandId },
      (callback) => {
        deliver = callback;
        return () => void (stopped += 1);
      },
    );
    const world = macWorld();
    const inputA = { ...planInputFor(darwinBackend, world), serverName: 'a', launchDir: `${world.runtimeParent}/run-1/a-111111/w` };
    const inputB = { ...planInputFor(darwinBackend, world), serverName: 'b', launchDir: `${world.runtimeParent}/run-1/b-222222/w` };
    const notesA: string[] = [];
    const notesB: string[] = [];
    const a = await session.launch({ input: inputA, parts: {} as never, launchRoot: '', note: (text) => notesA.push(text) });
    const b = await session.launch({ input: inputB, parts: {} as never, launchRoot: '', note: (text) => notesB.push(text) });
    expect(a.command).toBe('/usr/bin/sandbox-exec');
    // The tag each profile carries names its own launch.
    expect(a.args[1]).toContain(Buffer.from(darwinCommandId(inputA)).toString('base64'));

    deliver!({ line: 'deny(1) file-read-data /Users/ann/.ssh/id_rsa', command: darwinCommandId(inputA) });
    deliver!({ line: 'deny(1) network-outbound 93.184.216.34:443', command: darwinCommandId(inputB) });
    deliver!({ line: 'deny(1) file-read-data /etc/forged', command: 'airlock someone-else' });
    deliver!({ line: 'deny(1) file-read-data /etc/untagged' });
    expect(notesA).toEqual(['The sandbox refused: deny(1) file-read-data /Users/ann/.ssh/id_rsa']);
    expect(notesB).toEqual(['The sandbox refused: deny(1) network-outbound 93.184.216.34:443']);

    await recorder.flush();
    const rows = (await audit.readActivity({})).flatMap(toActivityViews).filter((row) => row.kind === 'sandbox');
    expect(rows.map((row) => [row.server, row.target, row.verdict])).toEqual([
      ['b', 'deny(1) network-outbound 93.184.216.34:443', 'refused by the sandbox'],
      ['a', 'deny(1) file-read-data /Users/ann/.ssh/id_rsa', 'refused by the sandbox'],
    ]);
    expect((await audit.verify()).ok).toBe(true);

    await a.dispose?.();
    deliver!({ line: 'deny(1) file-read-data /after', command: darwinCommandId(inputA) });
    expect(notesA).toHaveLength(1);
    await b.dispose?.();
    await session.close();
    expect(stopped).toBe(1);
    await audit.close();
  });

  it('caps what goes into the log, counts the rest, and the audit log coalesces a flood into one entry', async () => {
    const written: Array<{ server: string; detail: string; repeats?: number }> = [];
    const recorder = new SandboxRefusalRecorder({ appendSandboxRefusal: async (input) => void written.push(input) as never }, () => 0);
    let deliver: ((violation: { line: string; command?: string }) => void) | undefined;
    const session = new DarwinSession(
      { probe: { platform: 'darwin', pathEnv: '' }, runtime: () => ({}), onViolation: (server, text) => recorder.record(server, text) },
      { plan: darwinPlan, commandId: darwinCommandId },
      (callback) => {
        deliver = callback;
        return () => {};
      },
    );
    const input = planInputFor(darwinBackend, macWorld());
    const notes: string[] = [];
    const launch = await session.launch({ input, parts: {} as never, launchRoot: '', note: (text) => notes.push(text) });
    for (let i = 0; i < MAX_VIOLATION_NOTES + 5; i += 1) deliver!({ line: 'deny(1) file-write-create /Users/ann/.bashrc\u001b[2J', command: darwinCommandId(input) });
    expect(notes).toHaveLength(MAX_VIOLATION_NOTES);
    expect(notes[0]).not.toContain('\u001b');
    await launch.dispose?.();
    expect(notes.at(-1)).toBe('…and 5 more refusals by the sandbox, not shown.');
    await recorder.flush();
    expect(written).toEqual([
      { server: 'files', detail: 'deny(1) file-write-create /Users/ann/.bashrc [2J' },
      { server: 'files', detail: 'deny(1) file-write-create /Users/ann/.bashrc [2J', repeats: MAX_VIOLATION_NOTES + 3 },
    ]);
    await session.close();
  });

  it.skipIf(process.platform === 'darwin')('without `log stream` (not a Mac), the server still runs, and its log says refusals cannot be shown', async () => {
    const session = darwinBackend.openSession({ probe: { platform: 'darwin', pathEnv: '' }, runtime: () => ({}) });
    const notes: string[] = [];
    const launch = await session.launch({ input: planInputFor(darwinBackend, macWorld()), parts: {} as never, launchRoot: '', note: (text) => notes.push(text) });
    expect(launch.command).toBe('/usr/bin/sandbox-exec');
    expect(notes.join('\n')).toMatch(/its refusals cannot be shown here/);
    await session.close();
  });
});
