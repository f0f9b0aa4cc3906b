/**
 * Where other apps keep their MCP servers — Claude Desktop, VS Code, Cursor —
 * per OS, and which app a config file belongs to. Nothing here reads a
 * config; it only says where to look.
 */
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, posix, win32 } from 'node:path';
import type { ImportOrigin } from '../../../shared/domain';

/** Apps whose MCP configs Airlock can import. */
export type ImportApp = 'claude' | 'vscode' | 'cursor';

/** Where a machine keeps things; injectable so tests never read the real home folder. */
export interface ImportEnvironment {
  home?: string;
  platform?: NodeJS.Platform;
  /** Environment used for APPDATA / XDG_CONFIG_HOME (default this process's). */
  env?: Record<string, string | undefined>;
  /** A workspace folder: adds its `.vscode/mcp.json` and `.cursor/mcp.json`, and fills `${workspaceFolder}`. */
  workspace?: string;
  /** PATH for resolving local commands (default this process's). */
  pathEnv?: string;
}

/** A place an app keeps its MCP servers. */
export interface ConfigLocation {
  app: ImportApp;
  path: string;
  scope: 'user' | 'workspace';
}

/**
 * The usual config locations per app and OS: Claude Desktop's
 * claude_desktop_config.json; VS Code's user mcp.json (stable and
 * Insiders) and a workspace's .vscode/mcp.json; Cursor's ~/.cursor/mcp.json
 * and a workspace's .cursor/mcp.json. Nothing is read.
 */
export function knownConfigLocations(environment: ImportEnvironment = {}): ConfigLocation[] {
  const platform = environment.platform ?? process.platform;
  const env = environment.env ?? process.env;
  const home = environment.home ?? homedir();
  const path = platform === 'win32' ? win32 : posix;
  const appData =
    platform === 'win32'
      ? env.APPDATA ?? path.join(home, 'AppData', 'Roaming')
      : platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support')
        : env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
          ? env.XDG_CONFIG_HOME
          : path.join(home, '.config');
  const locations: ConfigLocation[] = [
    { app: 'claude', path: path.join(appData, 'Claude', 'claude_desktop_config.json'), scope: 'user' },
    { app: 'vscode', path: path.join(appData, 'Code', 'User', 'mcp.json'), scope: 'user' },
    { app: 'vscode', path: path.join(appData, 'Code - Insiders', 'User', 'mcp.json'), scope: 'user' },
    { app: 'cursor', path: path.join(home, '.cursor', 'mcp.json'), scope: 'user' },
  ];
  if (environment.workspace) {
    locations.push({ app: 'vscode', path: path.join(environment.workspace, '.vscode', 'mcp.json'), scope: 'workspace' });
    locations.push({ app: 'cursor', path: path.join(environment.workspace, '.cursor', 'mcp.json'), scope: 'workspace' });
  }
  return locations;
}

/** The known locations that exist on this machine. */
export async function findConfigFiles(environment: ImportEnvironment = {}, app?: ImportApp): Promise<ConfigLocation[]> {
  const found: ConfigLocation[] = [];
  for (const location of knownConfigLocations(environment)) {
    if (app && location.app !== app) continue;
    try {
      if ((await stat(location.path)).isFile()) found.push(location);
    } catch {
      // absent: not an error, most people have only some of these apps
    }
  }
  return found;
}

/** Which app a config file belongs to, from where it is. */
export function appFromPath(path: string): ImportOrigin['app'] {
  const normal = path.replace(/\\/g, '/');
  if (normal.endsWith('claude_desktop_config.json')) return 'claude';
  if (normal.includes('/.cursor/')) return 'cursor';
  if (normal.includes('/.vscode/') || /\/Code(?: - Insiders)?\/User\//.test(normal)) return 'vscode';
  return 'file';
}

/**
 * The workspace a workspace config belongs to: `<folder>/.vscode/mcp.json`
 * and `<folder>/.cursor/mcp.json` are `<folder>`'s, which is what
 * `${workspaceFolder}` means in them. Undefined for a user-level config.
 */
export function workspaceOfConfig(path: string): string | undefined {
  const normal = path.replace(/\\/g, '/');
  if (!/\/\.(?:vscode|cursor)\/mcp\.json$/.test(normal)) return undefined;
  const folder = dirname(dirname(path));
  return basename(folder) ? folder : undefined;
}
