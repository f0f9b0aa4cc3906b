/**
 * Who uses the contract, as the owner knows it — never as it claims to be —
 * and which confirmations each shell is shown and may answer.
 *
 * SECURITY: invariant 1 — an answer comes from a shell that was shown the
 * prompt: the window (the person's own, in the process that runs the
 * servers) every one; a terminal only those of calls made through it.
 */
import type { ChangeActor } from '../audit/entries';

/**
 * A shell using the contract. It decides the caller kind of `tools.call`,
 * which confirmations the shell is shown and may answer, and how its
 * answers are recorded.
 * - `window`: Airlock's own window (in the owner's process): its console
 *   calls are the person's (`user`); it sees and may answer every
 *   confirmation and network question.
 * - `terminal`: the `airlock` command or a gateway (the owner's process or
 *   a client process): its calls are `cli`; it is shown, and may answer,
 *   only the confirmations of calls made through it (`origin`), and no
 *   network question.
 */
export interface ShellIdentity {
  kind: 'window' | 'terminal';
  /** Where its own calls' confirmations are routed. */
  origin: string;
  /** A label for the log ("airlock gateway for Cursor"); data, never an identity. */
  label?: string;
}

/** Airlock's own window, in the process that runs the servers. */
export const WINDOW_SHELL: ShellIdentity = Object.freeze({ kind: 'window', origin: 'window' });

/** True when `shell` is shown, and may answer, a confirmation opened for a call that came through `request.origin`. */
export function mayAnswer(shell: ShellIdentity, request: { origin?: string }): boolean {
  return shell.kind === 'window' || (request.origin !== undefined && request.origin === shell.origin);
}

/** Who made a change, as the audit log says it: the window, or the command line (any terminal shell). */
export function changeActorOf(shell: ShellIdentity): ChangeActor {
  return shell.kind === 'window' ? 'window' : 'command-line';
}
