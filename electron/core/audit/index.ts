/** The hash-chained audit log of every decision and outcome (issues 4, 9.6, 15, 16). */
export * from './audit-log';
export * from './append-notices';
export * from './audit-fs';
export * from './audit-key';
export * from './file-lock';
export * from './redact';
export * from './session';
export * from './server-request-entries';
export * from './change-record';
export * from './views';
