/**
 * The Linux backend: bubblewrap + seccomp + Airlock's per-server proxy.
 * The launch's effects (pinning the tools, the trusted files, sandbox-
 * runtime's mounts) are in linux-launch.ts; this file holds what the
 * backend says — the capability check, the guarantees, and the plan as
 * data for `airlock show --sandbox-plan` (the exact bubblewrap argv is
 * computed at each start: sandbox-runtime resolves the mounts on the
 * machine, and placeholders are made for the files it protects).
 */
import type { Stats } from 'node:fs';
import type { SandboxSupport } from '../../../../shared/domain';
import { findSandboxTool, type CapabilityProbe } from '../executables';
import { secretPathsUnder } from '../profiles';
import { TRUSTED_NAMES } from '../trusted-files';
import { guarantee, type Guarantee, type GuaranteeFacts, type PlanInput, type PlatformBackend, type PlatformPlan } from './backend';
import { LinuxSession, prlimitArgs, PROXY_BRIDGE_SCRIPT, SANDBOX_PROXY_PORT, SECCOMP_FD_SCRIPT } from './linux-launch';

/**
 * What the sandbox needs on Linux: bubblewrap isolates the filesystem and
 * network namespace; socat bridges the granted network proxy into it;
 * ripgrep finds files to protect; prlimit (util-linux) sets each server's
 * resource limits.
 */
const LINUX_TOOLS = ['bwrap', 'socat', 'rg', 'prlimit'];
const DEBIAN_PACKAGE: Record<string, string> = { bwrap: 'bubblewrap', socat: 'socat', rg: 'ripgrep', prlimit: 'util-linux' };

function linuxSupport(probe: CapabilityProbe): SandboxSupport {
  const missing = LINUX_TOOLS.filter((tool) => !findSandboxTool(tool, probe));
  if (missing.length === 0) {
    return { supported: true, platform: 'linux', missing: [], summary: `The sandbox is ready (${LINUX_TOOLS.join(', ')} found).` };
  }
  return {
    supported: false,
    platform: 'linux',
    missing,
    fix: `sudo apt-get install -y ${missing.map((tool) => DEBIAN_PACKAGE[tool] ?? tool).join(' ')}`,
    summary: `The sandbox cannot run: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing. Servers will not start until ${missing.length === 1 ? 'it is' : 'they are'} installed.`,
  };
}

function linuxGuarantees(facts: GuaranteeFacts): Guarantee[] {
  return [
    guarantee('home-hidden', 'enforced', 'The home folder is replaced by an empty one; only its grants, its own code and its runtime are put back.'),
    guarantee('credentials-denied', 'enforced', "~/.ssh, ~/.aws, keyrings, browser profiles, shell history, the rest of the list and the system's own secrets stay hidden, also beneath a grant."),
    guarantee('data-folders-hidden', 'enforced', "Every Airlock data folder of yours and the other servers' temporary folders are hidden."),
    guarantee('writes-only-grants', 'enforced', 'Everything is read-only except its temporary folder, its write grants and its data folder.'),
    guarantee('protected-files', 'enforced', 'Inside a write grant, .git, .envrc, .vscode, shell start-up files and the rest are read-only where they exist, placeholders stop them being made at the top, and one made deeper is moved aside as soon as it appears.'),
    guarantee('network-allowlist', 'enforced', 'Its network namespace has no route out; its only path is its own proxy (a socket only its sandbox sees), which lets out only its granted hosts.'),
    guarantee('network-questions', 'enforced', 'A host it has no grant for is asked of you, naming the server.'),
    guarantee('ipc-isolation', 'enforced', 'Its own IPC namespace (System V, POSIX message queues) and network namespace; it cannot open new Unix sockets.'),
    guarantee(
      'privilege',
      'enforced',
      `No capabilities, no new privileges; a filter refuses setuid/setgid bits and file capabilities${facts.runningAsRoot ? '; Airlock runs as root, so the server runs as nobody' : ''}.`,
    ),
    facts.runningAsRoot
      ? guarantee('resource-limits', 'weaker', 'Processes, memory, CPU time and open files are limited — except the process count: Airlock runs as root, and Linux does not apply that limit to root.')
      : guarantee('resource-limits', 'enforced', 'Processes, memory, CPU time and open files are limited (rlimits, for the server and everything it starts).'),
    guarantee('violation-reporting', 'weaker', "Its proxy's refusals are in the audit log; Linux reports no stream of file refusals — the server sees EROFS or EACCES."),
  ];
}

/** Where the shown Linux launch has bubblewrap's mount options (made at each start). */
export const SHOWN_MOUNTS = "«bubblewrap's mounts, made at start»";

/** The plan as data: the rules, and the launch's shape (the exact argv is made at each start). */
function linuxPlan(input: PlanInput): PlatformPlan {
  const proxy = input.network.proxy?.kind === 'unix-socket' ? input.network.proxy : undefined;
  const server = ['prlimit', ...prlimitArgs(input.limits), '--', 'apply-seccomp', input.command, ...input.args];
  return {
    platform: 'linux',
    backend: linuxBackend.mechanism,
    guarantees: linuxGuarantees(input.facts),
    files: {
      readDenied: [...input.files.readDenied],
      readAllowed: [...input.files.readAllowed],
      writeAllowed: [...input.files.writeAllowed],
      writeDenied: input.files.protectedRoots.flatMap((root) => [...TRUSTED_NAMES].map((name) => `${root}/**/${name}`)),
    },
    network: {
      ...(proxy ? { endpoint: `127.0.0.1:${SANDBOX_PROXY_PORT} inside its own network namespace → its own proxy` } : {}),
      allowedHosts: [...input.network.allowedHosts],
      questions: input.network.questions,
    },
    limits: [
      { kind: 'processes', value: input.limits.processes, applied: !input.facts.runningAsRoot },
      { kind: 'memoryBytes', value: input.limits.memoryBytes, applied: true },
      { kind: 'cpuSeconds', value: input.limits.cpuSeconds, applied: true },
      { kind: 'openFiles', value: input.limits.openFiles, applied: true },
    ],
    launch: {
      command: '/bin/sh',
      args: [
        '-c',
        SECCOMP_FD_SCRIPT,
        'airlock-sandbox',
        'privilege.bpf',
        'bwrap',
        SHOWN_MOUNTS,
        '--cap-drop',
        'ALL',
        '--unshare-ipc',
        '--mqueue',
        '/dev/mqueue',
        '--seccomp',
        '3',
        '--',
        ...(proxy ? ['/bin/sh', '-c', PROXY_BRIDGE_SCRIPT, 'airlock-net', 'socat', proxy.socketPath] : []),
        ...server,
      ],
      env: input.env,
    },
    notes: [],
    atStart: [
      "bubblewrap's mount options: sandbox-runtime makes them at each start from the file rules above, as the paths are on this machine then (a folder that does not exist yet is hidden differently), and the trusted files inside each write grant that exist then are held read-only — so the exact list is known only at start.",
      'the full paths of bwrap, socat, prlimit and apply-seccomp (found on PATH at the first start, then kept), of the privilege filter (privilege.bpf, in the launch\'s folder), and the launch\'s folder names (shown with XXXXXX).',
    ],
  };
}

/** The Linux backend. */
export const linuxBackend: PlatformBackend = {
  platform: 'linux',
  mechanism: 'bubblewrap + seccomp (through sandbox-runtime)',
  verifiedOnRealMachine: true,
  proxyTransport: { kind: 'unix-socket' },
  unenforcedLimits: (facts) =>
    facts.runningAsRoot
      ? {
          processes:
            'Does not hold here: Airlock runs as root, and Linux does not apply the process limit to processes that are root outside their sandbox. Run Airlock as a normal user for it to hold.',
        }
      : {},
  scratchFolders: ['/tmp/claude'],
  support: linuxSupport,
  guarantees: linuxGuarantees,
  secretPaths: secretPathsUnder,
  executableExtensions: () => [],
  isPrivateFolder: (info: Stats, uid: number | undefined) => info.isDirectory() && (uid === undefined || info.uid === uid) && (info.mode & 0o077) === 0,
  plan: linuxPlan,
  openSession: (options) => new LinuxSession(options),
};
