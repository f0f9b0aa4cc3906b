/**
 * The sandbox launcher: turns a `SandboxProfile` + `ServerSpec` into a
 * launch plan through the platform's backend (platform/: bubblewrap on
 * Linux, Seatbelt on macOS, srt-win on Windows), and owns what every
 * platform's launch shares: the refusal to start (fail closed), the
 * runtime folder and each launch's temp folders, the server's own network
 * proxy, its environment built from nothing, the file rules made from its
 * grants (launch-inputs.ts), the notes for its log, and the clean-up.
 *
 * Two halves, along the seam: the plan (`describe()`, and the backend's
 * pure `plan()`: data, on any OS) and the start (`plan()`/`planProbe()`:
 * folders made, a proxy listening, the backend's session doing its effects).
 */
import { lstatSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxProfile, SandboxSupport, ServerSpec } from '../../../shared/domain';
import { checkSandboxSupport } from './capability';
import { dataFolderRegistryPath, registerDataFolder, registeredDataFolders } from './data-folders';
import { SandboxInitError, SandboxUnavailableError } from './errors';
import type { CapabilityProbe } from './executables';
import { canonical, checkProfile, codeDirsUnderHome, existingTrusted, fileRules, helperEnv, pickSecrets, resolveCommand, writeTrustedExemptions, type CheckedPaths, type FileRuleParts } from './launch-inputs';
import type { LaunchObserver, SandboxLauncherOptions } from './launcher-options';
import { GrantWatcher } from './grant-watch';
import { DEFAULT_LIMITS, type LaunchContext, type LaunchPlan, type ResourceLimits, type SandboxLauncher } from './launcher';
import { startLoopbackProxy, type LoopbackProxy } from './loopback-proxy';
import { startServerProxy, type NetworkRequestHandler, type ServerProxy } from './network-proxy';
import { hostFacts, isSandboxPlatform, platformBackend, thisMachine, type BackendSession, type Guarantee, type PlanInput, type PlatformBackend, type PlatformPlan, type ProxyEndpoint, type SandboxPlatform, weakerThan } from './platform';
import { SANDBOX_PROXY_PORT } from './platform/linux-launch';
import { buildServerEnv, dataSettingsFor, probeProfile } from './profiles';
import { claimRunFolder, sweepCrashedRuns } from './runtime-sweep';
import { heldNote } from './trusted-files';

export type { LaunchObserver, SandboxLauncherOptions } from './launcher-options';
export { SANDBOX_PROXY_PORT, SANDBOX_UNPRIVILEGED_ID, SECCOMP_FD_SCRIPT, prlimitArgs, withoutCapabilityAdds } from './platform/linux-launch';

/** A `SandboxLauncher` plus the probe mode, the plan as data, and a way to release everything. */
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
  /**
   * The plan a start would get, as data, for this machine's platform or
   * another (`airlock show NAME --sandbox-plan --platform …`): nothing is
   * made, started or changed; secret values and the proxy's credential are
   * shown as placeholders, the proxy's port as chosen at start.
   */
  describe(spec: ServerSpec, profile: SandboxProfile, context: LaunchContext, platform?: SandboxPlatform): PlatformPlan;
  /** What a sandboxed launch here guarantees, row by row (empty where no backend exists). */
  guarantees(): Guarantee[];
  /** The platform it launches on (its capability probe's). */
  readonly platform: string;
  /** The mechanism here, in a person's words (absent where Airlock has no sandbox). */
  mechanism(): string | undefined;
  /** Whether Airlock's escape suite has passed on a real machine of this platform. */
  verifiedOnRealMachine(): boolean;
  /** The rows where this platform's sandbox holds less than Linux's, for the install disclosure (empty on Linux). */
  weakerThanLinux(): Guarantee[];
  /** Whether this machine can sandbox (as `checkSandboxSupport`, with this launcher's probe); `fresh`: not a cached answer. */
  support(check?: { fresh?: boolean }): SandboxSupport;
  /** The resource limits every sandboxed server it plans runs under (each plan carries them too). */
  limits(): ResourceLimits;
  /** Closes every proxy still open and removes the runtime folder. Call on shutdown. */
  close(): Promise<void>;
}

/** What a shown plan carries instead of a secret's value or the proxy's credential. */
export const SHOWN_SECRET = '«secret»';
export const SHOWN_CREDENTIAL = '«per-launch credential»';
/** The proxy port a shown plan is computed with, for a backend whose port is chosen at each start (then shown as `SHOWN_PORT_TEXT`). */
export const SHOWN_PORT = 0;
/** How a shown plan writes the proxy's port that is chosen at each start. */
export const SHOWN_PORT_TEXT = '«port chosen at start»';

/** A shown plan with its loopback proxy port (computed as `SHOWN_PORT`) written as chosen at start, everywhere it appears. */
function showPortChosenAtStart(plan: PlatformPlan): PlatformPlan {
  const show = (text: string) => text.replace(/\b(127\.0\.0\.1|localhost):0(?![0-9])/g, `$1:${SHOWN_PORT_TEXT}`);
  return {
    ...plan,
    ...(plan.network.endpoint ? { network: { ...plan.network, endpoint: show(plan.network.endpoint) } } : {}),
    launch: { command: plan.launch.command, args: plan.launch.args.map(show), env: Object.fromEntries(Object.entries(plan.launch.env).map(([name, value]) => [name, show(value)])) },
    ...(plan.profileText !== undefined ? { profileText: show(plan.profileText) } : {}),
    atStart: [...(plan.atStart ?? []), "its proxy's port on 127.0.0.1: a free one is chosen at each start (and put in its proxy variables and, on macOS, in the profile's one network rule)."],
  };
}

/**
 * Creates the launcher the supervisor and the install probe use. Fails closed:
 * `plan()` throws `SandboxUnavailableError` when the sandbox cannot run (unless
 * the profile records consent to run unsandboxed), `SandboxInitError` when
 * the platform's sandbox does not work — consent or not, a broken sandbox is
 * never a reason to run without one — and `SandboxProfileError` when a grant
 * would expose Airlock's own data, or the platform cannot express the profile.
 *
 * Consent (`profile.unsandboxed`) only matters where the sandbox is missing:
 * on a machine that can sandbox, the server is sandboxed anyway. An
 * unsandboxed plan gets the same scrubbed environment and temp home, but no
 * network or filesystem walls.
 *
 * For the supervisor: spawn `command`/`args` with exactly `env` and `cwd`
 * (no shell); call `dispose()` once the process has exited (it removes the
 * temp folder and closes the server's proxy). On Linux the server runs in
 * its own session inside bubblewrap: signals reach only bwrap, and when
 * bwrap dies (SIGTERM or SIGKILL) the whole tree inside dies with it
 * (SIGKILL). Close stdin first for a graceful exit. A server installed in
 * Airlock's data folder must have `spec.cwd` set to its own install folder
 * (that folder, and only it, becomes readable).
 */
export function createSandboxLauncher(options: SandboxLauncherOptions = {}): AirlockSandboxLauncher {
  const probe: CapabilityProbe = options.capabilityProbe ?? thisMachine();
  const backend = platformBackend(probe.platform);
  const homeDir = canonical(options.homeDir ?? homedir());
  const hostEnv = options.hostEnv ?? process.env;
  const dataFolderRegistry = options.dataFolderRegistry ?? dataFolderRegistryPath(process.env, homeDir);
  const proxies = new Set<{ close(): Promise<void> }>();
  /** This launcher's runtime folder, and the folder every sandbox hides (its parent when Airlock chose it). */
  let runtimeRoot: Promise<{ root: string; hidden: string }> | undefined;
  let ownsRuntimeRoot = false;
  /** The shared parent of every Airlock process's runtime folder (when this launcher uses it). */
  let runtimeParent: string | undefined;
  let ownRun: string | undefined;
  let session: BackendSession | undefined;
  /** Notes for a server that is not running yet (from the sweep of a crashed Airlock), given to its next plan. */
  const pendingNotes = new Map<string, string[]>();
  const notice = (serverName: string, text: string) => {
    pendingNotes.set(serverName, [...(pendingNotes.get(serverName) ?? []), text]);
    options.onNotice?.(serverName, text);
  };
  const limitsNow = (): ResourceLimits => {
    const limits: ResourceLimits = { ...DEFAULT_LIMITS, ...options.limits };
    delete limits.unenforced;
    // What this platform does not set or enforce, carried with the limits to the server's page.
    const unenforced = backend?.unenforcedLimits(hostFacts()) ?? {};
    if (Object.keys(unenforced).length > 0) limits.unenforced = { ...unenforced };
    return limits;
  };

  const support = (check: { fresh?: boolean } = {}): SandboxSupport => checkSandboxSupport(probe, check);

  const getSession = (chosen: PlatformBackend): BackendSession => {
    session ??= chosen.openSession({
      probe,
      runtime: () => ({ ...(runtimeParent ? { parent: runtimeParent } : {}), ...(ownRun ? { ownRun } : {}) }),
      ...(options.onViolation ? { onViolation: options.onViolation } : {}),
    });
    return session;
  };

  const getRuntimeRoot = (chosen: PlatformBackend | undefined): Promise<{ root: string; hidden: string }> => {
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
        const isPrivate = chosen ? chosen.isPrivateFolder(info, process.getuid?.()) : info.isDirectory() && (info.mode & 0o077) === 0;
        if (info.isSymbolicLink() || !isPrivate) {
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
      if (chosen?.proxyTransport.kind === 'unix-socket' && (!/^[A-Za-z0-9_./-]+$/.test(root) || Buffer.byteLength(root) > 60)) {
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

  /**
   * The input of a backend's plan for this server (what `describe()` shows
   * and a start runs): its env built from nothing, its command resolved,
   * its file rules made from its checked grants.
   */
  const planInput = (
    chosen: PlatformBackend,
    request: {
      spec: ServerSpec;
      profile: SandboxProfile;
      context: LaunchContext;
      paths: CheckedPaths;
      writable: string;
      hiddenRuntime: string;
      dataDir: string | undefined;
      proxy: ProxyEndpoint | undefined;
      questions: boolean;
      env: Record<string, string>;
      command: string;
      cwd: string;
      /** Where a note about a trusted file held out of a write grant goes. */
      note: (text: string) => void;
    },
  ): { input: PlanInput; parts: FileRuleParts } => {
    const { spec, profile, paths } = request;
    const secrets = chosen.secretPaths(homeDir);
    // SECURITY (invariant 5): every Airlock data folder of this user, not
    // only this process's (the CLI's plain-text secrets live in one).
    const dataFolders = [...new Set([paths.airlockDataDir, ...registeredDataFolders(dataFolderRegistry)])];
    const exempt = writeTrustedExemptions(profile, paths.write, request.note);
    const parts: FileRuleParts = {
      homeDir,
      secretPaths: secrets,
      dataFolders,
      hiddenFiles: (options.hiddenFiles ?? []).map(canonical),
      hiddenRuntime: request.hiddenRuntime,
      scratchFolders: chosen.scratchFolders,
      serverDataDir: paths.serverDataDir,
      ...(profile.filesystem.persistentData ? { dataDir: canonical(paths.serverDataDir) } : {}),
      read: paths.read,
      write: paths.write,
      ...(paths.codeDir ? { codeDir: paths.codeDir } : {}),
      codeDirs: codeDirsUnderHome(spec, request.command, homeDir, [...secrets, ...dataFolders, request.hiddenRuntime]),
      writable: request.writable,
      exempt,
      existingTrusted: existingTrusted(paths.write, exempt),
      // The server's proxy socket, where its proxy is one.
      extraReadAllowed: request.proxy?.kind === 'unix-socket' ? [request.proxy.socketPath] : [],
    };
    const input: PlanInput = {
      serverName: request.context.serverName,
      homeDir,
      command: request.command,
      args: [...spec.args],
      env: request.env,
      helperEnv: helperEnv(hostEnv),
      cwd: request.cwd,
      launchDir: request.writable,
      tmpDir: request.env.TMPDIR ?? join(request.writable, 'tmp'),
      files: fileRules(parts),
      network: {
        allowedHosts: [...profile.network.allowedDomains],
        questions: request.questions,
        ...(request.proxy ? { proxy: request.proxy } : {}),
      },
      limits: limitsNow(),
      facts: hostFacts(),
    };
    return { input, parts };
  };

  /** Whether a server may be asked about hosts it was not granted (never for the probe). */
  const askerFor = (serverName: string, profile: SandboxProfile): NetworkRequestHandler | undefined =>
    options.onNetworkRequest && (options.mayAsk?.(serverName, profile) ?? true) ? options.onNetworkRequest : undefined;

  /** The proxy variables a server gets for its endpoint. */
  const proxyUrls = (endpoint: ProxyEndpoint | undefined, shown: boolean): { url: string; socksUrl: string } | undefined => {
    if (!endpoint) return undefined;
    if (endpoint.kind === 'unix-socket') return { url: `http://127.0.0.1:${SANDBOX_PROXY_PORT}`, socksUrl: `socks5h://127.0.0.1:${SANDBOX_PROXY_PORT}` };
    const token = shown ? SHOWN_CREDENTIAL : encodeURIComponent(endpoint.credential.token);
    const auth = `${encodeURIComponent(endpoint.credential.user)}:${token}@`;
    return { url: `http://${auth}${endpoint.host}:${endpoint.port}`, socksUrl: `socks5h://${auth}${endpoint.host}:${endpoint.port}` };
  };

  /**
   * The server's environment, built from nothing, with its home and temp
   * folder in the launch's writable folder: one place for a start and for
   * the plan `describe()` shows (`shown`: the proxy's credential as a placeholder).
   */
  const serverEnv = (
    spec: ServerSpec,
    run: { writable: string; secrets: Record<string, string>; dataDir: string | undefined; proxy: ProxyEndpoint | undefined; shown: boolean },
  ): Record<string, string> => {
    const proxyEnv = proxyUrls(run.proxy, run.shown);
    return buildServerEnv({
      hostEnv,
      specEnv: spec.env,
      secrets: run.secrets,
      home: join(run.writable, 'home'),
      tmp: join(run.writable, 'tmp'),
      ...(run.dataDir ? { dataDir: run.dataDir, dataSettings: dataSettingsFor(spec) } : {}),
      ...(proxyEnv ? { proxy: proxyEnv } : {}),
    });
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
    const sandboxable = state.supported && backend !== undefined;
    if (!sandboxable && !profile.unsandboxed) {
      if (!state.supported) throw new SandboxUnavailableError(state.platform, state.missing, state.fix, state.summary);
      throw new SandboxUnavailableError(state.platform, [], undefined, `Airlock has no sandbox for ${state.platform}; servers will not start unless you allow one to run unsandboxed.`);
    }

    const { root, hidden: hiddenRuntime } = await getRuntimeRoot(backend);
    const limits = limitsNow();
    // The name only helps a person reading the folder; the random suffix makes it unique.
    const launchDir = await mkdtemp(join(root, `${context.serverName.replace(/[^a-z0-9-]/g, '').slice(0, 24)}-`));
    const writable = join(launchDir, 'w');
    const home = join(writable, 'home');
    const tmp = join(writable, 'tmp');
    await mkdir(home, { recursive: true });
    await mkdir(tmp, { recursive: true });
    let proxy: ServerProxy | LoopbackProxy | undefined;
    let started: { dispose?(): Promise<void> | void } | undefined;
    let watched: { watcher?: GrantWatcher; observer: LaunchObserver } | undefined;
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
    const dispose = (): Promise<void> => {
      disposed ??= (async () => {
        // Observation ends first: what Airlock itself does in the grants next (placeholders removed) is not the server's.
        watched?.watcher?.close();
        watched?.observer.end();
        watched = undefined;
        try {
          await started?.dispose?.();
        } finally {
          if (proxy) {
            proxies.delete(proxy);
            await proxy.close();
          }
          await rm(launchDir, { recursive: true, force: true });
        }
      })();
      return disposed;
    };

    try {
      const ask = askerFor(context.serverName, profile);
      const wantsNetwork = sandboxable && !mode.probe && (profile.network.allowedDomains.length > 0 || ask !== undefined);
      let endpoint: ProxyEndpoint | undefined;
      if (wantsNetwork) {
        const policy = {
          serverName: context.serverName,
          allowedDomains: [...profile.network.allowedDomains],
          ask,
          askTimeoutMs: options.askTimeoutMs,
          onDecision: options.onNetworkDecision,
        };
        if (backend.proxyTransport.kind === 'unix-socket') {
          const socketProxy = await startServerProxy(join(launchDir, 'proxy.sock'), policy);
          proxy = socketProxy;
          endpoint = { kind: 'unix-socket', socketPath: socketProxy.socketPath };
        } else {
          const tcp = await startLoopbackProxy(policy, backend.proxyTransport.portRange ? { portRange: backend.proxyTransport.portRange } : {});
          proxy = tcp;
          endpoint = { kind: 'tcp', host: tcp.host, port: tcp.port, credential: tcp.credential };
        }
        proxies.add(proxy);
      }
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
      const env = serverEnv(spec, { writable, secrets: pickSecrets(profile, context), dataDir, proxy: endpoint, shown: false });
      const cwd = spec.cwd ?? home;
      const command = resolveCommand(spec.command, env.PATH, cwd, backend?.executableExtensions(hostEnv) ?? []);

      // How the supervisor ends the whole tree where the OS has no process groups (Windows), sandboxed or not.
      const endTree = backend?.endProcessTree ? { endTree: (pid: number) => backend.endProcessTree!(pid, hostEnv) } : {};
      if (!sandboxable) {
        // Consent recorded in the profile: same scrubbed environment, no walls.
        return { command, args: [...spec.args], env, cwd, sandboxed: false, onNote, ...endTree, dispose };
      }

      // SECURITY (invariant 5): this data folder is recorded before the plan
      // hides every recorded one (planInput).
      if (options.recordDataFolder !== false) registerDataFolder(paths.airlockDataDir, { registry: dataFolderRegistry, homeDir });
      const { input, parts } = planInput(backend, {
        spec,
        profile,
        context,
        paths,
        writable,
        hiddenRuntime,
        dataDir,
        proxy: endpoint,
        questions: ask !== undefined && !mode.probe,
        env,
        command,
        cwd,
        note,
      });
      const launch = await getSession(backend).launch({ input, parts, launchRoot: launchDir, note });
      started = launch;
      // What it does that can leave its sandbox — its network attempts (told through its proxy's
      // decisions) and the changes in its write grants — is observed while it runs, and only then.
      const observer = proxy || paths.write.length > 0 ? options.observe?.(context.serverName, { network: proxy !== undefined, writeGrants: [...profile.filesystem.write] }) : undefined;
      if (observer) {
        watched = { observer };
        if (paths.write.length > 0) {
          const watcher = new GrantWatcher(
            profile.filesystem.write.map((grant, i) => ({ grant, root: paths.write[i]! })),
            (change) => observer.grantChange(change),
            note,
          );
          watched.watcher = watcher;
          watcher.start();
          observer.settleWith(() => watcher.settle());
        }
      }
      return { command: launch.command, args: launch.args, env: launch.env, cwd, sandboxed: true, limits, onNote, ...endTree, dispose };
    } catch (error) {
      await dispose();
      throw error;
    }
  };

  const describe = (spec: ServerSpec, profile: SandboxProfile, context: LaunchContext, platform?: SandboxPlatform): PlatformPlan => {
    const target = platform ?? (isSandboxPlatform(probe.platform) ? probe.platform : undefined);
    const chosen = target ? platformBackend(target) : undefined;
    if (!chosen) throw new SandboxUnavailableError(probe.platform, [], undefined, `Airlock has no sandbox for ${probe.platform}; say which platform's plan to show (linux, darwin or win32).`);
    const paths = checkProfile(spec, profile, context);
    const hiddenRuntime = runtimeParent ?? options.runtimeDir ?? join(tmpdir(), `airlock-sandbox-${process.getuid?.() ?? 'user'}`);
    const writable = join(hiddenRuntime, 'run-XXXXXX', `${context.serverName.replace(/[^a-z0-9-]/g, '').slice(0, 24)}-XXXXXX`, 'w');
    const ask = askerFor(context.serverName, profile);
    const wantsNetwork = profile.network.allowedDomains.length > 0 || ask !== undefined;
    const endpoint: ProxyEndpoint | undefined = !wantsNetwork
      ? undefined
      : chosen.proxyTransport.kind === 'unix-socket'
        ? { kind: 'unix-socket', socketPath: join(writable, '..', 'proxy.sock') }
        : { kind: 'tcp', host: '127.0.0.1', port: SHOWN_PORT, credential: { user: 'airlock', token: SHOWN_CREDENTIAL } };
    const dataDir = profile.filesystem.persistentData ? canonical(paths.serverDataDir) : undefined;
    const shownSecrets = Object.fromEntries(profile.secrets.map((name) => [name, SHOWN_SECRET]));
    const env = serverEnv(spec, { writable, secrets: shownSecrets, dataDir, proxy: endpoint, shown: true });
    const cwd = spec.cwd ?? join(writable, 'home');
    let command = spec.command;
    try {
      command = resolveCommand(spec.command, env.PATH, cwd, chosen.executableExtensions(hostEnv));
    } catch {
      // shown as written: it is resolved on the machine that starts it
    }
    const { input } = planInput(chosen, {
      spec,
      profile,
      context,
      paths,
      writable,
      hiddenRuntime,
      dataDir,
      proxy: endpoint,
      questions: ask !== undefined,
      env,
      command,
      cwd,
      // A shown plan notes nothing: the start that runs it will.
      note: () => {},
    });
    const plan = chosen.plan(input);
    return endpoint?.kind === 'tcp' ? showPortChosenAtStart(plan) : plan;
  };

  const guarantees = (): Guarantee[] => backend?.guarantees(hostFacts()) ?? [];

  return {
    platform: probe.platform,
    support,
    limits: limitsNow,
    guarantees,
    mechanism: () => backend?.mechanism,
    verifiedOnRealMachine: () => backend?.verifiedOnRealMachine ?? false,
    weakerThanLinux: () => {
      if (!backend || backend.platform === 'linux') return [];
      const linux = platformBackend('linux')!.guarantees(hostFacts());
      return weakerThan(guarantees(), linux);
    },
    describe,
    plan: (spec, profile, context) => build(spec, profile, context, {}),
    planProbe: (spec, intended, context) => build(spec, probeProfile(intended), { ...context, secrets: {} }, { probe: intended }),
    async close() {
      await Promise.all([...proxies].map((proxy) => proxy.close()));
      proxies.clear();
      await session?.close();
      session = undefined;
      if (ownsRuntimeRoot && runtimeRoot) await rm((await runtimeRoot).root, { recursive: true, force: true });
    },
  };
}
