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
  dispose(): Promise<void>;
}

/** Turns a server spec and its profile into a launch plan, or throws (fail closed). */
export interface SandboxLauncher {
  plan(spec: ServerSpec, profile: SandboxProfile, context: LaunchContext): Promise<LaunchPlan>;
}
