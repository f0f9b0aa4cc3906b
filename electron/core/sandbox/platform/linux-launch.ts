/**
 * The Linux launch's effects: bubblewrap, with sandbox-runtime (ASRT 0.0.78,
 * pinned) doing the hard part — the filesystem mounts (read denies, write
 * grants, pins against rename tricks) — and Airlock doing the rest: no
 * shell in front of the server, its own per-server network proxy bridged in
 * with socat, the files host tools trust protected (trusted-files.ts), no
 * capabilities, its own IPC namespace, a privilege filter
 * (seccomp-filter.ts) and rlimits.
 *
 * Shape of a sandboxed plan:
 *
 *   /bin/sh -c 'exec 3<"$1"; shift; exec "$@"' airlock-sandbox privilege.bpf \
 *     bwrap <ASRT's mounts> <Airlock's mounts> --cap-drop ALL [--uid/--gid nobody] \
 *       --unshare-ipc --mqueue /dev/mqueue --seccomp 3 -- \
 *       prlimit <limits> -- apply-seccomp <command> <args…>
 *
 * (the fixed script only opens the filter for bwrap and becomes it), or, for
 * a server with a network proxy, `… -- /bin/sh -c 'socat … & exec "$@"' …
 * prlimit … apply-seccomp <command> <args…>` inside the sandbox.
 *
 * ASRT's `initialize()` is deliberately not called: it would start the shared
 * network proxy (which cannot tell servers apart) and install SIGINT/SIGTERM
 * handlers in Airlock's process. The library's dependency check is run
 * instead and its configuration is set with `updateConfig()`; every wrap
 * passes the server's own filesystem rules.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';

// sandbox-runtime is loaded for the first launch, not when Airlock starts (most commands start no server).
type SandboxRuntime = typeof import('@anthropic-ai/sandbox-runtime');
let runtimeLibrary: SandboxRuntime | undefined;
async function sandboxRuntime(): Promise<SandboxRuntime> {
  runtimeLibrary ??= await import('@anthropic-ai/sandbox-runtime');
  return runtimeLibrary;
}
import { keepOnlyGrantedWrites, parseWrappedCommand, type BwrapInvocation } from '../bwrap-argv';
import { SandboxInitError } from '../errors';
import { findExecutable, findSandboxTool, type CapabilityProbe } from '../executables';
import type { ResourceLimits } from '../launcher';
import { LAUNCH_RECORD, placeholdersInUse, type LaunchRecord } from '../runtime-sweep';
import { privilegeFilterBytes } from '../seccomp-filter';
import { heldNote, isStillPlaceholder, planTrustedFiles, removePlaceholder, sweepGrants, TrustedFilesWatcher, type Placeholder, type TrustedFilesPlan } from '../trusted-files';
import type { BackendSession, LaunchRequest, SessionOptions, StartedLaunch } from './backend';

/** The TCP port the in-sandbox bridge listens on (each server has its own network namespace). */
export const SANDBOX_PROXY_PORT = 3128;
const PLACEHOLDER = 'airlock-server-command';
const SHELL = '/bin/sh';
/** Devices ASRT binds writable that a server may keep. */
const WRITABLE_DEVICES = ['/dev/stdout', '/dev/stderr', '/dev/null', '/dev/tty'];

/**
 * The uid and gid a server runs as inside the sandbox when Airlock runs as
 * root (`nobody`): the sandbox's user then holds no capability at all, and
 * sandbox-runtime's seccomp helper no longer needs CAP_SETFCAP to map it.
 */
export const SANDBOX_UNPRIVILEGED_ID = 65534;

/**
 * Opens the privilege filter as fd 3 for bubblewrap (`--seccomp 3`), then
 * becomes bubblewrap: a fixed script, the only words it reads are its own
 * arguments, and no shell stays in the process tree.
 */
export const SECCOMP_FD_SCRIPT = 'exec 3<"$1" || exit 126; shift; exec "$@"';

/**
 * Inside the sandbox, with a network proxy: socat bridges 127.0.0.1:3128 to
 * the proxy's socket (it must start before seccomp: it opens the Unix
 * socket), then the server replaces the shell, so no shell stays around.
 */
export const PROXY_BRIDGE_SCRIPT = `"$1" TCP-LISTEN:${SANDBOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr "UNIX-CONNECT:$2" >/dev/null 2>&1 & shift 2; exec "$@"`;
const SECCOMP_FD = '3';

/** The tools a Linux launch runs, pinned at the first launch. */
export interface LinuxTools {
  bwrap: string;
  socat: string;
  rg: string;
  prlimit: string;
}

/** Drops every `--cap-add <cap>` pair from bubblewrap's options. */
export function withoutCapabilityAdds(options: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < options.length; i += 1) {
    if (options[i] === '--cap-add') {
      i += 1;
      continue;
    }
    out.push(options[i]!);
  }
  return out;
}

/**
 * prlimit's options for the limits: soft and hard the same, except CPU time,
 * whose soft limit sends SIGXCPU ten seconds before the hard one kills.
 */
export function prlimitArgs(limits: ResourceLimits): string[] {
  return [
    `--nproc=${limits.processes}`,
    `--nofile=${limits.openFiles}`,
    `--data=${limits.memoryBytes}`,
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 10}`,
  ];
}

/**
 * The argv of a Linux launch from the library's mounts (pure): Airlock's
 * mounts added, capabilities dropped, the musts checked, IPC unshared, the
 * privilege filter, read-denied folders read-only, limits, and the proxy
 * bridge when the server has one. Throws `SandboxInitError` when the
 * library's output lacks something that must hold.
 */
export function assembleBwrapArgv(input: {
  invocation: BwrapInvocation;
  writeRoots: readonly string[];
  trustedMounts: readonly string[];
  tools: Pick<LinuxTools, 'bwrap' | 'socat' | 'prlimit'>;
  filterPath: string;
  proxySocketPath?: string;
  limits: ResourceLimits;
  command: string;
  args: readonly string[];
  runningAsRoot: boolean;
}): { command: string; args: string[] } {
  const { options: granted } = keepOnlyGrantedWrites(input.invocation.options, [...input.writeRoots], WRITABLE_DEVICES);
  // SECURITY (invariant 5): the server holds no capability, not even the
  // CAP_SETFCAP the library keeps for a root caller (with it, and the
  // sandbox's root mapped to real root, a server could write file
  // capabilities any local user then runs with).
  const bwrapOptions = [...withoutCapabilityAdds(granted), ...input.trustedMounts];
  // SECURITY (invariant 5): whatever the library's output, these must hold.
  for (const flag of ['--unshare-net', '--unshare-pid', '--unshare-user', '--die-with-parent', '--new-session', '--cap-drop']) {
    if (!bwrapOptions.includes(flag)) throw new SandboxInitError(`sandbox-runtime's profile lacks ${flag}; refusing to start`);
  }
  if (bwrapOptions[bwrapOptions.indexOf('--cap-drop') + 1] !== 'ALL') {
    throw new SandboxInitError("sandbox-runtime's profile does not drop every capability; refusing to start");
  }
  // SECURITY (invariant 5): a root Airlock's servers are not root inside
  // either; System V IPC and POSIX message queues are the sandbox's own
  // (no channel to the host or another server); the privilege filter is
  // loaded last, just before the command runs.
  if (input.runningAsRoot) {
    bwrapOptions.push('--uid', String(SANDBOX_UNPRIVILEGED_ID), '--gid', String(SANDBOX_UNPRIVILEGED_ID));
  }
  bwrapOptions.push('--unshare-ipc', '--mqueue', '/dev/mqueue', '--seccomp', SECCOMP_FD);
  // The library hides a read-denied folder under a tmpfs, which the
  // server could write (in memory). Make each one read-only, so writes
  // outside the grants fail with EROFS everywhere. Non-recursive: the
  // write grants bound inside those folders stay writable.
  const remountReadOnly: string[] = [];
  for (let i = 0; i < bwrapOptions.length - 1; i += 1) {
    if (bwrapOptions[i] === '--tmpfs') remountReadOnly.push('--remount-ro', bwrapOptions[i + 1]!);
  }
  bwrapOptions.push(...remountReadOnly);
  const server = [input.tools.prlimit, ...prlimitArgs(input.limits), '--', input.invocation.applySeccompPath, input.command, ...input.args];
  const inner = input.proxySocketPath
    ? [
        SHELL,
        '-c',
        PROXY_BRIDGE_SCRIPT,
        'airlock-net',
        input.tools.socat,
        input.proxySocketPath,
        ...server,
      ]
    : server;
  return { command: SHELL, args: ['-c', SECCOMP_FD_SCRIPT, 'airlock-sandbox', input.filterPath, input.tools.bwrap, ...bwrapOptions, '--', ...inner] };
}

/**
 * The Linux backend's per-launcher state: the tools, pinned at the first
 * launch (a later PATH change cannot swap or drop the sandbox), and the
 * placeholders this process's live launches rely on.
 */
export class LinuxSession implements BackendSession {
  private ready: Promise<LinuxTools> | undefined;
  /** Placeholders this process's live launches rely on (several servers may share a grant). */
  private readonly placeholderUsers = new Map<string, number>();
  /**
   * The same placeholders as made (path → the placeholder, its inode): what
   * every launch's watcher and sweep read as Airlock's own. A server that
   * starts while another with the same grant runs makes them again; the
   * other's watcher must not take them for something a server planted.
   */
  private readonly livePlaceholders = new Map<string, Placeholder>();
  private readonly airlockOwn = { get: (path: string) => this.livePlaceholders.get(path)?.ino };

  constructor(private readonly options: SessionOptions) {}

  async launch(request: LaunchRequest): Promise<StartedLaunch> {
    const { input, parts, launchRoot, note } = request;
    let wrapped = false;
    let trusted: { plan: TrustedFilesPlan; exempt: string[]; watcher?: TrustedFilesWatcher } | undefined;
    const finishTrusted = () => {
      if (!trusted) return;
      const { plan: protection, exempt, watcher } = trusted;
      trusted = undefined;
      watcher?.close();
      // SECURITY (invariant 5): the server is gone; whatever it planted that
      // the watcher did not catch is held aside now, with nothing racing us.
      for (const entry of sweepGrants(protection.roots, new Map(protection.baseline), this.airlockOwn, exempt)) note(heldNote(entry));
      for (const placeholder of protection.placeholders) {
        const users = (this.placeholderUsers.get(placeholder.path) ?? 1) - 1;
        if (users > 0) this.placeholderUsers.set(placeholder.path, users);
        else {
          this.placeholderUsers.delete(placeholder.path);
          this.livePlaceholders.delete(placeholder.path);
        }
      }
      const { parent, ownRun } = this.options.runtime();
      const inUse = placeholdersInUse(parent, ownRun, this.placeholderUsers.keys());
      for (const placeholder of protection.placeholders) if (!inUse.has(placeholder.path)) removePlaceholder(placeholder);
    };
    const dispose = () => {
      // `wrapped` is set only after the library was loaded and wrapped this launch.
      if (wrapped) runtimeLibrary?.SandboxManager.cleanupAfterCommand();
      wrapped = false;
      finishTrusted();
    };
    try {
      const tools = await this.ensureRuntime();
      const { SandboxManager } = await sandboxRuntime();
      // The privilege filter this sandbox loads (`--seccomp`): beside the
      // server's writable folder, never inside it.
      const filterPath = join(launchRoot, 'privilege.bpf');
      await writeFile(filterPath, privilegeFilterBytes(), { mode: 0o600 });

      // SECURITY (invariant 5): what host tools run or trust inside a write
      // grant stays read-only, cannot be created, or is held aside when it
      // appears (trusted-files.ts). Placeholders are made on the host now.
      const exempt = [...parts.exempt];
      trusted = { plan: { mounts: [], placeholders: [], baseline: [], roots: [], folders: [] }, exempt };
      const current = trusted;
      current.plan = planTrustedFiles(parts.write, exempt, (placeholder) => {
        current.plan.placeholders.push(placeholder);
        this.placeholderUsers.set(placeholder.path, (this.placeholderUsers.get(placeholder.path) ?? 0) + 1);
        this.livePlaceholders.set(placeholder.path, placeholder);
      });
      // A placeholder another live launch of this process made, found and bound here too:
      // this launch relies on it as well (it stays until the last launch that binds it stops).
      for (let i = 0; i + 2 < current.plan.mounts.length; i += 3) {
        const path = current.plan.mounts[i + 1]!;
        const shared = this.livePlaceholders.get(path);
        if (!shared || current.plan.placeholders.some((own) => own.path === path) || !isStillPlaceholder(shared)) continue;
        current.plan.placeholders.push(shared);
        this.placeholderUsers.set(path, (this.placeholderUsers.get(path) ?? 0) + 1);
      }
      const record: LaunchRecord = {
        serverName: input.serverName,
        roots: current.plan.roots,
        exempt,
        baseline: current.plan.baseline,
        placeholders: current.plan.placeholders,
      };
      await writeFile(join(launchRoot, LAUNCH_RECORD), JSON.stringify(record), { mode: 0o600 });

      // SECURITY (invariant 5): if anything in this process started the
      // library's shared proxy (`initialize()`), every wrap would be routed
      // through it, where servers cannot be told apart. Refuse plainly.
      if (SandboxManager.getProxyPort() !== undefined) {
        throw new SandboxInitError(
          "sandbox-runtime's shared network proxy is running in this process (SandboxManager.initialize() was called); Airlock's per-server proxies cannot work beside it.",
        );
      }
      SandboxManager.updateConfig(baseConfig(tools));
      const wrappedText = await SandboxManager.wrapWithSandbox(PLACEHOLDER, SHELL, {
        network: { allowedDomains: [], deniedDomains: [] },
        filesystem: { denyRead: input.files.readDenied, allowRead: input.files.readAllowed, allowWrite: input.files.writeAllowed, denyWrite: [] },
      });
      wrapped = true;
      const invocation = parseWrappedCommand(wrappedText, { bwrapPath: tools.bwrap, shell: SHELL, placeholder: PLACEHOLDER });
      const proxy = input.network.proxy?.kind === 'unix-socket' ? input.network.proxy : undefined;
      const argv = assembleBwrapArgv({
        invocation,
        writeRoots: input.files.writeAllowed,
        trustedMounts: current.plan.mounts,
        tools,
        filterPath,
        ...(proxy ? { proxySocketPath: proxy.socketPath } : {}),
        limits: input.limits,
        command: input.command,
        args: input.args,
        runningAsRoot: input.facts.runningAsRoot,
      });
      if (current.plan.roots.length > 0) {
        current.watcher = new TrustedFilesWatcher(
          current.plan.roots,
          new Map(current.plan.baseline),
          this.airlockOwn,
          exempt,
          (entry) => note(heldNote(entry)),
          note,
        );
        current.watcher.start(current.plan.folders);
      }
      return { ...argv, env: input.env, dispose };
    } catch (error) {
      dispose();
      throw error;
    }
  }

  async close(): Promise<void> {}

  private ensureRuntime(): Promise<LinuxTools> {
    const probe: CapabilityProbe = this.options.probe;
    this.ready ??= (async () => {
      // SECURITY (invariant 5): pin the tools now; a later PATH change cannot
      // swap or drop the sandbox.
      const tools: LinuxTools = {
        bwrap: findSandboxTool('bwrap', probe) ?? '',
        socat: findSandboxTool('socat', probe) ?? '',
        rg: findSandboxTool('rg', probe) ?? '',
        // util-linux; desktop apps often have a short PATH, so it is looked for where it lives too (as the capability check does).
        prlimit: findSandboxTool('prlimit', probe) ?? '',
      };
      if (!tools.prlimit) {
        throw new SandboxInitError('The sandbox needs `prlimit` to set resource limits (Debian: sudo apt-get install -y util-linux).');
      }
      // sandbox-runtime looks its tools up with `which` (the capability check
      // does not list it: Debian's debianutils is essential); say so plainly.
      if (!findExecutable('which', process.env.PATH)) {
        throw new SandboxInitError('sandbox-runtime needs the `which` command on PATH (Debian: sudo apt-get install -y debianutils).');
      }
      const { SandboxManager } = await sandboxRuntime();
      SandboxManager.updateConfig(baseConfig(tools));
      const deps = SandboxManager.checkDependencies({ command: tools.rg });
      if (deps.errors.length > 0 || deps.warnings.length > 0) {
        throw new SandboxInitError(`sandbox-runtime is not usable here: ${[...deps.errors, ...deps.warnings].join('; ')}`);
      }
      await selfTest(tools.bwrap);
      return tools;
    })();
    this.ready.catch(() => {
      this.ready = undefined; // a fixed machine can try again
    });
    return this.ready;
  }
}

function baseConfig(tools: LinuxTools): SandboxRuntimeConfig {
  return {
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    bwrapPath: tools.bwrap,
    socatPath: tools.socat,
    ripgrep: { command: tools.rg },
    // The library scans Airlock's working folder for dotfiles to protect; one level is enough.
    mandatoryDenySearchDepth: 1,
  };
}

/** Runs bubblewrap once with the namespaces every plan uses; throws with its own words if it cannot. */
function selfTest(bwrap: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      bwrap,
      ['--unshare-user', '--unshare-net', '--unshare-pid', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', '/bin/true'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 2000) stderr += chunk;
    });
    child.once('error', (error) => reject(new SandboxInitError(`bubblewrap could not be started: ${error.message}`, { cause: error })));
    child.once('exit', (code) => {
      if (code === 0) resolvePromise();
      else reject(new SandboxInitError(`bubblewrap cannot create a sandbox here: ${stderr.trim() || `exit ${code}`}`));
    });
  });
}
