import { homedir } from 'node:os';
import { join } from 'node:path';

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
