/**
 * Asks, on a terminal this process owns, the confirmations of the calls made
 * through this process — and answers them with what the person typed. The
 * owner routes to a terminal only its own calls' confirmations (see
 * core/ipc/local-socket.ts), whether this process runs the servers or is
 * another Airlock process's client, so this is one path for both. What is
 * shown, and what must be typed, is confirmation-prompt.ts.
 *
 * SECURITY: invariant 1 — only the code drawn for that prompt allows
 * (keystrokes meant for another program on the same terminal deny); every
 * label and value the server or the client chose is laid out by Airlock,
 * inert, behind the value gutter, so it cannot rewrite the screen.
 */
import type { ConfirmationView } from '../../shared/views';
import { ALWAYS, alwaysDestructiveQuestion, judgeTerminalAnswer, judgeTerminalChoice, layoutTerminalNotice, layoutTerminalPrompt, newAnswerCode, promptText, terminalCallFromView, type TerminalChoice } from './confirmation-prompt';
import { messageOf } from '../core/errors';

/** What the terminal says once an answer was taken (a denial says why, below). */
const ANSWERED: Partial<Record<TerminalChoice, string>> = {
  'allow-once': 'Allowed once.',
  'allow-session': 'Allowed until Airlock stops (for this session).',
  'allow-always': 'Always allowed from now on, for this tool as it is defined now: `airlock rules list` shows the rule, `airlock rules remove` takes it back.',
};

/** A terminal a person reads and types on. */
export interface AskingTerminal {
  /** Prints the question and resolves to the line typed (trimmed); rejects when `signal` withdraws it. */
  ask(question: string, signal?: AbortSignal): Promise<string>;
  /** The terminal's width in columns now (80 when it cannot be told). */
  columns?(): number;
}

/** Where answers go: the contract, as this process's shell. */
export interface ConfirmationAnswerer {
  invoke(
    channel: 'approvals.answer',
    request: { id: string; choice: 'allow-once' | 'allow-session' | 'allow-always' | 'deny'; confirmDestructiveAlways?: boolean },
  ): Promise<{ accepted: boolean; reason?: string }>;
}

/** Options for `terminalConfirmations`. */
export interface TerminalConfirmationOptions {
  /** True when the Airlock app's window can answer too: the terminal first offers to leave the question to it. */
  appCanAsk?: () => boolean;
}

/**
 * Returns the handler for `approvals.didChange` (the confirmations routed to
 * this shell): each new one is asked once, in order; one that closed while
 * waiting its turn is skipped, and one that closes while it is being asked
 * (answered in the window, expired, cancelled) is withdrawn from the
 * terminal, so nothing waits for a key that no longer means anything.
 */
export function terminalConfirmations(
  terminal: AskingTerminal,
  answerer: () => ConfirmationAnswerer | undefined,
  log: (message: string) => void = () => {},
  options: TerminalConfirmationOptions = {},
): (pending: readonly ConfirmationView[]) => void {
  const seen = new Set<string>();
  const asking = new Map<string, AbortController>();
  let open = new Set<string>();
  let queue: Promise<void> = Promise.resolve();
  const columns = () => terminal.columns?.() ?? 80;
  return (pending) => {
    open = new Set(pending.map((view) => view.id));
    for (const [id, controller] of asking) if (!open.has(id)) controller.abort();
    for (const view of pending) {
      if (seen.has(view.id)) continue;
      seen.add(view.id);
      queue = queue
        .then(async () => {
          if (!open.has(view.id)) return;
          const controller = new AbortController();
          asking.set(view.id, controller);
          const call = terminalCallFromView(view);
          let verdict: Exclude<TerminalChoice, 'more'>;
          let typed: string;
          let confirmDestructiveAlways = false;
          try {
            // The app can answer too: one line here; Enter opens the whole prompt on this terminal.
            if (options.appCanAsk?.()) await terminal.ask(layoutTerminalNotice(call, columns()), controller.signal);
            const code = newAnswerCode();
            let full = false;
            for (;;) {
              const prompt = layoutTerminalPrompt(call, { columns: columns(), code, full, now: Date.now() });
              typed = await terminal.ask(promptText(prompt), controller.signal);
              const judged = judgeTerminalChoice(typed, prompt.expected, prompt.always);
              if (judged === 'more') {
                full = true;
                continue;
              }
              verdict = judged;
              break;
            }
            if (verdict === 'allow-always' && call.confirmationKind === 'destructive') {
              // SECURITY: as in the window, "always" for a destructive tool takes a second, explicit confirmation; without it, this call only.
              confirmDestructiveAlways = judgeTerminalAnswer(await terminal.ask(alwaysDestructiveQuestion(call, columns()), controller.signal), ALWAYS) === 'allow';
              if (!confirmDestructiveAlways) verdict = 'allow-once';
            }
          } catch (error) {
            if (!controller.signal.aborted) throw error;
            log('\n(Airlock: that confirmation was answered elsewhere or has closed.)');
            return;
          } finally {
            asking.delete(view.id);
          }
          const target = answerer();
          if (!target) return;
          const result = await target.invoke('approvals.answer', { id: view.id, choice: verdict, ...(confirmDestructiveAlways ? { confirmDestructiveAlways } : {}) });
          if (!result.accepted) log(`Airlock did not take that answer: ${result.reason ?? 'the confirmation had closed'}`);
          else log(ANSWERED[verdict] ?? `Denied${typed.length > 0 ? ' (that was not the code)' : ''}.`);
        })
        .catch((error: unknown) => log(`Airlock could not ask on this terminal: ${messageOf(error)}`));
    }
  };
}
