/** Call-time confirmations, approval tokens and session grants (issue 4). */
export * from './approval-tokens';
export * from './argument-schema';
export * from './clock';
export * from './confirmation-registry';
export * from './session-grants';
export * from './call-rendering';
export * from './views';
