/**
 * Sources a server can come from — a local command, an npm package, an MCPB
 * bundle, another app's config — each turned into an `InstallCandidate` for
 * install-time disclosure. Nothing from a source runs here; the npm install
 * and the MCPB unpack are separate steps the caller takes after consent.
 *
 * This face holds what every command may need at start — the checks on
 * names, paths and grants, candidates, package-runner lines — and the
 * sources' types. The sources' own code is in sources.ts, which the install
 * flow loads at the first install, update or import, so a command that
 * installs nothing (`airlock list`) does not load it.
 */
export * from './airlock-entries';
export * from './candidate';
export * from './checks';
export * from './command-line-risk';
export * from './jsonc';
export * from './npm-spec';
export * from './package-runners';
export * from './server-dir';
export * from './source-errors';
export * from './version-order';
export type * from './sources';
