/**
 * The sandbox: what Airlock can enforce about a server, whatever it claims.
 * `createSandboxLauncher()` turns a profile into a launch plan (bubblewrap on
 * Linux, per-server network proxies, scrubbed environment); the supervisor
 * spawns the plan and calls `dispose()` after the process has exited.
 */
export { checkSandboxSupport, findExecutable, type CapabilityProbe } from './capability';
export { SandboxInitError, SandboxProfileError, SandboxUnavailableError } from './errors';
export type { LaunchContext, LaunchPlan, SandboxLauncher } from './launcher';
export {
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
  type AirlockSandboxLauncher,
  type SandboxLauncherOptions,
} from './sandbox-launcher';
