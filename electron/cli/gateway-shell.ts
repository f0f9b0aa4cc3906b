/**
 * How a command that serves MCP to another app (`airlock gateway`,
 * `airlock run`) opens the core: as a gateway shell of the data folder's
 * owner (or as the owner), asking a person on its own terminal only when it
 * has one.
 *
 * SECURITY: answers come from the person, on a terminal this process owns
 * (issue 10.3). Over stdio, stdin and stdout are the AI app's pipe, and the
 * controlling terminal, if any, is the app's own screen: keystrokes meant for
 * the app must never answer Airlock. So only a command a person started in
 * their own terminal (`--http`, stdin a TTY) asks there — tool confirmations
 * of its own calls (routed here by the owner), network questions and
 * servers' requests when it runs the servers itself.
 */
import type { ConfirmationView } from '../../shared/views';
import { AirlockHost } from '../core/host';
import { SharedHost } from '../core/ipc/shared-host';
import { judgeTerminalAnswer, newAnswerCode } from './confirmation-prompt';
import { inert } from './format';
import { terminalConfirmations } from './terminal-confirmations';
import { askServerRequestsOnTerminal, openTerminal, type Terminal } from './tty';

/** What `openGatewayShell` takes. */
export interface GatewayShellOptions {
  dataDir: string;
  /** The folder was chosen by the person: everything stays inside it (see HostOptions.selfContained). */
  selfContained?: boolean;
  version: string;
  /** For the owner's log ("airlock gateway for Cursor"); data. */
  label: string;
  /** Speaks MCP on stdin/stdout: never asks on a terminal. */
  stdio: boolean;
  /** False with `--no-terminal`. */
  terminal: boolean;
  /** Start every enabled server when this process becomes the owner (the gateway does; `run` starts its one). */
  startServers: boolean;
  log: (message: string) => void;
}

/** The core as a gateway shell, and the terminal it asks on (if any). */
export interface GatewayShell {
  shared: SharedHost;
  terminal: Terminal | undefined;
  close(): Promise<void>;
}

export async function openGatewayShell(options: GatewayShellOptions): Promise<GatewayShell> {
  const terminal = options.terminal && !options.stdio && process.stdin.isTTY === true ? openTerminal() : undefined;
  const asked = new Set<string>();
  let owned: AirlockHost | undefined;
  let shared: SharedHost | undefined;
  // This shell's own calls' confirmations, routed here by the owner (this process or another).
  const confirmations = terminal ? terminalConfirmations(terminal, () => shared, options.log, { appCanAsk: () => shared?.otherShellsCanAsk() ?? false }) : undefined;
  shared = await SharedHost.open({
    dataDir: options.dataDir,
    role: 'gateway',
    label: options.label,
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
          .then((answer) => host.approvals.answerNetwork(question.id, judgeTerminalAnswer(answer ?? '', code) === 'allow', false, 'terminal'))
          .catch(() => {}); // A terminal that cannot ask leaves the question to its deadline, recorded as unanswered.
      }
    },
    createHost: (hooks) => new AirlockHost({ dataDir: options.dataDir, ...(options.selfContained ? { selfContained: true } : {}), version: options.version, hooks }),
    onOwner: async (host) => {
      owned = host;
      // Servers' sampling and elicitation questions, when this process runs the servers.
      if (terminal) askServerRequestsOnTerminal(host, terminal, host.ownShell);
      if (options.startServers) await host.servers.startEnabled();
    },
  });
  // What went wrong at start-up (a settings file that could not be read, …): in the app's log of this gateway.
  for (const notice of (await shared.invoke('app.info', {})).notices) options.log(`Airlock: ${notice.level === 'info' ? 'note' : 'warning'}: ${notice.message}`);
  return {
    shared,
    terminal,
    close: async () => {
      terminal?.close();
      await shared.close();
    },
  };
}
