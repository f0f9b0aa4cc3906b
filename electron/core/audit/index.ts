/** The hash-chained audit log of every decision and outcome (issue 4). */
export * from './audit-log';
export * from './file-lock';
export * from './redact';
export * from './server-request-entries';
export * from './views';
