import type { IpcErrorCode } from '../../shared/ipc';

/**
 * An error meant for a person: a stable code plus a message that says what
 * was wrong and what to do. Anything else thrown inside the core reaches the
 * user as a generic internal error (its details go to the log, not the UI).
 */
export class AirlockError extends Error {
  constructor(
    readonly code: IpcErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AirlockError';
  }
}

/** An error's message, or the thrown value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
