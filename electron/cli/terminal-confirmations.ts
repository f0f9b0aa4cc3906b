/**
 * Asks, on a terminal this process owns, the confirmations of the calls made
 * through this process — and answers them with what the person typed. The
 * owner routes to a terminal only its own calls' confirmations (see
 * core/ipc/local-socket.ts), whether this process runs the servers or is
 * another Airlock process's client, so this is one path for both.
 *
 * SECURITY: the safe answer is the default (anything but an explicit yes
 * denies); every label and value the server or the client chose is printed
 * inert, so it cannot rewrite the screen.
 */
import type { ConfirmationView } from '../../shared/views';
import { inert } from './format';

/** A terminal a person reads and types on. */
export interface AskingTerminal {
  /** Prints the question and resolves to the line typed (trimmed); rejects when `signal` withdraws it. */
  ask(question: string, signal?: AbortSignal): Promise<string>;
}

/** Where answers go: the contract, as this process's shell. */
export interface ConfirmationAnswerer {
  invoke(channel: 'approvals.answer', request: { id: string; choice: 'allow-once' | 'deny' }): Promise<{ accepted: boolean; reason?: string }>;
}

/**
 * Returns the handler for `approvals.didChange` (the confirmations routed to
 * this shell): each new one is asked once, in order; one that closed while
 * waiting its turn is skipped, and one that closes while it is being asked
 * (answered in the window, expired, cancelled) is withdrawn from the
 * terminal, so nothing waits for a key that no longer means anything.
 */
export function terminalConfirmations(terminal: AskingTerminal, answerer: () => ConfirmationAnswerer | undefined, log: (message: string) => void = () => {}): (pending: readonly ConfirmationView[]) => void {
  const seen = new Set<string>();
  const asking = new Map<string, AbortController>();
  let open = new Set<string>();
  let queue: Promise<void> = Promise.resolve();
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
          let typed: string;
          try {
            typed = await terminal.ask(confirmationText(view), controller.signal);
          } catch (error) {
            if (!controller.signal.aborted) throw error;
            log('\n(Airlock: that confirmation was answered elsewhere or has closed.)');
            return;
          } finally {
            asking.delete(view.id);
          }
          const allowed = view.destructive ? typed === view.tool : /^y(es)?$/i.test(typed);
          const target = answerer();
          if (!target) return;
          const result = await target.invoke('approvals.answer', { id: view.id, choice: allowed ? 'allow-once' : 'deny' });
          if (!result.accepted) log(`Airlock did not take that answer: ${result.reason ?? 'the confirmation had closed'}`);
        })
        .catch((error: unknown) => log(`Airlock could not ask on this terminal: ${error instanceof Error ? error.message : String(error)}`));
    }
  };
}

/** The question as printed: who asks, what, why, the exact arguments, then what to type. */
export function confirmationText(view: ConfirmationView): string {
  return [
    '',
    `── Airlock: ${inert(view.callerLabel)} wants to run ${inert(view.server)} › ${inert(view.tool)} ──`,
    ...view.reasons.map((reason) => `  ${inert(reason)}`),
    `  arguments: ${inert(JSON.stringify(view.arguments, null, 2)).split('\n').join('\n  ')}`,
    view.destructive ? `Type the tool's name (${inert(view.tool)}) to allow it once; anything else denies: ` : 'Allow once? [y/N] ',
  ].join('\n');
}
