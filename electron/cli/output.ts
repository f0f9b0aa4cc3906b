/** How the CLI talks: plain lines for people, one JSON document for scripts. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
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
