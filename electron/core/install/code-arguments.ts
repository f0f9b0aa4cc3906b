/**
 * Arguments that make node or python run code other than the server's own
 * program: `--import`, `--require`, `--loader`, `-e`, `-p`, `--env-file` for
 * node; `-c`, `-i`, `-` for python; `data:` and `http(s):` specifiers; an
 * option Airlock does not know; a variable set through `env` that loads code
 * (`NODE_OPTIONS`, `LD_PRELOAD`, `PYTHONPATH` …); and — where Airlock pinned
 * the program itself (an npm or PyPI package) — anything that runs another
 * program in its place (`python -m other`, a second script).
 *
 * SECURITY (invariant 7: what runs is what was reviewed and pinned): code
 * loaded this way is outside the package whose integrity Airlock checked and
 * outside the code pin, so it gets the same refusal as `--env NODE_OPTIONS`
 * unless the person allows it, warned. The reading is an allowlist: options
 * known to change only how the program runs (memory, warnings, encodings)
 * pass; everything else is reported. `python -m pkg` on a command line the
 * person wrote is how Python servers run, and passes. Pure.
 */
import { basename } from 'node:path';

/** One argument (or option with its value) that runs code from outside the pinned program. */
export interface CodeArgument {
  /** Index in `[command, ...args]` of the option (its value may be the next one). */
  arg: number;
  /** The option as written, with its value. */
  text: string;
  /** Why it matters, in one sentence. */
  reason: string;
}

/** What the reading is told about the command line. */
export interface CodeArgumentOptions {
  /**
   * Index in `[command, ...args]` of the program Airlock pinned (an npm
   * package's bin script, a PyPI package's console script). Anything that
   * makes the interpreter run something else in its place is reported.
   */
  programIndex?: number;
}

type Runtime = 'node' | 'python';

const NODE = /^(?:node|nodejs)(?:\d+(?:\.\d+)*)?(?:\.exe)?$/i;
const PYTHON = /^(?:python|pypy)(?:\d+(?:\.\d+)*)?[dmu]?(?:\.exe)?$/i;

// Node options whose value is code, or names code or a file that loads code.
const NODE_CODE_VALUE: Record<string, string> = {
  '--require': 'loads a module before the server’s own code',
  '--import': 'loads a module before the server’s own code',
  '--loader': 'installs a module loader that can rewrite any code the server loads',
  '--experimental-loader': 'installs a module loader that can rewrite any code the server loads',
  '--eval': 'runs the JavaScript written in the argument instead of the server',
  '--print': 'runs the JavaScript written in the argument instead of the server',
  '--env-file': 'reads settings from a file, which may set NODE_OPTIONS and load code',
  '--env-file-if-exists': 'reads settings from a file, which may set NODE_OPTIONS and load code',
  '--experimental-config-file': 'reads node’s options from a file, which may load code',
  '--openssl-config': 'reads an OpenSSL configuration, which can load native code (engines)',
  '--snapshot-blob': 'starts node from a saved heap snapshot instead of the program',
  '--run': 'runs a script from a package.json instead of the server',
  '--inspect-port': 'opens a debugger port: whatever connects to it can run code in the server',
};
const NODE_CODE_SHORT: Record<string, string> = { '-r': '--require', '-e': '--eval', '-p': '--print', '-pe': '--print', '-ep': '--print' };
// Node flags (no value, or an optional `=value`) that run or let in code from elsewhere.
const NODE_CODE_FLAG: Record<string, string> = {
  '--inspect': 'opens a debugger port: whatever connects to it can run code in the server',
  '--inspect-brk': 'opens a debugger port: whatever connects to it can run code in the server',
  '--inspect-wait': 'opens a debugger port: whatever connects to it can run code in the server',
  '--interactive': 'runs a prompt that reads code from its input, where Airlock speaks to the server',
  '--test': 'runs test files it finds instead of the server',
  '--experimental-network-imports': 'lets the server import code from the network',
  '--build-snapshot': 'runs the program to build a snapshot instead of serving',
  '--expose-internals': 'opens node’s internals to the server’s code',
  '--allow-natives-syntax': 'opens V8’s native functions to the server’s code',
};
// Node options that only change how the program runs.
const NODE_SAFE_FLAG = new Set([
  '--no-warnings', '--no-deprecation', '--trace-warnings', '--trace-deprecation', '--throw-deprecation', '--pending-deprecation', '--trace-uncaught', '--trace-exit',
  '--enable-source-maps', '--preserve-symlinks', '--preserve-symlinks-main', '--expose-gc', '--jitless', '--abort-on-uncaught-exception', '--frozen-intrinsics',
  '--disallow-code-generation-from-strings', '--experimental-strip-types', '--experimental-transform-types', '--no-experimental-strip-types', '--experimental-vm-modules',
  '--experimental-wasm-modules', '--experimental-json-modules', '--experimental-require-module', '--no-experimental-require-module', '--experimental-detect-module',
  '--no-experimental-detect-module', '--experimental-websocket', '--no-experimental-websocket', '--experimental-fetch', '--no-experimental-fetch', '--experimental-sqlite',
  '--no-experimental-global-navigator', '--experimental-eventsource', '--experimental-permission', '--permission', '--use-openssl-ca', '--use-bundled-ca', '--use-system-ca',
  '--tls-min-v1.2', '--tls-min-v1.3', '--tls-max-v1.2', '--tls-max-v1.3', '--zero-fill-buffers', '--no-addons', '--no-global-search-paths', '--force-fips', '--enable-fips',
  '--no-extra-info-on-fatal-exception', '--report-on-signal', '--report-uncaught-exception', '--report-on-fatalerror', '--report-compact', '--insecure-http-parser',
  '--no-network-family-autoselection', '--experimental-global-webcrypto', '--experimental-global-customevent', '--watch', '--watch-preserve-output', '--harmony',
]);
const NODE_SAFE_VALUE = new Set([
  '--max-old-space-size', '--max-semi-space-size', '--stack-size', '--stack-trace-limit', '--title', '--conditions', '--input-type', '--disable-warning', '--unhandled-rejections',
  '--dns-result-order', '--max-http-header-size', '--heapsnapshot-near-heap-limit', '--heapsnapshot-signal', '--diagnostic-dir', '--redirect-warnings', '--report-dir',
  '--report-directory', '--report-filename', '--report-signal', '--icu-data-dir', '--secure-heap', '--secure-heap-min', '--tls-cipher-list', '--tls-keylog',
  '--trace-event-categories', '--trace-event-file-pattern', '--experimental-default-type', '--disable-proto', '--allow-fs-read', '--allow-fs-write', '--localstorage-file',
  '--network-family-autoselection-attempt-timeout', '--v8-pool-size', '--uv-threadpool-size', '--watch-path', '--cpu-prof-dir', '--heap-prof-dir',
]);
const NODE_SAFE_SHORT_VALUE = new Set(['-C']);

// Python's one-letter options that take a value, and the ones that only change how it runs.
const PYTHON_VALUE_LETTERS = new Set(['c', 'm', 'W', 'X']);
const PYTHON_SAFE_LETTERS = new Set(['b', 'B', 'd', 'E', 'I', 'O', 'P', 'q', 'R', 's', 'S', 'u', 'v']);
const PYTHON_SAFE_X = new Set(['utf8', 'dev', 'importtime', 'tracemalloc', 'faulthandler', 'warn_default_encoding', 'no_debug_ranges', 'frozen_modules', 'int_max_str_digits', 'showrefcount', 'perf', 'cpu_count', 'gil', 'warn_default_encoding']);

/** Variables that make a program load code from elsewhere, when set through `env` on the command line. */
export const CODE_LOADING_ENV = new Set([
  'NODE_OPTIONS', 'NODE_PATH', 'NODE_REPL_EXTERNAL_MODULE', 'LD_PRELOAD', 'LD_AUDIT', 'LD_LIBRARY_PATH', 'DYLD_INSERT_LIBRARIES', 'DYLD_LIBRARY_PATH', 'DYLD_FRAMEWORK_PATH',
  'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PYTHONINSPECT', 'PYTHONUSERBASE', 'PYTHONWARNINGS', 'BASH_ENV', 'ENV', 'PERL5OPT', 'PERL5LIB', 'RUBYOPT', 'RUBYLIB',
  'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS',
]);

/** A specifier that is code in itself, or code from the network. */
function specifierWords(value: string): string | undefined {
  if (/^data:/i.test(value)) return 'the code is written in the argument itself (a data: URL)';
  if (/^https?:/i.test(value)) return 'the code is fetched from the network';
  return undefined;
}

function runtimeOf(command: string): Runtime | undefined {
  const name = basename(command.replace(/\\/g, '/'));
  if (NODE.test(name)) return 'node';
  if (PYTHON.test(name)) return 'python';
  return undefined;
}

/**
 * The arguments of `[command, ...args]` that make node or python run code
 * from outside the program (see the file header); empty when there are none
 * or the command is neither (other programs' options are theirs to read:
 * the command-line risk markers cover shells, downloads and the like).
 */
export function codeLoadingArguments(argv: readonly string[], options: CodeArgumentOptions = {}): CodeArgument[] {
  const command = argv[0] ?? '';
  if (basename(command.replace(/\\/g, '/')) === 'env') return throughEnv(argv, options);
  const runtime = runtimeOf(command);
  if (runtime === 'node') return readNode(argv, 1, options.programIndex);
  if (runtime === 'python') return readPython(argv, 1, options.programIndex);
  if (/^(?:npx|npm)(?:\.cmd)?$/i.test(basename(command.replace(/\\/g, '/')))) return readNpx(argv);
  return [];
}

/** `env [-i] [-u NAME] [NAME=VALUE]… COMMAND …`: the variables it sets, then the command it runs. */
function throughEnv(argv: readonly string[], options: CodeArgumentOptions): CodeArgument[] {
  const found: CodeArgument[] = [];
  let i = 1;
  for (; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--') {
      i += 1;
      break;
    }
    if (arg === '-u' || arg === '--unset' || arg === '-C' || arg === '--chdir') {
      i += 1;
      continue;
    }
    if (arg === '-S' || arg.startsWith('--split-string') || /^-[^-]*S/.test(arg)) {
      found.push({ arg: i, text: arg, reason: 'splits a string into a second command line, which Airlock cannot read here' });
      return found;
    }
    if (arg.startsWith('-')) continue;
    const at = arg.indexOf('=');
    if (at > 0) {
      const name = arg.slice(0, at);
      if (CODE_LOADING_ENV.has(name)) found.push({ arg: i, text: arg, reason: `sets ${name}, which makes the program load code from elsewhere (Airlock refuses it as a setting)` });
      continue;
    }
    break;
  }
  if (i >= argv.length) return found;
  // The rest is a command line of its own; its indexes are shifted back into this argv.
  const programIndex = options.programIndex !== undefined ? options.programIndex - i : undefined;
  const inner = codeLoadingArguments(argv.slice(i), programIndex !== undefined && programIndex > 0 ? { programIndex } : {});
  return [...found, ...inner.map((item) => ({ ...item, arg: item.arg + i }))];
}

/**
 * Where an interpreter's own options end, as node and python both read
 * them — at `--` (the program is next), at `-` (the program comes from its
 * input, where Airlock speaks to the server) or at the first plain argument
 * (the program): what the whole command line then says. Undefined while
 * options go on at `argv[i]`.
 */
function atOptionsEnd(argv: readonly string[], i: number, found: CodeArgument[], programIndex: number | undefined, runtime: Runtime): CodeArgument[] | undefined {
  const arg = argv[i]!;
  if (arg === '-') return [...found, { arg: i, text: arg, reason: 'reads its program from its input, where Airlock speaks to the server' }];
  if (arg === '--') return [...found, ...programProblems(argv, i + 1 < argv.length ? i + 1 : undefined, programIndex, runtime)];
  if (!arg.startsWith('-')) return [...found, ...programProblems(argv, i, programIndex, runtime)];
  return undefined;
}

function readNode(argv: readonly string[], from: number, programIndex: number | undefined): CodeArgument[] {
  const found: CodeArgument[] = [];
  let ranCode = false;
  for (let i = from; i < argv.length; i += 1) {
    const ended = atOptionsEnd(argv, i, found, programIndex, 'node');
    if (ended) return ended;
    const arg = argv[i]!;
    // Node reads `_` as `-` in option names (--max_old_space_size).
    const eq = arg.indexOf('=');
    const rawName = eq > 0 ? arg.slice(0, eq) : arg;
    const name = rawName.startsWith('--') ? `--${rawName.slice(2).replace(/_/g, '-')}` : rawName;
    const long = NODE_CODE_SHORT[name] ?? name;
    const codeValue = NODE_CODE_VALUE[long];
    if (codeValue !== undefined) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[i + 1];
      const text = eq > 0 || value === undefined ? arg : `${arg} ${value}`;
      const source = value !== undefined ? specifierWords(value) : undefined;
      found.push({ arg: i, text, reason: `${codeValue}${source ? `; ${source}` : ', from outside the package Airlock pinned'}` });
      if (eq < 0) i += 1;
      if (long === '--eval' || long === '--print') {
        ranCode = true;
        break;
      }
      continue;
    }
    const codeFlag = NODE_CODE_FLAG[name] ?? (name === '-i' ? NODE_CODE_FLAG['--interactive'] : undefined);
    if (codeFlag !== undefined) {
      found.push({ arg: i, text: arg, reason: codeFlag });
      continue;
    }
    if (NODE_SAFE_VALUE.has(name) || NODE_SAFE_SHORT_VALUE.has(name)) {
      if (eq < 0) i += 1;
      continue;
    }
    if (NODE_SAFE_FLAG.has(name) || /^--(?:no-)?harmony[\w-]*$/.test(name) || (name.startsWith('--trace-') && eq < 0)) continue;
    // Not known to be harmless: it may change what runs, and whether the next argument is the program.
    found.push({ arg: i, text: arg, reason: 'is an option of node Airlock does not know, so it cannot tell what it runs' });
    return found;
  }
  if (ranCode) return found;
  // Only options: no program at all.
  return [...found, ...programProblems(argv, undefined, programIndex, 'node')];
}

function readPython(argv: readonly string[], from: number, programIndex: number | undefined): CodeArgument[] {
  const found: CodeArgument[] = [];
  let module: { at: number; name: string } | undefined;
  outer: for (let i = from; i < argv.length; i += 1) {
    const ended = atOptionsEnd(argv, i, found, programIndex, 'python');
    if (ended) return ended;
    const arg = argv[i]!;
    if (arg.startsWith('--')) {
      found.push({ arg: i, text: arg, reason: 'is an option of python Airlock does not know, so it cannot tell what it runs' });
      return found;
    }
    // One-letter options may be combined (-uB, -Ic "code", -mpkg).
    const at = i;
    for (let k = 1; k < arg.length; k += 1) {
      const letter = arg[k]!;
      if (PYTHON_VALUE_LETTERS.has(letter)) {
        const attached = arg.slice(k + 1);
        const value = attached || argv[i + 1];
        const text = attached || value === undefined ? arg : `${arg} ${value}`;
        if (!attached) i += 1;
        if (letter === 'c') {
          found.push({ arg: at, text, reason: 'runs the Python code written in the argument instead of the server' });
          return found;
        }
        if (letter === 'm') {
          module = { at, name: value ?? '' };
          break outer;
        }
        if (letter === 'X') {
          const option = (value ?? '').split('=')[0]!;
          if (!PYTHON_SAFE_X.has(option)) found.push({ arg: at, text, reason: option === 'presite' ? 'imports a module before the server’s own code' : `sets python’s -X ${option}, which Airlock does not know` });
        }
        if (letter === 'W') {
          // action:message:category:module:lineno — a dotted category is imported to be found.
          const category = (value ?? '').split(':')[2] ?? '';
          if (category.includes('.')) found.push({ arg: at, text, reason: `imports ${category.split('.').slice(0, -1).join('.')} to find a warning category` });
        }
        continue outer;
      }
      if (letter === 'i') {
        found.push({ arg: at, text: arg, reason: 'reads code from its input after the program, where Airlock speaks to the server' });
        continue;
      }
      if (!PYTHON_SAFE_LETTERS.has(letter)) {
        found.push({ arg: at, text: arg, reason: `is an option of python Airlock does not know (-${letter}), so it cannot tell what it runs` });
        return found;
      }
    }
  }
  if (module) {
    // `python -m pkg` is how Python servers run — unless Airlock pinned another program in its place.
    if (programIndex !== undefined) found.push({ arg: module.at, text: `-m ${module.name}`, reason: `runs the module ${module.name} instead of the package’s own program` });
    return found;
  }
  // Only options: no program at all.
  return [...found, ...programProblems(argv, undefined, programIndex, 'python')];
}

/** The program itself: code in a URL, or (where Airlock pinned one) a program other than the pinned one. */
function programProblems(argv: readonly string[], program: number | undefined, programIndex: number | undefined, runtime: Runtime): CodeArgument[] {
  if (program !== undefined) {
    const text = argv[program]!;
    const source = specifierWords(text);
    if (source) return [{ arg: program, text, reason: `runs a program that is not a file: ${source}` }];
  }
  if (programIndex === undefined || program === programIndex) return [];
  if (program === undefined) return [{ arg: Math.min(programIndex, argv.length - 1), text: argv[programIndex] ?? '', reason: `${runtime} would not run the package’s own program` }];
  return [{ arg: program, text: argv[program]!, reason: `${runtime} would run ${argv[program]} instead of the package’s own program` }];
}

/** `npx`/`npm exec`: the options that hand node code or run a shell command. */
function readNpx(argv: readonly string[]): CodeArgument[] {
  const found: CodeArgument[] = [];
  for (let i = 1; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--') break;
    const name = arg.split('=')[0]!;
    if (name === '--node-options' || name === '--node-arg' || name === '-n') {
      found.push({ arg: i, text: arg.includes('=') || i + 1 >= argv.length ? arg : `${arg} ${argv[i + 1]}`, reason: 'hands node options of its own, which may load code (as NODE_OPTIONS does)' });
      if (!arg.includes('=')) i += 1;
    } else if (name === '-c' || name === '--call') {
      found.push({ arg: i, text: arg.includes('=') || i + 1 >= argv.length ? arg : `${arg} ${argv[i + 1]}`, reason: 'runs a shell command line instead of a package' });
      return found;
    }
  }
  return found;
}
