/**
 * What an npm or PyPI step throws: in a file of their own, so code that
 * only tells these errors apart (the install flow's messages, a package
 * runner's line) does not load the sources themselves.
 */

/** An npm step that failed, with what npm said (trimmed) for a person to act on. */
export class NpmSourceError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
    /** npm could not reach its registry (what the network said): the package's name may be right — try again, not fix the command. */
    readonly network?: string,
  ) {
    super(detail ? `${message}: ${detail}` : message);
    this.name = 'NpmSourceError';
  }
}

/** A PyPI step that failed, with what pip said (trimmed) for a person to act on. */
export class PypiSourceError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
    /** pip could not reach the index (what the network said): the package's name may be right — try again, not fix the command. */
    readonly network?: string,
  ) {
    super(detail ? `${message}: ${detail}` : message);
    this.name = 'PypiSourceError';
  }
}
