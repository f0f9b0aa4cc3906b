import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { version } from '../../package.json';
import { defaultDataDir } from '../core/data-dir';
import { AirlockError } from '../core/errors';
import { AirlockHost } from '../core/host';
import { SharedHost } from '../core/ipc/shared-host';
import { registerCallCommands } from './commands/calls';
import { registerChatCommands } from './commands/chat';
import { doctor } from './commands/doctor';
import { registerGatewayCommands } from './commands/gateway';
import { registerServerCommands, type CliContext } from './commands/servers';
import { CliExit, EXIT, type CliIo } from './output';

/** How another app starts this CLI's gateway: absolute paths, since apps do not get the shell's PATH. */
function gatewayCommand(dataDir: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [resolve(process.argv[1] ?? 'airlock'), '--data-dir', dataDir, 'gateway', '--stdio'] };
}

interface GlobalOptions {
  dataDir?: string;
  json?: boolean;
}

/**
 * Runs the `airlock` command line and resolves to its exit code. The host is
 * opened lazily, so `--help` and `--version` touch nothing on disk.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  let shared: Promise<SharedHost> | undefined;
  const program = new Command()
    .name('airlock')
    .description('Airlock runs MCP servers in an OS sandbox and asks before anything destructive.')
    .version(version, '-v, --version', 'print the version')
    .option('--data-dir <dir>', "Airlock's data folder (default: the desktop app's, or $AIRLOCK_DATA_DIR)")
    .option('--json', 'print machine-readable JSON')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.out(text.trimEnd()), writeErr: (text) => io.err(text.trimEnd()) })
    .showHelpAfterError('(run `airlock --help` for usage)');

  const dataDir = () => program.opts<GlobalOptions>().dataDir ?? defaultDataDir(io.env);
  // The core runs here unless another Airlock process (the app, a gateway) owns the data folder.
  const openApi = (): Promise<SharedHost> => {
    shared ??= SharedHost.open({
      dataDir: dataDir(),
      label: 'airlock CLI',
      canAsk: () => false,
      createHost: (hooks) => new AirlockHost({ dataDir: dataDir(), version, hooks, gatewayCommand: gatewayCommand(dataDir()) }),
    });
    return shared;
  };
  const json = () => program.opts<GlobalOptions>().json === true;

  const context: CliContext = { api: openApi, io, json, exit: (code) => (exitCode = code) };
  registerServerCommands(program, context);
  registerCallCommands(program, context);
  registerGatewayCommands(program, { ...context, dataDir, version });
  registerChatCommands(program, {
    ...context,
    dataDir,
    version,
    createHost: (hooks) => new AirlockHost({ dataDir: dataDir(), version, hooks, gatewayCommand: gatewayCommand(dataDir()) }),
  });

  program
    .command('doctor')
    .description('check that this machine can sandbox servers; prints what is missing and how to fix it')
    .action(async () => {
      exitCode = await doctor(await openApi(), io, json());
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    exitCode = exitCodeFor(error, io, json());
  } finally {
    if (shared) await (await shared.catch(() => undefined))?.close();
  }
  return exitCode;
}

function exitCodeFor(error: unknown, io: CliIo, json: boolean): number {
  if (error instanceof CommanderError) {
    // --help and --version end through here with exit code 0.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  const code = error instanceof CliExit ? error.exitCode : EXIT.failure;
  const message =
    error instanceof CliExit || error instanceof AirlockError
      ? error.message
      : `Airlock failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`;
  if (json) io.out(JSON.stringify({ ok: false, error: message }));
  else io.err(`airlock: ${message}`);
  return code;
}
