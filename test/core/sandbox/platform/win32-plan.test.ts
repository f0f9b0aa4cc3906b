/**
 * The Windows plan, as data, on Linux, with `path.win32` paths: the srt-win
 * argv the win32 backend builds through sandbox-runtime's own builder
 * (`wrapCommandWithSandboxWindows`). The server: a read grant, a write grant
 * inside the home folder, a network allowlist, a secret.
 */
import { describe, expect, it } from 'vitest';
import { innerCommand, srtWin, win32Backend, win32Plan, WINDOWS_PROXY_PORT_RANGE } from '../../../../electron/core/sandbox/platform/win32';
import { SECRET_HOME_PATHS } from '../../../../electron/core/sandbox/profiles';
import { loadSandboxLibrary } from '../../../../electron/core/sandbox';
import { vendoredSrtWinExe, WINDOWS_PORT_RANGE } from '../../../../electron/core/sandbox/platform/win32-library';
import { CREDENTIAL, planInputFor, PROXY_PORT, SECRET, windowsWorld } from './plan-inputs';

// sandbox-runtime's Windows module is loaded only where it is needed (as the host does on Windows, and a plan for Windows elsewhere).
await loadSandboxLibrary('win32');

const world = windowsWorld();
const existingTrusted = [`${world.writeGrant}\\.git`, `${world.writeGrant}\\.vscode`];
const input = planInputFor(win32Backend, world, { existingTrusted });
const plan = win32Plan(input);
const argv = [plan.launch.command, ...plan.launch.args];

/** The values of every `--flag value` pair before the `--`. */
function values(flag: string): string[] {
  const end = argv.indexOf('--');
  const out: string[] = [];
  for (let i = 0; i < end; i += 1) if (argv[i] === flag) out.push(argv[i + 1]!);
  return out;
}

describe('what Airlock knows of the Windows module without loading it', () => {
  it('the proxy ports and the srt-win program are the pinned sandbox-runtime’s own', async () => {
    const library = await import('@anthropic-ai/sandbox-runtime/dist/sandbox/windows-sandbox-utils.js');
    expect(WINDOWS_PORT_RANGE).toEqual([...library.DEFAULT_WINDOWS_PROXY_PORT_RANGE]);
    expect(vendoredSrtWinExe()).toBe(library.VENDORED_SRT_WIN_EXE);
  });
});

describe('the Windows plan: srt-win exec', () => {
  it('is `srt-win.exe exec --quiet … -- <server>`, spawned without a shell', () => {
    expect(plan.launch.command).toBe(srtWin().exe);
    expect(plan.launch.command).toMatch(/srt-win\.exe$/);
    expect(plan.launch.args.slice(0, 3)).toEqual(['--srt-win', 'exec', '--quiet']);
    const tail = argv.slice(argv.indexOf('--') + 1);
    // node.exe runs the script directly: srt-win quotes each word; no cmd.exe in between.
    expect(tail).toEqual([world.command, world.script, world.writeGrant]);
  });

  it.each(win32Backend.secretPaths(world.home).map((path) => [path]))('denies reading the credential path %s', (path) => {
    expect(values('--deny-read')).toContain(path);
  });

  it('spells the credential paths the Windows way, under the Windows home folder', () => {
    expect(win32Backend.secretPaths(world.home)).toContain('C:\\Users\\ann\\.ssh');
    expect(win32Backend.secretPaths(world.home)).toContain('C:\\Users\\ann\\.config\\gh');
    expect(win32Backend.secretPaths(world.home)).toContain('C:\\Users\\ann\\AppData\\Roaming\\Microsoft\\Protect');
    expect(win32Backend.secretPaths(world.home).length).toBeGreaterThan(SECRET_HOME_PATHS.length);
  });

  it("denies every Airlock data folder and the other servers' runtime folders", () => {
    expect(values('--deny-read')).toEqual(expect.arrayContaining([world.dataDir, world.otherDataFolder, world.runtimeParent, world.serverDataDir]));
  });

  it('never stamps the home folder itself (the sandbox user has no access to it; a deny there would be written into every file)', () => {
    expect(values('--deny-read')).not.toContain(world.home);
  });

  it('denies writing the trusted files that exist at the top of the write grant', () => {
    expect(values('--deny-write')).toEqual(existingTrusted);
  });

  it("gives the server its own home, settings folders and temp folder, its secret, and its own proxy's port with its credential", () => {
    const env = Object.fromEntries(values('--env').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
    const home = `${world.writable}\\home`;
    expect(env).toMatchObject({ USERPROFILE: home, APPDATA: `${home}\\AppData\\Roaming`, LOCALAPPDATA: `${home}\\AppData\\Local`, TEMP: `${world.writable}\\tmp` });
    expect(env[SECRET.name]).toBe(SECRET.value);
    expect(env.HTTPS_PROXY).toBe(`http://${CREDENTIAL.user}:${CREDENTIAL.token}@127.0.0.1:${PROXY_PORT}`);
    expect(PROXY_PORT).toBeGreaterThanOrEqual(WINDOWS_PROXY_PORT_RANGE[0]);
    expect(PROXY_PORT).toBeLessThanOrEqual(WINDOWS_PROXY_PORT_RANGE[1]);
    // The Windows clients that take NO_PROXY would go around the proxy and hit the firewall filter.
    expect(env).not.toHaveProperty('NO_PROXY');
  });

  it("starts srt-win itself with Windows' own variables only, never the server's secret", () => {
    expect(plan.launch.env).toEqual({ SystemRoot: 'C:\\Windows', ProgramData: 'C:\\ProgramData' });
  });

  it('runs a .cmd server, or one with no arguments, through cmd.exe /d /s /c with its words quoted', () => {
    expect(innerCommand('C:\\tools\\my server.cmd', ['--root', 'C:\\My Files'])).toEqual({
      binShell: { exe: expect.stringMatching(/cmd\.exe$/), args: ['/d', '/s', '/c'] },
      command: '"C:\\tools\\my server.cmd" --root "C:\\My Files"',
    });
    expect(innerCommand('C:\\tools\\server.exe', []).binShell.args).toEqual(['/d', '/s', '/c']);
  });

  it('states its real limits, row by row', () => {
    expect(plan.guarantees.map((row) => [row.row, row.state])).toEqual([
      ['home-hidden', 'weaker'],
      ['credentials-denied', 'weaker'],
      ['data-folders-hidden', 'weaker'],
      ['writes-only-grants', 'weaker'],
      ['protected-files', 'weaker'],
      ['network-allowlist', 'weaker'],
      ['network-questions', 'enforced'],
      ['ipc-isolation', 'weaker'],
      ['privilege', 'enforced'],
      ['resource-limits', 'not enforced'],
      ['violation-reporting', 'weaker'],
    ]);
    expect(plan.notes.join(' ')).toMatch(/same Windows user/);
    expect(plan.notes.join(' ')).toMatch(/DNS lookups are not fenced/);
    // Only the credential paths that exist at start can be denied (the session drops the rest): said, not claimed.
    expect(plan.guarantees.find((row) => row.row === 'credentials-denied')?.how).toMatch(/exist when it starts.*created after it started.*readable/);
    expect(plan.limits.every((limit) => !limit.applied)).toBe(true);
  });
});

describe('a Windows plan it cannot make', () => {
  it('says so as a sandbox error (a command that is not a full path)', () => {
    expect(() => win32Plan({ ...input, command: 'node' })).toThrow(/could not build the Windows sandbox's command/);
  });
});
