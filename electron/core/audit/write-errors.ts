/**
 * How an audit write fails: one error type with the kind of problem, and the
 * words a person reads (a full disk says which folder and what to do).
 * SECURITY: invariant 1 — a caller that gets this error must not send the call.
 */
import { isDiskFull } from './audit-fs';

/** Why an audit write failed. */
export type AuditWriteProblem = 'disk-full' | 'locked' | 'damaged' | 'io';

/** An audit write failed: the call must not go ahead. */
export class AuditWriteError extends Error {
  override name = 'AuditWriteError';
  constructor(
    message: string,
    readonly problem: AuditWriteProblem = 'io',
  ) {
    super(message);
  }
}

/** `error`, met while doing `what` to the log in `dir`, as an AuditWriteError. */
export function auditWriteError(dir: string, error: unknown, what: string): AuditWriteError {
  if (error instanceof AuditWriteError) return error;
  if (isDiskFull(error)) {
    return new AuditWriteError(`The disk holding Airlock's audit log (${dir}) is full: ${what}. Free some space; nothing is sent until its decision can be recorded.`, 'disk-full');
  }
  return new AuditWriteError(`${what}: ${(error as Error).message}`, 'io');
}
