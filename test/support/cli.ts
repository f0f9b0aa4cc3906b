/**
 * The built `airlock` command as the CLI tests run it (TESTING.md: "the
 * built `airlock` command in a temp data folder"): one temp folder per test
 * file, with the data folder (`root/data`, made by the command) and a home
 * (`root/home`), the command run against them, and its `--json` output read.
 *
 * What differs between test files — the variables they add (`NO_COLOR`,
 * `XDG_CONFIG_HOME`, a package index), how long a command may take — is
 * each file's to say; the rest is here once.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository's root (fixtures and node_modules are found from it). */
export const REPO = resolve(import.meta.dirname, '../..');
/** The command as a person runs it (needs `npx electron-vite build`). */
export const BIN = join(REPO, 'bin/airlock.js');

/** How one command ended: its exit code (null when it was killed) and what it wrote. */
export interface CliResult {
  code: number | null;
  out: string;
  err: string;
}

/** A variable set to undefined is left out of the command's environment. */
export type CliEnv = Record<string, string | undefined>;

export interface CliOptions {
  /** Variables every command of this file gets on top of this process's and `HOME` (a function: read at each run). */
  env?: CliEnv | (() => CliEnv);
  /** How long a command may run before it is killed, in ms (none: it may run as long as it takes). */
  timeout?: number;
}

/** A test file's Airlock at the command line; remove it in `afterAll`. */
export interface AirlockCli {
  /** The temp folder everything of this file is in. */
  readonly root: string;
  /** Airlock's data folder (`--data-dir`), made by the first command. */
  readonly dataDir: string;
  /** The person's home folder (`HOME`), made empty. */
  readonly home: string;
  /** `airlock --data-dir DATA ARGS…`, waited for; `env` adds to the file's variables. */
  run(args: string[], env?: CliEnv): CliResult;
  /** The same without blocking this process (for fixtures that answer from it, such as a package index). */
  runAsync(args: string[], env?: CliEnv): Promise<CliResult>;
  /** `run` with `--json`, its output parsed; a clear error with both outputs when it is not JSON. */
  json(args: string[]): CliResult & { value: any };
  /** The command's whole environment, for a command started another way (a terminal, an app's connection). */
  env(extra?: CliEnv): Record<string, string>;
  remove(): void;
}

/** Makes the temp folder (named from `prefix`) and its home now, and returns what runs `airlock` in it. */
export function airlockCli(prefix: string, options: CliOptions = {}): AirlockCli {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dataDir = join(root, 'data');
  const home = join(root, 'home');
  mkdirSync(home);
  const env = (extra: CliEnv = {}): Record<string, string> => {
    const fileEnv = typeof options.env === 'function' ? options.env() : options.env;
    const all: CliEnv = { ...process.env, HOME: home, ...fileEnv, ...extra };
    return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
  };
  const argv = (args: string[]) => [BIN, '--data-dir', dataDir, ...args];
  const run = (args: string[], extra?: CliEnv): CliResult => {
    const result = spawnSync(process.execPath, argv(args), { env: env(extra), encoding: 'utf8', ...(options.timeout !== undefined ? { timeout: options.timeout } : {}) });
    return { code: result.status, out: result.stdout, err: result.stderr };
  };
  const runAsync = (args: string[], extra?: CliEnv): Promise<CliResult> =>
    new Promise((done) => {
      const child = spawn(process.execPath, argv(args), { env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const timer = options.timeout !== undefined ? setTimeout(() => child.kill('SIGKILL'), options.timeout) : undefined;
      child.on('close', (code) => {
        clearTimeout(timer);
        done({ code, out, err });
      });
    });
  const json = (args: string[]): CliResult & { value: any } => {
    const result = run([...args, '--json']);
    try {
      return { ...result, value: JSON.parse(result.out) };
    } catch {
      throw new Error(`not JSON (exit ${result.code}): ${result.out}\n${result.err}`);
    }
  };
  return { root, dataDir, home, run, runAsync, json, env, remove: () => rmSync(root, { recursive: true, force: true }) };
}
