/** The programs servers run with (node, python, uv): found where desktop apps miss them, or where the person says. */
export * from './runtimes';
export * from './runtimes-room';
