import type { RemoteSourceInput } from './remote-source';
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, posix, win32 } from 'node:path';
import type { ImportOrigin } from '../../../shared/domain';
import { suggestServerName, type InstallCandidate, type SecretRequest, type UserConfigField } from './candidate';
import { analyzeCommandLine, type CommandLineRisk } from './command-line-risk';
import { JsoncSyntaxError, parseJsonc } from './jsonc';
import { LocalCommandError, prepareLocalCommand } from './local-command';
import { NpmSourceError, parseNpmSpec, resolveNpm, type NpmOptions } from './npm-source';
import { PypiSourceError, resolvePypi, type ResolvePypiOptions } from './pypi-source';

/** Apps whose MCP configs Airlock can import. */
export type ImportApp = 'claude' | 'vscode' | 'cursor';

/** A config file that cannot be imported at all, naming the file and what was wrong. */
export class ConfigImportError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'ConfigImportError';
  }
}

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

/** What an npx entry becomes: an offer to install the package pinned, resolved when the caller asks. */
export interface NpmImportOffer {
  /** `name` or `name@range`, as the entry named it. */
  packageSpec: string;
  /** Arguments after the package. */
  userArgs: string[];
  env: Record<string, string>;
  secrets: SecretRequest[];
  userConfig: UserConfigField[];
  /** The entry's own command line and what it risks (`npx -y` runs whatever is newest). */
  originalArgv: string[];
  originalRisks: CommandLineRisk[];
  warnings: string[];
}

/**
 * What a `uvx PKG` (or `uv tool run`, `pipx run`) entry becomes: an offer to
 * install the Python package pinned into a virtual environment of its own,
 * resolved when the caller asks — instead of a download at every start.
 */
export interface PypiImportOffer {
  /** `name`, `name==1.2.3` or `name@1.2.3`, as the entry named it (`--from` wins). */
  packageSpec: string;
  /** The program the entry ran, when `--from` named the package separately. */
  scriptName?: string;
  userArgs: string[];
  env: Record<string, string>;
  secrets: SecretRequest[];
  userConfig: UserConfigField[];
  originalArgv: string[];
  originalRisks: CommandLineRisk[];
  warnings: string[];
}

interface EntryBase {
  /** The entry's key in the file. */
  entry: string;
  origin: ImportOrigin;
}

/**
 * One server entry of an imported config. Importable entries arrive
 * disabled, awaiting disclosure; unsupported and invalid ones are listed
 * with their reason, never dropped silently.
 */
export type ImportEntry =
  | (EntryBase & {
      status: 'importable';
      suggestedName: string;
      /** Imported servers never start until the user has seen the disclosure and enabled them. */
      enabled: false;
      /**
       * Secret values found in the file (env vars that look like credentials), by env var
       * name: hand them to the secret store. SECURITY (SECURITY.md rule 10): never persist
       * them with the server record.
       */
      secretValues: Record<string, string>;
      offer:
        | { kind: 'local'; candidate: InstallCandidate }
        | { kind: 'npm'; npm: NpmImportOffer }
        | { kind: 'pypi'; pypi: PypiImportOffer }
        | { kind: 'remote'; remote: RemoteSourceInput; warnings: string[] };
    })
  | (EntryBase & { status: 'unsupported'; reason: string })
  | (EntryBase & { status: 'invalid'; reason: string });

/** Everything read from one config file. */
export interface ImportResult {
  app: ImportOrigin['app'];
  path: string;
  entries: ImportEntry[];
}

// Env var names whose literal values are credentials more often than not.
const SECRET_NAME = /(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH)/i;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Reads one config file and turns each server entry into an import entry.
 * The format is taken from `app`, or detected: `servers` is VS Code's,
 * `mcpServers` Claude Desktop's and Cursor's. Comments and trailing commas
 * are tolerated (VS Code writes JSONC). Throws `ConfigImportError` naming the
 * file when it is missing, not JSON, or not shaped like an MCP config.
 * Nothing is run; local commands are resolved and hashed.
 */
export async function importConfigFile(
  path: string,
  options: ImportEnvironment & { app?: ImportApp } = {},
): Promise<ImportResult> {
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
  if (!isPlainObject(root)) throw new ConfigImportError(path, `must hold a JSON object at the top, found ${describe(root)}`);

  const format = options.app ?? ('servers' in root && !('mcpServers' in root) ? 'vscode' : 'mcpServers' in root ? 'claude' : undefined);
  const key = format === 'vscode' ? 'servers' : 'mcpServers';
  if (!format) throw new ConfigImportError(path, 'has neither “mcpServers” (Claude Desktop, Cursor) nor “servers” (VS Code): not an MCP config');
  const servers = root[key];
  if (servers === undefined) {
    throw new ConfigImportError(path, `has no “${key}” object, which ${format === 'vscode' ? 'VS Code' : format === 'cursor' ? 'Cursor' : 'Claude Desktop'} keeps its servers in`);
  }
  if (!isPlainObject(servers)) throw new ConfigImportError(path, `“${key}” must be an object of named servers, found ${describe(servers)}`);

  const inputs = format === 'vscode' ? readInputs(path, root.inputs) : new Map<string, VsCodeInput>();
  const app: ImportOrigin['app'] = options.app ?? (format === 'vscode' ? 'vscode' : appFromPath(path));
  const entries: ImportEntry[] = [];
  const names = new Set<string>();
  for (const [entryName, value] of Object.entries(servers)) {
    const origin: ImportOrigin = { app, path, entry: entryName };
    const entry = await importEntry(entryName, value, origin, inputs, options);
    if (entry.status === 'importable') entry.suggestedName = uniqueName(entry.suggestedName, names);
    entries.push(entry);
  }
  return { app, path, entries };
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

/**
 * Turns an importable npx entry into a pinned npm candidate: resolves the
 * package to one exact version and integrity (see `resolveNpm`), keeping the
 * entry's arguments, environment, secrets and origin. Called only when the
 * user chose to import that entry.
 */
export async function resolveImportedNpm(
  entry: ImportEntry,
  options: NpmOptions & { serverDir: string; nodePath?: string; home?: string },
): Promise<InstallCandidate> {
  if (entry.status !== 'importable' || entry.offer.kind !== 'npm') throw new NpmSourceError(`“${entry.entry}” is not an npm entry`);
  const offer = entry.offer.npm;
  const candidate = await resolveNpm(offer.packageSpec, {
    ...options,
    userArgs: offer.userArgs,
    serverEnv: offer.env,
    name: entry.suggestedName,
  });
  return {
    ...candidate,
    importedFrom: entry.origin,
    requested: { ...candidate.requested, secrets: offer.secrets, userConfig: offer.userConfig },
    warnings: [...offer.warnings, `imported from ${entry.origin.path} (“${entry.origin.entry}”), where it ran ${offer.originalArgv.join(' ')}`, ...candidate.warnings],
  };
}

/**
 * Turns an importable `uvx` entry into a pinned PyPI candidate (see
 * `resolvePypi`): one exact version and a lock of every file by its hash,
 * installed once into the server's own folder, keeping the entry's
 * arguments, environment, secrets and origin. Called only when the user chose
 * to import that entry.
 */
export async function resolveImportedPypi(entry: ImportEntry, options: ResolvePypiOptions): Promise<InstallCandidate> {
  if (entry.status !== 'importable' || entry.offer.kind !== 'pypi') throw new PypiSourceError(`“${entry.entry}” is not a Python package entry`);
  const offer = entry.offer.pypi;
  const candidate = await resolvePypi(offer.packageSpec, {
    ...options,
    userArgs: offer.userArgs,
    serverEnv: offer.env,
    name: entry.suggestedName,
    ...(offer.scriptName ? { scriptName: offer.scriptName } : {}),
  });
  return {
    ...candidate,
    importedFrom: entry.origin,
    requested: { ...candidate.requested, secrets: offer.secrets, userConfig: offer.userConfig },
    warnings: [
      ...offer.warnings,
      `imported from ${entry.origin.path} (“${entry.origin.entry}”), where it ran ${offer.originalArgv.join(' ')} (a download from PyPI at every start); Airlock installs it once, pinned, and runs it from its own folder`,
      ...candidate.warnings,
    ],
  };
}

interface VsCodeInput {
  id: string;
  type: string;
  description?: string;
  password: boolean;
  options?: string[];
  default?: string;
}

function readInputs(path: string, raw: unknown): Map<string, VsCodeInput> {
  const inputs = new Map<string, VsCodeInput>();
  if (raw === undefined) return inputs;
  if (!Array.isArray(raw)) throw new ConfigImportError(path, `“inputs” must be a list, found ${describe(raw)}`);
  raw.forEach((input, index) => {
    if (!isPlainObject(input) || typeof input.id !== 'string' || !input.id) {
      throw new ConfigImportError(path, `inputs[${index}] needs an “id”`);
    }
    inputs.set(input.id, {
      id: input.id,
      type: typeof input.type === 'string' ? input.type : 'promptString',
      ...(typeof input.description === 'string' ? { description: input.description } : {}),
      password: input.password === true,
      ...(Array.isArray(input.options) ? { options: input.options.filter((o): o is string => typeof o === 'string') } : {}),
      ...(typeof input.default === 'string' ? { default: input.default } : {}),
    });
  });
  return inputs;
}

/**
 * A remote entry (`url`, `type: http|sse`, `headers`): an offer to add it by
 * URL, read and checked like `airlock add --url` when it is disclosed.
 * Header values that read the app's variables (`${input:…}`, `${env:…}`)
 * cannot be carried over: the entry says how to add it instead.
 */
function remoteEntry(entryName: string, value: Record<string, unknown>, origin: ImportOrigin): ImportEntry {
  const invalid = (reason: string): ImportEntry => ({ entry: entryName, origin, status: 'invalid', reason });
  if (typeof value.url !== 'string' || !value.url.trim()) return invalid('has no “url” (a string)');
  const type = value.type;
  if (type !== undefined && type !== 'http' && type !== 'sse' && type !== 'streamable-http') return invalid(`unknown server type “${String(type)}”`);
  if (value.headers !== undefined && !(isPlainObject(value.headers) && Object.values(value.headers).every((v) => typeof v === 'string'))) {
    return invalid('“headers” must be an object of string values');
  }
  const suggestedName = suggestServerName(entryName);
  const headers = Object.entries((value.headers as Record<string, string> | undefined) ?? {}).map(([name, headerValue]) => ({ name, value: headerValue }));
  const variable = headers.find((header) => /\$\{[^}]*\}/.test(header.value));
  if (variable) {
    return {
      entry: entryName,
      origin,
      status: 'unsupported',
      reason: `its header ${variable.name} reads ${/\$\{[^}]*\}/.exec(variable.value)![0]} from the app, which Airlock cannot carry over: add it with \`airlock add ${suggestedName} --url ${value.url} --header "${variable.name}: …"\``,
    };
  }
  const warnings: string[] = [];
  for (const key of Object.keys(value)) {
    if (!['type', 'url', 'headers', 'disabled'].includes(key)) warnings.push(`the setting “${key}” was not imported`);
  }
  if (value.disabled === true) warnings.push(`it was disabled in ${origin.app === 'file' ? 'that file' : 'that app'}`);
  const transport = type === 'sse' ? 'sse' : type === 'streamable-http' ? 'streamable-http' : 'auto';
  return {
    entry: entryName,
    origin,
    status: 'importable',
    suggestedName,
    enabled: false,
    secretValues: {},
    offer: { kind: 'remote', remote: { url: value.url, headers, transport, name: suggestedName }, warnings },
  };
}

async function importEntry(
  entryName: string,
  value: unknown,
  origin: ImportOrigin,
  inputs: Map<string, VsCodeInput>,
  options: ImportEnvironment,
): Promise<ImportEntry> {
  const invalid = (reason: string): ImportEntry => ({ entry: entryName, origin, status: 'invalid', reason });
  const unsupported = (reason: string): ImportEntry => ({ entry: entryName, origin, status: 'unsupported', reason });
  if (FORBIDDEN_KEYS.has(entryName)) return invalid('this name is not allowed for a server');
  if (!isPlainObject(value)) return invalid(`must be an object with a “command”, found ${describe(value)}`);

  const type = value.type;
  if (typeof value.url === 'string' || type === 'http' || type === 'sse' || type === 'streamable-http') {
    return remoteEntry(entryName, value, origin);
  }
  if (type !== undefined && type !== 'stdio') return invalid(`unknown server type “${String(type)}”`);
  if (typeof value.command !== 'string' || !value.command.trim()) return invalid('has no “command” (a non-empty string)');
  if (value.args !== undefined && !(Array.isArray(value.args) && value.args.every((a) => typeof a === 'string'))) {
    return invalid('“args” must be a list of strings');
  }
  if (value.env !== undefined && !(isPlainObject(value.env) && Object.values(value.env).every((v) => typeof v === 'string'))) {
    return invalid('“env” must be an object of string values');
  }
  if (value.cwd !== undefined && typeof value.cwd !== 'string') return invalid('“cwd” must be a string');
  for (const name of Object.keys((value.env as Record<string, string> | undefined) ?? {})) {
    if (!ENV_NAME.test(name) || FORBIDDEN_KEYS.has(name)) return invalid(`“${name}” is not a valid environment variable name`);
  }

  const warnings: string[] = [];
  for (const key of Object.keys(value)) {
    if (!['type', 'command', 'args', 'env', 'cwd', 'envFile', 'disabled', 'dev', 'gallery', 'version'].includes(key)) {
      warnings.push(`the setting “${key}” was not imported`);
    }
  }
  if (value.envFile !== undefined) warnings.push('“envFile” was not imported: add its variables yourself (secrets as secrets)');
  if (value.disabled === true) warnings.push(`it was disabled in ${origin.app === 'file' ? 'that file' : 'that app'}`);

  // Variable substitution, shared by the three apps: VS Code's `${input:id}`, `${userHome}`,
  // `${workspaceFolder}`, `${env:NAME}`; Cursor understands the last three as well.
  const home = options.home ?? homedir();
  const secrets: SecretRequest[] = [];
  const userConfig = new Map<string, UserConfigField>();
  const secretValues: Record<string, string> = Object.create(null) as Record<string, string>;
  let refusal: string | undefined;
  const substitute = (text: string, where: string): string =>
    text.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
      if (name === 'userHome') return home;
      if (name === 'workspaceFolder' || name.startsWith('workspaceFolder:')) {
        if (options.workspace) return options.workspace;
        refusal ??= `${where} uses ${whole}, and no workspace folder was given`;
        return whole;
      }
      if (name.startsWith('input:')) {
        const input = inputs.get(name.slice('input:'.length));
        if (!input) {
          refusal ??= `${where} uses ${whole}, which “inputs” does not define`;
          return whole;
        }
        if (input.password) {
          refusal ??= `${where} uses the password input “${input.id}” inside a command line or a longer value; Airlock passes secrets only as a whole environment variable`;
          return whole;
        }
        userConfig.set(input.id, {
          key: input.id,
          title: input.description ?? input.id,
          ...(input.description ? { description: input.description } : {}),
          type: 'string',
          required: input.default === undefined,
          ...(input.default !== undefined ? { default: input.default } : {}),
        });
        return `\${user_config.${input.id}}`;
      }
      if (name.startsWith('env:')) {
        refusal ??= `${where} reads ${whole} from the environment of the app; Airlock does not pass its own environment on`;
        return whole;
      }
      warnings.push(`${whole} in ${where} is not a variable Airlock knows; it is passed on as written`);
      return whole;
    });

  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, raw] of Object.entries((value.env as Record<string, string> | undefined) ?? {})) {
    const inputRef = /^\$\{input:([^}]+)\}$/.exec(raw);
    const envRef = /^\$\{env:([^}]+)\}$/.exec(raw);
    const input = inputRef ? inputs.get(inputRef[1]!) : undefined;
    if (input?.password) {
      // SECURITY (SECURITY.md rule 10): a password input becomes a secret granted per server.
      secrets.push({ name, ...(input.description ? { description: input.description } : {}), required: true, from: 'vscode-input', key: input.id });
      continue;
    }
    if (envRef) {
      secrets.push({ name, description: `was read from the app's environment variable ${envRef[1]}`, required: true, from: 'imported-env', key: envRef[1]! });
      continue;
    }
    if (SECRET_NAME.test(name) && !raw.includes('${')) {
      // SECURITY (SECURITY.md rule 10): credentials found in plain config move to the secret store.
      secrets.push({ name, description: 'found in the imported config; moved to the secret store', required: true, from: 'imported-env' });
      secretValues[name] = raw;
      continue;
    }
    env[name] = substitute(raw, `env.${name}`);
  }
  let command = substitute(value.command, 'command');
  let args = ((value.args) ?? []).map((arg, index) => substitute(arg, `args[${index}]`));
  const cwd = typeof value.cwd === 'string' ? substitute(value.cwd, 'cwd') : undefined;
  if (refusal) return unsupported(refusal);
  const userConfigFields = [...userConfig.values()];

  // Windows configs often wrap npx in `cmd /c`.
  if (/^cmd(?:\.exe)?$/i.test(basename(command.replace(/\\/g, '/'))) && /^\/c$/i.test(args[0] ?? '') && args[1]) {
    warnings.push('the entry ran through “cmd /c”; Airlock runs the command without a shell');
    command = args[1];
    args = args.slice(2);
  }
  const suggestedName = suggestServerName(entryName);
  const importable = (offer: Extract<ImportEntry, { status: 'importable' }>['offer']): ImportEntry => ({ entry: entryName, origin, status: 'importable', suggestedName, enabled: false, secretValues, offer });
  const python = parsePythonRunner(command, args);
  if (python?.refused) {
    const rest = python.args.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`)).join(' ');
    return unsupported(
      `it runs the Python package ${python.package} with ${python.runner} ${python.refused}, which Airlock cannot pin as one package. ` +
        `Install it yourself (\`uv tool install ${python.package}\` or \`pipx install ${python.package}\`), then add the installed command: \`airlock add ${suggestedName} -- ~/.local/bin/${python.executable}${rest ? ` ${rest}` : ''}\``,
    );
  }
  if (python) {
    const originalArgv = [value.command, ...((value.args) ?? [])];
    return importable({
      kind: 'pypi',
      pypi: {
        packageSpec: python.spec,
        ...(python.from ? { scriptName: python.executable } : {}),
        userArgs: python.args,
        env: { ...env },
        secrets,
        userConfig: userConfigFields,
        originalArgv,
        originalRisks: analyzeCommandLine(originalArgv),
        warnings,
      },
    });
  }
  const module = pythonModule(command, args);
  if (module) {
    // It runs what this computer's Python has installed: imported as that command. A guess at a PyPI name could be someone else's package.
    warnings.push(
      `it runs the Python module ${module} installed on this computer, as it is now; if it comes from PyPI, \`airlock add ${suggestedName} --pypi PACKAGE\` installs it pinned into its own environment instead`,
    );
  }
  const npx = parseNpx(command, args);
  if (npx) {
    return importable({
      kind: 'npm',
      npm: {
        packageSpec: npx.packageSpec,
        userArgs: npx.userArgs,
        env: { ...env },
        secrets,
        userConfig: userConfigFields,
        originalArgv: [value.command, ...((value.args) ?? [])],
        originalRisks: analyzeCommandLine([value.command, ...((value.args) ?? [])]),
        warnings,
      },
    });
  }
  try {
    const candidate = await prepareLocalCommand(
      { command, args, ...(cwd ? { cwd } : {}), env: { ...env }, name: entryName, secrets, userConfig: userConfigFields, warnings },
      { ...(options.pathEnv !== undefined ? { pathEnv: options.pathEnv } : {}), ...(options.platform ? { platform: options.platform } : {}), home, ...(cwd ? { cwd } : {}) },
    );
    return importable({ kind: 'local', candidate: { ...candidate, suggestedName, importedFrom: origin } });
  } catch (error) {
    if (error instanceof LocalCommandError) return invalid(error.message);
    throw error;
  }
}

/**
 * `uvx pkg …`, `uv tool run pkg …`, `pipx run pkg …`: a Python package
 * fetched from PyPI at start. `refused` names an option that makes it more
 * than one pinned package (`--with`, another index, a Python version).
 * Undefined for anything else (`python -m x` runs what is installed, and is
 * imported as a local command).
 */
function parsePythonRunner(
  command: string,
  args: string[],
): { runner: string; package: string; spec: string; from?: string; executable: string; args: string[]; refused?: string } | undefined {
  const name = basename(command.replace(/\\/g, '/')).replace(/\.exe$/i, '');
  let rest: string[];
  let runner: string;
  if (name === 'uvx') [runner, rest] = ['uvx', args];
  else if (name === 'uv' && args[0] === 'tool' && args[1] === 'run') [runner, rest] = ['uv tool run', args.slice(2)];
  else if (name === 'pipx' && args[0] === 'run') [runner, rest] = ['pipx run', args.slice(1)];
  else return undefined;
  let index = 0;
  let from: string | undefined;
  let refused: string | undefined;
  while (index < rest.length && rest[index]!.startsWith('-')) {
    const flag = rest[index]!;
    if ((flag === '--from' || flag === '--spec') && rest[index + 1]) from = rest[index + 1];
    else if (['--with', '--index-url', '--extra-index-url', '--index', '--python', '-p', '--with-editable', '--with-requirements'].includes(flag)) refused ??= `and ${flag} ${rest[index + 1] ?? ''}`.trim();
    else if (!['-q', '--quiet', '--no-cache', '--offline', '--isolated'].includes(flag)) refused ??= `and ${flag}`;
    index += ['--from', '--with', '--python', '-p', '--index-url', '--extra-index-url', '--index', '--spec', '--with-editable', '--with-requirements'].includes(flag) ? 2 : 1;
  }
  const executable = rest[index];
  if (!executable) return undefined;
  const spec = from ?? executable;
  return {
    runner,
    package: spec.replace(/[<>=!~@\[].*$/, ''),
    spec,
    ...(from ? { from } : {}),
    executable: executable.replace(/[<>=!~@\[].*$/, ''),
    args: rest.slice(index + 1),
    ...(refused ? { refused } : {}),
  };
}

/** `python -m module …` (python, python3, python3.12): the module's name. */
function pythonModule(command: string, args: string[]): string | undefined {
  if (!/^python(?:3(?:\.\d+)?)?(?:\.exe)?$/i.test(basename(command.replace(/\\/g, '/')))) return undefined;
  const at = args.indexOf('-m');
  return at >= 0 && at < 3 ? args[at + 1] : undefined;
}

/** `npx [-y|--yes|…] pkg[@ver] args…` → the package and its arguments; undefined if not a plain npx call. */
function parseNpx(command: string, args: string[]): { packageSpec: string; userArgs: string[] } | undefined {
  if (!/^npx(?:\.cmd|\.exe)?$/i.test(basename(command.replace(/\\/g, '/')))) return undefined;
  let index = 0;
  while (index < args.length) {
    const arg = args[index]!;
    if (['-y', '--yes', '-q', '--quiet', '--prefer-offline', '--prefer-online', '--no'].includes(arg)) index += 1;
    else if (arg === '--') {
      index += 1;
      break;
    } else if (arg.startsWith('-')) return undefined; // -p/--package/-c: not a single package to pin
    else break;
  }
  const packageSpec = args[index];
  if (!packageSpec) return undefined;
  try {
    parseNpmSpec(packageSpec);
  } catch {
    return undefined;
  }
  return { packageSpec, userArgs: args.slice(index + 1) };
}

function appFromPath(path: string): ImportOrigin['app'] {
  const normal = path.replace(/\\/g, '/');
  if (normal.endsWith('claude_desktop_config.json')) return 'claude';
  if (normal.includes('/.cursor/')) return 'cursor';
  if (normal.includes('/.vscode/') || /\/Code(?: - Insiders)?\/User\//.test(normal)) return 'vscode';
  return 'file';
}

function uniqueName(name: string, taken: Set<string>): string {
  let result = name;
  for (let n = 2; taken.has(result); n += 1) {
    const suffix = `-${n}`;
    result = name.slice(0, 48 - suffix.length).replace(/-+$/, '') + suffix;
  }
  taken.add(result);
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
