import { AirlockError } from '../errors';

/**
 * The machine cannot sandbox servers (a tool is missing, or the OS is not
 * supported), and the server has no recorded consent to run unsandboxed.
 * Carries what is missing and the command that fixes it, so every shell can
 * tell the person exactly what to do.
 */
export class SandboxUnavailableError extends AirlockError {
  constructor(
    readonly platform: string,
    /** Tools the sandbox needs that are missing (e.g. `bwrap`). */
    readonly missing: string[],
    /** The command that installs what is missing, when there is one. */
    readonly fix: string | undefined,
    summary: string,
  ) {
    super('unavailable', fix ? `${summary} Fix: ${fix}` : summary);
    this.name = 'SandboxUnavailableError';
  }
}

/**
 * sandbox-runtime or bubblewrap failed to set up, or produced a profile
 * Airlock does not recognise. Never a reason to run without the sandbox.
 */
export class SandboxInitError extends AirlockError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message);
    this.name = 'SandboxInitError';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * A profile asks for something no grant may give (e.g. a read or write
 * grant that covers Airlock's own data folder).
 */
export class SandboxProfileError extends AirlockError {
  constructor(message: string) {
    super('invalid-request', message);
    this.name = 'SandboxProfileError';
  }
}
