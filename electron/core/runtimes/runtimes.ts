/**
 * Finds the programs servers run with — node (and npm, npx beside it),
 * python, uv — where a desktop app misses them: an app started from the
 * desktop does not get the shell's PATH, so a node from nvm, volta, fnm, asdf
 * or Homebrew is invisible to it. Order: the person's own setting, this
 * process's PATH, the login shell's PATH, then the version managers' and
 * Homebrew's usual folders. What is found is a path the person sees (in
 * `airlock doctor` and Settings) and the one the disclosure names.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join } from 'node:path';
import type { RuntimeView } from '../../../shared/views';

export type RuntimeName = RuntimeView['name'];
export const RUNTIME_NAMES: readonly RuntimeName[] = ['node', 'python', 'uv'];

/** Where to look; injectable so tests use a fake home and PATH. */
export interface RuntimeEnvironment {
  home?: string;
  pathEnv?: string;
  platform?: NodeJS.Platform;
  /** The login shell (default $SHELL); its PATH is asked for once, with a time limit. */
  shell?: string;
  /** The login shell's PATH, when already known (tests; a cache). Undefined: ask the shell. */
  loginShellPath?: string | null;
}

/** The executables a runtime is known by, in order of preference. */
const EXECUTABLES: Record<RuntimeName, string[]> = { node: ['node'], python: ['python3', 'python'], uv: ['uv'] };

/** True when `path` is an executable regular file. */
export function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(names: string[], pathEnv: string | undefined): string | undefined {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    // SECURITY: only absolute entries; a relative one would depend on the folder Airlock runs in.
    if (!dir || !isAbsolute(dir)) continue;
    for (const name of names) if (isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** Newest first, by the numbers in the folder names (v20.11.1 before v18.19.0). */
function newestFirst(names: string[]): string[] {
  const key = (name: string) => (name.match(/\d+/g) ?? []).map(Number);
  return [...names].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < Math.max(x.length, y.length); i += 1) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (y[i] ?? 0) - (x[i] ?? 0);
    return 0;
  });
}

function versionsIn(dir: string, inner: string): string[] {
  try {
    return newestFirst(readdirSync(dir)).map((version) => join(dir, version, inner));
  } catch {
    return [];
  }
}

/** The version managers' and package managers' folders, newest version first. */
function knownLocations(name: RuntimeName, home: string): Array<{ dir: string; from: string }> {
  const homebrew = ['/opt/homebrew/bin', '/usr/local/bin', '/home/linuxbrew/.linuxbrew/bin', join(home, '.linuxbrew/bin')].map((dir) => ({ dir, from: 'Homebrew' }));
  if (name === 'node') {
    return [
      ...versionsIn(join(home, '.nvm/versions/node'), 'bin').map((dir) => ({ dir, from: 'nvm' })),
      { dir: join(home, '.volta/bin'), from: 'volta' },
      ...versionsIn(join(home, '.local/share/fnm/node-versions'), 'installation/bin').map((dir) => ({ dir, from: 'fnm' })),
      ...versionsIn(join(home, '.fnm/node-versions'), 'installation/bin').map((dir) => ({ dir, from: 'fnm' })),
      ...versionsIn(join(home, 'Library/Application Support/fnm/node-versions'), 'installation/bin').map((dir) => ({ dir, from: 'fnm' })),
      ...versionsIn(join(home, '.asdf/installs/nodejs'), 'bin').map((dir) => ({ dir, from: 'asdf' })),
      { dir: join(home, '.asdf/shims'), from: 'asdf' },
      ...versionsIn('/usr/local/n/versions/node', 'bin').map((dir) => ({ dir, from: 'n' })),
      ...homebrew,
    ];
  }
  if (name === 'python') {
    return [{ dir: join(home, '.pyenv/shims'), from: 'pyenv' }, { dir: join(home, '.asdf/shims'), from: 'asdf' }, ...homebrew, { dir: '/usr/bin', from: 'the system' }];
  }
  return [{ dir: join(home, '.local/bin'), from: 'uv’s installer' }, { dir: join(home, '.cargo/bin'), from: 'cargo' }, ...homebrew];
}

/** Runs a program with one argument and returns its first line of output (for `--version`), or undefined. */
function firstLine(command: string, args: string[], timeoutMs = 3000): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, windowsHide: true, env: { PATH: dirname(command) + delimiter + (process.env.PATH ?? '') } }, (error, stdout, stderr) => {
      if (error) return resolve(undefined);
      resolve(`${stdout}${stderr}`.trim().split('\n')[0]?.trim() || undefined);
    });
  });
}

let loginShellPathCache: Promise<string | undefined> | undefined;

/**
 * The PATH a login shell sets up (where nvm, volta and Homebrew add
 * themselves), asked for once per process with a time limit; undefined
 * when there is no shell or it does not answer in time.
 */
export function loginShellPath(shell = process.env.SHELL, timeoutMs = 3000): Promise<string | undefined> {
  if (!shell || !isAbsolute(shell) || process.platform === 'win32') return Promise.resolve(undefined);
  loginShellPathCache ??= new Promise((resolve) => {
    const marker = '__AIRLOCK_PATH__';
    execFile(shell, ['-ilc', `printf '${marker}%s${marker}' "$PATH"`], { timeout: timeoutMs, windowsHide: true }, (_error, stdout) => {
      const match = new RegExp(`${marker}(.*?)${marker}`).exec(String(stdout ?? ''));
      resolve(match?.[1] || undefined);
    });
  });
  return loginShellPathCache;
}

/**
 * Finds one runtime. A setting is used as it is (a missing or
 * non-executable one is a problem, never silently replaced by another).
 */
export async function findRuntime(name: RuntimeName, setting: string | undefined, environment: RuntimeEnvironment = {}): Promise<RuntimeView> {
  const home = environment.home ?? homedir();
  const names = EXECUTABLES[name];
  const withVersion = async (path: string, from: string): Promise<RuntimeView> => {
    const version = await firstLine(path, ['--version']);
    return { name, path, from, ...(version ? { version: version.replace(/^Python\s+/, '').replace(/^uv\s+/, '') } : {}) };
  };
  if (setting) {
    if (!isAbsolute(setting)) return { name, path: setting, from: 'your setting', problem: `Your setting for ${name} (${setting}) must be an absolute path.` };
    if (!isExecutable(setting)) return { name, path: setting, from: 'your setting', problem: `Your setting for ${name} (${setting}) is not an executable file. Change it in Settings or with \`airlock runtimes set ${name} PATH\`.` };
    return withVersion(setting, 'your setting');
  }
  const fromPath = onPath(names, environment.pathEnv ?? process.env.PATH);
  if (fromPath) return withVersion(fromPath, 'PATH');
  const shellPath = environment.loginShellPath === undefined ? await loginShellPath(environment.shell) : (environment.loginShellPath ?? undefined);
  const fromShell = onPath(names, shellPath);
  if (fromShell) return withVersion(fromShell, 'your login shell’s PATH');
  for (const location of knownLocations(name, home)) {
    for (const executable of names) {
      const path = join(location.dir, executable);
      if (isExecutable(path)) return withVersion(path, location.from);
    }
  }
  return { name, problem: missingAdvice(name) };
}

function missingAdvice(name: RuntimeName): string {
  switch (name) {
    case 'node':
      return 'No node was found (PATH, your login shell, nvm, volta, fnm, asdf, Homebrew). JavaScript servers need it: install Node.js 20 or newer, or point Airlock at one with `airlock runtimes set node /path/to/node`.';
    case 'python':
      return 'No python3 was found. Python servers need it: install Python 3, or point Airlock at one with `airlock runtimes set python /path/to/python3`.';
    default:
      return 'No uv was found. Only servers you add as a `uvx` command line need it (Airlock installs Python packages itself, pinned, with python3’s venv and pip): install uv (`python3 -m pip install --user uv` or https://docs.astral.sh/uv/), or point Airlock at one with `airlock runtimes set uv /path/to/uv`.';
  }
}

/**
 * The folders to search for a server's bare command (`node`, `npx`,
 * `python3`, `uvx`): this process's PATH, then each runtime's own folder
 * (npx and uvx live beside node and uv), then the login shell's PATH.
 */
export function searchPath(runtimes: readonly RuntimeView[], pathEnv: string | undefined, shellPath: string | undefined): string {
  const dirs = [...runtimes.flatMap((runtime) => (runtime.path && !runtime.problem ? [dirname(runtime.path)] : [])), ...(pathEnv ?? '').split(delimiter), ...(shellPath ?? '').split(delimiter)];
  return [...new Set(dirs.filter((dir) => dir && isAbsolute(dir)))].join(delimiter);
}

/** The runtime a bare command needs, for advice when it is not found (`uvx` → uv). */
export function runtimeFor(command: string): RuntimeName | undefined {
  const name = basename(command).replace(/\.(exe|cmd)$/i, '');
  if (/^(node|npx|npm|nodejs)$/.test(name)) return 'node';
  if (/^(python3?(\.\d+)?|pip3?|py)$/.test(name)) return 'python';
  if (/^(uv|uvx)$/.test(name)) return 'uv';
  return undefined;
}

/** Where to find the programs servers run with (see core/runtimes); resolved at each prepare. */
export interface RuntimeLookup {
  /** The node that runs JavaScript servers. */
  nodePath?: string;
  /** npm, beside that node when there is one. */
  npmCommand?: string;
  /** The folders to search for a bare command (`node`, `npx`, `uvx`). */
  pathEnv?: string;
  /** The python whose venv and pip install Python servers. */
  pythonPath?: string;
  /** What to tell a person when a runtime is missing (by runtime name). */
  missing: Partial<Record<'node' | 'python' | 'uv', string>>;
}
