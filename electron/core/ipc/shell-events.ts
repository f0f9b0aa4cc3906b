/**
 * What each shell is sent of an event the core emits. Most events say the
 * same to everyone (a server list, "the log grew"); those that carry a
 * question for a person are built for the shell that receives them, from
 * what that shell may see: its own calls' confirmations, the server
 * questions routed to it — never another shell's.
 *
 * SECURITY: invariant 1 in reverse — a question is shown only to the shell
 * it was routed to. A client process on the owner socket is sent, in its
 * events, exactly what `approvals.list` and `requests.pending` would answer
 * it; a network question goes to no client process.
 */
import type { EventName, PayloadOf } from '../../../shared/ipc';
import type { ConfirmationView, ServerRequestView } from '../../../shared/views';
import type { ShellIdentity } from './shell-identity';

/** What a shell may see of the questions waiting for a person (each room decides from the shell). */
export interface ShellQuestionSources {
  /** The confirmations `shell` is shown (ApprovalsRoom.pending). */
  confirmations(shell: ShellIdentity): ConfirmationView[];
  /** The server questions routed to `shell` (ServerRequestsRoom.pending). */
  serverQuestions(shell: ShellIdentity): ServerRequestView[];
}

/**
 * Who is sent each event: `everyone` the same payload; `own` a payload built
 * for the receiving shell; `window` only Airlock's own window. Every event
 * is listed (the type says so), so a new one must say who sees it.
 */
export const EVENT_AUDIENCE = {
  'sandbox.didChange': 'everyone',
  'servers.didChange': 'everyone',
  'approvals.didChange': 'own',
  'network.didChange': 'window',
  'requests.didChange': 'own',
  'catalog.didChange': 'everyone',
  'audit.didAppend': 'everyone',
  'chat.didChange': 'everyone',
  'chat.didUpdate': 'everyone',
  // A tool's claims withdrawn: what every shell tells the person (its evidence is in the audit log, redacted).
  'claims.didContradict': 'everyone',
  'models.didChange': 'everyone',
} as const satisfies Record<EventName, 'everyone' | 'own' | 'window'>;

/** The payload `shell` is sent for `event`, or undefined when it is sent nothing. */
export function eventForShell<E extends EventName>(shell: ShellIdentity, event: E, payload: PayloadOf<E>, sources: ShellQuestionSources): PayloadOf<E> | undefined {
  // SECURITY: an event no table row names is sent to nobody (fail closed).
  const audience = (EVENT_AUDIENCE as Record<string, 'everyone' | 'own' | 'window' | undefined>)[event];
  switch (audience) {
    case 'everyone':
      return payload;
    case 'window':
      return shell.kind === 'window' ? payload : undefined;
    case 'own':
      if (event === 'approvals.didChange') return sources.confirmations(shell) as PayloadOf<E>;
      if (event === 'requests.didChange') return sources.serverQuestions(shell) as PayloadOf<E>;
      return undefined;
    default:
      return undefined;
  }
}
