import { createReadStream, createWriteStream, openSync } from 'node:fs';
import { WriteStream } from 'node:tty';
import { createInterface } from 'node:readline/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { APP_LABELS } from '../../../shared/domain';
import type { ConfirmationView } from '../../../shared/views';
import { AirlockHost } from '../../core/host';
import { connectApp, previewConnect, undoConnect, type ConnectApp } from '../../core/connect';
import { loadOrCreateGatewayToken, serveStdio, startHttpGateway, GATEWAY_TOKEN_FILE } from '../../core/gateway';
import { SharedHost } from '../../core/ipc/shared-host';
import { judgeTerminalAnswer, newAnswerCode } from '../confirmation-prompt';
import { inert } from '../format';
import { CliExit, EXIT } from '../output';
import { terminalConfirmations, type AskingTerminal } from '../terminal-confirmations';
import { confirmOrExit, installFromDisclosure, type CliContext } from './servers';

/**
 * The terminal a person started this gateway in (its controlling terminal,
 * /dev/tty), to ask about the gateway's own calls. Only used when stdin is
 * that terminal: see the SECURITY note where it is opened.
 */
function openTerminal(): (AskingTerminal & { ask(question: string, signal?: AbortSignal): Promise<string>; close(): void }) | undefined {
  if (process.platform === 'win32') return undefined;
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'r+');
  } catch {
    return undefined;
  }
  const input = createReadStream('', { fd, autoClose: false });
  const output = createWriteStream('', { fd, autoClose: false });
  const rl = createInterface({ input, output });
  // The width comes from a second, write-only handle (a tty.WriteStream changes its handle's mode; the reader keeps its own).
  let size: WriteStream | undefined;
  try {
    size = new WriteStream(openSync('/dev/tty', 'w'));
    size.unref();
  } catch {
    size = undefined;
  }
  // One question at a time; the MCP traffic on stdin/stdout goes on meanwhile.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    ask(question, signal) {
      const next = queue.then(() => rl.question(question, signal ? { signal } : {}));
      queue = next.catch(() => {});
      return next.then((answer) => answer.trim());
    },
    columns: () => size?.columns || 80,
    close: () => {
      rl.close();
      input.destroy();
      output.destroy();
      size?.destroy();
    },
  };
}

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
      const terminal = options.terminal && !options.stdio && process.stdin.isTTY === true ? openTerminal() : undefined;
      // Messages can carry a server's or a client's words (a skipped tool's name): inert, like every label printed.
      const log = (message: string) => process.stderr.write(`${inert(message)}\n`);
      const asked = new Set<string>();
      let owned: AirlockHost | undefined;
      let shared: SharedHost | undefined;
      // This gateway's own calls' confirmations, routed here by the owner (this process or another).
      const confirmations = terminal ? terminalConfirmations(terminal, () => shared, log, { appCanAsk: () => shared?.otherShellsCanAsk() ?? false }) : undefined;
      shared = await SharedHost.open({
        dataDir: context.dataDir(),
        role: 'gateway',
        label: `airlock gateway${options.client ? ` for ${options.client}` : ''}`,
        canAsk: () => terminal !== undefined,
        onEvent: (event, payload) => {
          if (event === 'approvals.didChange') confirmations?.(payload as ConfirmationView[]);
          // A server this process runs asks to reach a host: ask on the terminal too.
          if (event !== 'network.didChange' || !terminal || !owned || shared?.localHost !== owned) return;
          for (const question of payload as Array<{ id: string; server: string; host: string; port: number }>) {
            if (asked.has(question.id)) continue;
            asked.add(question.id);
            const host = owned;
            // SECURITY: as for calls, only the code shown here allows — "y⏎" meant for another program on this terminal denies.
            const code = newAnswerCode();
            void terminal
              .ask(`\n── Airlock: ${inert(question.server)} wants to reach ${inert(question.host)}:${question.port}, which it has no permission for.\nTo allow this time, type the code “${code}” (anything else denies): `)
              .then((answer) => host.answerNetwork(question.id, judgeTerminalAnswer(answer ?? '', code) === 'allow', false, 'terminal'))
              .catch(() => {});
          }
        },
        createHost: (hooks) => new AirlockHost({ dataDir: context.dataDir(), version: context.version, hooks }),
        onOwner: async (host) => {
          owned = host;
          await host.startEnabledServers();
        },
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
        if (options.stdio) {
          const gateway = await serveStdio(shared.gatewayCore(), gatewayOptions);
          await Promise.race([gateway.closed, new Promise<void>((done) => io.signal?.addEventListener('abort', () => done(), { once: true }))]);
          if (io.signal?.aborted) context.exit(EXIT.interrupted);
        } else {
          const port = Number(options.http);
          if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliExit(EXIT.usage, `--http takes a port number, got “${options.http}”.`);
          const token = await loadOrCreateGatewayToken(context.dataDir());
          const gateway = await startHttpGateway(shared.gatewayCore(), { ...gatewayOptions, port, token });
          io.out(context.json() ? JSON.stringify({ url: gateway.url, tokenFile: resolve(context.dataDir(), GATEWAY_TOKEN_FILE) }) : `Airlock gateway on ${gateway.url}\nBearer token: in ${resolve(context.dataDir(), GATEWAY_TOKEN_FILE)}`);
          // One Ctrl-C (or SIGTERM) stops it: the listener closes, servers stop, exit 130 for Ctrl-C.
          await new Promise<void>((done) => {
            if (io.signal?.aborted) return done();
            io.signal?.addEventListener('abort', () => done(), { once: true });
            process.once('SIGTERM', done);
          });
          await gateway.close();
          if (io.signal?.aborted) context.exit(EXIT.interrupted);
        }
      } finally {
        terminal?.close();
        await shared.close();
      }
    });

  program
    .command('connect')
    .description("add Airlock's gateway to an app's MCP config (claude, vscode or cursor), with a backup; --undo restores it")
    .argument('<app>', 'claude | vscode | cursor')
    .option('--move', "also move the app's other servers into Airlock (each through disclosure, added disabled), so they stop running unconfined there")
    .option('--undo', 'restore the config as it was before the last connect')
    .action(async (app: string, options: { move?: boolean; undo?: boolean }) => {
      const yes = context.yes();
      if (app !== 'claude' && app !== 'vscode' && app !== 'cursor') throw new CliExit(EXIT.usage, 'Say which app: claude, vscode or cursor.');
      const target = app as ConnectApp;
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
      let moved: string[] = [];
      if (options.move && preview.otherServers.length) {
        await confirmOrExit(io, `Move ${preview.otherServers.length} server(s) from ${label} into Airlock (each shown first, added disabled)?`, yes);
        moved = await importForMove(context, preview.path, target, yes);
      }
      await confirmOrExit(io, `Write Airlock's entry into ${preview.path} (a backup is kept)?`, yes);
      const result = await connectApp(target, { ...environment, ...command, ...(moved.length ? { moveServers: moved } : {}) });
      io.out(
        context.json()
          ? JSON.stringify(result, null, 2)
          : `${result.changed ? `Connected. Backup: ${result.backupPath}` : 'Already connected; nothing changed.'}${result.removedServers.length ? `\nMoved out of ${label}: ${result.removedServers.join(', ')}` : ''}\nRestart ${label} to use it.`,
      );
    });
}

/** Imports the app's other servers through disclosure; returns the entry names taken. */
async function importForMove(context: CliContext, path: string, app: ConnectApp, yes: boolean | undefined): Promise<string[]> {
  const api = await context.api();
  const taken: string[] = [];
  for (const file of await api.invoke('install.scanImports', { path, app })) {
    for (const entry of file.entries) {
      if (entry.status !== 'importable' || !entry.disclosure) {
        context.io.out(`  ${inert(entry.name)} stays in the app: ${entry.status} — ${inert(entry.reason ?? '')}`);
        continue;
      }
      await installFromDisclosure(context, entry.disclosure, { yes, enable: false, acceptProposals: true, silentJson: true });
      taken.push(entry.name);
    }
  }
  return taken;
}
