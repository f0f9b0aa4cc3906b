import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Provenance, ServerSpec } from '../../../shared/domain';
import { finishCandidate, suggestServerName, type InstallCandidate } from './candidate';
import { parseNpmSpec } from './npm-spec';
import { NpmSourceError } from './source-errors';
import { compareVersions } from './version-order';

export { NpmSourceError } from './source-errors';

// npm's codes for a registry it could not reach (as opposed to E404, a name it does not know).
const NETWORK_CODES = /^(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ESOCKETTIMEDOUT|ENETUNREACH|EHOSTUNREACH|EPROTO|ERR_SOCKET_TIMEOUT|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN|CERT_HAS_EXPIRED)$/;

export { parseNpmSpec, type NpmPackageSpec } from './npm-spec';

/** How Airlock runs npm; injectable for a different npm binary or node. */
export interface NpmOptions {
  /** The npm executable (default `npm` from PATH). */
  npmCommand?: string;
  /** Environment for npm (default: this process's, so npm's configured registry is honoured). */
  env?: NodeJS.ProcessEnv;
  /** Milliseconds before npm is stopped (default 60 s for view, 5 min for install). */
  timeoutMs?: number;
  /** Stops npm (the install was cancelled); the returned promise still settles only once npm has exited. */
  signal?: AbortSignal;
}

function runNpm(args: string[], options: NpmOptions & { cwd?: string }, defaultTimeout: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      options.npmCommand ?? 'npm',
      args,
      {
        cwd: options.cwd,
        env: {
          ...(options.env ?? process.env),
          // An npm found beside a node (nvm, volta) starts with `#!/usr/bin/env node`: that node must be on its PATH.
          ...(options.npmCommand && isAbsolute(options.npmCommand) ? { PATH: `${dirname(options.npmCommand)}${delimiter}${(options.env ?? process.env).PATH ?? ''}` } : {}),
          npm_config_update_notifier: 'false',
        },
        timeout: options.timeoutMs ?? defaultTimeout,
        maxBuffer: 64 * 1024 * 1024,
        shell: false,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error) {
          (error as Error & { stdout?: string; stderr?: string }).stdout = String(stdout);
          (error as Error & { stdout?: string; stderr?: string }).stderr = String(stderr);
          reject(error instanceof Error ? error : new Error(String(error)));
        } else resolvePromise(String(stdout));
      },
    );
    // Not execFile's own `signal`: that settles at once, while npm may still be writing; this settles when npm has exited.
    stopOnAbort(child, options.signal);
  });
}

/** Ends `child` when `signal` aborts (at once if it already has); its exit still settles whoever waits for it. */
export function stopOnAbort(child: { kill(): boolean }, signal: AbortSignal | undefined): void {
  if (!signal) return;
  if (signal.aborted) child.kill();
  else signal.addEventListener('abort', () => child.kill(), { once: true });
}

function npmFailure(what: string, error: unknown): NpmSourceError {
  const { stdout = '', stderr = '', killed } = error as { stdout?: string; stderr?: string; killed?: boolean };
  if (killed) return new NpmSourceError(`${what}: npm took too long and was stopped`);
  try {
    const parsed = JSON.parse(stdout) as { error?: { code?: string; summary?: string } };
    const failure = parsed.error;
    if (failure?.summary && failure.code && NETWORK_CODES.test(failure.code)) {
      return new NpmSourceError(`${what.replace(/^npm could not find /, 'npm could not look up ')}: npm could not reach its registry (${failure.code} ${failure.summary}), so whether the package exists is not known. Check the network (or npm's registry setting), then try again`, undefined, `${failure.code} ${failure.summary}`);
    }
    if (failure?.summary) return new NpmSourceError(what, `${failure.code ?? 'error'} ${failure.summary}`);
  } catch {
    // not JSON; fall back to stderr
  }
  const lines = stderr.split('\n').filter((line) => line.trim() && !line.includes('complete log of this run'));
  return new NpmSourceError(what, lines.slice(0, 6).join(' | ').slice(0, 800) || (error as Error).message);
}

async function npmViewJson(spec: string, fields: string[], options: NpmOptions): Promise<unknown> {
  try {
    const stdout = await runNpm(['view', '--json', spec, ...fields], options, 60_000);
    return stdout.trim() ? JSON.parse(stdout) : undefined;
  } catch (error) {
    throw npmFailure(`npm could not find ${spec}`, error);
  }
}

/** What `resolveNpm` needs besides the package spec. */
export interface ResolveNpmOptions extends NpmOptions {
  /** The server's own folder in Airlock's data, where `installNpmPackage` will install it. */
  serverDir: string;
  /** Arguments after the bin script (e.g. folders for server-filesystem). */
  userArgs?: string[];
  /** Plain environment variables for the server. */
  serverEnv?: Record<string, string>;
  /** Which `bin` entry to run when the package has several. */
  binName?: string;
  /** Arguments for node before the bin script (a registry listing's runtime arguments for node). */
  runtimeArgs?: string[];
  /** The node that runs JS bins (default `process.execPath`; inside Electron pass a real node). */
  nodePath?: string;
  /** A name for the server (default derived from the package name). */
  name?: string;
  home?: string;
}

interface PackageManifest {
  name?: string;
  version?: string;
  bin?: string | Record<string, string>;
  scripts?: Record<string, string>;
  dist?: { integrity?: string; tarball?: string };
  time?: Record<string, string>;
  maintainers?: (string | { name?: string; email?: string })[];
  'dist-tags'?: Record<string, string>;
  mcpName?: string;
}

/**
 * Resolves `name` or `name@range` against npm's configured registry to one
 * exact version with its `dist.integrity`, publish date and maintainers, and
 * plans where it will be installed and how it will run. Nothing is
 * installed or run. An update is another call with the new range: a new
 * candidate that goes through disclosure again.
 */
export async function resolveNpm(packageSpec: string, options: ResolveNpmOptions): Promise<InstallCandidate> {
  const { name, range } = parseNpmSpec(packageSpec);
  if (!isAbsolute(options.serverDir)) throw new NpmSourceError('the server folder must be an absolute path');
  const serverDir = resolve(options.serverDir);

  const [matching, tags] = await Promise.all([
    npmViewJson(`${name}@${range}`, ['version'], options),
    npmViewJson(name, ['dist-tags'], options),
  ]);
  const versions = (Array.isArray(matching) ? matching : [matching]).filter((v): v is string => typeof v === 'string');
  if (versions.length === 0) throw new NpmSourceError(`no version of ${name} matches “${range}”`);
  // npm's own choice: the `latest` tag when it satisfies the range, else the highest match.
  const latest = (tags as Record<string, string> | undefined)?.latest;
  const version = latest && versions.includes(latest) ? latest : [...versions].sort(compareVersions).at(-1)!;

  const manifest = (await npmViewJson(`${name}@${version}`, [], options)) as PackageManifest | undefined;
  if (!manifest || manifest.version !== version || manifest.name !== name) {
    throw new NpmSourceError(`the registry's answer for ${name}@${version} does not name that version`);
  }
  const integrity = manifest.dist?.integrity;
  // SECURITY (invariant 7): without an integrity hash the install could not be checked.
  if (!integrity || !/^sha(?:256|384|512)-[A-Za-z0-9+/=]+$/.test(integrity)) {
    throw new NpmSourceError(`${name}@${version} has no sha512 integrity hash in the registry; Airlock will not install it`);
  }
  const bins = normaliseBin(name, manifest.bin);
  const binName = pickBin(name, bins, options.binName);
  const binPath = safeJoin(join(serverDir, 'node_modules', ...name.split('/')), bins[binName]!);
  const nodePath = options.nodePath ?? process.execPath;
  const userArgs = options.userArgs ?? [];
  const runtimeArgs = runsWithNode(binPath) ? (options.runtimeArgs ?? []) : [];
  const spec: ServerSpec = {
    command: runsWithNode(binPath) ? nodePath : binPath,
    args: runsWithNode(binPath) ? [...runtimeArgs, binPath, ...userArgs] : [...userArgs],
    env: { ...(options.serverEnv ?? {}) },
    cwd: serverDir,
  };
  const maintainers = (manifest.maintainers ?? [])
    .map((m) => (typeof m === 'string' ? m : [m.name, m.email ? `<${m.email}>` : ''].filter(Boolean).join(' ')))
    .filter(Boolean);
  const provenance: Provenance = {
    kind: 'npm',
    name,
    version,
    integrity,
    ...(manifest.time?.[version] ? { publishedAt: manifest.time[version] } : {}),
    ...(maintainers.length ? { maintainers } : {}),
    installDir: serverDir,
  };
  const installScripts = Object.keys(manifest.scripts ?? {}).filter((script) =>
    ['preinstall', 'install', 'postinstall', 'prepare'].includes(script),
  );
  const warnings: string[] = [];
  // `prepare` never runs for a package installed from the registry (only for git and local
  // installs), so saying it is off tells nothing; the others would have run and do not.
  const skipped = installScripts.filter((script) => script !== 'prepare');
  if (skipped.length) {
    warnings.push(`declares install scripts (${skipped.join(', ')}); Airlock installs with scripts off, so parts of it may not work`);
  }
  if (!range.match(/^v?\d+\.\d+\.\d+$/)) warnings.push(`“${range}” resolved to ${version}; Airlock pins that exact version`);
  return finishCandidate({
    suggestedName: suggestServerName(options.name ?? packageLabel(name)),
    spec,
    provenance,
    requested: { secrets: [], userConfig: [] },
    warnings,
    npm: {
      requested: range,
      ...(manifest.dist?.tarball ? { tarball: manifest.dist.tarball } : {}),
      binName,
      installScripts,
      userArgs,
      ...(typeof manifest.mcpName === 'string' ? { mcpName: manifest.mcpName } : {}),
    },
    skipArgIndexes: runsWithNode(binPath) ? [1 + runtimeArgs.length] : [0],
    ...(options.home ? { home: options.home } : {}),
  });
}

/** `@scope/server-foo`, `mcp-server-foo`, `foo-mcp` → `foo`. */
export function packageLabel(name: string): string {
  const bare = name.replace(/^@[^/]+\//, '');
  const label = bare.replace(/^(?:mcp-server-|server-|mcp-)/, '').replace(/(?:-mcp-server|-mcp)$/, '');
  return label || bare;
}

/**
 * An update of an installed npm server: resolves `range` for the same
 * package into the same server folder, keeping the arguments the user added
 * and the plain environment. The result is a new candidate for disclosure
 * (with a warning naming both versions); nothing changes until the caller
 * runs `installNpmPackage` with it after consent.
 */
export async function resolveNpmUpdate(
  current: { spec: ServerSpec; provenance: Provenance },
  range: string,
  options: NpmOptions & { nodePath?: string; binName?: string; name?: string; home?: string } = {},
): Promise<InstallCandidate> {
  const provenance = current.provenance;
  if (provenance.kind !== 'npm') throw new NpmSourceError('only npm servers can be updated from the registry');
  const packageDir = join(provenance.installDir, 'node_modules', ...provenance.name.split('/'));
  // The installed bin is the first argument under node, or the command itself.
  const userArgs = current.spec.args[0]?.startsWith(packageDir) ? current.spec.args.slice(1) : [...current.spec.args];
  const next = await resolveNpm(`${provenance.name}@${range}`, {
    ...options,
    serverDir: provenance.installDir,
    userArgs,
    serverEnv: current.spec.env,
  });
  const version = (next.provenance as { version: string }).version;
  const change =
    version === provenance.version
      ? `${provenance.name} stays at ${version}`
      : `update ${provenance.name} from ${provenance.version} to ${version}: review it as a new install`;
  return { ...next, warnings: [change, ...next.warnings] };
}

/**
 * Checks an npm v7+ package-lock.json: the top-level package must be
 * exactly `name@version` with exactly `integrity`. Throws `NpmSourceError`
 * saying what differs. Returns how many packages the lockfile pins.
 */
export function checkLockfile(lockText: string, name: string, version: string, integrity: string): { packageCount: number } {
  let lock: { lockfileVersion?: number; packages?: Record<string, { version?: string; integrity?: string }> };
  try {
    lock = JSON.parse(lockText) as typeof lock;
  } catch {
    throw new NpmSourceError('package-lock.json is not valid JSON');
  }
  const entry = lock.packages?.[`node_modules/${name}`];
  // SECURITY (invariant 7): what is on disk must be the exact bytes the disclosure named.
  if (!entry || entry.version !== version) {
    throw new NpmSourceError(`the lockfile does not hold ${name}@${version} (found ${entry?.version ?? 'nothing'})`);
  }
  if (entry.integrity !== integrity) {
    throw new NpmSourceError(`integrity mismatch for ${name}@${version}: the registry said ${integrity}, the lockfile has ${entry.integrity ?? 'none'}`);
  }
  return { packageCount: Object.keys(lock.packages ?? {}).filter((key) => key !== '').length };
}

function normaliseBin(name: string, bin: PackageManifest['bin']): Record<string, string> {
  if (typeof bin === 'string') return { [name.replace(/^@[^/]+\//, '')]: bin };
  if (bin && typeof bin === 'object' && Object.keys(bin).length > 0) return bin;
  throw new NpmSourceError(`${name} has no executable (“bin” in its package.json), so there is nothing to run as a server`);
}

function pickBin(name: string, bins: Record<string, string>, wanted?: string): string {
  const names = Object.keys(bins);
  if (wanted) {
    if (!bins[wanted]) throw new NpmSourceError(`${name} has no executable “${wanted}” (it has: ${names.join(', ')})`);
    return wanted;
  }
  if (names.length === 1) return names[0]!;
  const unscoped = name.replace(/^@[^/]+\//, '');
  if (bins[unscoped]) return unscoped;
  throw new NpmSourceError(`${name} has several executables (${names.join(', ')}); choose one`);
}

/** SECURITY (invariant 5): a bin path from a package cannot point outside that package. */
function safeJoin(root: string, inner: string): string {
  const full = resolve(root, inner);
  const rel = relative(root, full);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) {
    throw new NpmSourceError(`the package's executable path “${inner}” points outside the package`);
  }
  return full;
}

function runsWithNode(binPath: string): boolean {
  return !/\.(?:sh|bash|py|exe|cmd|bat|ps1)$/i.test(binPath);
}

/** The result of an install: the candidate as installed and the lockfile that pins it. */
export interface InstalledNpmPackage {
  candidate: InstallCandidate;
  lockfilePath: string;
  /** sha256 (hex) of package-lock.json as npm wrote it. */
  lockfileSha256: string;
  /** Packages in the lockfile, the server's own included. */
  packageCount: number;
}

/**
 * Installs a resolved npm candidate into its server folder, after the user
 * consented: writes a package.json pinning the exact version as the only
 * dependency, runs `npm install --ignore-scripts --no-audit --no-fund`,
 * keeps package-lock.json, checks the lockfile's integrity for the package
 * against the resolved one and that the bin to run is where the disclosure
 * said. Throws `NpmSourceError` on any mismatch (the folder is left for the
 * caller to remove with `removeServerDir`). Remove = `removeServerDir`.
 */
export async function installNpmPackage(
  candidate: InstallCandidate,
  serverDir: string,
  options: NpmOptions = {},
): Promise<InstalledNpmPackage> {
  const provenance = candidate.provenance;
  if (provenance.kind !== 'npm') throw new NpmSourceError('this candidate is not an npm package');
  if (resolve(serverDir) !== provenance.installDir) {
    throw new NpmSourceError(`the candidate was resolved for ${provenance.installDir}, not ${resolve(serverDir)}; resolve it again`);
  }
  const dir = provenance.installDir;
  await mkdir(dir, { recursive: true });
  const packageJson = {
    name: 'airlock-server',
    private: true,
    description: `Installed by Airlock: ${provenance.name}@${provenance.version}`,
    dependencies: { [provenance.name]: provenance.version },
  };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`);
  try {
    // SECURITY (SECURITY.md rule 3, ARCHITECTURE "install-time disclosure"): install scripts
    // would run the package's code at install time, before any sandbox exists.
    await runNpm(
      ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--save-exact', '--package-lock=true', '--loglevel=error'],
      { ...options, cwd: dir, env: { ...(options.env ?? process.env), npm_config_ignore_scripts: 'true' } },
      5 * 60_000,
    );
  } catch (error) {
    throw npmFailure(`npm could not install ${provenance.name}@${provenance.version}`, error);
  }

  const lockfilePath = join(dir, 'package-lock.json');
  let lockText: string;
  try {
    lockText = await readFile(lockfilePath, 'utf8');
  } catch {
    throw new NpmSourceError('npm did not write package-lock.json');
  }
  const { packageCount } = checkLockfile(lockText, provenance.name, provenance.version, provenance.integrity);
  const packageDir = join(dir, 'node_modules', ...provenance.name.split('/'));
  const installed = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as PackageManifest;
  if (installed.version !== provenance.version || installed.name !== provenance.name) {
    throw new NpmSourceError(`the installed package is ${installed.name}@${installed.version}, not ${provenance.name}@${provenance.version}`);
  }
  const bins = normaliseBin(provenance.name, installed.bin);
  const binName = candidate.npm?.binName ?? pickBin(provenance.name, bins, undefined);
  if (!bins[binName]) throw new NpmSourceError(`the installed package has no executable “${binName}”`);
  const binPath = safeJoin(packageDir, bins[binName]);
  if (!candidate.spec.args.includes(binPath) && candidate.spec.command !== binPath) {
    throw new NpmSourceError(`the installed executable is ${binPath}, not what was disclosed; resolve the package again`);
  }
  try {
    if (!(await stat(binPath)).isFile()) throw new Error('not a file');
  } catch {
    throw new NpmSourceError(`the package's executable ${binPath} is missing after install`);
  }
  return {
    candidate,
    lockfilePath,
    lockfileSha256: createHash('sha256').update(lockText).digest('hex'),
    packageCount,
  };
}
