/**
 * From a server's profile to the inputs of its launch, on the machine it
 * will run on: its grants checked (absolute, existing, pinned, never
 * covering Airlock's data), its command resolved, the folders of its own
 * code and runtime found, the granted secrets picked, and — pure — the
 * file rules every platform backend starts from (`fileRules`). These read
 * the filesystem (symlinks, existence); the backends' plans do not.
 */
import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { SandboxProfile, ServerSpec } from '../../../shared/domain';
import { AirlockError } from '../errors';
import { isAtOrUnder } from './bwrap-argv';
import { findExecutable } from './executables';
import { SandboxProfileError } from './errors';
import { checkPinned } from './grant-pins';
import type { LaunchContext } from './launcher';
import type { FileRuleParts, FileRules } from './platform/backend';
export type { FileRuleParts } from './platform/backend';
import { ROOT_PLACEHOLDER_DIRS, TRUSTED_NAMES } from './trusted-files';

/** The secrets the profile grants, and only those. */
export function pickSecrets(profile: SandboxProfile, context: LaunchContext): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const name of profile.secrets) {
    const value = context.secrets[name];
    if (value !== undefined) secrets[name] = value;
  }
  return secrets;
}

/**
 * The server's executable: a path (resolved against its working folder) or
 * a name found on the server's PATH (with `extensions`, Windows' PATHEXT).
 */
export function resolveCommand(command: string, pathEnv: string | undefined, cwd: string, extensions: readonly string[] = []): string {
  if (command.includes('/') || (sep === '\\' && command.includes('\\'))) return resolve(cwd, command);
  const found = findExecutable(command, pathEnv, extensions);
  if (!found) throw new AirlockError('not-found', `The server's command "${command}" was not found on PATH.`);
  return found;
}

/** A profile's paths, checked and resolved. */
export interface CheckedPaths {
  airlockDataDir: string;
  serverDataDir: string;
  read: string[];
  write: string[];
  /** `spec.cwd` when it lies inside Airlock's data folder (an installed server's own code). */
  codeDir?: string;
}

/** The path with every symlink resolved; the path itself (absolute) when it does not exist yet. */
export function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The paths inside write grants where the person let this server change
 * files host tools trust (`filesystem.writeTrusted`), resolved through the
 * grant they lie in. SECURITY (invariant 5): a path that now leads
 * somewhere else than beneath its grant as pinned (a folder on the way was
 * replaced by a symbolic link, say to another repository) is not exempted:
 * the person allowed that path, not wherever it leads now. It stays
 * protected, and the person is told.
 */
export function writeTrustedExemptions(profile: SandboxProfile, writeReal: readonly string[], note: (text: string) => void): string[] {
  const exempt: string[] = [];
  for (const path of profile.filesystem.writeTrusted ?? []) {
    const index = profile.filesystem.write.findIndex((grant) => isAbsolute(path) && isAtOrUnder(resolve(path), resolve(grant)));
    if (index < 0) continue; // not inside a write grant: nothing to lift
    const grant = profile.filesystem.write[index]!;
    const expected = join(writeReal[index]!, relative(resolve(grant), resolve(path)));
    const actual = resolvedAsFarAsExists(path);
    if (actual !== expected) {
      note(`You let this server change the trusted files at ${path}, but that path now leads to ${actual} (a part of it was replaced, for example by a symbolic link). Airlock keeps protecting them; give the permission again if the new place is what you want.`);
      continue;
    }
    exempt.push(expected);
  }
  return exempt;
}

/** The path with every symlink of its existing part resolved, and the rest (not there yet) appended as written. */
function resolvedAsFarAsExists(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest);
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return resolve(path);
      rest.unshift(basename(existing));
      existing = parent;
    }
  }
}

/**
 * Refuses grants that would reach Airlock's own data. Read and write grants
 * must be absolute, must exist, and — symlinks resolved — must neither
 * contain nor lie inside the data folder (the server's own data folder is
 * the persistent-data grant's business). The one exception is the installed
 * server's own folder, named by `spec.cwd`: readable, never writable, and
 * never a parent of its data folder.
 */
export function checkProfile(spec: ServerSpec, profile: SandboxProfile, context: LaunchContext): CheckedPaths {
  if (!isAbsolute(context.airlockDataDir) || !isAbsolute(context.serverDataDir)) {
    throw new SandboxProfileError("Airlock's data folder and the server's data folder must be absolute paths.");
  }
  const airlockDataDir = canonical(context.airlockDataDir);
  const serverDataDir = canonical(context.serverDataDir);
  const check = (kind: 'read' | 'write', path: string): string => {
    if (!isAbsolute(path)) throw new SandboxProfileError(`A ${kind} grant must be an absolute path: ${path}`);
    if (!existsSync(path)) throw new SandboxProfileError(`The ${kind} grant ${path} does not exist; create it or remove the grant.`);
    // SECURITY (invariant 5): a grant resolves where it did when it was given.
    const real = checkPinned(kind, path, canonical(path), profile, context.serverName);
    // SECURITY (invariant 5): no grant may expose Airlock's data folder, also
    // not through a symlink that points into it.
    if (isAtOrUnder(airlockDataDir, real) || (isAtOrUnder(real, airlockDataDir) && !isAtOrUnder(real, serverDataDir))) {
      throw new SandboxProfileError(`A ${kind} grant may not cover Airlock's own data folder: ${path}`);
    }
    return real;
  };
  const read = profile.filesystem.read.map((path) => check('read', path));
  const write = profile.filesystem.write.map((path) => check('write', path));
  if (write.some((path) => isAtOrUnder(path, serverDataDir)) && !profile.filesystem.persistentData) {
    throw new SandboxProfileError('Writing to the server data folder needs the persistent-data grant.');
  }
  let codeDir: string | undefined;
  if (spec.cwd) {
    const cwd = canonical(spec.cwd);
    if (isAtOrUnder(cwd, airlockDataDir)) {
      // SECURITY (invariant 5): the code folder is re-exposed for reading; it
      // must not also expose the data folder or other servers' folders.
      if (isAtOrUnder(serverDataDir, cwd) || isAtOrUnder(airlockDataDir, cwd)) {
        throw new SandboxProfileError(
          `A server installed in Airlock's data folder must run from its own install folder, not ${spec.cwd}.`,
        );
      }
      codeDir = cwd;
    }
  }
  return { airlockDataDir, serverDataDir, read, write, codeDir };
}

/** Folder names that hold a runtime's executables; the runtime is their parent (`~/.nvm/versions/node/v20/bin/node`). */
const RUNTIME_BIN_DIRS = new Set(['bin', 'sbin', 'shims', 'Scripts']);
/** Files that mark a project's root folder (its dependencies live beside them). */
const PROJECT_MARKERS = ['package.json', 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'Cargo.toml', 'go.mod', 'deno.json'];

/**
 * The home folder is hidden from every server; what a server needs to run
 * from it stays readable: its working folder, the runtime its command
 * belongs to (the folder above `bin/`: an nvm or volta node, a Python venv,
 * pyenv), and the project of any script argument (the nearest folder above
 * it with a package manifest, and above that the nearest with
 * `node_modules`, for workspaces). Never the home folder itself, never a
 * folder inside a hidden one (secrets, Airlock's data); secrets inside a
 * folder put back stay hidden.
 */
export function codeDirsUnderHome(spec: ServerSpec, command: string, homeDir: string, hidden: string[]): string[] {
  const candidates: string[] = [];
  if (spec.cwd) candidates.push(spec.cwd);
  for (const executable of new Set([command, canonical(command)])) {
    const dir = dirname(executable);
    candidates.push(RUNTIME_BIN_DIRS.has(basename(dir)) ? dirname(dir) : dir);
  }
  for (const arg of spec.args) {
    if (!isAbsolute(arg) || !isAtOrUnder(canonical(arg), homeDir)) continue;
    let isFile = false;
    try {
      isFile = statSync(arg).isFile();
    } catch {
      continue;
    }
    if (isFile) candidates.push(...projectOf(canonical(arg), homeDir));
  }
  const dirs = new Set<string>();
  for (const candidate of candidates) {
    const dir = canonical(candidate);
    if (!isAtOrUnder(dir, homeDir) || dir === homeDir) continue;
    if (hidden.some((path) => isAtOrUnder(dir, path))) continue;
    dirs.add(dir);
  }
  return [...dirs];
}

/** A script's own folder, its project root, and the workspace root holding `node_modules` (all below home). */
function projectOf(script: string, homeDir: string): string[] {
  const found = [dirname(script)];
  let dir = dirname(script);
  let project: string | undefined;
  while (dir !== homeDir && isAtOrUnder(dir, homeDir)) {
    if (!project && PROJECT_MARKERS.some((marker) => existsSync(join(dir, marker)))) {
      project = dir;
      found.push(dir);
      if (existsSync(join(dir, 'node_modules'))) break;
    } else if (project && existsSync(join(dir, 'node_modules'))) {
      found.push(dir);
      break;
    }
    dir = dirname(dir);
  }
  return found;
}

/**
 * The file rules every backend starts from (pure). SECURITY (invariant 5):
 * the home folder is hidden as a whole (an allowlist, as containers do):
 * only grants, the server's own code and its runtime are put back; the
 * credential paths, every Airlock data folder and the other launches'
 * folders stay denied beneath whatever is put back.
 */
export function fileRules(parts: FileRuleParts): FileRules {
  const readDenied = [
    parts.homeDir,
    ...parts.secretPaths,
    ...parts.dataFolders,
    ...parts.hiddenFiles,
    parts.hiddenRuntime,
    // the library's shared scratch folder, if one exists on this machine
    ...parts.scratchFolders,
  ];
  if (!parts.dataDir) readDenied.push(parts.serverDataDir);
  const readAllowed = [...parts.read];
  if (parts.codeDir) readAllowed.push(parts.codeDir);
  readAllowed.push(...parts.codeDirs, ...(parts.extraReadAllowed ?? []));
  const writeAllowed = [parts.writable, ...parts.write];
  if (parts.dataDir) writeAllowed.push(parts.dataDir);
  return {
    readDenied,
    readAllowed,
    writeAllowed,
    protectedRoots: [...parts.write],
    protectedExempt: [...parts.exempt],
    protectedExisting: [...parts.existingTrusted],
  };
}

/** Variables a sandbox helper (srt-win) needs from Airlock's environment to start: the OS's own, no secrets. */
const HELPER_ENV = ['SystemRoot', 'windir', 'SystemDrive', 'ComSpec', 'PATH', 'Path', 'PATHEXT', 'TEMP', 'TMP', 'ProgramData', 'LOCALAPPDATA', 'APPDATA', 'USERPROFILE', 'USERNAME', 'COMPUTERNAME', 'NUMBER_OF_PROCESSORS', 'PROCESSOR_ARCHITECTURE'];

export function helperEnv(hostEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of HELPER_ENV) {
    const value = hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The trusted entries at the top of each write grant now (what a backend that denies only existing paths denies). */
export function existingTrusted(writeGrants: readonly string[], exempt: readonly string[]): string[] {
  const found: string[] = [];
  for (const grant of writeGrants) {
    for (const name of new Set([...TRUSTED_NAMES, ...ROOT_PLACEHOLDER_DIRS])) {
      const path = join(grant, name);
      if (exempt.some((e) => isAtOrUnder(path, e))) continue;
      try {
        lstatSync(path);
        found.push(path);
      } catch {
        // not there
      }
    }
  }
  return found;
}
