/**
 * Reading another app's MCP config — Claude Desktop's, VS Code's, Cursor's,
 * or any file shaped like one — into one import entry per server (see
 * import-entry.ts). Nothing is run. The parts live beside it: where the apps
 * keep their configs (config-locations.ts), the variables they fill in
 * (import-variables.ts), remote entries (remote-entry.ts), package runners
 * (package-runners.ts), Airlock's own entries (airlock-entries.ts), and the
 * packages an entry names resolved when the person chose it (imported-packages.ts).
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { ImportOrigin } from '../../../shared/domain';
import { appFromPath, findConfigFiles, workspaceOfConfig, type ImportApp, type ImportEnvironment } from './config-locations';
import { ConfigImportError, describeValue, isPlainObject } from './config-shape';
import { importEntry } from './import-entry';
import type { ImportEntry } from './import-offers';
import { readInputs, type VsCodeInput } from './import-variables';
import { JsoncSyntaxError, parseJsonc } from './jsonc';

export { knownConfigLocations, findConfigFiles, appFromPath, workspaceOfConfig, type ImportApp, type ImportEnvironment, type ConfigLocation } from './config-locations';
export { ConfigImportError } from './config-shape';
export type { ImportEntry, NpmImportOffer, PypiImportOffer } from './import-offers';
export { resolveImportedNpm, resolveImportedPypi } from './imported-packages';

/** Everything read from one config file. */
export interface ImportResult {
  app: ImportOrigin['app'];
  path: string;
  /** The folder `${workspaceFolder}` was read as, when one was given or the file is a workspace's own. */
  workspace?: string;
  entries: ImportEntry[];
}

/**
 * Reads one config file and turns each server entry into an import entry.
 * The format is taken from `app`, or detected: `servers` is VS Code's,
 * `mcpServers` Claude Desktop's and Cursor's. Comments and trailing commas
 * are tolerated (VS Code writes JSONC). A workspace's own config
 * (`<folder>/.vscode/mcp.json`) reads `${workspaceFolder}` as that folder
 * unless another is given. Throws `ConfigImportError` naming the file when
 * it is missing, not JSON, or not shaped like an MCP config.
 */
export async function importConfigFile(path: string, options: ImportEnvironment & { app?: ImportApp } = {}): Promise<ImportResult> {
  const root = await readConfigObject(path);
  const format = options.app ?? ('servers' in root && !('mcpServers' in root) ? 'vscode' : 'mcpServers' in root ? 'claude' : undefined);
  const key = format === 'vscode' ? 'servers' : 'mcpServers';
  if (!format) throw new ConfigImportError(path, 'has neither “mcpServers” (Claude Desktop, Cursor) nor “servers” (VS Code): not an MCP config');
  const servers = root[key];
  if (servers === undefined) {
    throw new ConfigImportError(path, `has no “${key}” object, which ${format === 'vscode' ? 'VS Code' : format === 'cursor' ? 'Cursor' : 'Claude Desktop'} keeps its servers in`);
  }
  if (!isPlainObject(servers)) throw new ConfigImportError(path, `“${key}” must be an object of named servers, found ${describeValue(servers)}`);

  const inputs = format === 'vscode' ? readInputs(path, root.inputs) : new Map<string, VsCodeInput>();
  const app: ImportOrigin['app'] = options.app ?? (format === 'vscode' ? 'vscode' : appFromPath(path));
  const workspace = options.workspace ?? workspaceOfConfig(path);
  const environment = { ...options, home: options.home ?? homedir(), ...(workspace ? { workspace } : {}) };
  const entries: ImportEntry[] = [];
  const names = new Set<string>();
  for (const [entryName, value] of Object.entries(servers)) {
    const entry = await importEntry(entryName, value, { app, path, entry: entryName }, inputs, environment);
    if (entry.status === 'importable') entry.suggestedName = uniqueName(entry.suggestedName, names);
    entries.push(entry);
  }
  return { app, path, ...(workspace ? { workspace } : {}), entries };
}

/**
 * Imports every config file an app has in its usual places (see
 * `knownConfigLocations`). An app with no config yields an empty list.
 */
export async function importFromApp(app: ImportApp, environment: ImportEnvironment = {}): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for (const location of await findConfigFiles(environment, app)) {
    results.push(await importConfigFile(location.path, { ...environment, app }));
  }
  return results;
}

/** The file's top-level object; throws naming the file when it is missing, not JSON, or not an object. */
async function readConfigObject(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigImportError(path, code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a folder, not a file' : (error as Error).message);
  }
  let root: unknown;
  try {
    root = parseJsonc(text);
  } catch (error) {
    if (error instanceof JsoncSyntaxError) throw new ConfigImportError(path, `not valid JSON: ${error.message}`);
    throw error;
  }
  if (!isPlainObject(root)) throw new ConfigImportError(path, `must hold a JSON object at the top, found ${describeValue(root)}`);
  return root;
}

/** `name`, or `name-2`, `name-3`… when another entry of the same file took it. */
function uniqueName(name: string, taken: Set<string>): string {
  let result = name;
  for (let n = 2; taken.has(result); n += 1) {
    const suffix = `-${n}`;
    result = name.slice(0, 48 - suffix.length).replace(/-+$/, '') + suffix;
  }
  taken.add(result);
  return result;
}
