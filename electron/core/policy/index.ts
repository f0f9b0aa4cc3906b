/** The call policy: annotation reading, containment, `decide()` and definition diffs (issue 4). */
export * from './annotations';
export * from './containment';
export * from './decide';
export * from './decide-server-request';
export * from './diff';
export * from './views';
export * from './review';
