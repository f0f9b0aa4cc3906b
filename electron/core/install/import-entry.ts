/**
 * One server entry of another app's config, read into what Airlock can offer
 * for it: a local command, an npm or PyPI package to install pinned (for
 * `npx`, `uvx` and `pipx run` lines), a remote server — or why it cannot,
 * never dropped silently. Airlock's own entries (its gateway, `airlock run`)
 * are recognised and never offered. Nothing is run; local commands are
 * resolved and hashed. What an entry becomes is typed in import-offers.ts.
 */
import { basename } from 'node:path';
import type { ImportOrigin } from '../../../shared/domain';
import { airlockEntryKind } from './airlock-entries';
import { suggestServerName } from './candidate';
import { analyzeCommandLine } from './command-line-risk';
import type { ImportEnvironment } from './config-locations';
import { describeValue, ENV_NAME, FORBIDDEN_KEYS, isPlainObject } from './config-shape';
import type { ImportEntry } from './import-offers';
import { readEntryValues, type EntryValues, type VsCodeInput } from './import-variables';
import { LocalCommandError, prepareLocalCommand } from './local-command';
import { packageRunnerLine, pythonModule, refusedRunnerAdvice } from './package-runners';
import { remoteEntry } from './remote-entry';

/** The settings of a stdio entry that Airlock reads; any other is named as not imported. */
const STDIO_SETTINGS = ['type', 'command', 'args', 'env', 'cwd', 'envFile', 'disabled', 'dev', 'gallery', 'version'];

/** Reads one entry of a config file (see the file's header), with what it runs as the file wrote it. */
export async function importEntry(...read: Parameters<typeof readEntry>): Promise<ImportEntry> {
  const entry = await readEntry(...read);
  const value = read[1];
  const runs = !isPlainObject(value) ? undefined : typeof value.url === 'string' ? value.url : typeof value.command === 'string' ? [value.command, ...(Array.isArray(value.args) ? value.args.map(String) : [])].join(' ') : undefined;
  return runs === undefined ? entry : { ...entry, runs };
}

async function readEntry(
  entryName: string,
  value: unknown,
  origin: ImportOrigin,
  inputs: ReadonlyMap<string, VsCodeInput>,
  options: ImportEnvironment & { home: string },
): Promise<ImportEntry> {
  const invalid = (reason: string): ImportEntry => ({ entry: entryName, origin, status: 'invalid', reason });
  if (FORBIDDEN_KEYS.has(entryName)) return invalid('this name is not allowed for a server');
  if (!isPlainObject(value)) return invalid(`must be an object with a “command”, found ${describeValue(value)}`);
  const own = airlockEntryKind(entryName, value);
  if (own) return { entry: entryName, origin, status: 'airlock', kind: own, reason: own.kind === 'gateway' ? "Airlock's own entry (its gateway), not a server to import" : `Airlock's own entry: it serves ${own.server} from Airlock` };

  const type = value.type;
  if (typeof value.url === 'string' || type === 'http' || type === 'sse' || type === 'streamable-http') {
    return remoteEntry(entryName, value, origin, inputs);
  }
  const problem = stdioShapeProblem(value);
  if (problem) return invalid(problem);
  const command = value.command as string;
  const rawArgs = (value.args as string[] | undefined) ?? [];

  const values = readEntryValues(
    { command, args: rawArgs, ...(typeof value.cwd === 'string' ? { cwd: value.cwd } : {}), env: (value.env as Record<string, string> | undefined) ?? {} },
    { home: options.home, ...(options.workspace ? { workspace: options.workspace } : {}), inputs },
  );
  if (values.refusal) return { entry: entryName, origin, status: 'unsupported', reason: values.refusal, ...(values.needsWorkspace ? { needsWorkspace: true } : {}) };
  const warnings = [...settingsNotImported(value, origin), ...values.warnings];
  return offerFor(entryName, origin, [command, ...rawArgs], { ...values, warnings }, options);
}

/** Why a stdio entry is not one Airlock can read, or undefined. */
function stdioShapeProblem(value: Record<string, unknown>): string | undefined {
  const type = value.type;
  if (type !== undefined && type !== 'stdio') return `unknown server type “${String(type)}”`;
  if (typeof value.command !== 'string' || !value.command.trim()) return 'has no “command” (a non-empty string)';
  if (value.args !== undefined && !(Array.isArray(value.args) && value.args.every((a) => typeof a === 'string'))) return '“args” must be a list of strings';
  if (value.env !== undefined && !(isPlainObject(value.env) && Object.values(value.env).every((v) => typeof v === 'string'))) return '“env” must be an object of string values';
  if (value.cwd !== undefined && typeof value.cwd !== 'string') return '“cwd” must be a string';
  for (const name of Object.keys((value.env as Record<string, string> | undefined) ?? {})) {
    if (!ENV_NAME.test(name) || FORBIDDEN_KEYS.has(name)) return `“${name}” is not a valid environment variable name`;
  }
  return undefined;
}

/** The entry's settings Airlock does not carry over, each named. */
function settingsNotImported(value: Record<string, unknown>, origin: ImportOrigin): string[] {
  const warnings = Object.keys(value)
    .filter((key) => !STDIO_SETTINGS.includes(key))
    .map((key) => `the setting “${key}” was not imported`);
  if (value.envFile !== undefined) warnings.push('“envFile” was not imported: add its variables yourself (secrets as secrets)');
  if (value.disabled === true) warnings.push(`it was disabled in ${origin.app === 'file' ? 'that file' : 'that app'}`);
  return warnings;
}

/** What the entry's command line becomes: a pinned package for a runner's line, else the local command. */
async function offerFor(entryName: string, origin: ImportOrigin, originalArgv: string[], values: EntryValues, options: ImportEnvironment & { home: string }): Promise<ImportEntry> {
  let { command, args } = values;
  const warnings = values.warnings;
  // Windows configs often wrap npx in `cmd /c`.
  if (/^cmd(?:\.exe)?$/i.test(basename(command.replace(/\\/g, '/'))) && /^\/c$/i.test(args[0] ?? '') && args[1]) {
    warnings.push('the entry ran through “cmd /c”; Airlock runs the command without a shell');
    command = args[1];
    args = args.slice(2);
  }
  const suggestedName = suggestServerName(entryName);
  const importable = (offer: Extract<ImportEntry, { status: 'importable' }>['offer']): ImportEntry => ({
    entry: entryName,
    origin,
    status: 'importable',
    suggestedName,
    enabled: false,
    secretValues: values.secretValues,
    offer,
  });
  const inputs = { env: { ...values.env }, secrets: values.secrets, userConfig: values.userConfig, originalArgv, originalRisks: analyzeCommandLine(originalArgv), warnings };
  const runner = packageRunnerLine(command, args);
  if (runner?.kind === 'pypi-refused') return { entry: entryName, origin, status: 'unsupported', reason: refusedRunnerAdvice(runner, suggestedName) };
  if (runner?.kind === 'pypi') return importable({ kind: 'pypi', pypi: { packageSpec: runner.packageSpec, ...(runner.scriptName ? { scriptName: runner.scriptName } : {}), userArgs: runner.userArgs, ...inputs } });
  if (runner?.kind === 'npm') return importable({ kind: 'npm', npm: { packageSpec: runner.packageSpec, userArgs: runner.userArgs, ...inputs } });
  const module = pythonModule(command, args);
  if (module) {
    // It runs what this computer's Python has installed: imported as that command. A guess at a PyPI name could be someone else's package.
    warnings.push(
      `it runs the Python module ${module} installed on this computer, as it is now; if it comes from PyPI, \`airlock add ${suggestedName} --pypi PACKAGE\` installs it pinned into its own environment instead`,
    );
  }
  try {
    const candidate = await prepareLocalCommand(
      { command, args, ...(values.cwd ? { cwd: values.cwd } : {}), env: { ...values.env }, name: entryName, secrets: values.secrets, userConfig: values.userConfig, warnings },
      { ...(options.pathEnv !== undefined ? { pathEnv: options.pathEnv } : {}), ...(options.platform ? { platform: options.platform } : {}), home: options.home, ...(values.cwd ? { cwd: values.cwd } : {}) },
    );
    return importable({ kind: 'local', candidate: { ...candidate, suggestedName, importedFrom: origin } });
  } catch (error) {
    if (error instanceof LocalCommandError) return { entry: entryName, origin, status: 'invalid', reason: error.message };
    throw error;
  }
}
