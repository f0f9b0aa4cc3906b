/**
 * The Windows session's rules, on Linux: srt-win's processes only run on
 * Windows, so its four operations (user status, the egress check, ACL grant
 * and revoke) are stand-ins that record what the session asked; the
 * session's own logic is the real one. The stand-in keeps what srt-win
 * would hold for Airlock's process (a grant adds, a revoke takes back all
 * of it, as `srt-win acl revoke --holder-pid` does). The session must fail
 * closed before the first server — not provisioned, or a firewall filter
 * that does not block — with the exact command that fixes it; grant each
 * launch's folders to the one shared sandbox user; hold exactly the union
 * of the running launches' grants (a stopped server's, or a grant removed
 * by a restart, taken back while others run); and deny only credential
 * paths that exist (srt-win would make placeholders for the rest in the
 * person's home folder).
 */
import { describe, expect, it } from 'vitest';
import { SandboxInitError } from '../../../../electron/core/sandbox/errors';
import { srtWin as packagedSrtWin, win32Backend, win32Plan, WINDOWS_PROXY_PORT_RANGE } from '../../../../electron/core/sandbox/platform/win32';
import { Win32Session, type SrtWinOperations } from '../../../../electron/core/sandbox/platform/win32-session';
import { planInputFor, windowsWorld } from './plan-inputs';
import { loadSandboxLibrary } from '../../../../electron/core/sandbox';

// Loaded before a host opens on Windows (shared-host.ts), here before the session is driven.
await loadSandboxLibrary('win32');

const SID = 'S-1-5-21-1-2-3-1001';

function srtWin(overrides: Partial<SrtWinOperations> = {}) {
  const calls: string[] = [];
  const granted: Array<{ read: readonly string[]; write: readonly string[] }> = [];
  /** What srt-win holds for Airlock's process now: each path with its access. */
  const held = new Map<string, 'read' | 'write'>();
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
      for (const path of options.read) if (!held.has(path)) held.set(path, 'read');
      for (const path of options.write) held.set(path, 'write');
    },
    revoke: (options) => {
      calls.push(`revoke ${options.sandboxUserSid}`);
      held.clear();
      return [];
    },
    exists: (path) => existing.has(path),
    ...overrides,
  };
  return { operations, calls, granted, held, existing };
}

const planner = { plan: (input: Parameters<typeof win32Plan>[0]) => win32Plan(input), srtWin: packagedSrtWin(), portRange: WINDOWS_PROXY_PORT_RANGE };
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

  it('grants each launch its folders, and holds exactly what the running launches need: a stopped server\'s grants go while another runs', async () => {
    const fake = srtWin();
    const session = new Win32Session(options, planner, fake.operations);
    const world = windowsWorld();
    const first = await session.launch(request());
    const other = planInputFor(win32Backend, { ...world, readGrant: 'C:\\Users\\ann\\Music', writable: `${world.runtimeParent}\\run-a1b2c3\\other-999999\\w` });
    const second = await session.launch(request(other));
    expect(fake.granted[0]).toMatchObject({ read: expect.arrayContaining([world.readGrant, world.codeDir]), write: expect.arrayContaining([world.writeGrant, world.writable]) });
    // The second grants only what is new; what the first has stays granted (one Windows user for both).
    expect(fake.granted[1]).toEqual({ read: ['C:\\Users\\ann\\Music'], write: [other.files.writeAllowed[0]] });
    expect(fake.held.get(world.readGrant)).toBe('read');

    await first.dispose?.();
    // The first's own grants are gone although the second still runs; the second keeps all of its own.
    expect(fake.held.has(world.readGrant)).toBe(false);
    expect(fake.held.has(world.writable)).toBe(false);
    expect(new Set(fake.held.keys())).toEqual(new Set([...other.files.readAllowed, ...other.files.writeAllowed]));
    expect(fake.held.get(world.writeGrant)).toBe('write');

    await second.dispose?.();
    expect(fake.held.size).toBe(0);
  });

  it('a server restarted with a grant removed loses it at once, even while another server with other grants runs', async () => {
    const fake = srtWin();
    const session = new Win32Session(options, planner, fake.operations);
    const world = windowsWorld();
    const music = 'C:\\Users\\ann\\Music';
    const bystander = await session.launch(request(planInputFor(win32Backend, { ...world, readGrant: music, writeGrant: 'C:\\Users\\ann\\scratch', writable: `${world.runtimeParent}\\run-1\\other-2\\w` })));
    const before = await session.launch(request());
    expect(fake.held.get(world.writeGrant)).toBe('write');
    // The person removes its write grant: the server stops, then starts without it.
    await before.dispose?.();
    const narrowed = planInputFor(win32Backend, world);
    narrowed.files = { ...narrowed.files, writeAllowed: narrowed.files.writeAllowed.filter((path) => path !== world.writeGrant) };
    const after = await session.launch(request(narrowed));
    expect(fake.held.has(world.writeGrant)).toBe(false);
    expect(fake.held.get(world.readGrant)).toBe('read');
    expect(fake.held.get(music)).toBe('read');
    await after.dispose?.();
    await bystander.dispose?.();
    expect(fake.held.size).toBe(0);
  });

  it('takes nothing back while every grant is still needed (two launches with the same grants)', async () => {
    const fake = srtWin();
    const session = new Win32Session(options, planner, fake.operations);
    const one = await session.launch(request());
    const two = await session.launch(request());
    await one.dispose?.();
    expect(fake.calls.filter((call) => call.startsWith('revoke'))).toEqual([]);
    await two.dispose?.();
    expect(fake.calls.filter((call) => call.startsWith('revoke'))).toHaveLength(1);
    expect(fake.held.size).toBe(0);
  });

  it('when srt-win cannot take access back, the servers\' logs say so and the next stop tries again', async () => {
    let failing = true;
    const fake = srtWin();
    const realRevoke = fake.operations.revoke;
    fake.operations.revoke = (opts) => (failing ? undefined : realRevoke(opts));
    const session = new Win32Session(options, planner, fake.operations);
    const world = windowsWorld();
    const notes: string[] = [];
    const stays = await session.launch({ ...request(planInputFor(win32Backend, { ...world, readGrant: 'C:\\Users\\ann\\Music' })), note: (text) => notes.push(text) });
    const goes = await session.launch(request());
    await goes.dispose?.();
    expect(notes.join('\n')).toMatch(/could not take back.*tries again when the next server stops/);
    expect(fake.held.has(world.readGrant)).toBe(true);
    failing = false;
    await stays.dispose?.();
    expect(fake.held.size).toBe(0);
  });

  it('when srt-win cannot give the running servers their folders again, they are refused them (narrower), and told', async () => {
    const fake = srtWin();
    const session = new Win32Session(options, planner, fake.operations);
    const world = windowsWorld();
    const notes: string[] = [];
    const stays = await session.launch({ ...request(planInputFor(win32Backend, { ...world, readGrant: 'C:\\Users\\ann\\Music' })), note: (text) => notes.push(text) });
    const goes = await session.launch(request());
    fake.operations.grant = () => {
      throw new Error('acl grant exited 5');
    };
    await goes.dispose?.();
    expect(fake.held.size).toBe(0);
    expect(notes.join('\n')).toMatch(/could not give the sandbox's user files's folders again.*acl grant exited 5.*refused them until it restarts/s);
    await stays.dispose?.();
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
    expect(launch.command).toBe(packagedSrtWin().exe);
    expect(launch.env).toEqual({ SystemRoot: 'C:\\Windows', ProgramData: 'C:\\ProgramData' });
  });
});
