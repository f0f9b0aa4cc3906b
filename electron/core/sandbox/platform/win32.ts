/**
 * The Windows backend: sandbox-runtime 0.0.78's srt-win (alpha).
 *
 * What srt-win is (from the package's own files): a one-time elevated
 * install (`windows-install`) creates a local user `srt-sandbox`, a group
 * `sandbox-runtime-users`, a password kept with DPAPI under
 * `HKLM\SOFTWARE\sandbox-runtime`, and machine-wide firewall (WFP) filters
 * that let that user's processes reach only loopback ports 60080–60089.
 * `srt-win.exe exec [--deny-read P]… [--deny-write P]… [--env K=V]… -- <exe> …`
 * runs a command as that user with a restricted token (Medium integrity,
 * privileges stripped) in a kill-on-close job object on a non-interactive
 * desktop; files are allowed or denied to it with NTFS entries for its SID.
 *
 * What that means for Airlock, stated rather than hidden:
 * - every sandboxed server runs as the same Windows user: one can read
 *   what another was granted, and reach another's proxy port (so each
 *   proxy demands its own server's credential: loopback-proxy.ts);
 * - a file grant is an access entry for that user, added when a server
 *   with it starts and taken back when the last running server with it
 *   stops (win32-session.ts) — meanwhile every sandboxed server can use it;
 * - DNS lookups are not fenced (they go through Windows' DNS service);
 * - no process, memory or CPU limits.
 *
 * The launch goes through the package's own argv builder
 * (`wrapCommandWithSandboxWindows`, what `SandboxManager.wrapWithSandboxArgv`
 * calls on Windows) with this server's proxy port and credential in its
 * environment — not through `SandboxManager`, whose one shared proxy
 * cannot tell servers apart (the same reason as on Linux). `win32Plan` is
 * pure (tested on `path.win32` paths on Linux); provisioning, the egress
 * check and the grants are win32-session.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { win32 } from 'node:path';
import type { SrtWinSpawn } from '@anthropic-ai/sandbox-runtime/dist/sandbox/windows-sandbox-utils.js';
import { vendoredSrtWinExe, windowsLibrary, WINDOWS_PORT_RANGE } from './win32-library';
import type { SandboxSupport } from '../../../../shared/domain';
import { SandboxInitError } from '../errors';
import type { CapabilityProbe, WindowsSandboxState } from '../executables';
import { SECRET_HOME_PATHS } from '../profiles';
import { guarantee, type Guarantee, type GuaranteeFacts, type PlanInput, type PlatformBackend, type PlatformPlan } from './backend';
import { Win32Session } from './win32-session';

/** The ports the install's firewall filter lets the sandbox's user reach (its default, which Airlock installs with). */
export const WINDOWS_PROXY_PORT_RANGE: readonly [number, number] = WINDOWS_PORT_RANGE;

let srtWinSpawn: SrtWinSpawn | undefined;

/**
 * The srt-win binary Airlock runs: the one packaged with the pinned
 * sandbox-runtime (unpacked from the app archive). Found at first use, so
 * no other system looks for the package at start.
 */
export function srtWin(): SrtWinSpawn {
  srtWinSpawn ??= { exe: vendoredSrtWinExe(), prependArgs: ['--srt-win'] };
  return srtWinSpawn;
}

/** The one-time install and its undoing, as a person types them (each shows one administrator prompt). */
export const WINDOWS_INSTALL_COMMAND = 'npx --yes @anthropic-ai/sandbox-runtime@0.0.78 windows-install';
export const WINDOWS_UNINSTALL_COMMAND = 'npx --yes @anthropic-ai/sandbox-runtime@0.0.78 windows-uninstall';

/** What the install creates, for doctor and Settings. */
export const WINDOWS_INSTALL_CREATES =
  'a local Windows user "srt-sandbox" (hidden from the sign-in screen), a group "sandbox-runtime-users", that user\'s password (kept with DPAPI under HKLM\\SOFTWARE\\sandbox-runtime), and machine-wide firewall filters that let only that user\'s programs reach ports 60080–60089 on this computer';

/** Under the home folder on Windows, besides the common list. */
export const WINDOWS_SECRET_HOME_PATHS: readonly string[] = [
  'AppData\\Roaming\\Microsoft\\Credentials',
  'AppData\\Local\\Microsoft\\Credentials',
  'AppData\\Roaming\\Microsoft\\Protect',
  'AppData\\Roaming\\Microsoft\\Crypto',
  'AppData\\Roaming\\Microsoft\\Windows\\PowerShell\\PSReadLine',
  'AppData\\Local\\Google\\Chrome\\User Data',
  'AppData\\Local\\Microsoft\\Edge\\User Data',
  'AppData\\Local\\BraveSoftware',
  'AppData\\Roaming\\Mozilla\\Firefox',
  'AppData\\Roaming\\gcloud',
  'AppData\\Roaming\\GitHub CLI',
  'AppData\\Roaming\\Code\\User\\globalStorage',
  'AppData\\Roaming\\npm\\etc\\npmrc',
];

/**
 * How the server is started inside: its executable with its arguments, no
 * shell (srt-win quotes each word); a `.cmd`/`.bat` file, or an executable
 * with no arguments, through `cmd.exe /d /s /c` (srt-win's default shell).
 */
export function innerCommand(command: string, args: readonly string[]): { binShell: { exe: string; args: readonly string[] }; command: string } {
  const batch = /\.(cmd|bat)$/i.test(command);
  if (!batch && args.length > 0) {
    return { binShell: windowsLibrary().parseWindowsBinShell({ exe: command, args: args.slice(0, -1) }), command: args[args.length - 1]! };
  }
  const quote = (word: string) => (/[\s"&|<>^()%!]/.test(word) ? `"${word.replace(/"/g, '""')}"` : word);
  return { binShell: windowsLibrary().parseWindowsBinShell('cmd'), command: [command, ...args].map(quote).join(' ') };
}

/** The Windows plan: `srt-win.exe exec --quiet --deny-read … --deny-write … --env … -- <server>`. */
export function win32Plan(input: PlanInput, helper: SrtWinSpawn = srtWin()): PlatformPlan {
  const home = input.homeDir;
  // Never stamp the home folder itself: the sandbox's user has no access to
  // it anyway, and a deny there would be written into every file below it.
  const denyRead = [...new Set(input.files.readDenied.filter((path) => path !== home))];
  const denyWrite = [...new Set(input.files.protectedExisting)];
  const serverHome = input.env.HOME ?? input.tmpDir;
  // Windows programs find their home and settings folders by these: the server's own, not the shared sandbox user's.
  const env = {
    ...input.env,
    USERPROFILE: serverHome,
    APPDATA: win32.join(serverHome, 'AppData', 'Roaming'),
    LOCALAPPDATA: win32.join(serverHome, 'AppData', 'Local'),
  };
  let wrapped: { argv: string[] };
  try {
    const inner = innerCommand(input.command, input.args);
    wrapped = windowsLibrary().wrapCommandWithSandboxWindows({
      command: inner.command,
      binShell: inner.binShell,
      setEnvVars: env,
      denyRead,
      denyWrite,
      cwd: input.cwd,
      allowWrite: input.files.writeAllowed,
      quiet: true,
      srtWin: helper,
    });
  } catch (error) {
    throw new SandboxInitError(`sandbox-runtime could not build the Windows sandbox's command: ${(error as Error).message}`, { cause: error });
  }
  const [command, ...args] = wrapped.argv;
  if (command !== helper.exe || args[helper.prependArgs.length] !== 'exec' || !args.includes('--')) {
    throw new SandboxInitError('sandbox-runtime produced a Windows command Airlock does not recognise (no `srt-win exec … --`); refusing to start');
  }
  const proxy = input.network.proxy?.kind === 'tcp' ? input.network.proxy : undefined;
  return {
    platform: 'win32',
    backend: win32Backend.mechanism,
    guarantees: win32Guarantees(input.facts),
    files: {
      readDenied: denyRead,
      readAllowed: [...input.files.readAllowed],
      writeAllowed: [...input.files.writeAllowed],
      writeDenied: denyWrite,
    },
    network: {
      ...(proxy ? { endpoint: `127.0.0.1:${proxy.port} (its own proxy, on a port in ${WINDOWS_PROXY_PORT_RANGE[0]}–${WINDOWS_PROXY_PORT_RANGE[1]}, the range the firewall filter permits)` } : {}),
      allowedHosts: [...input.network.allowedHosts],
      questions: input.network.questions,
    },
    limits: (['processes', 'memoryBytes', 'cpuSeconds', 'openFiles'] as const).map((kind) => ({ kind, value: input.limits[kind], applied: false })),
    // srt-win itself runs as you and needs Windows' own variables to start;
    // the server gets only the `--env` overlay above (the package's design).
    launch: { command, args, env: { ...input.helperEnv } },
    notes: WIN32_NOTES,
  };
}

const WIN32_NOTES = [
  "Every sandboxed server runs as the same Windows user (srt-sandbox): one can read what another was granted, and its temporary and data folders.",
  'A grant is given to that user when a server with it starts, and taken back when the last running server that has it stops: meanwhile every sandboxed server can use it.',
  'DNS lookups are not fenced: a server can send data out in the names it looks up.',
  "Its settings and secrets reach it on srt-win's command line, which other programs of your Windows account can read.",
  'No process, memory or CPU limits.',
];

function win32Guarantees(facts: GuaranteeFacts): Guarantee[] {
  void facts;
  return [
    guarantee('home-hidden', 'weaker', "The sandbox's Windows user cannot read your user folder except what is granted — but every sandboxed server is that same user, so each can read what any other was granted."),
    guarantee('credentials-denied', 'weaker', 'The credential paths that exist when it starts are denied to the sandbox’s user (NTFS deny entries), also beneath a grant; one created after it started, beneath a grant, is readable (srt-win can deny only a path that exists).'),
    guarantee('data-folders-hidden', 'weaker', "Airlock's data folders are denied; the other sandboxed servers' temporary and data folders are not (one shared Windows user)."),
    guarantee('writes-only-grants', 'weaker', "Writes only where the sandbox's Windows user was granted — which is every running sandboxed server's write grants together."),
    guarantee('protected-files', 'weaker', 'Only what exists at the top of each write grant when it starts (.git, .envrc, .vscode, …) is write-denied; a file made deeper, or later, is not.'),
    guarantee('network-allowlist', 'weaker', "A firewall filter lets the sandbox's user reach only loopback ports 60080–60089, where its own proxy demands its credential and lets out only its granted hosts — but DNS lookups are not fenced."),
    guarantee('network-questions', 'enforced', 'A host it has no grant for is asked of you, naming the server.'),
    guarantee('ipc-isolation', 'weaker', "A restricted token on a desktop of its own keeps it from your programs' windows and pipes, but every sandboxed server shares one Windows user with the others."),
    guarantee('privilege', 'enforced', 'A restricted token at medium integrity with its privileges removed, as a user that is not you.'),
    guarantee('resource-limits', 'not enforced', 'srt-win sets no process, memory or CPU limits (its job object only ends every process it started when the server stops).'),
    guarantee('violation-reporting', 'weaker', "Its proxy's refusals are in the audit log; srt-win reports no file refusals — the server sees access denied."),
  ];
}

/** The last "ready" answer per probe: the check runs srt-win, and support() is asked at every start. */
const readyFor = new WeakMap<CapabilityProbe, SandboxSupport>();

function win32Support(probe: CapabilityProbe, check: { fresh?: boolean } = {}): SandboxSupport {
  const cached = check.fresh ? undefined : readyFor.get(probe);
  if (cached) return cached;
  const answer = win32SupportNow(probe);
  if (answer.supported) readyFor.set(probe, answer);
  else readyFor.delete(probe);
  return answer;
}

function win32SupportNow(probe: CapabilityProbe): SandboxSupport {
  const undo = `It creates ${WINDOWS_INSTALL_CREATES}; the command ${WINDOWS_UNINSTALL_COMMAND} removes it all again.`;
  if (!existsSync(srtWin().exe)) {
    return {
      supported: false,
      platform: 'win32',
      missing: ['srt-win.exe'],
      fix: 'reinstall Airlock (its sandbox helper srt-win.exe is missing from this installation)',
      summary: `The sandbox cannot run: its helper ${srtWin().exe} is missing. Servers will not start until it is there.`,
    };
  }
  let status: WindowsSandboxState;
  try {
    status = probe.windowsSandboxStatus ? probe.windowsSandboxStatus() : windowsLibrary().checkWindowsSandboxStatus({ srtWin: srtWin() });
  } catch (error) {
    return {
      supported: false,
      platform: 'win32',
      missing: ['srt-win'],
      fix: WINDOWS_INSTALL_COMMAND,
      summary: `The sandbox cannot run: srt-win could not report its state (${(error as Error).message}). Servers will not start. Running the one-time install may fix it. ${undo}`,
    };
  }
  const missing: string[] = [];
  if (!status.user.provisioned || !status.user.sid) missing.push('the sandbox user (srt-sandbox)');
  if (!status.user.credPresent) missing.push("the sandbox user's password");
  if (status.wfp.state === 'absent') missing.push('the firewall filters');
  if (missing.length > 0) {
    return {
      supported: false,
      platform: 'win32',
      missing,
      fix: WINDOWS_INSTALL_COMMAND,
      summary: `The sandbox needs a one-time install (one administrator prompt): ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing. Servers will not start until it is done. ${undo}`,
    };
  }
  return {
    supported: true,
    platform: 'win32',
    missing: [],
    summary: `The sandbox is ready (srt-win, alpha: the sandbox user is installed, and its firewall filters ${status.wfp.state === 'installed' ? 'are installed' : 'are there unless srt-win says otherwise (reading them needs administrator rights)'}; the filters are tested before the first server starts). Not yet verified on a real Windows machine by Airlock's own tests. ${undo}`,
  };
}

/** Runs one system tool to its end (a stand-in in tests: taskkill exists only on Windows). */
export type RunTool = (file: string, args: readonly string[]) => void;

const runTool: RunTool = (file, args) => {
  // Synchronous on purpose: while it runs, the event loop cannot take the exit of the process
  // being ended, so its handle stays open and its pid cannot be given to another process.
  spawnSync(file, [...args], { stdio: 'ignore', windowsHide: true, shell: false, timeout: 10_000 });
};

/**
 * Ends a server started here, and everything it started: `taskkill /PID
 * <pid> /T /F` (Windows' own, from its system folder, never from PATH) ends
 * srt-win and the processes it started that this user may end; srt-win's
 * job object is kill-on-close, so srt-win's end ends every process in the
 * sandbox (they run as the sandbox's user). Returns the command it ran.
 */
export function endWindowsProcessTree(pid: number, env: NodeJS.ProcessEnv, run: RunTool = runTool): string[] {
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new RangeError(`not a process id: ${pid}`);
  const systemRoot = env.SystemRoot ?? env.SYSTEMROOT ?? 'C:\\Windows';
  const command = [win32.join(systemRoot, 'System32', 'taskkill.exe'), '/PID', String(pid), '/T', '/F'];
  run(command[0]!, command.slice(1));
  return command;
}

/** The Windows backend. */
export const win32Backend: PlatformBackend = {
  platform: 'win32',
  mechanism: 'srt-win (sandbox-runtime, alpha)',
  verifiedOnRealMachine: false,
  proxyTransport: { kind: 'tcp', portRange: WINDOWS_PROXY_PORT_RANGE },
  unenforcedLimits: () => ({
    processes: 'Not set on Windows: srt-win sets no process limit.',
    memoryBytes: 'Not set on Windows: srt-win sets no memory limit.',
    cpuSeconds: 'Not set on Windows: srt-win sets no CPU limit.',
    openFiles: 'Not set on Windows: srt-win sets no limit on open files.',
  }),
  scratchFolders: [],
  support: win32Support,
  guarantees: win32Guarantees,
  secretPaths: (homeDir) => [
    ...new Set([...SECRET_HOME_PATHS.map((rel) => win32.join(homeDir, ...rel.split('/'))), ...WINDOWS_SECRET_HOME_PATHS.map((rel) => win32.join(homeDir, rel))]),
  ],
  endProcessTree: (pid, env) => void endWindowsProcessTree(pid, env),
  executableExtensions: (env) => (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean),
  // %TEMP% is the user's own (its access list, not mode bits, keeps it private).
  isPrivateFolder: (info) => info.isDirectory(),
  plan: (input) => win32Plan(input),
  openSession: (options) => new Win32Session(options, { plan: (input) => win32Plan(input), srtWin: srtWin(), portRange: WINDOWS_PROXY_PORT_RANGE }),
};
