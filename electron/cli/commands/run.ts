import type { Command } from 'commander';
import { inert } from '../format';
import { openGatewayShell } from '../gateway-shell';
import { httpPort, serveUntilStopped } from './serve';
import type { CliContext } from './servers';

/**
 * `airlock run NAME`: one server, served as itself — its own tool and prompt
 * names, URIs, capabilities and instructions — over stdio (what another
 * app's config entry runs) or streamable HTTP, through Airlock's sandbox,
 * policy, confirmations and audit log. A drop-in for that entry's
 * `command`/`args`, so the app keeps its own switch for each server.
 */
export function registerRunCommand(program: Command, context: CliContext & { dataDir(): string; version: string }): void {
  program
    .command('run')
    .description('serve one server to another app as itself (its own names and URIs), through Airlock’s sandbox, policy and audit: a drop-in for its entry in that app’s config')
    .argument('<name>', 'the server in Airlock')
    .option('--http <port>', 'serve streamable HTTP on 127.0.0.1:PORT (bearer token in the data folder) instead of stdio')
    .option('--client <name>', 'the app this serves, as confirmations and the audit log name it')
    .option('--no-terminal', 'never ask on this terminal (questions then need the Airlock app); over stdio it never asks on one')
    .action(async (name: string, options: { http?: string; client?: string; terminal: boolean }) => {
      const port = options.http === undefined ? undefined : httpPort(options.http);
      const log = (message: string) => process.stderr.write(`${inert(message)}\n`);
      const { shared, terminal, close } = await openGatewayShell({
        dataDir: context.dataDir(),
        selfContained: context.selfContained?.() === true,
        version: context.version,
        label: `airlock run ${name}${options.client ? ` for ${options.client}` : ''}`,
        stdio: port === undefined,
        terminal: options.terminal,
        startServers: false,
        log,
      });
      try {
        const core = shared.gatewayCore();
        // Starts the server (it must be enabled) and learns what it declares, to mirror it.
        const described = await core.catalog!.describe(name);
        log(
          `Airlock: serving ${name} as itself; ${
            terminal ? 'what needs a person is asked on this terminal (and in the Airlock app, when it runs)' : 'what needs a person is asked in the Airlock app, and refused when it is not running'
          }.`,
        );
        const gatewayOptions = { transparent: described, ...(options.client ? { clientName: options.client } : {}), log };
        await serveUntilStopped(context, shared, core, gatewayOptions, port === undefined ? undefined : { port, serving: `Airlock serving ${name}` });
      } finally {
        await close();
      }
    });
}
