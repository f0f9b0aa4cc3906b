/**
 * The Linux launcher: compiles a `SandboxProfile` + `ServerSpec` into a
 * bubblewrap argv with sandbox-runtime (ASRT 0.0.78, pinned) doing the hard
 * part — the filesystem mounts (read denies, write grants, pins against
 * rename tricks) — and Airlock doing the rest: no shell in front of the
 * server, its own per-server network proxy (see network-proxy.ts), a
 * scrubbed environment, a fresh temp folder per launch, the home folder
 * hidden (an allowlist), every Airlock data folder hidden, grants pinned,
 * files host tools trust protected (trusted-files.ts), no capabilities, its
 * own IPC namespace, a privilege filter (seccomp-filter.ts) and rlimits.
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
import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { SandboxManager, type SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import type { SandboxProfile, SandboxSupport, ServerSpec } from '../../../shared/domain';
import { AirlockError } from '../errors';
import { isAtOrUnder, keepOnlyGrantedWrites, parseWrappedCommand } from './bwrap-argv';
import { checkSandboxSupport, findExecutable, findSandboxTool, type CapabilityProbe } from './capability';
import { SandboxInitError, SandboxProfileError, SandboxUnavailableError } from './errors';
import { DEFAULT_LIMITS, type LaunchContext, type LaunchPlan, type ResourceLimits, type SandboxLauncher } from './launcher';
import { startServerProxy, type NetworkDecision, type NetworkRequestHandler, type ServerProxy } from './network-proxy';
import { dataFolderRegistryPath, registerDataFolder, registeredDataFolders } from './data-folders';
import { checkPinned } from './grant-pins';
import { claimRunFolder, LAUNCH_RECORD, placeholdersInUse, sweepCrashedRuns, type LaunchRecord } from './runtime-sweep';
import { isStillPlaceholder, planTrustedFiles, removePlaceholder, sweepGrants, TrustedFilesWatcher, type HeldEntry, type Placeholder, type TrustedFilesPlan } from './trusted-files';
import { buildServerEnv, dataSettingsFor, probeProfile, secretPathsUnder } from './profiles';
import { privilegeFilterBytes } from './seccomp-filter';

/** How a launcher is set up; every field has a safe default. */
export interface SandboxLauncherOptions {
  /** Where to look for bwrap, socat and rg (tests pass a PATH without bwrap). */
  capabilityProbe?: CapabilityProbe;
  /** The user's real home folder, whose secrets are hidden (default `os.homedir()`). */
  homeDir?: string;
  /** Parent of the per-launch temp folders (default: a fresh 0700 folder in the OS temp dir). */
  runtimeDir?: string;
  /** Airlock's environment, from which the minimal set is copied (default `process.env`). */
  hostEnv?: NodeJS.ProcessEnv;
  /**
   * Asked when a server tries to reach a host it has no grant for, naming
   * the server. Absent: such requests are denied without asking, and servers
   * with no grant get no network path at all.
   */
  onNetworkRequest?: NetworkRequestHandler;
  /**
   * Whether this server may be asked about at all (default: every server).
   * The host says no for contained servers, so their "no network" holds.
   */
  mayAsk?: (serverName: string, profile: SandboxProfile) => boolean;
  /** Told about every network decision (for the audit log). */
  onNetworkDecision?: (decision: NetworkDecision) => void;
  /** How long a network question may stay unanswered (default 120 s, then deny). */
  askTimeoutMs?: number;
  /** Resource limits for every server (default `DEFAULT_LIMITS`, generous for real servers). */
  limits?: Partial<ResourceLimits>;
  /** The per-user list of Airlock data folders every sandbox hides (default: `dataFolderRegistryPath()` of `homeDir`). */
  dataFolderRegistry?: string;
  /**
   * Files every sandbox hides wherever they are, even beneath a grant: the
   * audit log's key where this Airlock keeps it (its default place is hidden
   * anyway; one moved by `$AIRLOCK_AUDIT_KEY_FILE` or `$XDG_CONFIG_HOME` may
   * lie outside the home folder, where reads are otherwise allowed).
   */
  hiddenFiles?: readonly string[];
  /**
   * The parent of every Airlock process's runtime folder (default: a private
   * `airlock-sandbox-<uid>` folder in the OS temp dir), where folders of a
   * crashed Airlock are swept. Ignored when `runtimeDir` is given.
   */
  runtimeParent?: string;
  /**
   * Told what the person should know about a server's grants (a planted
   * repository held aside), by server name. Each plan also carries its own
   * notes (`LaunchPlan.onNote`).
   */
  onNotice?: (serverName: string, text: string) => void;
}

/** A `SandboxLauncher` plus the probe mode and a way to release everything. */
export interface AirlockSandboxLauncher extends SandboxLauncher {
  /**
   * A plan for the install probe, given the profile the server is about to
   * get: its read and write grants become read-only grants (so a server that
   * checks its folders at start-up can start), nothing is writable but the
   * launch's own temp folder (a persistent data folder is a throwaway one in
   * it), no network path even when questions are enabled, no secrets. The
   * profile's `unsandboxed` consent passes on; it only matters where the
   * sandbox is missing.
   */
  planProbe(spec: ServerSpec, intended: SandboxProfile, context: LaunchContext): Promise<LaunchPlan>;
  /** Whether this machine can sandbox (as `checkSandboxSupport`, with this launcher's probe). */
  support(): SandboxSupport;
  /** The resource limits every sandboxed server it plans runs under (each plan carries them too). */
  limits(): ResourceLimits;
  /** Closes every proxy still open and removes the runtime folder. Call on shutdown. */
  close(): Promise<void>;
}

/** The TCP port the in-sandbox bridge listens on (each server has its own network namespace). */
export const SANDBOX_PROXY_PORT = 3128;
const PLACEHOLDER = 'airlock-server-command';
const SHELL = '/bin/sh';
/** Devices ASRT binds writable that a server may keep. */
const WRITABLE_DEVICES = ['/dev/stdout', '/dev/stderr', '/dev/null', '/dev/tty'];

interface Tools {
  bwrap: string;
  socat: string;
  rg: string;
  prlimit: string;
}

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
const SECCOMP_FD = '3';

/**
 * Creates the launcher the supervisor and the install probe use. Fails closed:
 * `plan()` throws `SandboxUnavailableError` when the sandbox cannot run (unless
 * the profile records consent to run unsandboxed), `SandboxInitError` when
 * sandbox-runtime or bubblewrap does not work — consent or not, a broken
 * sandbox is never a reason to run without one — and `SandboxProfileError`
 * when a grant would expose Airlock's own data.
 *
 * Consent (`profile.unsandboxed`) only matters where the sandbox is missing:
 * on a machine that can sandbox, the server is sandboxed anyway. An
 * unsandboxed plan gets the same scrubbed environment and temp home, but no
 * network or filesystem walls.
 *
 * For the supervisor: spawn `command`/`args` with exactly `env` and `cwd`
 * (no shell); call `dispose()` once the process has exited (it removes the
 * temp folder and closes the server's proxy). The server runs in its own
 * session inside bubblewrap: signals reach only bwrap, and when bwrap dies
 * (SIGTERM or SIGKILL) the whole tree inside dies with it (SIGKILL). Close
 * stdin first for a graceful exit. A server installed in Airlock's data
 * folder must have `spec.cwd` set to its own install folder (that folder,
 * and only it, becomes readable).
 */
export function createSandboxLauncher(options: SandboxLauncherOptions = {}): AirlockSandboxLauncher {
  const probe: CapabilityProbe = options.capabilityProbe ?? { platform: process.platform, pathEnv: process.env.PATH };
  const homeDir = canonical(options.homeDir ?? homedir());
  const hostEnv = options.hostEnv ?? process.env;
  const dataFolderRegistry = options.dataFolderRegistry ?? dataFolderRegistryPath(process.env, homeDir);
  const proxies = new Set<ServerProxy>();
  /** This launcher's runtime folder, and the folder every sandbox hides (its parent when Airlock chose it). */
  let runtimeRoot: Promise<{ root: string; hidden: string }> | undefined;
  let ready: Promise<Tools> | undefined;
  let ownsRuntimeRoot = false;
  /** The shared parent of every Airlock process's runtime folder (when this launcher uses it). */
  let runtimeParent: string | undefined;
  let ownRun: string | undefined;
  /** Placeholders this process's live launches rely on (several servers may share a grant). */
  const placeholderUsers = new Map<string, number>();
  /**
   * The same placeholders as made (path → the placeholder, its inode): what
   * every launch's watcher and sweep read as Airlock's own. A server that
   * starts while another with the same grant runs makes them again; the
   * other's watcher must not take them for something a server planted.
   */
  const livePlaceholders = new Map<string, Placeholder>();
  const airlockOwn = { get: (path: string) => livePlaceholders.get(path)?.ino };
  /** Notes for a server that is not running yet (from the sweep of a crashed Airlock), given to its next plan. */
  const pendingNotes = new Map<string, string[]>();
  const notice = (serverName: string, text: string) => {
    pendingNotes.set(serverName, [...(pendingNotes.get(serverName) ?? []), text]);
    options.onNotice?.(serverName, text);
  };

  const support = (): SandboxSupport => checkSandboxSupport(probe);

  const getRuntimeRoot = (): Promise<{ root: string; hidden: string }> => {
    runtimeRoot ??= (async () => {
      let root: string;
      let hidden: string;
      if (options.runtimeDir) {
        await mkdir(options.runtimeDir, { recursive: true, mode: 0o700 });
        root = canonical(options.runtimeDir);
        hidden = root;
      } else {
        // One parent for every Airlock process of this user (the app and the
        // CLI may run at once), hidden from every sandbox as a whole, so no
        // server sees another's temp home, whichever process started it.
        const parent = options.runtimeParent ?? join(tmpdir(), `airlock-sandbox-${process.getuid?.() ?? 'user'}`);
        await mkdir(parent, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
        const info = lstatSync(parent);
        // SECURITY (invariant 5): on a shared /tmp another user could have made
        // this name first (or a symlink): refuse anything not ours.
        if (!info.isDirectory() || (process.getuid && info.uid !== process.getuid()) || (info.mode & 0o077) !== 0) {
          throw new SandboxInitError(`${parent} is not a private folder owned by this user; remove it and try again.`);
        }
        hidden = canonical(parent);
        ownsRuntimeRoot = true;
        root = canonical(await mkdtemp(join(hidden, 'run-')));
        claimRunFolder(root);
        runtimeParent = hidden;
        ownRun = root;
        // A crashed Airlock's folders (never a live one's): its servers' temp
        // homes, and the clean-up of their grants it could not finish.
        const swept = await sweepCrashedRuns(hidden, root).catch(() => undefined);
        for (const entry of swept?.held ?? []) notice(entry.serverName, heldNote(entry));
      }
      // Each proxy socket lives here: its path must survive socat's address
      // syntax and fit a Unix socket name (108 bytes, with room for the rest).
      if (!/^[A-Za-z0-9_./-]+$/.test(root) || Buffer.byteLength(root) > 60) {
        throw new SandboxInitError(
          `The sandbox runtime folder ${JSON.stringify(root)} must be a short path (≤ 60 bytes) of letters, digits, '.', '_', '-' and '/'.`,
        );
      }
      return { root, hidden };
    })();
    runtimeRoot.catch(() => {
      runtimeRoot = undefined;
    });
    return runtimeRoot;
  };

  const ensureRuntime = (): Promise<Tools> => {
    ready ??= (async () => {
      // SECURITY (invariant 5): pin the tools now; a later PATH change cannot
      // swap or drop the sandbox.
      const tools: Tools = {
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
      SandboxManager.updateConfig(baseConfig(tools));
      const deps = SandboxManager.checkDependencies({ command: tools.rg });
      if (deps.errors.length > 0 || deps.warnings.length > 0) {
        throw new SandboxInitError(`sandbox-runtime is not usable here: ${[...deps.errors, ...deps.warnings].join('; ')}`);
      }
      await selfTest(tools.bwrap);
      return tools;
    })();
    ready.catch(() => {
      ready = undefined; // a fixed machine can try again
    });
    return ready;
  };

  const build = async (
    spec: ServerSpec,
    profile: SandboxProfile,
    context: LaunchContext,
    /** For the probe: the profile the server is about to get (its own profile is `probeProfile()` of it). */
    mode: { probe?: SandboxProfile },
  ): Promise<LaunchPlan> => {
    const paths = checkProfile(spec, profile, context);
    const state = support();
    const sandboxable = state.supported && state.platform === 'linux';
    if (!sandboxable && !profile.unsandboxed) {
      if (!state.supported) throw new SandboxUnavailableError(state.platform, state.missing, state.fix, state.summary);
      throw new SandboxUnavailableError(
        state.platform,
        [],
        undefined,
        `Airlock's sandbox is not built for ${state.platform} yet; servers will not start unless you allow one to run unsandboxed.`,
      );
    }

    const { root, hidden: hiddenRuntime } = await getRuntimeRoot();
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    // The name only helps a person reading the folder; the random suffix makes it unique.
    const launchDir = await mkdtemp(join(root, `${context.serverName.replace(/[^a-z0-9-]/g, '').slice(0, 24)}-`));
    const writable = join(launchDir, 'w');
    const home = join(writable, 'home');
    const tmp = join(writable, 'tmp');
    await mkdir(home, { recursive: true });
    await mkdir(tmp, { recursive: true });
    let proxy: ServerProxy | undefined;
    let wrapped = false;
    let disposed: Promise<void> | undefined;
    // Notes for the person about this launch, kept until someone listens.
    const notes = [...(pendingNotes.get(context.serverName) ?? [])];
    pendingNotes.delete(context.serverName);
    const listeners = new Set<(text: string) => void>();
    const note = (text: string) => {
      notes.push(text);
      for (const listener of listeners) listener(text);
      options.onNotice?.(context.serverName, text);
    };
    const onNote = (listener: (text: string) => void) => {
      for (const text of notes) listener(text);
      listeners.add(listener);
      return () => void listeners.delete(listener);
    };
    let trusted: { plan: TrustedFilesPlan; exempt: string[]; watcher?: TrustedFilesWatcher } | undefined;
    const finishTrusted = () => {
      if (!trusted) return;
      const { plan: protection, exempt, watcher } = trusted;
      trusted = undefined;
      watcher?.close();
      // SECURITY (invariant 5): the server is gone; whatever it planted that
      // the watcher did not catch is held aside now, with nothing racing us.
      for (const entry of sweepGrants(protection.roots, new Map(protection.baseline), airlockOwn, exempt)) note(heldNote(entry));
      for (const placeholder of protection.placeholders) {
        const users = (placeholderUsers.get(placeholder.path) ?? 1) - 1;
        if (users > 0) placeholderUsers.set(placeholder.path, users);
        else {
          placeholderUsers.delete(placeholder.path);
          livePlaceholders.delete(placeholder.path);
        }
      }
      const inUse = placeholdersInUse(runtimeParent, ownRun, placeholderUsers.keys());
      for (const placeholder of protection.placeholders) if (!inUse.has(placeholder.path)) removePlaceholder(placeholder);
    };
    const dispose = (): Promise<void> => {
      disposed ??= (async () => {
        if (wrapped) SandboxManager.cleanupAfterCommand();
        if (proxy) {
          proxies.delete(proxy);
          await proxy.close();
        }
        try {
          finishTrusted();
        } finally {
          await rm(launchDir, { recursive: true, force: true });
        }
      })();
      return disposed;
    };

    try {
      const ask = options.onNetworkRequest && (options.mayAsk?.(context.serverName, profile) ?? true) ? options.onNetworkRequest : undefined;
      const wantsNetwork = sandboxable && !mode.probe && (profile.network.allowedDomains.length > 0 || ask !== undefined);
      if (wantsNetwork) {
        proxy = await startServerProxy(join(launchDir, 'proxy.sock'), {
          serverName: context.serverName,
          allowedDomains: [...profile.network.allowedDomains],
          ask,
          askTimeoutMs: options.askTimeoutMs,
          onDecision: options.onNetworkDecision,
        });
        proxies.add(proxy);
      }
      const proxyUrl = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
      // The server's persistent data folder, when it has one: its own in
      // Airlock's data, or for the probe a throwaway one in the temp folder.
      let dataDir: string | undefined;
      if (mode.probe?.filesystem.persistentData) {
        dataDir = join(writable, 'data');
        await mkdir(dataDir);
      } else if (profile.filesystem.persistentData) {
        await mkdir(paths.serverDataDir, { recursive: true, mode: 0o700 });
        dataDir = canonical(paths.serverDataDir);
      }
      const env = buildServerEnv({
        hostEnv,
        specEnv: spec.env,
        secrets: pickSecrets(profile, context),
        home,
        tmp,
        ...(dataDir ? { dataDir, dataSettings: dataSettingsFor(spec) } : {}),
        proxy: proxy ? { url: proxyUrl, socksUrl: `socks5h://127.0.0.1:${SANDBOX_PROXY_PORT}` } : undefined,
      });
      const cwd = spec.cwd ?? home;
      const command = resolveCommand(spec.command, env.PATH, cwd);

      if (!sandboxable) {
        // Consent recorded in the profile: same scrubbed environment, no walls.
        return { command, args: [...spec.args], env, cwd, sandboxed: false, onNote, dispose };
      }

      const tools = await ensureRuntime();
      // The privilege filter this sandbox loads (`--seccomp`): beside the
      // server's writable folder, never inside it.
      const filter = join(launchDir, 'privilege.bpf');
      await writeFile(filter, privilegeFilterBytes(), { mode: 0o600 });
      const writeRoots = [writable, ...paths.write];
      if (profile.filesystem.persistentData) writeRoots.push(canonical(paths.serverDataDir));
      // SECURITY (invariant 5): every Airlock data folder of this user, not
      // only this process's (the CLI's plain-text secrets live in one).
      registerDataFolder(paths.airlockDataDir, { registry: dataFolderRegistry, homeDir });
      const dataFolders = [...new Set([paths.airlockDataDir, ...registeredDataFolders(dataFolderRegistry)])];
      const secrets = secretPathsUnder(homeDir);
      const denyRead = [
        // SECURITY (invariant 5): the home folder is hidden as a whole (an
        // allowlist, as containers do): only grants, the server's own code
        // and its runtime are put back below. The secret paths stay denied
        // beneath whatever is put back.
        homeDir,
        ...secrets,
        ...dataFolders,
        ...(options.hiddenFiles ?? []).map(canonical),
        hiddenRuntime,
        // the library's shared scratch folder, if one exists on this machine
        '/tmp/claude',
      ];
      if (!profile.filesystem.persistentData) denyRead.push(paths.serverDataDir);
      const allowRead = [...paths.read];
      if (paths.codeDir) allowRead.push(paths.codeDir);
      allowRead.push(...codeDirsUnderHome(spec, command, homeDir, [...secrets, ...dataFolders, hiddenRuntime]));
      if (proxy) allowRead.push(proxy.socketPath);

      // SECURITY (invariant 5): what host tools run or trust inside a write
      // grant stays read-only, cannot be created, or is held aside when it
      // appears (trusted-files.ts). Placeholders are made on the host now.
      const exempt = writeTrustedExemptions(profile, paths.write, note);
      trusted = { plan: { mounts: [], placeholders: [], baseline: [], roots: [], folders: [] }, exempt };
      trusted.plan = planTrustedFiles(paths.write, exempt, (placeholder) => {
        trusted!.plan.placeholders.push(placeholder);
        placeholderUsers.set(placeholder.path, (placeholderUsers.get(placeholder.path) ?? 0) + 1);
        livePlaceholders.set(placeholder.path, placeholder);
      });
      // A placeholder another live launch of this process made, found and bound here too:
      // this launch relies on it as well (it stays until the last launch that binds it stops).
      for (let i = 0; i + 2 < trusted.plan.mounts.length; i += 3) {
        const path = trusted.plan.mounts[i + 1]!;
        const shared = livePlaceholders.get(path);
        if (!shared || trusted.plan.placeholders.some((own) => own.path === path) || !isStillPlaceholder(shared)) continue;
        trusted.plan.placeholders.push(shared);
        placeholderUsers.set(path, (placeholderUsers.get(path) ?? 0) + 1);
      }
      const record: LaunchRecord = {
        serverName: context.serverName,
        roots: trusted.plan.roots,
        exempt,
        baseline: trusted.plan.baseline,
        placeholders: trusted.plan.placeholders,
      };
      await writeFile(join(launchDir, LAUNCH_RECORD), JSON.stringify(record), { mode: 0o600 });

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
        filesystem: { denyRead, allowRead, allowWrite: writeRoots, denyWrite: [] },
      });
      wrapped = true;
      const invocation = parseWrappedCommand(wrappedText, { bwrapPath: tools.bwrap, shell: SHELL, placeholder: PLACEHOLDER });
      const remountReadOnly: string[] = [];
      const { options: granted } = keepOnlyGrantedWrites(invocation.options, writeRoots, WRITABLE_DEVICES);
      // SECURITY (invariant 5): the server holds no capability, not even the
      // CAP_SETFCAP the library keeps for a root caller (with it, and the
      // sandbox's root mapped to real root, a server could write file
      // capabilities any local user then runs with).
      const bwrapOptions = [...withoutCapabilityAdds(granted), ...trusted.plan.mounts];
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
      if (process.geteuid?.() === 0) {
        bwrapOptions.push('--uid', String(SANDBOX_UNPRIVILEGED_ID), '--gid', String(SANDBOX_UNPRIVILEGED_ID));
      }
      bwrapOptions.push('--unshare-ipc', '--mqueue', '/dev/mqueue', '--seccomp', SECCOMP_FD);
      // The library hides a read-denied folder under a tmpfs, which the
      // server could write (in memory). Make each one read-only, so writes
      // outside the grants fail with EROFS everywhere. Non-recursive: the
      // write grants bound inside those folders stay writable.
      for (let i = 0; i < bwrapOptions.length - 1; i += 1) {
        if (bwrapOptions[i] === '--tmpfs') remountReadOnly.push('--remount-ro', bwrapOptions[i + 1]!);
      }
      bwrapOptions.push(...remountReadOnly);
      const server = [tools.prlimit, ...prlimitArgs(limits), '--', invocation.applySeccompPath, command, ...spec.args];
      const inner = proxy
        ? [
            SHELL,
            '-c',
            // socat must start before seccomp (it opens the Unix socket);
            // the server replaces the shell, so no shell stays around.
            `"$1" TCP-LISTEN:${SANDBOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr "UNIX-CONNECT:$2" >/dev/null 2>&1 & shift 2; exec "$@"`,
            'airlock-net',
            tools.socat,
            proxy.socketPath,
            ...server,
          ]
        : server;
      if (trusted.plan.roots.length > 0) {
        trusted.watcher = new TrustedFilesWatcher(
          trusted.plan.roots,
          new Map(trusted.plan.baseline),
          airlockOwn,
          exempt,
          (entry) => note(heldNote(entry)),
          note,
        );
        trusted.watcher.start(trusted.plan.folders);
      }
      return {
        command: SHELL,
        args: ['-c', SECCOMP_FD_SCRIPT, 'airlock-sandbox', filter, tools.bwrap, ...bwrapOptions, '--', ...inner],
        env,
        cwd,
        sandboxed: true,
        limits,
        onNote,
        dispose,
      };
    } catch (error) {
      await dispose();
      throw error;
    }
  };

  return {
    support,
    limits: () => ({ ...DEFAULT_LIMITS, ...options.limits }),
    plan: (spec, profile, context) => build(spec, profile, context, {}),
    planProbe: (spec, intended, context) => build(spec, probeProfile(intended), { ...context, secrets: {} }, { probe: intended }),
    async close() {
      await Promise.all([...proxies].map((proxy) => proxy.close()));
      proxies.clear();
      if (ownsRuntimeRoot && runtimeRoot) await rm((await runtimeRoot).root, { recursive: true, force: true });
    },
  };
}

function baseConfig(tools: Tools): SandboxRuntimeConfig {
  return {
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    bwrapPath: tools.bwrap,
    socatPath: tools.socat,
    ripgrep: { command: tools.rg },
    // The library scans Airlock's working folder for dotfiles to protect; one level is enough.
    mandatoryDenySearchDepth: 1,
  } as SandboxRuntimeConfig;
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

/** What the person reads when Airlock held a planted entry aside. */
function heldNote(entry: HeldEntry): string {
  return `A file that other programs trust appeared in a granted folder: ${entry.path}. Airlock moved it aside to ${entry.heldAt} (programs such as git or direnv would have run it outside the sandbox). If you made it yourself, rename it back.`;
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

/** The secrets the profile grants, and only those. */
function pickSecrets(profile: SandboxProfile, context: LaunchContext): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const name of profile.secrets) {
    const value = context.secrets[name];
    if (value !== undefined) secrets[name] = value;
  }
  return secrets;
}

function resolveCommand(command: string, pathEnv: string | undefined, cwd: string): string {
  if (command.includes('/')) return resolve(cwd, command);
  const found = findExecutable(command, pathEnv);
  if (!found) throw new AirlockError('not-found', `The server's command "${command}" was not found on PATH.`);
  return found;
}

interface CheckedPaths {
  airlockDataDir: string;
  serverDataDir: string;
  read: string[];
  write: string[];
  /** `spec.cwd` when it lies inside Airlock's data folder (an installed server's own code). */
  codeDir?: string;
}

/** The path with every symlink resolved; the path itself (absolute) when it does not exist yet. */
function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The paths inside write grants where the person let this server change
 * files host tools trust (`filesystem.writeTrusted`), resolved through the
 * grant they lie in. SECURITY (invariant 5): a path that now leads
 * somewhere else than beneath its grant as pinned (a folder on the way was
 * replaced by a symbolic link, say to another repository) is not exempted:
 * the person allowed that path, not wherever it leads now. It stays
 * protected, and the person is told.
 */
function writeTrustedExemptions(profile: SandboxProfile, writeReal: readonly string[], note: (text: string) => void): string[] {
  const exempt: string[] = [];
  for (const path of profile.filesystem.writeTrusted ?? []) {
    const index = profile.filesystem.write.findIndex((grant) => isAbsolute(path) && isAtOrUnder(resolve(path), resolve(grant)));
    if (index < 0) continue; // not inside a write grant: nothing to lift
    const grant = profile.filesystem.write[index]!;
    const expected = join(writeReal[index]!, relative(resolve(grant), resolve(path)));
    const actual = resolvedAsFarAsExists(path);
    if (actual !== expected) {
      note(`You let this server change the trusted files at ${path}, but that path now leads to ${actual} (a part of it was replaced, for example by a symbolic link). Airlock keeps protecting them; give the permission again if the new place is what you want.`);
      continue;
    }
    exempt.push(expected);
  }
  return exempt;
}

/** The path with every symlink of its existing part resolved, and the rest (not there yet) appended as written. */
function resolvedAsFarAsExists(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest);
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return resolve(path);
      rest.unshift(basename(existing));
      existing = parent;
    }
  }
}

/**
 * Refuses grants that would reach Airlock's own data. Read and write grants
 * must be absolute, must exist, and — symlinks resolved — must neither
 * contain nor lie inside the data folder (the server's own data folder is
 * the persistent-data grant's business). The one exception is the installed
 * server's own folder, named by `spec.cwd`: readable, never writable, and
 * never a parent of its data folder.
 */
function checkProfile(spec: ServerSpec, profile: SandboxProfile, context: LaunchContext): CheckedPaths {
  if (!isAbsolute(context.airlockDataDir) || !isAbsolute(context.serverDataDir)) {
    throw new SandboxProfileError("Airlock's data folder and the server's data folder must be absolute paths.");
  }
  const airlockDataDir = canonical(context.airlockDataDir);
  const serverDataDir = canonical(context.serverDataDir);
  const check = (kind: 'read' | 'write', path: string): string => {
    if (!isAbsolute(path)) throw new SandboxProfileError(`A ${kind} grant must be an absolute path: ${path}`);
    if (!existsSync(path)) throw new SandboxProfileError(`The ${kind} grant ${path} does not exist; create it or remove the grant.`);
    // SECURITY (invariant 5): a grant resolves where it did when it was given.
    const real = checkPinned(kind, path, canonical(path), profile, context.serverName);
    // SECURITY (invariant 5): no grant may expose Airlock's data folder, also
    // not through a symlink that points into it.
    if (isAtOrUnder(airlockDataDir, real) || (isAtOrUnder(real, airlockDataDir) && !isAtOrUnder(real, serverDataDir))) {
      throw new SandboxProfileError(`A ${kind} grant may not cover Airlock's own data folder: ${path}`);
    }
    return real;
  };
  const read = profile.filesystem.read.map((path) => check('read', path));
  const write = profile.filesystem.write.map((path) => check('write', path));
  if (write.some((path) => isAtOrUnder(path, serverDataDir)) && !profile.filesystem.persistentData) {
    throw new SandboxProfileError('Writing to the server data folder needs the persistent-data grant.');
  }
  let codeDir: string | undefined;
  if (spec.cwd) {
    const cwd = canonical(spec.cwd);
    if (isAtOrUnder(cwd, airlockDataDir)) {
      // SECURITY (invariant 5): the code folder is re-exposed for reading; it
      // must not also expose the data folder or other servers' folders.
      if (isAtOrUnder(serverDataDir, cwd) || isAtOrUnder(airlockDataDir, cwd)) {
        throw new SandboxProfileError(
          `A server installed in Airlock's data folder must run from its own install folder, not ${spec.cwd}.`,
        );
      }
      codeDir = cwd;
    }
  }
  return { airlockDataDir, serverDataDir, read, write, codeDir };
}

/** Folder names that hold a runtime's executables; the runtime is their parent (`~/.nvm/versions/node/v20/bin/node`). */
const RUNTIME_BIN_DIRS = new Set(['bin', 'sbin', 'shims', 'Scripts']);
/** Files that mark a project's root folder (its dependencies live beside them). */
const PROJECT_MARKERS = ['package.json', 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'Cargo.toml', 'go.mod', 'deno.json'];

/**
 * The home folder is hidden from every server; what a server needs to run
 * from it stays readable: its working folder, the runtime its command
 * belongs to (the folder above `bin/`: an nvm or volta node, a Python venv,
 * pyenv), and the project of any script argument (the nearest folder above
 * it with a package manifest, and above that the nearest with
 * `node_modules`, for workspaces). Never the home folder itself, never a
 * folder inside a hidden one (secrets, Airlock's data); secrets inside a
 * folder put back stay hidden.
 */
function codeDirsUnderHome(spec: ServerSpec, command: string, homeDir: string, hidden: string[]): string[] {
  const candidates: string[] = [];
  if (spec.cwd) candidates.push(spec.cwd);
  for (const executable of new Set([command, canonical(command)])) {
    const dir = dirname(executable);
    candidates.push(RUNTIME_BIN_DIRS.has(basename(dir)) ? dirname(dir) : dir);
  }
  for (const arg of spec.args) {
    if (!isAbsolute(arg) || !isAtOrUnder(canonical(arg), homeDir)) continue;
    let isFile = false;
    try {
      isFile = statSync(arg).isFile();
    } catch {
      continue;
    }
    if (isFile) candidates.push(...projectOf(canonical(arg), homeDir));
  }
  const dirs = new Set<string>();
  for (const candidate of candidates) {
    const dir = canonical(candidate);
    if (!isAtOrUnder(dir, homeDir) || dir === homeDir) continue;
    if (hidden.some((path) => isAtOrUnder(dir, path))) continue;
    dirs.add(dir);
  }
  return [...dirs];
}

/** A script's own folder, its project root, and the workspace root holding `node_modules` (all below home). */
function projectOf(script: string, homeDir: string): string[] {
  const found = [dirname(script)];
  let dir = dirname(script);
  let project: string | undefined;
  while (dir !== homeDir && isAtOrUnder(dir, homeDir)) {
    if (!project && PROJECT_MARKERS.some((marker) => existsSync(join(dir, marker)))) {
      project = dir;
      found.push(dir);
      if (existsSync(join(dir, 'node_modules'))) break;
    } else if (project && existsSync(join(dir, 'node_modules'))) {
      found.push(dir);
      break;
    }
    dir = dirname(dir);
  }
  return found;
}
