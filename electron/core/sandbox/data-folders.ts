/**
 * Every Airlock data folder this user has, so that no server — whichever
 * Airlock process started it — can read any of them (invariant 5). The app,
 * the CLI and tests may each use their own folder (`--data-dir`,
 * `AIRLOCK_DATA_DIR`); one holds a CLI's plain-text secrets file, another an
 * app's store. A folder under the home folder is hidden anyway (servers see
 * none of home unless granted); this registry covers folders elsewhere.
 *
 * The registry is one append-only file per user, outside every data folder
 * (`$XDG_STATE_HOME/airlock/data-folders`, default `~/.local/state/…`): one
 * absolute path per line, appended with O_APPEND so concurrent processes do
 * not lose each other's lines. Folders that no longer exist are skipped.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { AirlockError } from '../errors';
import { isAtOrUnder } from './bwrap-argv';

/** The registry file for this user. */
export function dataFolderRegistryPath(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const state = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : join(home, '.local', 'state');
  return join(state, 'airlock', 'data-folders');
}

/** How many registered folders are considered (the newest); a registry is a handful of lines in practice. */
const MAX_ENTRIES = 2000;

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function readEntries(registry: string): string[] {
  let text: string;
  try {
    text = readFileSync(registry, 'utf8');
  } catch {
    return [];
  }
  const lines = text.split('\n').filter((line) => isAbsolute(line));
  if (lines.length > 2 * MAX_ENTRIES) prune(registry, lines);
  return [...new Set(lines.slice(-MAX_ENTRIES))];
}

/**
 * Rewrites a long registry with only the folders that still exist (tests
 * make many short-lived ones). A line appended by another process meanwhile
 * can be lost; every Airlock process records its folder again whenever it
 * plans a server, so the loss lasts until then at most.
 */
function prune(registry: string, lines: string[]): void {
  const keep = [...new Set(lines)].filter((dir) => existsSync(dir));
  const temp = `${registry}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, keep.map((dir) => `${dir}\n`).join(''), { mode: 0o600 });
    renameSync(temp, registry);
  } catch {
    // best effort: the long file still works
  }
}

/**
 * Records a data folder (idempotent). Fails closed — throws — when the folder
 * lies outside the home folder and cannot be recorded: servers started by
 * another Airlock process would not know to hide it.
 */
export function registerDataFolder(dataDir: string, options: { registry?: string; homeDir?: string } = {}): void {
  const registry = options.registry ?? dataFolderRegistryPath();
  const dir = canonical(dataDir);
  // Present among the entries read: nothing to do. (An old line that fell out
  // of the window read is appended again, so a folder in use stays in it.)
  if (readEntries(registry).includes(dir)) return;
  try {
    mkdirSync(dirname(registry), { recursive: true, mode: 0o700 });
    appendFileSync(registry, `${dir}\n`, { mode: 0o600 });
  } catch (error) {
    const home = canonical(options.homeDir ?? homedir());
    if (isAtOrUnder(dir, home)) return; // hidden from every server anyway
    throw new AirlockError(
      'unavailable',
      `Airlock could not record its data folder ${dir} in ${registry} (${(error as Error).message}); servers started by another Airlock process could read it. Make that file writable, or use a data folder inside your home folder.`,
    );
  }
}

/** Every registered data folder that exists now, symlinks resolved. */
export function registeredDataFolders(registry: string = dataFolderRegistryPath()): string[] {
  return readEntries(registry)
    .filter((dir) => existsSync(dir))
    .map(canonical);
}
