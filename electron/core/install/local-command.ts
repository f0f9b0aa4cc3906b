import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { basename, delimiter, dirname, isAbsolute, join, resolve, win32 } from 'node:path';
import type { Provenance, ServerSpec } from '../../../shared/domain';
import { finishCandidate, suggestServerName, type InstallCandidate, type SecretRequest, type UserConfigField } from './candidate';
import { packageLabel } from './npm-source';

/** sha256 (hex) of a file's bytes, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** A local command that cannot become a candidate, with a reason a person can act on. */
export class LocalCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalCommandError';
  }
}

/** Where to look for executables; injectable so tests and imports do not depend on this process. */
export interface ExecutableLookup {
  /** PATH to search (defaults to this process's). */
  pathEnv?: string;
  /** Folder relative commands and scripts are resolved against (defaults to `process.cwd()`). */
  cwd?: string;
  platform?: NodeJS.Platform;
  /** PATHEXT on Windows. */
  pathExt?: string;
}

/**
 * Resolves a command to the absolute path of an executable regular file:
 * a path containing a separator is taken relative to `cwd`; a bare name is
 * searched on PATH, as a shell would. Throws `LocalCommandError` when absent.
 */
export async function resolveExecutable(command: string, lookup: ExecutableLookup = {}): Promise<string> {
  const platform = lookup.platform ?? process.platform;
  const cwd = lookup.cwd ?? process.cwd();
  const isWindows = platform === 'win32';
  const hasSeparator = command.includes('/') || (isWindows && command.includes('\\'));
  const extensions = isWindows ? ['', ...(lookup.pathExt ?? process.env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';')] : [''];
  const candidates: string[] = [];
  if (hasSeparator || isAbsolute(command)) {
    const base = isWindows ? win32.resolve(cwd, command) : resolve(cwd, command);
    for (const ext of extensions) candidates.push(base + ext);
  } else {
    const sep = isWindows ? ';' : delimiter;
    for (const dir of (lookup.pathEnv ?? process.env.PATH ?? '').split(sep)) {
      // SECURITY: an empty or relative PATH entry would make the result depend on the
      // folder Airlock happens to run in; only absolute entries count.
      if (!dir || !(isWindows ? win32.isAbsolute(dir) : isAbsolute(dir))) continue;
      for (const ext of extensions) candidates.push((isWindows ? win32.join : (a: string, b: string) => resolve(a, b))(dir, command + ext));
    }
  }
  for (const candidate of candidates) {
    try {
      const info = await stat(candidate);
      if (!info.isFile()) continue;
      if (!isWindows) await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  throw new LocalCommandError(
    hasSeparator
      ? `“${command}” is not an executable file (looked in ${cwd})`
      : `“${command}” was not found on PATH`,
  );
}

/** Interpreters whose first script argument is the server's own code. */
const INTERPRETERS: { match: RegExp; scriptAt: (args: string[]) => number | undefined }[] = [
  {
    // node [options] script.js — `-e`/`-p` means no script file; `-r X`, `--import X` take a value.
    match: /^(?:node|nodejs|node\.exe|tsx|ts-node)$/i,
    scriptAt: (args) => firstOperand(args, ['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--env-file', '--title'], ['-e', '--eval', '-p', '--print', '-i', '--interactive']),
  },
  {
    // python [options] script.py — `-m module` and `-c code` mean no script file.
    match: /^(?:python|python3|python3\.\d+|python\.exe|py)$/i,
    scriptAt: (args) => firstOperand(args, ['-W', '-X', '--check-hash-based-pycs'], ['-m', '-c']),
  },
  {
    // deno run [flags] script.ts
    match: /^deno(?:\.exe)?$/i,
    scriptAt: (args) => {
      if (args[0] !== 'run') return undefined;
      const at = firstOperand(args.slice(1), ['--config', '-c', '--import-map', '--lock', '--cert', '--location', '--v8-flags', '--env-file'], ['--eval']);
      return at === undefined ? undefined : at + 1;
    },
  },
  {
    // bun [run] [flags] script.ts
    match: /^bun(?:\.exe)?$/i,
    scriptAt: (args) => {
      const offset = args[0] === 'run' ? 1 : 0;
      const at = firstOperand(args.slice(offset), ['--cwd', '--env-file', '-r', '--preload', '--config'], ['-e', '--eval', '-p', '--print', 'x']);
      return at === undefined ? undefined : at + offset;
    },
  },
];

function firstOperand(args: string[], takesValue: string[], noScript: string[]): number | undefined {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (noScript.includes(arg)) return undefined;
    if (arg === '--') return index + 1 < args.length ? index + 1 : undefined;
    if (takesValue.includes(arg)) {
      index += 1;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return index;
  }
  return undefined;
}

/**
 * Index (into `args`) of the script an interpreter command runs, for
 * `node x.js`, `python x.py`, `deno run x.ts`, `bun x.ts` and the like.
 */
export function scriptArgumentIndex(command: string, args: string[]): number | undefined {
  const name = basename(command.replace(/\\/g, '/'));
  const interpreter = INTERPRETERS.find((entry) => entry.match.test(name));
  if (!interpreter) return undefined;
  const at = interpreter.scriptAt(args);
  if (at === undefined) return undefined;
  const script = args[at];
  // A URL or a package specifier (deno's `npm:`/`jsr:`) is not a local file.
  if (!script || /^[a-z][a-z0-9+.-]*:/i.test(script) && !/^[A-Za-z]:[\\/]/.test(script)) return undefined;
  return at;
}

/** File names that say nothing about the server: its package (or folder) names it instead. */
const GENERIC_SCRIPT = /^(?:index|main|server|cli|app|run|start|bin|mcp|stdio)$/i;
const GENERIC_FOLDER = /^(?:dist|build|lib|src|bin|out|esm|cjs)$/i;

/**
 * A name for a server run from a script: the script's name, unless it is a
 * generic one (`index.js`), then its package's name (`server-filesystem` →
 * `filesystem`), then its folder's.
 */
export function scriptLabel(scriptPath: string): string {
  const own = basename(scriptPath).replace(/\.[^.]+$/, '');
  if (!GENERIC_SCRIPT.test(own)) return own;
  let dir = dirname(scriptPath);
  for (let depth = 0; depth < 5 && dir !== dirname(dir); depth += 1, dir = dirname(dir)) {
    try {
      const name = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name;
      if (typeof name === 'string' && name.trim()) return packageLabel(name.trim());
    } catch {
      // no package.json here; look further up
    }
  }
  let folder = dirname(scriptPath);
  while (GENERIC_FOLDER.test(basename(folder)) && folder !== dirname(folder)) folder = dirname(folder);
  return basename(folder) || own;
}

/** What `prepareLocalCommand` needs: the argv as the user gave it and where it runs. */
export interface LocalCommandInput {
  command: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** A name for the server; defaults to one derived from the command or script. */
  name?: string;
  /** Secrets the caller already separated out (e.g. from an imported config). */
  secrets?: SecretRequest[];
  userConfig?: UserConfigField[];
  warnings?: string[];
}

/**
 * Builds a candidate for a command the user gave (or an imported config
 * named): the command is resolved to an absolute path and hashed, and for an
 * interpreter command the script is hashed too. Nothing is run.
 * `spec.command` is the resolved absolute path, so a later change of PATH
 * cannot swap the program that was disclosed.
 */
export async function prepareLocalCommand(
  input: LocalCommandInput,
  lookup: ExecutableLookup & { home?: string; hashFile?: (path: string) => Promise<string> } = {},
): Promise<InstallCandidate> {
  // The host passes its code hasher, so the hash pinned here is the one its first start finds remembered.
  const hashFile = lookup.hashFile ?? sha256File;
  if (!input.command.trim()) throw new LocalCommandError('the command is empty');
  const cwd = input.cwd ?? lookup.cwd;
  const executable = await resolveExecutable(input.command, { ...lookup, ...(cwd ? { cwd } : {}) });
  const warnings = [...(input.warnings ?? [])];
  let script: { path: string; sha256: string } | undefined;
  const scriptIndex = scriptArgumentIndex(executable, input.args);
  if (scriptIndex !== undefined) {
    const given = input.args[scriptIndex]!;
    const scriptPath = resolve(cwd ?? lookup.cwd ?? process.cwd(), given);
    try {
      if ((await stat(scriptPath)).isFile()) script = { path: scriptPath, sha256: await hashFile(scriptPath) };
      else warnings.push(`the script “${given}” is not a file`);
    } catch {
      warnings.push(`the script “${given}” was not found (looked in ${scriptPath}); it cannot be hashed`);
    }
  }
  const provenance: Provenance = {
    kind: 'local',
    executable,
    executableSha256: await hashFile(executable),
    ...(script ? { script } : {}),
  };
  const spec: ServerSpec = {
    command: executable,
    args: [...input.args],
    env: { ...(input.env ?? {}) },
    ...(cwd ? { cwd } : {}),
  };
  const label = input.name ?? (script ? scriptLabel(script.path) : basename(executable).replace(/\.exe$/i, ''));
  return finishCandidate({
    suggestedName: suggestServerName(label),
    spec,
    provenance,
    requested: { secrets: input.secrets ?? [], userConfig: input.userConfig ?? [] },
    warnings,
    skipArgIndexes: scriptIndex !== undefined ? [scriptIndex + 1] : [],
    ...(lookup.home ? { home: lookup.home } : {}),
  });
}
