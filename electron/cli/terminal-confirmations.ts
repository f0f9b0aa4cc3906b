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
  /** Prints the question and resolves to the line typed (trimmed). */
  ask(question: string): Promise<string>;
}

/** Where answers go: the contract, as this process's shell. */
export interface ConfirmationAnswerer {
  invoke(channel: 'approvals.answer', request: { id: string; choice: 'allow-once' | 'deny' }): Promise<{ accepted: boolean; reason?: string }>;
}

/**
 * Returns the handler for `approvals.didChange` (the confirmations routed to
 * this shell): each new one is asked once, in order; one that closed while
 * waiting its turn (answered in the window, expired, cancelled) is skipped.
 */
export function terminalConfirmations(terminal: AskingTerminal, answerer: () => ConfirmationAnswerer | undefined, log: (message: string) => void = () => {}): (pending: readonly ConfirmationView[]) => void {
  const seen = new Set<string>();
  let open = new Set<string>();
  let queue: Promise<void> = Promise.resolve();
  return (pending) => {
    open = new Set(pending.map((view) => view.id));
    for (const view of pending) {
      if (seen.has(view.id)) continue;
      seen.add(view.id);
      queue = queue.then(async () => {
        if (!open.has(view.id)) return;
        const typed = await terminal.ask(confirmationText(view));
        const allowed = view.destructive ? typed === view.tool : /^y(es)?$/i.test(typed);
        const target = answerer();
        if (!target) return;
        const result = await target.invoke('approvals.answer', { id: view.id, choice: allowed ? 'allow-once' : 'deny' });
        if (!result.accepted) log(`Airlock did not take that answer: ${result.reason ?? 'the confirmation had closed'}`);
      }).catch((error: unknown) => log(`Airlock could not ask on this terminal: ${error instanceof Error ? error.message : String(error)}`));
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
