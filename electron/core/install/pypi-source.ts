/**
 * Python servers from a package index (PyPI, or the index the person's pip
 * is configured with), pinned: a package is resolved to one exact version
 * and a lock of every package it needs with the sha256 of each file, then
 * installed into a virtual environment of its own inside the server's
 * install folder, every file checked against the lock. The server then runs
 * from that folder — no download at start, and inside the sandbox like
 * every server (its install folder is readable, never writable, to it).
 *
 * Tools: the interpreter's own `venv` and `pip` (`--require-hashes`); uv is
 * not needed. Wheels only: a source distribution would run its build code
 * on this computer at install time, before any sandbox exists.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Provenance, ServerSpec } from '../../../shared/domain';
import { finishCandidate, suggestServerName, type InstallCandidate } from './candidate';
import { packageLabel, stopOnAbort } from './npm-source';
import { PypiSourceError } from './source-errors';
import { listZipEntries, readZipEntry } from './zip-reader';

export { PypiSourceError } from './source-errors';

/** A package name and the version specifier asked for (`` for the newest). */
export interface PypiPackageSpec {
  name: string;
  specifier: string;
}

// PEP 508 names (letters, digits, . _ -, starting and ending with a letter or digit).
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
// PEP 440 specifiers, comma-separated: ==1.2.3, >=1,<2, ~=0.6.
const SPECIFIER = /^(?:(?:==|!=|<=|>=|~=|<|>)\s*[A-Za-z0-9.*+!_-]+)(?:\s*,\s*(?:==|!=|<=|>=|~=|<|>)\s*[A-Za-z0-9.*+!_-]+)*$/;

/** PEP 503's normal form of a name: lowercase, runs of `-_.` as one `-`. */
export function normalisePypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * Parses `name`, `name==1.2.3`, `name>=1,<2`, or `name@1.2.3` (as npm and
 * uvx write it). Only index packages: URLs, paths, extras and options are refused.
 * SECURITY (invariant 7): checked before it reaches pip's command line, so it
 * cannot be read as an option (`--index-url …`) or a URL.
 */
export function parsePypiSpec(spec: string): PypiPackageSpec {
  const text = spec.trim();
  const at = text.indexOf('@');
  let name: string;
  let specifier: string;
  if (at > 0) {
    name = text.slice(0, at).trim();
    const version = text.slice(at + 1).trim();
    specifier = version === '' || version === 'latest' ? '' : `==${version}`;
  } else {
    const match = /^([^<>=!~\s]+)\s*(.*)$/.exec(text);
    name = match?.[1] ?? '';
    specifier = (match?.[2] ?? '').trim();
  }
  if (!NAME.test(name) || name.length > 200) {
    throw new PypiSourceError(`“${spec}” is not a Python package name (letters, digits, . _ -), optionally with a version like ==1.2.3`);
  }
  if (specifier && (!SPECIFIER.test(specifier) || specifier.length > 200)) {
    throw new PypiSourceError(`“${specifier}” is not a version or range Airlock accepts for ${name} (for example ==1.2.3 or >=1,<2)`);
  }
  return { name, specifier: specifier.replace(/\s+/g, '') };
}

/** How Airlock runs Python; injectable for another interpreter or index. */
export interface PythonOptions {
  /** The Python interpreter (default `python3` from PATH); its `venv` and `pip` are used. */
  pythonCommand?: string;
  /** Environment for pip (default this process's, so pip's configured index, certificates and proxy are honoured). */
  env?: NodeJS.ProcessEnv;
  /** An index to use instead of pip's configured one (a sub-registry's mirror, a test's index). */
  indexUrl?: string;
  /** Milliseconds before pip is stopped (default 2 min for resolving, 10 min for installing). */
  timeoutMs?: number;
  /** Stops pip (the install was cancelled); the returned promise still settles only once it has exited. */
  signal?: AbortSignal;
}

function run(command: string, args: string[], options: PythonOptions & { cwd?: string }, defaultTimeout: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: { ...(options.env ?? process.env), PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1', PYTHONDONTWRITEBYTECODE: '1' },
        timeout: options.timeoutMs ?? defaultTimeout,
        maxBuffer: 64 * 1024 * 1024,
        shell: false,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error) {
          Object.assign(error, { stdout: String(stdout), stderr: String(stderr) });
          reject(error instanceof Error ? error : new Error(String(error)));
        } else resolvePromise(String(stdout));
      },
    );
    stopOnAbort(child, options.signal);
  });
}

function pipFailure(what: string, error: unknown): PypiSourceError {
  const { stderr = '', killed, code } = error as { stderr?: string; killed?: boolean; code?: string };
  if (killed) return new PypiSourceError(`${what}: pip took too long and was stopped`);
  if (code === 'ENOENT') return new PypiSourceError(`${what}: the Python interpreter was not found`);
  // pip says "from versions: none" whether the name is wrong or the index was never reached: its retries say which.
  const network = pipNetworkProblem(stderr);
  if (network) {
    return new PypiSourceError(`${what}: pip could not reach the package index (${network}), so whether the package exists is not known. Check the network (or pip's index setting), then try again`, undefined, network);
  }
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/is ignored: it is neither a file nor a directory|^\[notice\]|Retrying \(Retry/.test(line));
  const errors = lines.filter((line) => /^ERROR:|error:/i.test(line));
  return new PypiSourceError(what, (errors.length ? errors : lines).slice(0, 6).join(' | ').slice(0, 800) || (error as Error).message);
}

/** What the network said when pip could not reach its index (a refused connection, a name that does not resolve, a timeout), if it said so. */
export function pipNetworkProblem(stderr: string): string | undefined {
  for (const line of stderr.split('\n')) {
    // WARNING: Retrying (Retry(total=0, …)) after connection broken by 'NewConnectionError('<… object at 0x…>: Failed to establish a new connection: [Errno -2] Name or service not known')': /simple/pkg/
    const broken = /after connection broken by '(\w+)\((?:'<[^>]*>: )?(.*?)'?\)': (\S+)\s*$/.exec(line);
    if (broken) return `${broken[2]!.replace(/^'|'$/g, '')} at ${broken[3]}`;
    const fetch = /Could not fetch URL (\S+?):? (There was a problem .*|.*(?:Errno|timed out|refused|resolve).*)$/.exec(line);
    if (fetch) return `${fetch[2]} at ${fetch[1]}`;
  }
  return undefined;
}

/**
 * The real interpreter behind `python` (a pyenv shim or a symlink resolves
 * to the binary it runs), with its version; refuses a Python 2 or a missing one.
 */
export async function findInterpreter(python = 'python3', env?: NodeJS.ProcessEnv): Promise<{ path: string; version: string }> {
  let out: string;
  try {
    out = await run(python, ['-I', '-c', 'import sys, json; print(json.dumps([sys.executable, list(sys.version_info[:3])]))'], { ...(env ? { env } : {}) }, 20_000);
  } catch (error) {
    const { code } = error as { code?: string };
    throw new PypiSourceError(
      code === 'ENOENT'
        ? `no Python was found (${python}). Python servers need Python 3.8 or newer: install it, or point Airlock at one with \`airlock runtimes set python /path/to/python3\``
        : `${python} did not run`,
      code === 'ENOENT' ? undefined : (error as Error).message,
    );
  }
  const [path, version] = JSON.parse(out.trim().split('\n').pop() ?? '[]') as [string, number[]];
  if (!path || !isAbsolute(path) || !Array.isArray(version) || version[0] !== 3) throw new PypiSourceError(`${python} is not a Python 3 interpreter`);
  return { path, version: version.join('.') };
}

/** What `resolvePypi` needs besides the package spec. */
export interface ResolvePypiOptions extends PythonOptions {
  /** The server's own folder in Airlock's data, where `installPypiPackage` will install it. */
  serverDir: string;
  /** Arguments after the program (e.g. `--local-timezone=Europe/Paris`). */
  userArgs?: string[];
  /** Arguments for the interpreter before the program. */
  runtimeArgs?: string[];
  /** Plain environment variables for the server. */
  serverEnv?: Record<string, string>;
  /** Which console script to run when the package has several. */
  scriptName?: string;
  /** A name for the server (default derived from the package name). */
  name?: string;
  home?: string;
}

/** One entry of pip's installation report (`pip install --dry-run --report`), the parts Airlock reads. */
interface ReportItem {
  requested?: boolean;
  metadata?: { name?: string; version?: string; description?: string };
  download_info?: { url?: string; archive_info?: { hashes?: Record<string, string>; hash?: string }; dir_info?: unknown; vcs_info?: unknown };
}

/** One pinned file of the lock. */
export interface LockedPackage {
  name: string;
  version: string;
  sha256: string;
  url: string;
}

/**
 * Resolves a Python package against pip's configured index (or `indexUrl`)
 * to one exact version and a lock of everything it needs, each with its
 * sha256; downloads the package's own wheel (checked against its hash) to
 * read which program it installs; and plans where it will be installed and
 * how it will run. Nothing is installed and nothing of the package runs.
 */
export async function resolvePypi(packageSpec: string, options: ResolvePypiOptions): Promise<InstallCandidate> {
  const { name, specifier } = parsePypiSpec(packageSpec);
  if (!isAbsolute(options.serverDir)) throw new PypiSourceError('the server folder must be an absolute path');
  const serverDir = resolve(options.serverDir);
  const interpreter = await findInterpreter(options.pythonCommand, options.env);
  const work = await mkdtemp(join(tmpdir(), 'airlock-pypi-'));
  try {
    const reportPath = join(work, 'report.json');
    try {
      // SECURITY: --only-binary :all: — a source distribution's build would run its code here, unsandboxed.
      await run(
        interpreter.path,
        ['-I', '-m', 'pip', 'install', '--dry-run', '--ignore-installed', '--only-binary', ':all:', '--quiet', '--report', reportPath, ...indexArgs(options), `${name}${specifier}`],
        { ...options, cwd: work },
        2 * 60_000,
      );
    } catch (error) {
      throw pipFailure(`pip could not resolve ${name}${specifier}`, error);
    }
    const report = JSON.parse(await readFile(reportPath, 'utf8')) as { install?: ReportItem[] };
    const items = report.install ?? [];
    const locked = items.map((item) => lockEntry(item));
    const top = items.findIndex((item) => item.requested === true);
    if (top < 0) throw new PypiSourceError(`pip's answer for ${name} does not name the package asked for`);
    const own = locked[top]!;
    // SECURITY (invariant 7): the package resolved must be the package asked for.
    if (normalisePypiName(own.name) !== normalisePypiName(name)) throw new PypiSourceError(`asked for ${name}, the index answered with ${own.name}`);
    if (specifier.startsWith('==') && !specifier.includes(',') && own.version !== specifier.slice(2)) {
      throw new PypiSourceError(`asked for ${name}${specifier}, the index answered with ${own.version}`);
    }
    const wheel = await downloadWheel(interpreter.path, own, work, options);
    const metadata = readWheel(wheel, own);
    const script = pickScript(own.name, metadata.scripts, options.scriptName);
    const lock = lockText(locked);

    const venv = join(serverDir, 'venv');
    const python = join(venv, 'bin', 'python');
    const scriptPath = join(venv, 'bin', script);
    const userArgs = options.userArgs ?? [];
    const runtimeArgs = options.runtimeArgs ?? [];
    const spec: ServerSpec = { command: python, args: [...runtimeArgs, scriptPath, ...userArgs], env: { ...(options.serverEnv ?? {}) }, cwd: serverDir };
    const provenance: Provenance = {
      kind: 'pypi',
      name: own.name,
      version: own.version,
      sha256: own.sha256,
      file: basename(new URL(own.url).pathname),
      index: indexOf(own.url),
      packageCount: locked.length,
      lockSha256: sha256(lock),
      installDir: serverDir,
    };
    const warnings: string[] = [];
    if (!/^==[^,*]+$/.test(specifier)) warnings.push(`“${specifier || 'the newest version'}” resolved to ${own.version}; Airlock pins that exact version and the ${locked.length} package(s) it needs, each by its hash`);
    return finishCandidate({
      suggestedName: suggestServerName(options.name ?? packageLabel(normalisePypiName(own.name))),
      spec,
      provenance,
      requested: { secrets: [], userConfig: [] },
      warnings,
      pypi: { requested: specifier, script, python: interpreter.path, lock, userArgs, runtimeArgs, ...(metadata.mcpName ? { mcpName: metadata.mcpName } : {}) },
      skipArgIndexes: [1 + runtimeArgs.length],
      ...(options.home ? { home: options.home } : {}),
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function indexArgs(options: PythonOptions): string[] {
  if (!options.indexUrl) return [];
  if (!/^(https?|file):\/\//i.test(options.indexUrl)) throw new PypiSourceError(`“${options.indexUrl}” is not an index address`);
  return ['--index-url', options.indexUrl];
}

/** A report entry as a lock line's parts; refuses anything not a wheel with a sha256. */
function lockEntry(item: ReportItem): LockedPackage {
  const name = item.metadata?.name;
  const version = item.metadata?.version;
  const url = item.download_info?.url;
  const sha = item.download_info?.archive_info?.hashes?.sha256 ?? /^sha256=([0-9a-f]{64})$/.exec(item.download_info?.archive_info?.hash ?? '')?.[1];
  if (!name || !version || !url) throw new PypiSourceError('pip’s resolution is missing a name, version or address; Airlock will not install it');
  if (item.download_info?.dir_info || item.download_info?.vcs_info) throw new PypiSourceError(`${name} would come from a folder or a repository, not the index`);
  // SECURITY (invariant 7): every file is pinned by its hash, or nothing is installed.
  if (!sha || !/^[0-9a-f]{64}$/.test(sha)) throw new PypiSourceError(`the index gave no sha256 for ${name} ${version}; Airlock will not install a file it cannot check`);
  if (!new URL(url).pathname.endsWith('.whl')) throw new PypiSourceError(`${name} ${version} has no wheel for this computer (only a source package, whose build would run code here)`);
  if (!NAME.test(name) || !/^[A-Za-z0-9.+!_-]+$/.test(version)) throw new PypiSourceError(`pip reported a package Airlock cannot pin: ${name} ${version}`);
  return { name, version, sha256: sha, url };
}

/** The lock: one requirement per package, exact version and hash, sorted (what `pip install --require-hashes` reads). */
function lockText(locked: LockedPackage[]): string {
  const lines = [...locked]
    .sort((a, b) => normalisePypiName(a.name).localeCompare(normalisePypiName(b.name)))
    .map((item) => `${normalisePypiName(item.name)}==${item.version} --hash=sha256:${item.sha256}`);
  return `# Installed by Airlock. Every file must match its hash.\n${lines.join('\n')}\n`;
}

function indexOf(url: string): string {
  const parsed = new URL(url);
  return parsed.protocol === 'file:' ? `file://${dirname(parsed.pathname)}` : parsed.origin;
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Downloads the package's own wheel (pip checks its hash) and returns its bytes. */
async function downloadWheel(python: string, own: LockedPackage, work: string, options: PythonOptions): Promise<Buffer> {
  const requirement = join(work, 'own.txt');
  const into = join(work, 'wheel');
  await writeFile(requirement, `${normalisePypiName(own.name)}==${own.version} --hash=sha256:${own.sha256}\n`);
  try {
    await run(python, ['-I', '-m', 'pip', 'download', '--no-deps', '--only-binary', ':all:', '--require-hashes', '--quiet', '--dest', into, ...indexArgs(options), '-r', requirement], { ...options, cwd: work }, 2 * 60_000);
  } catch (error) {
    throw pipFailure(`pip could not download ${own.name} ${own.version}`, error);
  }
  const files = (await readdir(into)).filter((file) => file.endsWith('.whl'));
  if (files.length !== 1) throw new PypiSourceError(`pip did not download one wheel of ${own.name} (found ${files.length})`);
  const bytes = await readFile(join(into, files[0]!));
  if (sha256(bytes) !== own.sha256) throw new PypiSourceError(`hash mismatch for ${own.name} ${own.version}: the index said ${own.sha256}, the file is ${sha256(bytes)}`);
  return bytes;
}

/** The wheel's own metadata: its name and version, console scripts and `mcp-name:` claim. */
function readWheel(wheel: Buffer, own: LockedPackage): { scripts: Record<string, string>; mcpName?: string } {
  let entries;
  try {
    entries = listZipEntries(wheel, { maxEntries: 50_000, maxTotalBytes: 512 * 1024 * 1024 });
  } catch (error) {
    throw new PypiSourceError(`the wheel of ${own.name} is not a readable archive`, (error as Error).message);
  }
  const distInfo = entries.filter((entry) => /^[^/]+\.dist-info\/METADATA$/.test(entry.name));
  if (distInfo.length !== 1) throw new PypiSourceError(`the wheel of ${own.name} has ${distInfo.length} METADATA files, not one`);
  const dir = distInfo[0]!.name.slice(0, -'METADATA'.length);
  const text = (name: string) => {
    const entry = entries.find((candidate) => candidate.name === `${dir}${name}`);
    return entry ? readZipEntry(wheel, entry).toString('utf8') : undefined;
  };
  const metadata = text('METADATA') ?? '';
  const header = metadata.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const field = (key: string) => new RegExp(`^${key}:\\s*(.+)$`, 'mi').exec(header)?.[1]?.trim();
  if (normalisePypiName(field('Name') ?? '') !== normalisePypiName(own.name) || field('Version') !== own.version) {
    throw new PypiSourceError(`the wheel says it is ${field('Name') ?? '?'} ${field('Version') ?? '?'}, not ${own.name} ${own.version}`);
  }
  const mcpName = /(?:^|\s)mcp-name:\s*([A-Za-z0-9.-]+\/[A-Za-z0-9._-]+)/.exec(metadata)?.[1];
  return { scripts: consoleScripts(text('entry_points.txt') ?? ''), ...(mcpName ? { mcpName } : {}) };
}

/** `[console_scripts]` of an entry_points.txt, by script name. */
export function consoleScripts(text: string): Record<string, string> {
  const scripts = Object.create(null) as Record<string, string>;
  let inSection = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      inSection = section[1]!.trim() === 'console_scripts';
      continue;
    }
    if (!inSection) continue;
    const eq = line.indexOf('=');
    if (eq < 1) continue;
    const name = line.slice(0, eq).trim();
    if (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) scripts[name] = line.slice(eq + 1).trim();
  }
  return scripts;
}

function pickScript(name: string, scripts: Record<string, string>, wanted?: string): string {
  const names = Object.keys(scripts);
  if (wanted) {
    if (!Object.hasOwn(scripts, wanted)) throw new PypiSourceError(`${name} has no program “${wanted}” (it has: ${names.join(', ') || 'none'})`);
    return wanted;
  }
  if (names.length === 0) throw new PypiSourceError(`${name} installs no program (no console script), so there is nothing to run as a server`);
  if (names.length === 1) return names[0]!;
  const own = names.find((script) => normalisePypiName(script) === normalisePypiName(name));
  if (own) return own;
  throw new PypiSourceError(`${name} installs several programs (${names.join(', ')}); choose one`);
}

/** The result of an install: where the lock was written and how many packages it pins. */
export interface InstalledPypiPackage {
  candidate: InstallCandidate;
  lockPath: string;
  packageCount: number;
}

/**
 * Installs a resolved PyPI candidate into its server folder, after the
 * person consented: writes the lock, makes a virtual environment from the
 * interpreter the disclosure named, and installs exactly the lock with pip
 * (`--require-hashes --no-deps --only-binary :all:`), then checks — by
 * reading files, never by running the new environment — that the package
 * and its program are what the disclosure said. Throws `PypiSourceError` on
 * any mismatch; the caller removes the folder.
 */
export async function installPypiPackage(candidate: InstallCandidate, serverDir: string, options: PythonOptions = {}): Promise<InstalledPypiPackage> {
  const provenance = candidate.provenance;
  const details = candidate.pypi;
  if (provenance.kind !== 'pypi' || !details) throw new PypiSourceError('this candidate is not a PyPI package');
  if (resolve(serverDir) !== provenance.installDir) throw new PypiSourceError(`the candidate was resolved for ${provenance.installDir}, not ${resolve(serverDir)}; resolve it again`);
  if (sha256(details.lock) !== provenance.lockSha256) throw new PypiSourceError('the lock changed since it was disclosed; resolve the package again');
  const dir = provenance.installDir;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const lockPath = join(dir, 'requirements.lock.txt');
  await writeFile(lockPath, details.lock, { mode: 0o644 });
  const venv = join(dir, 'venv');
  try {
    await run(details.python, ['-I', '-m', 'venv', '--without-pip', venv], { ...options, cwd: dir }, 2 * 60_000);
  } catch (error) {
    throw pipFailure(`Python could not make a virtual environment in ${venv}`, error);
  }
  try {
    // SECURITY (invariant 7): --require-hashes makes pip refuse any file whose sha256 is not the lock's;
    // --no-deps installs the lock and nothing else; --only-binary keeps build code from running here.
    await run(
      details.python,
      ['-I', '-m', 'pip', '--python', join(venv, 'bin', 'python'), 'install', '--require-hashes', '--no-deps', '--only-binary', ':all:', '--no-compile', '--quiet', ...indexArgs(options), '-r', lockPath],
      { ...options, cwd: dir },
      10 * 60_000,
    );
  } catch (error) {
    throw pipFailure(`pip could not install ${provenance.name} ${provenance.version}`, error);
  }
  // Checked by reading files: running the new environment's Python would run any .pth file a package installed.
  const sitePackages = await findSitePackages(venv);
  const distInfo = join(sitePackages, `${provenance.name.replace(/[-.]+/g, '_')}-${provenance.version}.dist-info`);
  const found = await findDistInfo(sitePackages, provenance.name, provenance.version);
  if (!found) throw new PypiSourceError(`after installing, ${provenance.name} ${provenance.version} is not in the environment (looked for ${distInfo})`);
  const script = join(venv, 'bin', details.script);
  const rel = relative(join(venv, 'bin'), script);
  if (rel.startsWith('..') || isAbsolute(rel) || !(await stat(script).then((s) => s.isFile(), () => false))) {
    throw new PypiSourceError(`the program ${details.script} is missing after install`);
  }
  if (!candidate.spec.args.includes(script)) throw new PypiSourceError(`the installed program is ${script}, not what was disclosed; resolve the package again`);
  return { candidate, lockPath, packageCount: provenance.packageCount };
}

async function findSitePackages(venv: string): Promise<string> {
  const lib = join(venv, 'lib');
  const versions = (await readdir(lib).catch(() => [] as string[])).filter((name) => /^python3\.\d+$/.test(name));
  if (versions.length !== 1) throw new PypiSourceError(`the virtual environment in ${venv} is not what Airlock made`);
  return join(lib, versions[0]!, 'site-packages');
}

async function findDistInfo(sitePackages: string, name: string, version: string): Promise<string | undefined> {
  for (const entry of await readdir(sitePackages)) {
    if (!entry.endsWith('.dist-info')) continue;
    const metadata = await readFile(join(sitePackages, entry, 'METADATA'), 'utf8').catch(() => '');
    const header = metadata.split(/\r?\n\r?\n/, 1)[0] ?? '';
    const field = (key: string) => new RegExp(`^${key}:\\s*(.+)$`, 'mi').exec(header)?.[1]?.trim();
    if (normalisePypiName(field('Name') ?? '') === normalisePypiName(name) && field('Version') === version) return join(sitePackages, entry);
  }
  return undefined;
}

/**
 * An update of an installed PyPI server: resolves `specifier` (`latest`, a
 * version, or a range) for the same package into `serverDir` (a new folder:
 * the running version stays until the person agrees), keeping the
 * arguments the user added and the plain settings.
 */
export async function resolvePypiUpdate(
  current: { spec: ServerSpec; provenance: Provenance },
  version: string,
  options: PythonOptions & { serverDir: string; name?: string; home?: string },
): Promise<InstallCandidate> {
  const provenance = current.provenance;
  if (provenance.kind !== 'pypi') throw new PypiSourceError('only PyPI servers can be updated from the index');
  const bin = join(provenance.installDir, 'venv', 'bin');
  const scriptAt = current.spec.args.findIndex((arg) => dirname(arg) === bin);
  const userArgs = scriptAt >= 0 ? current.spec.args.slice(scriptAt + 1) : [];
  const runtimeArgs = scriptAt > 0 ? current.spec.args.slice(0, scriptAt) : [];
  const script = scriptAt >= 0 ? basename(current.spec.args[scriptAt]!) : undefined;
  const wanted = version === 'latest' || version === '' ? provenance.name : /^[<>=!~]/.test(version) ? `${provenance.name}${version}` : `${provenance.name}==${version}`;
  const next = await resolvePypi(wanted, { ...options, userArgs, runtimeArgs, serverEnv: current.spec.env, ...(script ? { scriptName: script } : {}) });
  const to = (next.provenance as { version: string }).version;
  const change = to === provenance.version ? `${provenance.name} stays at ${to}.` : `Update ${provenance.name} from ${provenance.version} to ${to}: review it as a new install.`;
  return { ...next, warnings: [change, ...next.warnings] };
}
