import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { version } from '../../package.json';
import { defaultDataDir } from '../core/data-dir';
import { AirlockError, messageOf } from '../core/errors';
import { AirlockHost } from '../core/host';
import { SharedHost } from '../core/ipc/shared-host';
import { registerCallCommands } from './commands/calls';
import { registerCatalogCommands } from './commands/catalog';
import { registerChatCommands } from './commands/chat';
import { registerRunCommand } from './commands/run';
import { registerScreenCommands } from './commands/screens';
import { doctor, registerRuntimeCommands } from './commands/doctor';
import { registerGatewayCommands } from './commands/gateway';
import { registerRegistryCommands } from './commands/registry';
import { registerServerCommands, type CliContext } from './commands/servers';
import { registerSettingsCommands } from './commands/settings';
import { CliExit, EXIT, type CliIo } from './output';
import { fitToTerminal } from './server-text';
import { inertText } from '../core/servers';
import { terminalConfirmations } from './terminal-confirmations';
import type { ConfirmationView } from '../../shared/views';

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
export const ASKING_COMMANDS = ['add', 'update', 'import', 'grant', 'approve', 'remove', 'rules add', 'connect', 'resources --approve-template', 'prompts --approve', 'requests'] as const;

/**
 * Runs the `airlock` command line and resolves to its exit code. The host is
 * opened lazily, so `--help` and `--version` touch nothing on disk.
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
  // The confirmations of this command's own calls (`airlock call`), asked on its terminal when it has one.
  let api: SharedHost | undefined;
  const prompt = io.prompt;
  const confirmations = prompt
    ? terminalConfirmations(
        { ask: async (question, signal) => (await prompt(question, signal)).trim(), columns: () => process.stdout.columns || 80 },
        () => api,
        (message) => io.err(message),
        { appCanAsk: () => api?.otherShellsCanAsk() ?? false },
      )
    : undefined;
  // The core runs here unless another Airlock process (the app, a gateway) owns the data folder.
  const openApi = (): Promise<SharedHost> => {
    shared ??= SharedHost.open({
      dataDir: dataDir(),
      role: 'cli',
      label: 'airlock CLI',
      // A terminal this command owns: stdin and stdout are a TTY (see cli/index.ts).
      canAsk: () => prompt !== undefined,
      onEvent: (event, payload) => {
        if (event === 'approvals.didChange') confirmations?.(payload as ConfirmationView[]);
      },
      createHost: (hooks) =>
        new AirlockHost({
          dataDir: dataDir(),
          version,
          hooks,
          gatewayCommand: gatewayCommand(dataDir()),
          // A remote server's sign-in: the terminal shows the page to open, then waits for the browser's answer.
          signInPage: (url, server) => io.err(`Sign in to ${server}: open this page in your browser (it belongs to the server's sign-in service):\n  ${url}`),
        }),
    }).then((opened) => (api = opened));
    return shared;
  };
  const json = () => program.opts<GlobalOptions>().json === true;
  const yes = () => program.opts<GlobalOptions>().yes === true;

  const context: CliContext = { api: openApi, io, json, yes, exit: (code) => (exitCode = code), yesAfterDashes: yesAfterDashes(argv), argv };
  registerServerCommands(program, context);
  registerCallCommands(program, context);
  registerSettingsCommands(program, context);
  registerCatalogCommands(program, context);
  registerScreenCommands(program, context);
  registerGatewayCommands(program, { ...context, dataDir, version });
  registerRunCommand(program, { ...context, dataDir, version });
  registerRuntimeCommands(program, context);
  registerRegistryCommands(program, context);
  registerChatCommands(program, {
    ...context,
    dataDir,
    version,
    createHost: (hooks) => new AirlockHost({ dataDir: dataDir(), version, hooks, gatewayCommand: gatewayCommand(dataDir()) }),
  });

  program
    .command('doctor')
    .description('check that this machine can sandbox servers and which node, python and uv servers will run with; prints what is missing and how to fix it')
    .action(async () => {
      exitCode = await doctor(await openApi(), io, json());
    });

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
