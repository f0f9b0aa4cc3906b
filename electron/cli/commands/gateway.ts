import { resolve } from 'node:path';
import type { Command } from 'commander';
import { APP_LABELS } from '../../../shared/domain';
import { connectApp, previewConnect, undoConnect, type ConnectApp } from '../../core/connect';
import { inert } from '../format';
import { openGatewayShell } from '../gateway-shell';
import { CliExit, EXIT } from '../output';
import { serveUntilStopped, httpPort } from './serve';
import { confirmOrExit, type CliContext } from './context';
import { importServers, importSummary } from './import';

export function registerGatewayCommands(program: Command, context: CliContext & { dataDir(): string; version: string }): void {
  const { io } = context;

  program
    .command('gateway')
    .description('serve the tools of Airlock\'s servers to another AI app over MCP, under Airlock\'s policy and confirmations')
    .option('--stdio', 'speak MCP on stdin/stdout (what an app puts in its config)')
    .option('--http <port>', 'serve streamable HTTP on 127.0.0.1:PORT, with a bearer token')
    .option('--servers <names>', 'expose only these servers (comma-separated)')
    .option('--client <name>', 'the app this gateway serves, as confirmations and the audit log name it')
    .option('--no-terminal', 'never ask on this terminal (calls needing a confirmation then need the Airlock app); a --stdio gateway never asks on one')
    .action(async (options: { stdio?: boolean; http?: string; servers?: string; client?: string; terminal: boolean }) => {
      if (!options.stdio === !options.http) throw new CliExit(EXIT.usage, 'Choose one: `airlock gateway --stdio` or `airlock gateway --http PORT`.');
      // SECURITY: answers come from the person, on a terminal this process owns (issue 10.3). Over
      // --stdio, stdin and stdout are the AI app's pipe and the controlling terminal, if any, is the
      // app's own screen: keystrokes meant for the app must never answer Airlock. So only a gateway
      // a person started in their own terminal (stdin is a TTY) asks there.
      // Messages can carry a server's or a client's words (a skipped tool's name): inert, like every label printed.
      const log = (message: string) => process.stderr.write(`${inert(message)}\n`);
      const { shared, terminal, close } = await openGatewayShell({
        dataDir: context.dataDir(),
        selfContained: context.selfContained?.() === true,
        version: context.version,
        label: `airlock gateway${options.client ? ` for ${options.client}` : ''}`,
        stdio: options.stdio === true,
        terminal: options.terminal,
        startServers: true,
        log,
      });
      log(
        `Airlock gateway: ${shared.mode === 'owner' ? 'running the servers in this process' : 'another Airlock process (the app, or another gateway) runs the servers'}; ${
          terminal
            ? "this gateway's calls that need a confirmation are asked on this terminal (and in the Airlock app's window, when it runs the servers)"
            : "with no terminal here, this gateway's calls that need a confirmation are asked only in the Airlock app's window, and denied when it is not running"
        }.`,
      );
      const servers = options.servers?.split(',').map((name) => name.trim()).filter(Boolean);
      const gatewayOptions = { ...(servers ? { servers } : {}), ...(options.client ? { clientName: options.client } : {}), log };
      try {
        await serveUntilStopped(context, shared, shared.gatewayCore(), gatewayOptions, options.http === undefined ? undefined : { port: httpPort(options.http), serving: 'Airlock gateway' });
      } finally {
        await close();
      }
    });

  program
    .command('connect')
    .description("add Airlock's gateway to an app's MCP config (claude, vscode or cursor), with a backup; --undo restores it")
    .argument('<app>', 'claude | vscode | cursor')
    .option('--move', "also move the app's other servers into Airlock (each through disclosure, added disabled), so they stop running unconfined there")
    .option('--per-server', 'with --move: replace each moved entry in place with `airlock run NAME` (the app keeps a toggle per server) instead of one gateway entry')
    .option('--undo', 'restore the config as it was before the last connect')
    .action(async (app: string, options: { move?: boolean; perServer?: boolean; undo?: boolean }) => {
      const yes = context.yes();
      if (app !== 'claude' && app !== 'vscode' && app !== 'cursor') throw new CliExit(EXIT.usage, 'Say which app: claude, vscode or cursor.');
      const target = app;
      const label = APP_LABELS[target];
      const environment = { env: io.env, ...(io.env.HOME ? { home: io.env.HOME } : {}) };
      if (options.undo) {
        const result = await undoConnect(target, environment);
        io.out(context.json() ? JSON.stringify(result) : `Restored ${label}'s config from ${result.restoredFrom}.`);
        return;
      }
      // An absolute command: apps started from the desktop do not get the shell's PATH.
      const command = { command: process.execPath, args: [resolve(process.argv[1] ?? 'airlock'), '--data-dir', context.dataDir(), 'gateway', '--stdio', '--client', label] };
      const preview = await previewConnect(target, { ...environment, ...command });
      if (!context.json()) {
        io.out(`${label}'s config: ${preview.path}${preview.exists ? '' : ' (will be created)'}`);
        io.out(`Airlock will add the entry "airlock": ${command.command} ${command.args.join(' ')}`);
        if (preview.otherServers.length) io.out(`${label} also runs, unconfined: ${preview.otherServers.map((server) => inert(server.name)).join(', ')}${options.move ? ' — they will be moved into Airlock' : ' (use --move to bring them into Airlock)'}`);
      }
      let moved: Array<{ entry: string; server: string }> = [];
      if (options.move && preview.otherServers.length) {
        await confirmOrExit(io, `Move ${preview.otherServers.length} server(s) from ${label} into Airlock (each shown first, added disabled)?`, yes);
        moved = await importForMove(context, preview.path, target);
      }
      // One `airlock run NAME` entry per moved server keeps the app's own toggle for each; offered, not assumed.
      let perServer = options.perServer === true && moved.length > 0;
      if (!perServer && moved.length > 0 && !yes && io.confirm && !context.json()) {
        perServer = await io.confirm(`Replace each moved entry in ${label} with its own Airlock entry (\`airlock run NAME\`, so ${label} keeps a switch per server) instead of one “airlock” entry?`);
      }
      if (perServer) {
        const entries = Object.fromEntries(moved.map(({ entry, server }) => [entry, { command: command.command, args: [resolve(process.argv[1] ?? 'airlock'), '--data-dir', context.dataDir(), 'run', server, '--client', label] }]));
        if (!context.json()) for (const { entry, server } of moved) io.out(`  "${inert(entry)}" → airlock run ${server}`);
        await confirmOrExit(io, `Replace ${moved.length} entr${moved.length === 1 ? 'y' : 'ies'} in ${preview.path} with Airlock's (a backup is kept)? Enable them in Airlock with \`airlock start NAME\`.`, yes);
        const result = await connectApp(target, { ...environment, perServerEntries: entries });
        io.out(context.json() ? JSON.stringify(result, null, 2) : `${result.changed ? `Done. Backup: ${result.backupPath}` : 'Nothing changed.'}\nRestart ${label} to use it.`);
        return;
      }
      await confirmOrExit(io, `Write Airlock's entry into ${preview.path} (a backup is kept)?`, yes);
      const result = await connectApp(target, { ...environment, ...command, ...(moved.length ? { moveServers: moved.map((m) => m.entry) } : {}) });
      io.out(
        context.json()
          ? JSON.stringify(result, null, 2)
          : `${result.changed ? `Connected. Backup: ${result.backupPath}` : 'Already connected; nothing changed.'}${result.removedServers.length ? `\nMoved out of ${label}: ${result.removedServers.join(', ')}` : ''}\nRestart ${label} to use it.`,
      );
    });
}

/**
 * Takes the app's other servers into Airlock as `airlock import` does (each
 * shown, asked, inspected, added turned off; those Airlock already has are
 * recognised, never copied; Airlock's own entries left alone). Returns each
 * entry that may leave the app's config, with its server in Airlock.
 */
async function importForMove(context: CliContext, path: string, app: ConnectApp): Promise<Array<{ entry: string; server: string }>> {
  const { entries } = await importServers(context, { path, app }, { probe: true, proposed: true });
  for (const entry of entries) {
    if (entry.outcome === 'not-imported' && !context.json()) context.io.out(`  ${inert(entry.entry)} stays in the app (${inert(entry.short ?? entry.why ?? '')}); it still runs there, unconfined.`);
  }
  if (!context.json()) context.io.out(importSummary(entries));
  return entries.flatMap((entry) => ((entry.outcome === 'imported' || entry.outcome === 'in-airlock') && entry.server ? [{ entry: entry.entry, server: entry.server }] : []));
}
