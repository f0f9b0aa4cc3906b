/**
 * Windows' one-time install, guided: what the capability check says when
 * the sandbox's user is not installed, when its firewall filters are
 * missing, and when it is ready — each with what the install creates and
 * the command that removes it — as the backend states it, as `airlock
 * doctor` prints it (over a real host whose launcher is the Windows
 * backend), and that the answer "ready" is kept rather than asked of
 * srt-win at every start. srt-win runs only on Windows: its `status` is a
 * stand-in here (`CapabilityProbe.windowsSandboxStatus`); everything that
 * reads it is the real code.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { doctor } from '../../../../electron/cli/commands/doctor';
import { EXIT } from '../../../../electron/cli/output';
import type { WindowsSandboxState } from '../../../../electron/core/sandbox/executables';
import { win32Backend, WINDOWS_INSTALL_COMMAND, WINDOWS_UNINSTALL_COMMAND } from '../../../../electron/core/sandbox/platform/win32';
import { createTestHost, type TestHost } from '../../host/host-support';

const READY: WindowsSandboxState = { user: { provisioned: true, sid: 'S-1-5-21-1-2-3-1001', credPresent: true }, wfp: { state: 'installed' } };
const NOT_INSTALLED: WindowsSandboxState = { user: { provisioned: false, credPresent: false }, wfp: { state: 'absent' } };
const NO_FILTERS: WindowsSandboxState = { user: READY.user, wfp: { state: 'absent' } };

/** A probe whose srt-win says `state` (changeable), counting how often it was asked. */
function windows(state: WindowsSandboxState) {
  const srtWin = { state, asked: 0 };
  const probe = {
    platform: 'win32' as const,
    pathEnv: '',
    windowsSandboxStatus: () => {
      srtWin.asked += 1;
      return srtWin.state;
    },
  };
  return { probe, srtWin };
}

describe("Windows' capability check", () => {
  it.each([
    ['not installed', NOT_INSTALLED, ['the sandbox user (srt-sandbox)', "the sandbox user's password", 'the firewall filters']],
    ['installed without its firewall filters', NO_FILTERS, ['the firewall filters']],
  ])('%s: refuses, names what is missing, the install command, what it creates and how to remove it', (_what, state, missing) => {
    const support = win32Backend.support(windows(state).probe);
    expect(support).toMatchObject({ supported: false, platform: 'win32', missing, fix: WINDOWS_INSTALL_COMMAND });
    expect(support.summary).toMatch(/one-time install \(one administrator prompt\)/);
    expect(support.summary).toMatch(/Servers will not start until it is done/);
    expect(support.summary).toContain('a local Windows user "srt-sandbox"');
    expect(support.summary).toContain('machine-wide firewall filters');
    expect(support.summary).toContain(`the command ${WINDOWS_UNINSTALL_COMMAND} removes it all again`);
  });

  it('ready: says so, that it is not yet verified on a real Windows machine, and how to remove it', () => {
    const support = win32Backend.support(windows(READY).probe);
    expect(support).toMatchObject({ supported: true, platform: 'win32', missing: [] });
    expect(support.summary).toMatch(/^The sandbox is ready \(srt-win, alpha/);
    expect(support.summary).toContain('Not yet verified on a real Windows machine');
    expect(support.summary).toContain(WINDOWS_UNINSTALL_COMMAND);
  });

  it('ready without administrator rights to read the filters: ready, saying the filters are tested before the first server', () => {
    const support = win32Backend.support(windows({ ...READY, wfp: { state: 'cannot-read' } }).probe);
    expect(support.supported).toBe(true);
    expect(support.summary).toMatch(/reading them needs administrator rights.*tested before the first server starts/);
  });

  it('srt-win that cannot report: refuses, with the error and the install command', () => {
    const probe = {
      platform: 'win32' as const,
      pathEnv: '',
      windowsSandboxStatus: (): WindowsSandboxState => {
        throw new Error('srt-win status exited 3');
      },
    };
    expect(win32Backend.support(probe)).toMatchObject({ supported: false, missing: ['srt-win'], fix: WINDOWS_INSTALL_COMMAND, summary: expect.stringContaining('srt-win status exited 3') });
  });

  it('keeps "ready" (srt-win is not run at every start); a refusal is asked again, and "Check again" asks afresh', () => {
    const { probe, srtWin } = windows(NOT_INSTALLED);
    expect(win32Backend.support(probe).supported).toBe(false);
    expect(win32Backend.support(probe).supported).toBe(false);
    expect(srtWin.asked).toBe(2);
    srtWin.state = READY; // the person ran the install
    expect(win32Backend.support(probe).supported).toBe(true);
    expect(win32Backend.support(probe).supported).toBe(true);
    expect(win32Backend.support(probe).supported).toBe(true);
    expect(srtWin.asked).toBe(3);
    srtWin.state = NO_FILTERS; // and later removed the filters
    expect(win32Backend.support(probe, { fresh: true })).toMatchObject({ supported: false, missing: ['the firewall filters'] });
    expect(srtWin.asked).toBe(4);
  });
});

describe('airlock doctor on a Windows computer', () => {
  let t: TestHost | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const run = async (state: WindowsSandboxState) => {
    const { probe, srtWin } = windows(state);
    t = await createTestHost({ launcherOptions: { capabilityProbe: probe } });
    const host = t.host;
    const out: string[] = [];
    const shell = { kind: 'terminal', origin: 'local', label: 'doctor test' } as const;
    const api = {
      mode: 'owner' as const,
      invoke: ((channel: string, request: unknown) => (host.ipcHandlers(shell) as Record<string, (request: unknown) => unknown>)[channel]!(request)) as never,
    };
    const code = await doctor(api, { out: (text) => out.push(text), err: () => {}, env: {} }, false);
    return { code, text: out.join('\n'), srtWin, t };
  };

  it('not installed: NOT AVAILABLE, what is missing, the fix to run, what it creates and how to remove it; the sandbox-unavailable exit code', async () => {
    const { code, text } = await run(NOT_INSTALLED);
    expect(text).toContain('Sandbox: NOT AVAILABLE (win32)');
    expect(text).toContain("Missing: the sandbox user (srt-sandbox), the sandbox user's password, the firewall filters");
    expect(text).toContain(`Fix: ${WINDOWS_INSTALL_COMMAND}`);
    expect(text).toContain(`the command ${WINDOWS_UNINSTALL_COMMAND} removes it all again`);
    expect(code).toBe(EXIT.sandboxUnavailable);
  });

  it('filters missing: names only them, and the same fix', async () => {
    const { text } = await run(NO_FILTERS);
    expect(text).toContain('Missing: the firewall filters');
    expect(text).toContain(`Fix: ${WINDOWS_INSTALL_COMMAND}`);
  });

  it("ready: ready, the removal command, and Windows' guarantees row by row, not yet verified", async () => {
    const { code, text } = await run(READY);
    expect(text).toContain('Sandbox: ready (win32)');
    expect(text).toContain(WINDOWS_UNINSTALL_COMMAND);
    expect(text).toContain('What the sandbox guarantees on Windows (srt-win (sandbox-runtime, alpha))');
    expect(text).toMatch(/Credentials denied +weaker/);
    expect(text).toContain('Not yet verified on a real Windows machine');
    expect(code).toBe(EXIT.ok);
  });
});
