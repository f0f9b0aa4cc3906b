/**
 * The macOS backend: Seatbelt (`/usr/bin/sandbox-exec`) with the profile
 * sandbox-runtime 0.0.78's macOS utilities generate
 * (`wrapCommandWithSandboxMacOS`, a deep import of the pinned version: it is
 * not in the package's index), plus a short section of Airlock's own,
 * appended last and deny-only.
 *
 * What the profile holds, wherever Seatbelt can express what Linux does:
 * - `(deny default)`; reads allowed, then the home folder, every credential
 *   path, every Airlock data folder and the other servers' runtime folders
 *   denied, then grants, the server's own code and runtime and its own
 *   writable folders put back, then the credential paths beneath those
 *   denied again (the package re-emits nested denies after the allows);
 * - writes only to its temp folder, its write grants and its data folder;
 * - the files host tools run or trust, inside each write grant, denied by
 *   name anywhere below it — also before they exist (Airlock's section:
 *   the package anchors its own list at the *host's* working directory,
 *   so it would protect Airlock's folder, not the grant) — except where the
 *   person let this server change them (`writeTrusted`, `require-not`);
 * - no setuid or setgid bit on anything it writes (Airlock's section);
 * - network: only `localhost:<port>` of this server's own proxy, which
 *   demands its credential (loopback-proxy.ts); no proxy, no network.
 *
 * Seatbelt has no resource limits: a fixed `/bin/sh` script inside the
 * sandbox sets them with `ulimit`, then `exec`s the server. The server's
 * environment is Airlock's (built from nothing), with a temp folder of its
 * own; the package's `env … TMPDIR=/tmp/claude` prefix (shared by every
 * process it sandboxes) is dropped.
 *
 * `darwinPlan` is pure (it runs on Linux too: the tests evaluate its
 * profile); the launch and the violation monitor are in the launcher and
 * darwin-violations.ts.
 */
import { accessSync, constants } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { SandboxSupport } from '../../../../shared/domain';
import { splitQuotedWords } from '../bwrap-argv';
import { findExecutable, type CapabilityProbe } from '../executables';
import { SandboxInitError, SandboxProfileError } from '../errors';
import { SECRET_HOME_PATHS, sshHostKeys } from '../profiles';
import { TRUSTED_NAMES } from '../trusted-files';
import { macosLibrary } from './darwin-library';
import { DarwinSession } from './darwin-session';
import { guarantee, type Guarantee, type GuaranteeFacts, type PlanInput, type PlatformBackend, type PlatformPlan } from './backend';

/** Where macOS keeps sandbox-exec; sandbox-runtime runs exactly this one. */
export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';
/** The shell that sets the limits inside the sandbox, then becomes the server. */
const SHELL = '/bin/sh';
const PLACEHOLDER = 'airlock-server-command';

/**
 * Sets the limits, then becomes the server: the only words it reads are its
 * own arguments (`$@`). Open files and data size as on Linux; CPU time with
 * the hard limit ten seconds above the soft one (SIGXCPU, then SIGKILL).
 * The process count is not set: macOS counts every process of the user
 * against it, not this server's.
 */
export function darwinLimitsScript(limits: PlanInput['limits']): string {
  const kilobytes = Math.max(1, Math.floor(limits.memoryBytes / 1024));
  return [
    `ulimit -n ${limits.openFiles}`,
    `ulimit -d ${kilobytes}`,
    `ulimit -H -t ${limits.cpuSeconds + 10}`,
    `ulimit -S -t ${limits.cpuSeconds}`,
    'exec "$@"',
  ].join(' && ');
}

/** Under the home folder on macOS, besides the common list: what only a Mac has. */
export const DARWIN_SECRET_HOME_PATHS: readonly string[] = [
  'Library/Application Support/Code/User/globalStorage',
  'Library/Application Support/com.apple.TCC',
  'Library/Group Containers',
  'Library/Mail',
  'Library/Messages',
  'Library/Application Support/1Password',
];

/** The system's secrets on macOS (they matter when Airlock runs as root). */
export const DARWIN_SYSTEM_SECRET_PATHS: readonly string[] = ['/private/etc/master.passwd', '/private/var/db/dslocal', '/Library/Keychains', '/private/var/root'];

/**
 * Names inside a write grant a server may not create, change, rename or
 * remove, at any depth: what host tools run or trust (trusted-files.ts),
 * plus `HEAD` — a folder with a `HEAD` file is a repository to git (a bare
 * one), whose config git obeys.
 */
export const DARWIN_PROTECTED_NAMES: readonly string[] = [...TRUSTED_NAMES, 'HEAD'];

/** sandbox-exec refuses a string literal over 1,025 bytes (sandbox-runtime keeps under 900). */
const SBPL_STRING_MAX_BYTES = 900;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** An SBPL string, as sandbox-runtime writes them (JSON's escaping). */
function sbplString(text: string): string {
  return JSON.stringify(text);
}

/**
 * Airlock's section of the profile, appended after everything the package
 * emits, deny-only: the protected names in each write grant (minus the
 * person's exemptions) and no setuid/setgid bits. `file-write-create` and
 * `file-write-unlink` are named as well as `file-write*`: the package
 * re-allows those two for every write root, and Seatbelt consults an
 * operation's own rules before its wildcard's.
 */
export function airlockSection(input: Pick<PlanInput['files'], 'protectedRoots' | 'protectedExempt'>, logTag: string): string {
  const filters: string[] = [];
  const names = DARWIN_PROTECTED_NAMES.map(escapeRegex);
  for (const root of input.protectedRoots) {
    const prefix = `^${escapeRegex(root)}/(.*/)?(`;
    const tail = ')(/.*)?$';
    if (Buffer.byteLength(sbplString(prefix + names[0]! + tail)) > SBPL_STRING_MAX_BYTES) {
      throw new SandboxProfileError(`The write grant ${root} is too long a path for macOS's sandbox profile; grant a folder with a shorter path.`);
    }
    const exempt = input.protectedExempt.filter((path) => path === root || path.startsWith(`${root}/`));
    // Chunk the names so no regex goes over sandbox-exec's limit.
    let chunk: string[] = [];
    const flush = () => {
      if (chunk.length === 0) return;
      const regex = `(regex ${sbplString(prefix + chunk.join('|') + tail)})`;
      filters.push(exempt.length ? `(require-all ${regex} ${exempt.map((path) => `(require-not (subpath ${sbplString(path)}))`).join(' ')})` : regex);
      chunk = [];
    };
    for (const name of names) {
      if (chunk.length && Buffer.byteLength(sbplString(prefix + [...chunk, name].join('|') + tail)) > SBPL_STRING_MAX_BYTES) flush();
      chunk.push(name);
    }
    flush();
  }
  const lines = ['', '; Airlock: files host tools run or trust, inside write grants (denied by name, also before they exist)'];
  if (filters.length) {
    lines.push('(deny file-write* file-write-create file-write-unlink', ...filters.map((filter) => `  ${filter}`), `  (with message ${sbplString(logTag)}))`);
  }
  lines.push('; Airlock: no setuid or setgid bit on anything it writes', `(deny file-write-setugid (with message ${sbplString(logTag)}))`);
  return lines.join('\n');
}

/** The attribution key in this launch's profile (`log stream` reports it back): names the server and the launch. */
export function darwinCommandId(input: Pick<PlanInput, 'serverName' | 'launchDir'>): string {
  // The launch's folder (`<server>-<random>`, the writable folder's parent) is unique per launch.
  return `airlock ${basename(dirname(input.launchDir))}`.slice(0, 100);
}

/**
 * The Seatbelt profile sandbox-runtime generates for this input, taken out
 * of its `env … /usr/bin/sandbox-exec -p '<profile>' <shell> -c <cmd>`
 * string; anything else there means the package changed, and the launch is
 * refused rather than guessed.
 */
export function packageProfile(input: PlanInput, readAllowed: string[]): { profile: string; logTag: string } {
  let wrapped: string;
  try {
    wrapped = macosLibrary().wrapCommandWithSandboxMacOS({
      command: PLACEHOLDER,
      commandId: darwinCommandId(input),
      needsNetworkRestriction: true,
      ...(input.network.proxy?.kind === 'tcp' ? { httpProxyPort: input.network.proxy.port } : {}),
      readConfig: { denyOnly: input.files.readDenied, allowWithinDeny: readAllowed },
      writeConfig: { allowOnly: input.files.writeAllowed, denyWithinAllow: [] },
      allowPty: false,
      allowGitConfig: false,
      binShell: SHELL,
    });
  } catch (error) {
    throw new SandboxInitError(`sandbox-runtime could not make the macOS sandbox profile: ${(error as Error).message}`, { cause: error });
  }
  const words = splitQuotedWords(wrapped);
  const at = words.indexOf(SANDBOX_EXEC);
  const tail = words.slice(at + 3);
  if (words[0] !== 'env' || at < 0 || words[at + 1] !== '-p' || tail.length !== 3 || tail[1] !== '-c' || tail[2] !== PLACEHOLDER) {
    throw new SandboxInitError('sandbox-runtime produced a macOS command Airlock does not recognise (no `sandbox-exec -p <profile> <shell> -c`); refusing to start');
  }
  const profile = words[at + 2]!;
  const logTag = /^; LogTag: (\S+)$/m.exec(profile)?.[1];
  // SECURITY (invariant 5): whatever the package's output, these must hold.
  if (!profile.startsWith('(version 1)') || !/^\(deny default /m.test(profile) || !logTag) {
    throw new SandboxInitError("sandbox-runtime's macOS profile does not start with `(deny default)`; refusing to start");
  }
  if (/^\(allow network\*\)/m.test(profile)) throw new SandboxInitError("sandbox-runtime's macOS profile allows all network; refusing to start");
  return { profile, logTag };
}

/** The macOS plan: the profile, evaluated in tests; the launch `sandbox-exec -p <profile> /bin/sh -c <limits> … <command> <args…>`. */
export function darwinPlan(input: PlanInput): PlatformPlan {
  // Seatbelt separates reads from writes: the places it may write must be readable too.
  const readAllowed = [...new Set([...input.files.readAllowed, ...input.files.writeAllowed])];
  const { profile, logTag } = packageProfile(input, readAllowed);
  const profileText = `${profile}\n${airlockSection(input.files, logTag)}\n`;
  const proxy = input.network.proxy?.kind === 'tcp' ? input.network.proxy : undefined;
  const writeDenied = input.files.protectedRoots.flatMap((root) => {
    const exempt = input.files.protectedExempt.filter((path) => path === root || path.startsWith(`${root}/`));
    const except = exempt.length ? ` (except under ${exempt.join(', ')})` : '';
    return DARWIN_PROTECTED_NAMES.map((name) => `${root}/**/${name}${except}`);
  });
  return {
    platform: 'darwin',
    backend: darwinBackend.mechanism,
    guarantees: darwinGuarantees(input.facts),
    files: { readDenied: [...input.files.readDenied], readAllowed, writeAllowed: [...input.files.writeAllowed], writeDenied },
    network: {
      ...(proxy ? { endpoint: `127.0.0.1:${proxy.port} (its own proxy; the only address the profile lets it connect to)` } : {}),
      allowedHosts: [...input.network.allowedHosts],
      questions: input.network.questions,
    },
    limits: [
      { kind: 'openFiles', value: input.limits.openFiles, applied: true },
      { kind: 'memoryBytes', value: input.limits.memoryBytes, applied: true },
      { kind: 'cpuSeconds', value: input.limits.cpuSeconds, applied: true },
      { kind: 'processes', value: input.limits.processes, applied: false },
    ],
    launch: { command: SANDBOX_EXEC, args: ['-p', profileText, SHELL, '-c', darwinLimitsScript(input.limits), 'airlock-limits', input.command, ...input.args], env: input.env },
    profileText,
    notes: DARWIN_NOTES,
  };
}

const DARWIN_NOTES = [
  'Seatbelt has no namespaces: the server shares your user, the process table and POSIX shared memory with your other programs.',
  'The names of folders under your home folder can be tested with stat (not listed or read).',
  'macOS does not apply the memory limit to most allocations, and the process count is not limited.',
];

function darwinGuarantees(facts: GuaranteeFacts): Guarantee[] {
  void facts;
  return [
    guarantee('home-hidden', 'weaker', 'Reading your home folder is refused except its grants, its own code and its runtime — but folder names in it can still be tested with stat (Seatbelt lets every directory be looked up so paths resolve); their contents cannot be listed or read.'),
    guarantee('credentials-denied', 'enforced', '~/.ssh, ~/.aws, keychains, browser profiles and the rest of the list are refused, also beneath a grant (the denies are repeated after the allows).'),
    guarantee('data-folders-hidden', 'enforced', "Every Airlock data folder of yours and the other servers' temporary folders are refused."),
    guarantee('writes-only-grants', 'enforced', 'The profile denies every write except its temporary folder, its write grants and its data folder.'),
    guarantee('protected-files', 'enforced', 'Inside a write grant, .git, .envrc, .vscode, shell start-up files and the rest are refused by name at any depth — also ones that do not exist yet — unless you let this server change them.'),
    guarantee('network-allowlist', 'enforced', "The profile lets the server connect only to its own proxy's loopback port; the proxy demands this server's credential and lets out only its granted hosts."),
    guarantee('network-questions', 'enforced', 'A host it has no grant for is asked of you, naming the server, as on Linux.'),
    guarantee('ipc-isolation', 'weaker', 'Unix sockets and System V IPC are refused and only a fixed list of system services can be looked up, but POSIX shared memory and semaphores are open to every program of yours (Seatbelt has no IPC namespace).'),
    guarantee('privilege', 'weaker', 'Setting setuid or setgid bits is refused, but macOS has no "no new privileges": the server can run the system’s setuid programs (they stay inside the sandbox).'),
    guarantee('resource-limits', 'weaker', 'Open files, CPU time and memory are set with ulimit before the server starts; macOS does not enforce the memory limit for most allocations, and the process count is not limited (macOS counts every process of your user).'),
    guarantee('violation-reporting', 'weaker', "The refusals Seatbelt logs for this server (read from `log stream`) go to its log and the audit log, as do its proxy's refusals — but only while `log stream` runs: if it cannot start, the server's log says so and Seatbelt's refusals are not reported."),
  ];
}

/** sandbox-exec, where sandbox-runtime runs it from; `which` (the package looks the shell up with it). */
function darwinSupport(probe: CapabilityProbe): SandboxSupport {
  const missing: string[] = [];
  try {
    accessSync(SANDBOX_EXEC, constants.X_OK);
  } catch {
    missing.push('sandbox-exec');
  }
  if (!findExecutable('which', probe.pathEnv)) missing.push('which');
  if (missing.length === 0) {
    return { supported: true, platform: 'darwin', missing: [], summary: 'The sandbox is ready (Seatbelt: /usr/bin/sandbox-exec found). Not yet verified on a real Mac by Airlock’s own tests.' };
  }
  return {
    supported: false,
    platform: 'darwin',
    missing,
    fix: missing.includes('sandbox-exec')
      ? 'sandbox-exec ships with macOS at /usr/bin/sandbox-exec; if it is missing, this macOS is damaged or too new for it — reinstall macOS, or allow one server to run unsandboxed'
      : 'put /usr/bin on the PATH Airlock starts with',
    summary: `The sandbox cannot run: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing. Servers will not start until ${missing.length === 1 ? 'it is' : 'they are'} there.`,
  };
}

/** The macOS backend. */
export const darwinBackend: PlatformBackend = {
  platform: 'darwin',
  mechanism: 'Seatbelt (sandbox-exec, through sandbox-runtime)',
  verifiedOnRealMachine: false,
  proxyTransport: { kind: 'tcp' },
  support: darwinSupport,
  guarantees: darwinGuarantees,
  secretPaths(homeDir) {
    return [...new Set([...[...SECRET_HOME_PATHS, ...DARWIN_SECRET_HOME_PATHS].map((rel) => `${homeDir}/${rel}`), ...DARWIN_SYSTEM_SECRET_PATHS, ...sshHostKeys('/private/etc/ssh')])];
  },
  unenforcedLimits: () => ({
    processes: 'Not set on macOS: it counts every process of your user, not only this server\'s, so the limit would stop your other programs too.',
    memoryBytes: 'Set, but macOS does not enforce it for most of the memory a program allocates.',
  }),
  scratchFolders: ['/tmp/claude', '/private/tmp/claude'],
  executableExtensions: () => [],
  isPrivateFolder: (info, uid) => info.isDirectory() && (uid === undefined || info.uid === uid) && (info.mode & 0o077) === 0,
  plan: darwinPlan,
  openSession: (options) => new DarwinSession(options, { plan: darwinPlan, commandId: darwinCommandId }),
};
