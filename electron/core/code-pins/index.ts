/** A local server's code, re-hashed at every start against what the person approved (issue 10, item 5). */
export * from './code-hasher';
export * from './code-pins';
