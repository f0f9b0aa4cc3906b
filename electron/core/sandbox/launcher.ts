import type { SandboxProfile, ServerSpec } from '../../../shared/domain';

/** What a launcher needs to know about the server it is about to run. */
export interface LaunchContext {
  serverName: string;
  /** Airlock's own data folder: never readable or writable by a server. */
  airlockDataDir: string;
  /** The server's persistent data folder (used only when the profile grants it). */
  serverDataDir: string;
  /** Values of the secrets the profile grants, by name (passed as env vars). */
  secrets: Record<string, string>;
}

/**
 * Resource limits a sandboxed server and everything it starts run under
 * (rlimits, set inside the sandbox just before the server starts).
 */
export interface ResourceLimits {
  /**
   * Processes and threads of the sandbox's user (RLIMIT_NPROC, counted per
   * sandbox). Linux does not enforce it for processes whose real user is
   * root, so it does not hold when Airlock itself runs as root.
   */
  processes: number;
  /** Open file descriptors per process (RLIMIT_NOFILE). */
  openFiles: number;
  /** Writable private memory per process, in bytes (RLIMIT_DATA: heap and anonymous mappings). */
  memoryBytes: number;
  /** CPU time per process, in seconds (RLIMIT_CPU; SIGXCPU, then SIGKILL ten seconds later). */
  cpuSeconds: number;
  /**
   * The limits this platform's sandbox does not set or the OS does not
   * enforce, each with why in a person's words (macOS: the process count;
   * Windows: all of them). Absent: every limit holds.
   */
  unenforced?: Partial<Record<LimitKind, string>>;
}

/** The four limits, by name. */
export type LimitKind = 'processes' | 'openFiles' | 'memoryBytes' | 'cpuSeconds';

/**
 * Generous enough for real servers (Node's own threads, a browser a server
 * drives, a week of light use), tight enough to stop a fork bomb, a leak that
 * would take the machine's memory, or a loop that burns a core for a day.
 */
export const DEFAULT_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  processes: 1024,
  openFiles: 8192,
  memoryBytes: 8 * 1024 ** 3,
  cpuSeconds: 4 * 60 * 60,
});

/**
 * Exactly what the supervisor spawns: an argv with no shell in the path, the
 * complete environment (nothing is merged in later), and a disposer that
 * removes the temporary folder and anything else the launch set up.
 */
export interface LaunchPlan {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** True when the plan runs the server inside the OS sandbox. */
  sandboxed: boolean;
  /** The resource limits the server runs under (sandboxed plans only), for the server's page. */
  limits?: ResourceLimits;
  /**
   * Notes for the person about this launch (a planted file held aside), for
   * the server's log: replays the notes so far, then each new one, until
   * the returned function is called.
   */
  onNote?(listener: (text: string) => void): () => void;
  /**
   * Where the OS has no process groups (Windows): ends the process the plan
   * started and everything it started, by force. Set by the platform's
   * backend; absent, the supervisor signals the POSIX process group.
   * Call it only while that process has not exited (its pid is still its own).
   */
  endTree?(pid: number): void;
  dispose(): Promise<void>;
}

/** Turns a server spec and its profile into a launch plan, or throws (fail closed). */
export interface SandboxLauncher {
  plan(spec: ServerSpec, profile: SandboxProfile, context: LaunchContext): Promise<LaunchPlan>;
}
