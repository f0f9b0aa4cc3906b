/**
 * The Windows session's rules, on Linux: srt-win's processes only run on
 * Windows, so its four operations (user status, the egress check, ACL grant
 * and revoke) are stand-ins that record what the session asked; the
 * session's own logic is the real one. It must fail closed before the first
 * server — not provisioned, or a firewall filter that does not block — with
 * the exact command that fixes it; grant each launch's folders to the one
 * shared sandbox user, additively; take the grants back only when no
 * sandboxed server runs; and deny only credential paths that exist (srt-win
 * would make placeholders for the rest in the person's home folder).
 */
import { describe, expect, it } from 'vitest';
import { SandboxInitError } from '../../../../electron/core/sandbox/errors';
import { SRT_WIN, win32Backend, win32Plan, WINDOWS_PROXY_PORT_RANGE } from '../../../../electron/core/sandbox/platform/win32';
import { Win32Session, type SrtWinOperations } from '../../../../electron/core/sandbox/platform/win32-session';
import { planInputFor, windowsWorld } from './plan-inputs';
import { loadSandboxLibrary } from '../../../../electron/core/sandbox';

// Loaded before a host opens on Windows (shared-host.ts), here before the session is driven.
await loadSandboxLibrary('win32');

const SID = 'S-1-5-21-1-2-3-1001';

function srtWin(overrides: Partial<SrtWinOperations> = {}) {
  const calls: string[] = [];
  const granted: Array<{ read: readonly string[]; write: readonly string[] }> = [];
  const existing = new Set<string>();
  const operations: SrtWinOperations = {
    userStatus: (async () => {
      calls.push('status');
      return { provisioned: true, sid: SID, credPresent: true, groupExists: true, inBuiltinUsers: true, inSandboxGroup: true, hiddenFromLogon: true, realUserSid: 'S-1-5-21-9' };
    }) as SrtWinOperations['userStatus'],
    verifyEgress: (async (options) => {
      calls.push(`verify ${options?.proxyPortRange?.join('-')}`);
      return { target: '127.0.0.1:1', stderr: 'BLOCKED' };
    }) as SrtWinOperations['verifyEgress'],
    grant: (options) => {
      calls.push('grant');
      granted.push({ read: options.read, write: options.write });
    },
    revoke: (options) => {
      calls.push(`revoke ${options.sandboxUserSid}`);
      return [];
    },
    exists: (path) => existing.has(path),
    ...overrides,
  };
  return { operations, calls, granted, existing };
}

const planner = { plan: (input: Parameters<typeof win32Plan>[0]) => win32Plan(input), srtWin: SRT_WIN, portRange: WINDOWS_PROXY_PORT_RANGE };
const options = { probe: { platform: 'win32' as const, pathEnv: '' }, runtime: () => ({}) };
const request = (input = planInputFor(win32Backend, windowsWorld())) => ({ input, parts: {} as never, launchRoot: '', note: () => {} });

describe('the Windows session', () => {
  it('refuses to start any server until the sandbox user is installed, naming the command that does it', async () => {
    const fake = srtWin({ userStatus: (async () => ({ provisioned: false, credPresent: false, groupExists: false, inBuiltinUsers: false, inSandboxGroup: false, hiddenFromLogon: false, realUserSid: 'x' })) as SrtWinOperations['userStatus'] });
    const session = new Win32Session(options, planner, fake.operations);
    const attempt = session.launch(request());
    await expect(attempt).rejects.toBeInstanceOf(SandboxInitError);
    await expect(attempt).rejects.toThrow(/not installed.*npx --yes @anthropic-ai\/sandbox-runtime@0\.0\.78 windows-install/s);
    expect(fake.calls).not.toContain('grant');
  });

  it('proves the firewall filter blocks before the first server, once, and refuses when it does not', async () => {
    const failing = srtWin({ verifyEgress: (async () => Promise.reject(new Error('wfp_fence_inactive: connected'))) as SrtWinOperations['verifyEgress'] });
    await expect(new Win32Session(options, planner, failing.operations).launch(request())).rejects.toThrow(/firewall filter did not block a direct connection.*wfp_fence_inactive/s);
    expect(failing.calls).not.toContain('grant');

    const working = srtWin();
    const session = new Win32Session(options, planner, working.operations);
    await session.launch(request());
    await session.launch(request());
    expect(working.calls.filter((call) => call.startsWith('verify'))).toEqual([`verify ${WINDOWS_PROXY_PORT_RANGE.join('-')}`]);
  });

  it('grants each launch its folders additively, and takes them back only when no sandboxed server runs', async () => {
    const fake = srtWin();
    const session = new Win32Session(options, planner, fake.operations);
    const world = windowsWorld();
    const first = await session.launch(request());
    const other = planInputFor(win32Backend, { ...world, readGrant: 'C:\\Users\\ann\\Music', writable: `${world.runtimeParent}\\run-a1b2c3\\other-999999\\w` });
    const second = await session.launch(request(other));
    expect(fake.granted[0]).toMatchObject({ read: expect.arrayContaining([world.readGrant, world.codeDir]), write: expect.arrayContaining([world.writeGrant, world.writable]) });
    // The second grants only what is new; what the first has stays granted (one Windows user for both).
    expect(fake.granted[1]).toEqual({ read: ['C:\\Users\\ann\\Music'], write: [other.files.writeAllowed[0]] });
    await first.dispose?.();
    expect(fake.calls).not.toContain(`revoke ${SID}`);
    await second.dispose?.();
    expect(fake.calls.filter((call) => call === `revoke ${SID}`)).toHaveLength(1);
  });

  it('denies only the credential paths that exist, and spawns srt-win with the plan', async () => {
    const fake = srtWin();
    const world = windowsWorld();
    fake.existing.add(`${world.home}\\.ssh`);
    fake.existing.add(world.dataDir);
    const session = new Win32Session(options, planner, fake.operations);
    const launch = await session.launch(request());
    const denies = launch.args.filter((_, i, all) => all[i - 1] === '--deny-read');
    expect(denies).toEqual([`${world.home}\\.ssh`, world.dataDir]);
    expect(launch.command).toBe(SRT_WIN.exe);
    expect(launch.env).toEqual({ SystemRoot: 'C:\\Windows', ProgramData: 'C:\\ProgramData' });
  });
});
