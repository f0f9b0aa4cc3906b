/** How the CLI talks: plain lines for people, one JSON document for scripts. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /**
   * Asks a person a yes/no question on the terminal; undefined when no
   * terminal is attached (then the command needs --yes, or is refused).
   * The default (Enter) is no, unless `defaultYes` — only for a question
   * whose yes takes nothing the person has not just been shown.
   */
  confirm?: (question: string, options?: { defaultYes?: boolean }) => Promise<boolean>;
  /**
   * Asks a person for a line of text (e.g. an edited value); undefined
   * without a terminal. `signal` withdraws the question (it was answered
   * elsewhere): the promise then rejects.
   */
  prompt?: (question: string, signal?: AbortSignal) => Promise<string>;
  /** Asks for a secret on the terminal without showing what is typed; undefined without a terminal. */
  promptSecret?: (question: string) => Promise<string>;
  /** Colour on stdout: only on a terminal, never with NO_COLOR (see terminal.ts). */
  colour?: boolean;
  /**
   * Shows that something long is under way (a spinner on a terminal's
   * stderr); undefined without a terminal, where nothing extra is printed.
   */
  progress?: (text: string) => Progress;
  /** Aborted at the first Ctrl-C: the command stops, cleans up and exits 130. */
  signal?: AbortSignal;
  /**
   * The width of the terminal stdout is, when it is one (undefined for a pipe
   * or a file): Airlock wraps every row it prints to it itself, so the
   * terminal never wraps a server's text onto a row of its own.
   */
  outColumns?: () => number | undefined;
  /** The same for stderr. */
  errColumns?: () => number | undefined;
}

/** A long step on the terminal: `done` clears it (optionally leaving one line), `fail` too. */
export interface Progress {
  update(text: string): void;
  done(line?: string): void;
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
  /** Nothing was changed: the organisation's managed policy locks it (the message names the key). */
  lockedByOrganisation: 7,
  /** Stopped by Ctrl-C (128 + SIGINT, as shells report it); what was under way was cleaned up. */
  interrupted: 130,
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

/** Runs a long step with progress on a terminal (nothing extra otherwise), clearing it however the step ends. */
export async function withProgress<T>(io: CliIo, quiet: boolean, text: string, step: () => Promise<T>): Promise<T> {
  const progress = quiet ? undefined : io.progress?.(text);
  try {
    return await step();
  } finally {
    progress?.done();
  }
}
