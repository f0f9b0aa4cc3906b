/**
 * The one seam between Airlock's sandbox and the operating system.
 *
 * A server's profile (grants, the hidden home, credential and data-folder
 * denies, the files host tools trust, the network policy, the limits) is
 * data; a platform backend turns it into a launch and says, row by row,
 * what that launch guarantees — `enforced`, `weaker` (and how), or
 * `not enforced`. Three backends implement it:
 *
 * - `linux`  — bubblewrap + seccomp + Airlock's per-server proxy (platform/linux.ts);
 * - `darwin` — Seatbelt (`sandbox-exec`) through sandbox-runtime's macOS utilities (platform/darwin.ts);
 * - `win32`  — sandbox-runtime's srt-win alpha (platform/win32.ts).
 *
 * Everything that asks "which OS is this?" lives behind this seam
 * (platform/index.ts picks the backend); `doctor`, Settings, the refusal to
 * start, the install disclosure, the server's Permissions page and
 * `airlock show --sandbox-plan` all read the backends' answers.
 *
 * `plan()` is pure: given the same input it returns the same data, on any
 * OS (the darwin and win32 plans are unit-tested on Linux). The effects —
 * starting a proxy, making folders, checking tools, provisioning — are the
 * launcher's (sandbox-launcher.ts) and each backend's `prepare()`.
 */
import type { SandboxSupport } from '../../../../shared/domain';
import type { CapabilityProbe } from '../executables';
import type { ResourceLimits } from '../launcher';

/** The platforms Airlock has a sandbox backend for. */
export type SandboxPlatform = 'linux' | 'darwin' | 'win32';

/** Every platform with a backend, in the order the guarantees table lists them. */
export const SANDBOX_PLATFORMS: readonly SandboxPlatform[] = ['linux', 'darwin', 'win32'];

/** How far one guarantee holds on one platform. */
export type GuaranteeState = 'enforced' | 'weaker' | 'not enforced';

/** The rows of the guarantees table, in its order. */
export const GUARANTEE_ROWS = [
  { id: 'home-hidden', label: 'Home folder hidden' },
  { id: 'credentials-denied', label: 'Credentials denied' },
  { id: 'data-folders-hidden', label: 'Other data folders hidden' },
  { id: 'writes-only-grants', label: 'Writes only to grants' },
  { id: 'protected-files', label: 'Protected files inside grants', onlyWith: 'write-grants' },
  { id: 'network-allowlist', label: 'Per-server network allowlist' },
  { id: 'network-questions', label: 'Run-time network questions' },
  { id: 'ipc-isolation', label: 'IPC isolation' },
  { id: 'privilege', label: 'Privilege (setuid/capabilities)' },
  { id: 'resource-limits', label: 'Resource limits' },
  { id: 'violation-reporting', label: 'Violation reporting' },
] as const;

/**
 * What a row's guarantee is about, when it is about only some servers: the
 * files protected inside write grants matter to a server only if it has a
 * write grant. Every other row matters to every server (on Windows even a
 * server with no grant shares one identity with those that have some).
 */
export type GuaranteeScope = 'write-grants';

/** One row's id (`home-hidden`, …). */
export type GuaranteeRowId = (typeof GUARANTEE_ROWS)[number]['id'];

/** One row of what a backend guarantees, in a person's words. */
export interface Guarantee {
  row: GuaranteeRowId;
  /** The row's name ("Home folder hidden"). */
  label: string;
  state: GuaranteeState;
  /** How it holds, or how it is weaker, or why it does not hold: one or two sentences. */
  how: string;
  /** Present when the row matters only to a server whose profile has this (the install disclosure shows it only then). */
  onlyWith?: GuaranteeScope;
}

/** Facts about this machine and this launch that change a guarantee (the same backend says more or less). */
export interface GuaranteeFacts {
  /** Airlock's effective user is root (Linux: the process limit does not bind; servers run as nobody). */
  runningAsRoot: boolean;
}

/** What the file rules of one launch are made of (each already resolved on the machine it runs on). */
export interface FileRuleParts {
  homeDir: string;
  /** The platform's credential paths (`PlatformBackend.secretPaths`). */
  secretPaths: readonly string[];
  /** Every Airlock data folder of this user. */
  dataFolders: readonly string[];
  /** Files hidden wherever they are (the audit log's key where it was moved). */
  hiddenFiles: readonly string[];
  /** The folder holding every launch's temp folders (the other servers'). */
  hiddenRuntime: string;
  /** sandbox-runtime's shared scratch folder, as this platform spells it. */
  scratchFolders: readonly string[];
  serverDataDir: string;
  /** The persistent data folder when the profile grants one (canonical), else absent. */
  dataDir?: string;
  /** Read grants (canonical). */
  read: readonly string[];
  /** Write grants (canonical). */
  write: readonly string[];
  /** The installed server's own folder inside Airlock's data. */
  codeDir?: string;
  /** Its working folder, runtime and project found under the home folder. */
  codeDirs: readonly string[];
  /** The launch's own writable folder. */
  writable: string;
  /** Paths inside write grants the person let it change trusted files in. */
  exempt: readonly string[];
  /** Trusted entries at the top of the write grants now. */
  existingTrusted: readonly string[];
  /** Reads a backend needs besides (Linux: the proxy's socket). */
  extraReadAllowed?: readonly string[];
}

/**
 * The file rules of one launch, platform-neutral, every path canonical
 * (symlinks resolved) in the target platform's spelling. Later rules win
 * over earlier ones only as each backend says: `readDenied` beats
 * `readAllowed` for any path beneath both that is *also* beneath a later
 * deny (a secret inside a grant stays denied).
 */
export interface FileRules {
  /** Denied to reads: the home folder as a whole, every credential path, every Airlock data folder, other servers' runtime folders. */
  readDenied: string[];
  /** Put back inside `readDenied`: read grants, the server's own code and runtime. Credential paths beneath them stay denied. */
  readAllowed: string[];
  /** The only places it may write: its temp folder, its write grants, its persistent data folder. */
  writeAllowed: string[];
  /** The write grants whose trusted files are protected (every write grant of the person's). */
  protectedRoots: string[];
  /** Paths inside those grants where the person let this server change trusted files (`filesystem.writeTrusted`). */
  protectedExempt: string[];
  /** Trusted entries that exist at the top of a protected root now (what a backend that can only deny existing paths denies). */
  protectedExisting: string[];
}

/** How the server reaches its own network proxy. */
export type ProxyEndpoint =
  /** Linux: a Unix socket bound into this server's sandbox only, bridged to 127.0.0.1:3128 inside its network namespace. */
  | { kind: 'unix-socket'; socketPath: string }
  /** macOS, Windows: a loopback TCP port of this server's own, which demands this server's credential. */
  | { kind: 'tcp'; host: '127.0.0.1'; port: number; credential: ProxyCredential };

/** What a server must present to use its own proxy (HTTP Basic for CONNECT and plain HTTP, RFC 1929 for SOCKS5). */
export interface ProxyCredential {
  user: string;
  token: string;
}

/** What a backend plans from: the profile, resolved on the machine it will run on. */
export interface PlanInput {
  serverName: string;
  /** The person's home folder (hidden as a whole). */
  homeDir: string;
  /** The server's executable, resolved (absolute). */
  command: string;
  args: string[];
  /** The server's complete environment (built from nothing; the proxy variables already in it). */
  env: Record<string, string>;
  /**
   * What a helper that starts the sandbox needs from Airlock's own
   * environment to run at all (Windows: `SystemRoot`, `ProgramData`, …) —
   * the helper's, never the server's.
   */
  helperEnv: Record<string, string>;
  cwd: string;
  /** The launch's own writable folder (its temp home and temp folder live in it). */
  launchDir: string;
  /** The server's own temporary folder (`TMPDIR`), inside `launchDir`. */
  tmpDir: string;
  files: FileRules;
  network: {
    /** Hosts it may reach without asking (its grants). */
    allowedHosts: string[];
    /** Whether a host it has no grant for is asked of the person. */
    questions: boolean;
    /** Its proxy; absent: no network path at all. */
    proxy?: ProxyEndpoint;
  };
  limits: ResourceLimits;
  facts: GuaranteeFacts;
}

/** One resource limit as the launch sets it, or does not. */
export interface AppliedLimit {
  kind: import('../launcher').LimitKind;
  value: number;
  /** False when this backend does not set or the OS does not enforce it (see the resource-limits guarantee). */
  applied: boolean;
}

/**
 * A backend's plan: pure data. What the person reads with
 * `airlock show NAME --sandbox-plan`, and (for darwin and win32) exactly
 * what the launcher spawns.
 */
export interface PlatformPlan {
  platform: SandboxPlatform;
  /** The mechanism ("bubblewrap", "Seatbelt (sandbox-exec)", "srt-win"). */
  backend: string;
  guarantees: Guarantee[];
  /** The file rules as this backend applies them (a backend may add rules, e.g. reads of its own writable folders). */
  files: { readDenied: string[]; readAllowed: string[]; writeAllowed: string[]; writeDenied: string[] };
  network: {
    /** Where the server's traffic goes ("127.0.0.1:3128 → its own proxy", …); absent: nowhere. */
    endpoint?: string;
    allowedHosts: string[];
    questions: boolean;
  };
  limits: AppliedLimit[];
  /** The launch: argv (no shell in front of it), spawned with exactly `env` and the input's cwd. */
  launch: { command: string; args: string[]; env: Record<string, string> };
  /** The complete Seatbelt profile (darwin). */
  profileText?: string;
  /** What this platform cannot give that Linux does, for this launch, in plain words. */
  notes: string[];
  /** What of the launch is made only when it starts, in words (a shown plan carries «…» placeholders for it). */
  atStart?: string[];
}

/** What one launch asks of a backend's session: the plan's input, and what only the launch has. */
export interface LaunchRequest {
  input: PlanInput;
  /** The pieces the input's file rules were made of, for a backend that builds its own (Linux: bubblewrap's mounts). */
  parts: FileRuleParts;
  /** The launch's folder (its writable folder, the privilege filter, the launch record live in it). */
  launchRoot: string;
  /** The person should know this (for the server's log). */
  note(text: string): void;
}

/** A launch a session started: the argv to spawn (with the input's env and cwd), and what to undo after the process exits. */
export interface StartedLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Called once after the process has exited (or the launch failed). */
  dispose?(): Promise<void> | void;
}

/** A backend's per-launcher state: tools pinned, a provisioning checked, a monitor running. */
export interface BackendSession {
  /** Does the effects of one launch and returns its argv; throws (fail closed) when the sandbox cannot be set up. */
  launch(request: LaunchRequest): Promise<StartedLaunch>;
  /** Releases what the session holds (a monitor, ACL grants). */
  close(): Promise<void>;
}

/** What a session is told by the launcher that made it. */
export interface SessionOptions {
  probe: CapabilityProbe;
  /** The shared parent of every Airlock process's runtime folder, and this process's own (once made). */
  runtime(): { parent?: string; ownRun?: string };
  /** A refusal the OS's sandbox reported for a server (macOS), for its log and the audit log. */
  onViolation?(serverName: string, text: string): void;
}

/**
 * One platform's sandbox. `support()` is the capability check (doctor,
 * Settings, the refusal to start); `guarantees()` the rows the person
 * reads; `plan()` the launch, pure; `openSession()` the effects.
 */
export interface PlatformBackend {
  readonly platform: SandboxPlatform;
  /** The mechanism, in a person's words. */
  readonly mechanism: string;
  /**
   * Whether Airlock's own escape suite has passed on a real machine of this
   * platform (the CI workflow's runners). Until then every page says the
   * guarantees are "not yet verified on a real machine".
   */
  readonly verifiedOnRealMachine: boolean;
  /** How servers reach their proxy here: a Unix socket, or a loopback port (in a fixed range where the OS fences the rest). */
  readonly proxyTransport: { kind: 'unix-socket' } | { kind: 'tcp'; portRange?: readonly [number, number] };
  /**
   * Whether this machine can sandbox servers with this backend, and if not,
   * exactly what is missing and the fix. A backend whose check is costly
   * (Windows: it runs srt-win) may answer "ready" from its last check of
   * the same probe; `fresh` asks the OS again (Settings' "Check again").
   */
  support(probe: CapabilityProbe, check?: { fresh?: boolean }): SandboxSupport;
  /** What a launch here guarantees, row by row. */
  guarantees(facts: GuaranteeFacts): Guarantee[];
  /** The credential paths under `homeDir` (and the system's) for this platform, in its path spelling. */
  secretPaths(homeDir: string): string[];
  /** The limits this platform does not set, or the OS does not enforce for this machine's facts, with why (shown on the server's page). */
  unenforcedLimits(facts: GuaranteeFacts): Partial<Record<import('../launcher').LimitKind, string>>;
  /** sandbox-runtime's shared scratch folder as this platform spells it (hidden from every server). */
  readonly scratchFolders: readonly string[];
  /**
   * Where the OS has no process groups (Windows): how to end a launched
   * process and everything it started, by force (`env`: Airlock's own, to
   * find the system's tools). Absent: the supervisor signals the POSIX group.
   */
  endProcessTree?(pid: number, env: NodeJS.ProcessEnv): void;
  /** Extensions an executable name may need here (Windows' PATHEXT), from Airlock's environment. */
  executableExtensions(env: NodeJS.ProcessEnv): string[];
  /** Whether a folder Airlock made for its runtime is private to this user (a shared temp folder must not be trusted blindly). */
  isPrivateFolder(info: import('node:fs').Stats, uid: number | undefined): boolean;
  /** The launch for this input: pure data (throws `SandboxProfileError` for a profile it cannot express). */
  plan(input: PlanInput): PlatformPlan;
  /** The per-launcher state that does the launches' effects. */
  openSession(options: SessionOptions): BackendSession;
}

/** The rows of `guarantees` that are weaker here than `reference` holds them (for the install disclosure). */
export function weakerThan(guarantees: readonly Guarantee[], reference: readonly Guarantee[]): Guarantee[] {
  const rank: Record<GuaranteeState, number> = { enforced: 2, weaker: 1, 'not enforced': 0 };
  return guarantees.filter((row) => {
    const other = reference.find((candidate) => candidate.row === row.row);
    return other !== undefined && rank[row.state] < rank[other.state];
  });
}

/** A guarantee row, labelled from the table. */
export function guarantee(row: GuaranteeRowId, state: GuaranteeState, how: string): Guarantee {
  const entry: { label: string; onlyWith?: GuaranteeScope } = GUARANTEE_ROWS.find((candidate) => candidate.id === row)!;
  return { row, label: entry.label, state, how, ...(entry.onlyWith ? { onlyWith: entry.onlyWith } : {}) };
}
