import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The product name; Electron names the app's data folder after it. */
export const PRODUCT_NAME = 'Airlock';

/**
 * Airlock's data folder: `AIRLOCK_DATA_DIR` if set, otherwise the folder
 * Electron would use as `userData` for this app (appData/Airlock). The
 * desktop app sets its `userData` to this same path, so the app and the CLI
 * share one folder by default.
 */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (env.AIRLOCK_DATA_DIR) return env.AIRLOCK_DATA_DIR;
  return join(appDataDir(env, platform, home), PRODUCT_NAME);
}

/** Electron's `appData` path per OS. */
function appDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, home: string): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  if (platform === 'win32') return env.APPDATA ?? join(home, 'AppData', 'Roaming');
  return env.XDG_CONFIG_HOME ?? join(home, '.config');
}

/**
 * True when `dataDir` is a folder the person chose instead of the app's own
 * (`--data-dir`, `AIRLOCK_DATA_DIR`): Airlock then keeps everything inside it
 * (HostOptions.selfContained). The app's own folder named explicitly — as an
 * app's config entry for the gateway names it — is still the app's: it shares
 * the app's audit key.
 */
export function isChosenDataDir(dataDir: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = homedir()): boolean {
  const { AIRLOCK_DATA_DIR: _chosen, ...rest } = env;
  return resolve(dataDir) !== resolve(defaultDataDir(rest, platform, home));
}
