/**
 * The sandbox: what Airlock can enforce about a server, whatever it claims.
 * `createSandboxLauncher()` turns a profile into a launch plan through the
 * platform's backend (platform/: bubblewrap on Linux, Seatbelt on macOS,
 * srt-win on Windows) — per-server network proxies, scrubbed environment,
 * home hidden, grants pinned, trusted files protected, privileges and limits
 * as each platform can — and says, row by row, what that launch guarantees;
 * the supervisor spawns the plan and calls `dispose()` after the process has exited.
 */
export { isAtOrUnder } from './bwrap-argv';
export { checkSandboxSupport, findExecutable, type CapabilityProbe } from './capability';
export { SandboxInitError, SandboxProfileError, SandboxUnavailableError } from './errors';
export { DEFAULT_LIMITS, type LaunchContext, type LaunchPlan, type ResourceLimits, type SandboxLauncher } from './launcher';
export { GrantMovedError, needsPins, pinGrants } from './grant-pins';
export { privilegeFilterBytes } from './seccomp-filter';
export { ROOT_PLACEHOLDER_DIRS, TRUSTED_NAMES } from './trusted-files';
export { GrantWatcher, MAX_SEEN_ENTRIES, type GrantChange, type SeenEntry } from './grant-watch';
export {
  matchesGrant,
  startServerProxy,
  type NetworkDecision,
  type NetworkRequestHandler,
  type ServerNetworkPolicy,
  type ServerProxy,
} from './network-proxy';
export { dataFolderRegistryPath, registerDataFolder, registeredDataFolders } from './data-folders';
export { KNOWN_DATA_SETTINGS, probeProfile, SECRET_HOME_PATHS, SERVER_DATA_DIR_ENV, SYSTEM_SECRET_PATHS, strictestProfile } from './profiles';
export {
  createSandboxLauncher,
  SANDBOX_PROXY_PORT,
  SANDBOX_UNPRIVILEGED_ID,
  type AirlockSandboxLauncher,
  type LaunchObserver,
  type SandboxLauncherOptions,
} from './sandbox-launcher';
import { thisMachine } from './platform';
export { platformBackend, GUARANTEE_ROWS, SANDBOX_PLATFORMS, type Guarantee, type GuaranteeState, type PlatformBackend, type PlatformPlan, type SandboxPlatform } from './platform';

/**
 * Loads what a platform's backend needs that Airlock does not load at start
 * (sandbox-runtime's Windows or macOS module): called before a host opens on
 * that platform, and before a plan for it is shown elsewhere. Nothing for Linux.
 */
export async function loadSandboxLibrary(platform: string = thisMachine().platform): Promise<void> {
  if (platform === 'win32') await (await import('./platform/win32-library')).loadWindowsLibrary();
  if (platform === 'darwin') await (await import('./platform/darwin-library')).loadMacosLibrary();
}
