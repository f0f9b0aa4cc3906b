import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { version } from '../../package.json';
import type { AppNotice } from '../../shared/ipc';
import type { ConfirmationView } from '../../shared/views';
import { defaultDataDir, isChosenDataDir } from '../core/data-dir';
import { AirlockError, messageOf } from '../core/errors';
import type { AirlockHost, HostOptions } from '../core/host';
import { inertText } from '../core/inert';
import type { SharedHost } from '../core/ipc/shared-host';
import type { CliContext } from './commands/servers';
import { COMMAND_DOCS } from './docs-pointers';
import { CliExit, EXIT, type CliIo } from './output';
import { fitToTerminal } from './server-text';
import { palette } from './terminal';

/** How another app starts this CLI's gateway: absolute paths, since apps do not get the shell's PATH. */
function gatewayCommand(dataDir: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [resolve(process.argv[1] ?? 'airlock'), '--data-dir', dataDir, 'gateway', '--stdio'] };
}

interface GlobalOptions {
  dataDir?: string;
  json?: boolean;
  yes?: boolean;
}

/** Commands that show what they will do and ask first (without a terminal they need --yes). */
export const ASKING_COMMANDS = ['add', 'update', 'import', 'grant', 'approve', 'remove', 'rules add', 'connect', 'settings restore', 'resources --approve-template', 'prompts --approve', 'requests'] as const;

/** What registering a group of commands gets: the context, and what some of them need besides. */
interface Registration {
  context: CliContext;
  dataDir(): string;
  version: string;
  createHost(hooks: HostOptions['hooks']): Promise<AirlockHost>;
  setExit(code: number): void;
  openApi(): Promise<SharedHost>;
  /** The options a host of this command is built with. */
  hostOptions(hooks: HostOptions['hooks']): HostOptions;
}

/**
 * Each group of commands and the module that defines it, loaded only when
 * one of its commands runs (or for `--help`): a command pays for what it
 * uses, and `airlock --version` for nothing but itself.
 */
const COMMAND_GROUPS: ReadonlyArray<{ names: readonly string[]; register(program: Command, r: Registration): Promise<void> }> = [
  {
    names: ['add', 'update', 'import', 'list', 'show', 'start', 'stop', 'restart', 'logs', 'grant', 'revoke', 'trust', 'approve', 'signin', 'signout', 'remove', 'review-claims'],
    register: async (program, r) => (await import('./commands/servers')).registerServerCommands(program, r.context),
  },
  { names: ['call', 'mode', 'rules', 'audit'], register: async (program, r) => (await import('./commands/calls')).registerCallCommands(program, r.context) },
  { names: ['settings'], register: async (program, r) => (await import('./commands/settings')).registerSettingsCommands(program, r.context) },
  {
    names: ['resources', 'read', 'prompts', 'prompt', 'log-level', 'requests'],
    register: async (program, r) => (await import('./commands/catalog')).registerCatalogCommands(program, r.context),
  },
  { names: ['screens'], register: async (program, r) => (await import('./commands/screens')).registerScreenCommands(program, r.context) },
  {
    names: ['gateway', 'connect'],
    register: async (program, r) => (await import('./commands/gateway')).registerGatewayCommands(program, { ...r.context, dataDir: r.dataDir, version: r.version }),
  },
  { names: ['run'], register: async (program, r) => (await import('./commands/run')).registerRunCommand(program, { ...r.context, dataDir: r.dataDir, version: r.version }) },
  {
    names: ['runtimes', 'doctor'],
    register: async (program, r) => {
      const { doctor, registerRuntimeCommands } = await import('./commands/doctor');
      registerRuntimeCommands(program, r.context);
      program
        .command('doctor')
        .description('check that this machine can sandbox servers and which node, python and uv servers will run with; prints what is missing and how to fix it')
        .action(async () => {
          r.setExit(await doctor(await r.openApi(), r.context.io, r.context.json()));
        });
    },
  },
  { names: ['search', 'registry'], register: async (program, r) => (await import('./commands/registry')).registerRegistryCommands(program, r.context) },
  {
    names: ['chat', 'models'],
    register: async (program, r) => {
      const { registerChatCommands } = await import('./commands/chat');
      // Chat builds its host itself (see commands/chat.ts), from the class loaded here.
      const { AirlockHost: Host } = await import('../core/host');
      registerChatCommands(program, { ...r.context, dataDir: r.dataDir, version: r.version, createHost: (hooks) => new Host(r.hostOptions(hooks)) });
    },
  },
];

/** The command `argv` names (the first word that is not a global option or its value), if any. */
function commandName(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--') return undefined;
    if (arg === '--data-dir') {
      i += 1;
      continue;
    }
    if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * Runs the `airlock` command line and resolves to its exit code. The host is
 * opened lazily, so `--help` and `--version` touch nothing on disk, and only
 * the modules of the command that runs are loaded.
 */
export async function runCli(argv: string[], terminalIo: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  // SECURITY (issue 25 item 4): on a terminal, Airlock wraps every row it prints itself (server-text.ts),
  // so no text of a server's reaches the start of a row by the terminal wrapping it there. JSON is left whole.
  const io: CliIo = {
    ...terminalIo,
    out: (text) => terminalIo.out(program.opts<GlobalOptions>().json === true ? text : fitToTerminal(text, terminalIo.outColumns?.())),
    err: (text) => terminalIo.err(fitToTerminal(text, terminalIo.errColumns?.())),
  };
  let shared: Promise<SharedHost> | undefined;
  const program = new Command()
    .name('airlock')
    .description('Airlock runs MCP servers in an OS sandbox and asks before anything destructive.')
    .version(version, '-v, --version', 'print the version')
    .option('--data-dir <dir>', "Airlock's data folder (default: the desktop app's, or $AIRLOCK_DATA_DIR)")
    .option('--json', 'print machine-readable JSON')
    .option('-y, --yes', `answer yes to the questions, for scripts (asked by: ${ASKING_COMMANDS.join(', ')}); anywhere before \`--\``)
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.out(text.trimEnd()), writeErr: (text) => io.err(text.trimEnd()) })
    .showHelpAfterError('(run `airlock --help` for usage)');

  const dataDir = () => program.opts<GlobalOptions>().dataDir ?? defaultDataDir(io.env);
  // A folder the person chose (--data-dir, AIRLOCK_DATA_DIR) other than the app's own keeps everything inside it.
  const selfContained = () => isChosenDataDir(dataDir(), io.env);
  const hostOptions = (hooks: HostOptions['hooks']): HostOptions => ({ dataDir: dataDir(), selfContained: selfContained(), version, hooks, gatewayCommand: gatewayCommand(dataDir()) });
  let api: SharedHost | undefined;
  const prompt = io.prompt;
  // The core runs here unless another Airlock process (the app, a gateway) owns the data folder.
  const openApi = (): Promise<SharedHost> => {
    shared ??= (async () => {
      const [{ SharedHost: Shared }, { AirlockHost: Host }, asking] = await Promise.all([
        import('../core/ipc/shared-host'),
        import('../core/host'),
        // The terminal's questions are loaded only where there is a terminal to ask on.
        prompt ? import('./terminal-confirmations') : undefined,
      ]);
      // The confirmations of this command's own calls (`airlock call`), asked on its terminal when it has one.
      const confirmations = prompt && asking
        ? asking.terminalConfirmations(
            { ask: async (question, signal) => (await prompt(question, signal)).trim(), columns: () => process.stdout.columns || 80 },
            () => api,
            (message) => io.err(message),
            { appCanAsk: () => api?.otherShellsCanAsk() ?? false },
          )
        : undefined;
      const opened = await Shared.open({
        dataDir: dataDir(),
        role: 'cli',
        label: 'airlock CLI',
        // A terminal this command owns: stdin and stdout are a TTY (see cli/index.ts).
        canAsk: () => prompt !== undefined,
        onEvent: (event, payload) => {
          if (event === 'approvals.didChange') confirmations?.(payload as ConfirmationView[]);
        },
        createHost: (hooks) =>
          new Host({
            ...hostOptions(hooks),
            // A remote server's sign-in: the terminal shows the page to open, then waits for the browser's answer.
            signInPage: (url, server) => io.err(`Sign in to ${server}: open this page in your browser (it belongs to the server's sign-in service):\n  ${url}`),
          }),
      });
      api = opened;
      // What went wrong at start-up (a settings file that could not be read, …) is said by every command, on stderr.
      notices = (await opened.invoke('app.info', {})).notices;
      for (const notice of notices) io.err(`airlock: ${palette(io.colour === true).danger(notice.level === 'info' ? 'Note:' : 'Warning:')} ${notice.message}`);
      return opened;
    })();
    return shared;
  };
  let notices: AppNotice[] = [];
  const json = () => program.opts<GlobalOptions>().json === true;
  const yes = () => program.opts<GlobalOptions>().yes === true;

  const context: CliContext = { api: openApi, io, json, yes, exit: (code) => (exitCode = code), yesAfterDashes: yesAfterDashes(argv), argv, notices: () => notices, selfContained };
  const registration: Registration = {
    context,
    dataDir,
    version,
    createHost: async (hooks) => new (await import('../core/host')).AirlockHost(hostOptions(hooks)),
    setExit: (code) => (exitCode = code),
    openApi,
    hostOptions,
  };
  // Only the group the command belongs to is loaded; anything else (help, a mistyped command) loads them all, so commander can say what there is.
  const name = commandName(argv);
  const group = name === undefined ? undefined : COMMAND_GROUPS.find((candidate) => candidate.names.includes(name));
  const versionOnly = name === undefined && argv.some((arg) => arg === '-v' || arg === '--version');
  try {
    // Before the first module that builds a schema (each group's, the core's) is loaded: see zod-checks.ts.
    if (group || !versionOnly) (await import('./zod-checks')).checkWithoutGeneratedCode();
    if (group) await group.register(program, registration);
    else if (!versionOnly) for (const each of COMMAND_GROUPS) await each.register(program, registration);
  } catch (error) {
    return exitCodeFor(error, io, json());
  }

  addDocsPointers(program);

  // The first Ctrl-C ends the command here; `finally` then removes drafts and stops servers.
  const interrupted = new Promise<never>((_, reject) => {
    const stop = () => reject(new CliExit(EXIT.interrupted, 'Stopped (Ctrl-C). Nothing more was done; anything half-installed was removed.'));
    if (io.signal?.aborted) stop();
    else io.signal?.addEventListener('abort', stop, { once: true });
  });
  interrupted.catch(() => {}); // Observed so it never counts as unhandled; the command's own await reports it.
  try {
    await Promise.race([program.parseAsync(argv, { from: 'user' }), interrupted]);
  } catch (error) {
    exitCode = exitCodeFor(error, io, json());
  } finally {
    if (shared) await (await shared.catch(() => undefined))?.close(); // A core that never opened has nothing to close; its failure was already reported.
  }
  return exitCode;
}

/** "See docs/…" after the help of the program and of each command that has a page. */
function addDocsPointers(program: Command): void {
  program.addHelpText('after', '\nSee docs/command-line.md for every command, its options and exit codes.');
  for (const command of program.commands) {
    const page = COMMAND_DOCS[command.name()];
    if (page) command.addHelpText('after', `\nSee ${page}.`);
  }
}

/** `-y`/`--yes` written after `--` belongs to the server's command line, not to Airlock. */
function yesAfterDashes(argv: string[]): boolean {
  const dashes = argv.indexOf('--');
  if (dashes < 0) return false;
  const before = argv.slice(0, dashes);
  return argv.slice(dashes + 1).some((arg) => arg === '-y' || arg === '--yes') && !before.some((arg) => arg === '-y' || arg === '--yes');
}

function exitCodeFor(error: unknown, io: CliIo, json: boolean): number {
  if (error instanceof CommanderError) {
    // --help and --version end through here with exit code 0.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  // The core's "your request was wrong" (a bad name, a missing path, an unknown package) is a usage error.
  const code =
    error instanceof CliExit
      ? error.exitCode
      : error instanceof AirlockError && error.code === 'invalid-request'
        ? EXIT.usage
        : error instanceof AirlockError && error.code === 'locked-by-organisation'
          ? EXIT.lockedByOrganisation
          : EXIT.failure;
  const message =
    error instanceof CliExit || error instanceof AirlockError
      ? error.message
      : `Airlock failed unexpectedly: ${messageOf(error)}`;
  if (json) io.out(JSON.stringify({ ok: false, error: message }));
  // Control characters a server's words may have brought into the message are made visible (its lines stay lines).
  else io.err(`airlock: ${inertText(message)}`);
  return code;
}
