/** How the CLI talks: plain lines for people, one JSON document for scripts. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /**
   * Asks a person a yes/no question on the terminal; undefined when no
   * terminal is attached (then the command needs --yes, or is refused).
   */
  confirm?: (question: string) => Promise<boolean>;
  /**
   * Asks a person for a line of text (e.g. an edited value); undefined
   * without a terminal. `signal` withdraws the question (it was answered
   * elsewhere): the promise then rejects.
   */
  prompt?: (question: string, signal?: AbortSignal) => Promise<string>;
}

/** Exit codes the `airlock` command uses; scripts may rely on them. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** Something failed; the message says what. */
  failure: 1,
  /** The command line was wrong. */
  usage: 2,
  /** The sandbox cannot run on this machine. */
  sandboxUnavailable: 3,
  /** A person's confirmation was needed and none could be asked (no terminal, no --yes). */
  needsConfirmation: 4,
  /** The call was denied (by the policy or a person), or its outcome is unknown. */
  denied: 5,
  /** Nothing was changed because the person said no. */
  cancelled: 6,
} as const;

/** Thrown by a command to end with a message and an exit code. */
export class CliExit extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}
