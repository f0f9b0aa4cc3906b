/** How a sandbox launcher is set up (sandbox-launcher.ts); every field has a safe default. */
import type { SandboxProfile } from '../../../shared/domain';
import type { CapabilityProbe } from './executables';
import type { GrantChange } from './grant-watch';
import type { ResourceLimits } from './launcher';
import type { NetworkDecision, NetworkRequestHandler } from './network-proxy';

/** How a launcher is set up; every field has a safe default. */
export interface SandboxLauncherOptions {
  /** The platform and where to look for its tools (tests pass a PATH without bwrap, or another platform). */
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
   * Record this Airlock's data folder in that list before a launch (default
   * true). False for a folder the person chose to keep self-contained: the
   * list is still read (every folder in it stays hidden), never written.
   */
  recordDataFolder?: boolean;
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
  /**
   * Told every refusal the OS's sandbox reported for a server (macOS's
   * Seatbelt, through `log stream`), for the audit log; each also goes to
   * the server's log (`LaunchPlan.onNote`). Linux and Windows report none.
   */
  onViolation?: (serverName: string, text: string) => void;
  /**
   * Asked when a sandboxed server starts that Airlock can observe — it has a
   * network proxy, or folders it may write — where to report what it does
   * (claims/: what a tool did, set against what it claims). Its write grants
   * are then watched for the whole run (grant-watch.ts). Absent, or
   * undefined returned: nothing is watched. Never asked for a server with
   * neither (nothing it does can leave its sandbox), nor for the probe.
   */
  observe?: (serverName: string, what: { network: boolean; writeGrants: readonly string[] }) => LaunchObserver | undefined;
}

/** Where one observed launch reports what its server does (see `SandboxLauncherOptions.observe`). */
export interface LaunchObserver {
  /** A change in one of its write grants. */
  grantChange(change: GrantChange): void;
  /** Given once its grants are watched: calls every change held back so far (a move's first half) what it is. */
  settleWith(settle: () => void): void;
  /** The launch is over (the server stopped, or did not start). */
  end(): void;
}
