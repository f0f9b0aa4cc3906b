import { createReadStream, createWriteStream, openSync } from 'node:fs';
import { WriteStream } from 'node:tty';
import { createInterface } from 'node:readline/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { APP_LABELS, callerLabel } from '../../../shared/domain';
import { AirlockHost } from '../../core/host';
import { connectApp, previewConnect, undoConnect, type ConnectApp } from '../../core/connect';
import { loadOrCreateGatewayToken, serveStdio, startHttpGateway, GATEWAY_TOKEN_FILE } from '../../core/gateway';
import type { ConfirmationRequest, ObservedOutcome } from '../../core/approvals';
import { SharedHost } from '../../core/ipc/shared-host';
import { judgeTerminalAnswer, layoutTerminalNotice, layoutTerminalPrompt, newAnswerCode, promptText } from '../confirmation-prompt';
import { inert } from '../format';
import { CliExit, EXIT } from '../output';
import { confirmOrExit, installFromDisclosure, type CliContext } from './servers';

/** Asks one question; resolves to the trimmed answer, or undefined when `signal` withdrew the question. */
type Ask = (question: string, signal?: AbortSignal) => Promise<string | undefined>;

/** A terminal Airlock asks on: one conversation at a time, and its width. */
interface Terminal {
  /** Asks one question (queued behind any conversation under way). */
  ask(question: string): Promise<string | undefined>;
  /** Runs a conversation of several questions that nothing else interleaves with. */
  exclusive<T>(conversation: (ask: Ask, say: (text: string) => void) => Promise<T>): Promise<T>;
  /** The terminal's width in columns now (80 when it cannot be told). */
  columns(): number;
  close(): void;
}

/**
 * A terminal a gateway can ask on even when its stdin and stdout carry MCP:
 * the process's controlling terminal (/dev/tty), when it has one.
 */
function openTerminal(): Terminal | undefined {
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
  const ask: Ask = (question, signal) =>
    rl.question(question, signal ? { signal } : {}).then(
      (answer) => answer.trim(),
      (error: unknown) => {
        if (signal?.aborted) return undefined;
        throw error;
      },
    );
  // One conversation at a time; the MCP traffic on stdin/stdout goes on meanwhile.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive: Terminal['exclusive'] = (conversation) => {
    const next = queue.then(() => conversation(ask, (text) => output.write(text)));
    queue = next.catch(() => {});
    return next;
  };
  return {
    ask: (question) => exclusive((asking) => asking(question)),
    exclusive,
    columns: () => size?.columns || 80,
    close: () => {
      rl.close();
      input.destroy();
      output.destroy();
      size?.destroy();
    },
  };
}

/** How a confirmation ended elsewhere, in a line for the terminal that showed it. */
function endedElsewhere(outcome: ObservedOutcome): string {
  if (outcome.kind === 'expired') return 'The time to answer has passed: denied.';
  if (outcome.kind === 'cancelled') return `Withdrawn: ${inert(outcome.reason)}`;
  const where = outcome.answeredBy.shell === 'window' ? 'in the Airlock app' : 'elsewhere';
  return `Answered ${where}: ${outcome.kind === 'approved' ? 'allowed' : 'denied'}.`;
}

/**
 * Shows a confirmation on the terminal and answers it (see confirmation-prompt.ts):
 * only the code drawn for this prompt allows; anything else denies. When the
 * Airlock app can ask too, the terminal first offers it the question (one
 * line; Enter opens the prompt here). A request answered elsewhere, or
 * expired, takes its question off the terminal.
 */
async function askOnTerminal(host: AirlockHost, terminal: Terminal, request: ConfirmationRequest, appCanAsk: () => boolean): Promise<void> {
  await terminal.exclusive(async (ask, say) => {
    // Answered elsewhere or expired while an earlier question was on screen: nothing to ask.
    if (!host.confirmations.get(request.id)) return;
    const closed = new AbortController();
    let ending = '';
    const stop = host.confirmations.onDidClose((closedRequest, outcome) => {
      if (closedRequest.id !== request.id) return;
      ending = endedElsewhere(outcome);
      closed.abort();
    });
    try {
      if (appCanAsk()) {
        const typed = await ask(layoutTerminalNotice(request, terminal.columns()), closed.signal);
        if (typed === undefined) return say(`\n${ending}\n`);
      }
      const code = newAnswerCode();
      let full = false;
      for (;;) {
        const prompt = layoutTerminalPrompt(request, { columns: terminal.columns(), code, full, now: Date.now() });
        const typed = await ask(promptText(prompt), closed.signal);
        if (typed === undefined) return say(`\n${ending}\n`);
        const verdict = judgeTerminalAnswer(typed, prompt.expected);
        if (verdict === 'more') {
          full = true;
          continue;
        }
        stop();
        const result = host.answerConfirmation(request.id, { choice: verdict === 'allow' ? 'allow-once' : 'deny' }, { shell: 'terminal' });
        return say(
          result.accepted
            ? verdict === 'allow'
              ? 'Allowed once.\n'
              : `Denied${typed.length > 0 ? ' (that was not the code)' : ''}.\n`
            : `Airlock did not take this answer: ${inert(result.reason ?? 'the request is closed')}\n`,
        );
      }
    } finally {
      stop();
    }
  });
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
    .option('--no-terminal', 'never ask on this terminal (calls needing a confirmation then need the Airlock app)')
    .action(async (options: { stdio?: boolean; http?: string; servers?: string; client?: string; terminal: boolean }) => {
      if (!options.stdio === !options.http) throw new CliExit(EXIT.usage, 'Choose one: `airlock gateway --stdio` or `airlock gateway --http PORT`.');
      const terminal = options.terminal ? openTerminal() : undefined;
      const log = (message: string) => process.stderr.write(`${message}\n`);
      const asked = new Set<string>();
      let owned: AirlockHost | undefined;
      let sharedHost: SharedHost | undefined;
      const shared = await SharedHost.open({
        dataDir: context.dataDir(),
        label: `airlock gateway${options.client ? ` for ${options.client}` : ''}`,
        canAsk: () => terminal !== undefined,
        onEvent: (event, payload) => {
          // A server this process runs asks to reach a host: ask on the terminal too.
          if (event !== 'network.didChange' || !terminal || !owned) return;
          for (const question of payload as Array<{ id: string; server: string; host: string; port: number }>) {
            if (asked.has(question.id)) continue;
            asked.add(question.id);
            const host = owned;
            // SECURITY: as for calls, only the code shown here allows — "y⏎" meant for another program on this terminal denies.
            const code = newAnswerCode();
            void terminal
              .ask(`\n── Airlock: ${inert(question.server)} wants to reach ${inert(question.host)}:${question.port}, which it has no permission for.\nTo allow this time, type the code “${code}” (anything else denies): `)
              .then((answer) => host.answerNetwork(question.id, judgeTerminalAnswer(answer ?? '', code) === 'allow', false))
              .catch(() => {});
          }
        },
        createHost: (hooks) => new AirlockHost({ dataDir: context.dataDir(), version: context.version, hooks }),
        onOwner: async (host) => {
          owned = host;
          if (terminal) {
            // SECURITY: prefer the app's window when one is connected — this terminal may be shared with another program.
            const appCanAsk = () => sharedHost?.otherShellsCanAsk() ?? false;
            host.confirmations.onDidOpen((request) => void askOnTerminal(host, terminal, request, appCanAsk).catch(() => {}));
          }
          await host.startEnabledServers();
        },
      });
      sharedHost = shared;
      log(
        shared.mode === 'owner'
          ? `Airlock gateway: running the servers in this process${terminal ? '; confirmations are asked on this terminal' : '; with no terminal and no Airlock app, calls that need a confirmation are denied'}.`
          : 'Airlock gateway: the Airlock app (or another gateway) runs the servers; confirmations appear there.',
      );
      const servers = options.servers?.split(',').map((name) => name.trim()).filter(Boolean);
      const gatewayOptions = { ...(servers ? { servers } : {}), ...(options.client ? { clientName: options.client } : {}), log };
      try {
        if (options.stdio) {
          const gateway = await serveStdio(shared.gatewayCore(), gatewayOptions);
          await gateway.closed;
        } else {
          const port = Number(options.http);
          if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliExit(EXIT.usage, `--http takes a port number, got “${options.http}”.`);
          const token = await loadOrCreateGatewayToken(context.dataDir());
          const gateway = await startHttpGateway(shared.gatewayCore(), { ...gatewayOptions, port, token });
          io.out(context.json() ? JSON.stringify({ url: gateway.url, tokenFile: resolve(context.dataDir(), GATEWAY_TOKEN_FILE) }) : `Airlock gateway on ${gateway.url}\nBearer token: in ${resolve(context.dataDir(), GATEWAY_TOKEN_FILE)}`);
          await new Promise<void>((done) => {
            process.once('SIGINT', done);
            process.once('SIGTERM', done);
          });
          await gateway.close();
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
    .option('-y, --yes', 'answer yes to the questions')
    .action(async (app: string, options: { move?: boolean; undo?: boolean; yes?: boolean }) => {
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
        await confirmOrExit(io, `Move ${preview.otherServers.length} server(s) from ${label} into Airlock (each shown first, added disabled)?`, options.yes);
        moved = await importForMove(context, preview.path, target, options.yes);
      }
      await confirmOrExit(io, `Write Airlock's entry into ${preview.path} (a backup is kept)?`, options.yes);
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
      await installFromDisclosure(context, entry.disclosure, { yes, enable: false, silentJson: true });
      taken.push(entry.name);
    }
  }
  return taken;
}
