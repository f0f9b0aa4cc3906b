/**
 * Command lines that fetch a package at every start — `npx -y PKG`, `uvx PKG`,
 * `uv tool run PKG`, `pipx run PKG` — read as the one package they run, so
 * Airlock can install that package once, pinned, instead. The same reading
 * serves an imported config entry and `airlock add NAME -- npx -y PKG`: one
 * home for what these runners mean.
 */
import { basename } from 'node:path';
import { parseNpmSpec } from './npm-spec';

/** What a package runner's command line runs, when it is one package Airlock can pin. */
export type PackageRunnerLine =
  | { kind: 'npm'; runner: 'npx'; packageSpec: string; userArgs: string[] }
  | {
      kind: 'pypi';
      /** `uvx`, `uv tool run` or `pipx run`. */
      runner: string;
      /** `name`, `name==1.2.3` or `name@1.2.3`, as the line named it (`--from` wins). */
      packageSpec: string;
      /** The program the line ran, when `--from` named the package separately. */
      scriptName?: string;
      userArgs: string[];
    }
  | {
      /** A Python runner with options that make it more than one pinned package (`--with`, another index, a Python version). */
      kind: 'pypi-refused';
      runner: string;
      package: string;
      /** The program it runs (what `uv tool install` puts on PATH). */
      executable: string;
      userArgs: string[];
      /** The option that was refused, as written (`and --with tzdata`). */
      refused: string;
    };

/**
 * Reads `command args…` as a package runner's line; undefined for anything
 * else (a plain command, `npx -p …`, `python -m x`, which runs what is installed).
 */
export function packageRunnerLine(command: string, args: readonly string[]): PackageRunnerLine | undefined {
  const npx = parseNpx(command, args);
  if (npx) return { kind: 'npm', runner: 'npx', ...npx };
  const python = parsePythonRunner(command, args);
  if (!python) return undefined;
  if (python.refused) return { kind: 'pypi-refused', runner: python.runner, package: python.package, executable: python.executable, userArgs: python.args, refused: python.refused };
  return { kind: 'pypi', runner: python.runner, packageSpec: python.spec, ...(python.from ? { scriptName: python.executable } : {}), userArgs: python.args };
}

/** How to run a refused Python runner's package instead: install it yourself, then add the installed program. */
export function refusedRunnerAdvice(line: Extract<PackageRunnerLine, { kind: 'pypi-refused' }>, serverName: string): string {
  const rest = line.userArgs.map(shellWord).join(' ');
  return (
    `it runs the Python package ${line.package} with ${line.runner} ${line.refused}, which Airlock cannot pin as one package. ` +
    `Install it yourself (\`uv tool install ${line.package}\` or \`pipx install ${line.package}\`), then add the installed command: \`airlock add ${serverName} -- ~/.local/bin/${line.executable}${rest ? ` ${rest}` : ''}\``
  );
}

/** `python -m module …` (python, python3, python3.12): the module's name. */
export function pythonModule(command: string, args: readonly string[]): string | undefined {
  if (!/^python(?:3(?:\.\d+)?)?(?:\.exe)?$/i.test(programName(command))) return undefined;
  const at = args.indexOf('-m');
  return at >= 0 && at < 3 ? args[at + 1] : undefined;
}

/** A word as a POSIX shell reads it back unchanged: bare when it is safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

function programName(command: string): string {
  return basename(command.replace(/\\/g, '/'));
}

/** `npx [-y|--yes|…] pkg[@ver] args…` → the package and its arguments; undefined if not a plain npx call. */
function parseNpx(command: string, args: readonly string[]): { packageSpec: string; userArgs: string[] } | undefined {
  if (!/^npx(?:\.cmd|\.exe)?$/i.test(programName(command))) return undefined;
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
    return undefined; // Not a registry package (a path, a git URL): not something Airlock pins, so not a runner line.
  }
  return { packageSpec, userArgs: args.slice(index + 1) };
}

// Options of uvx and pipx that take a value.
const WITH_VALUE = ['--from', '--with', '--python', '-p', '--index-url', '--extra-index-url', '--index', '--spec', '--with-editable', '--with-requirements'];
// Options that make the line more than one pinned package.
const REFUSED = ['--with', '--index-url', '--extra-index-url', '--index', '--python', '-p', '--with-editable', '--with-requirements'];
// Options that change nothing about which package runs.
const HARMLESS = ['-q', '--quiet', '--no-cache', '--offline', '--isolated'];

/**
 * `uvx pkg …`, `uv tool run pkg …`, `pipx run pkg …`: a Python package
 * fetched from PyPI at start. `refused` names an option that makes it more
 * than one pinned package (`--with`, another index, a Python version).
 * Undefined for anything else.
 */
function parsePythonRunner(
  command: string,
  args: readonly string[],
): { runner: string; package: string; spec: string; from?: string; executable: string; args: string[]; refused?: string } | undefined {
  const name = programName(command).replace(/\.exe$/i, '');
  let rest: readonly string[];
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
    else if (REFUSED.includes(flag)) refused ??= `and ${flag} ${rest[index + 1] ?? ''}`.trim();
    else if (!HARMLESS.includes(flag)) refused ??= `and ${flag}`;
    index += WITH_VALUE.includes(flag) ? 2 : 1;
  }
  const executable = rest[index];
  if (!executable) return undefined;
  const spec = from ?? executable;
  return {
    runner,
    package: spec.replace(/[<>=!~@[].*$/, ''),
    spec,
    ...(from ? { from } : {}),
    executable: executable.replace(/[<>=!~@[].*$/, ''),
    args: rest.slice(index + 1),
    ...(refused ? { refused } : {}),
  };
}
