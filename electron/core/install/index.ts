/**
 * Sources a server can come from — a local command, an npm package, an MCPB
 * bundle, another app's config — each turned into an `InstallCandidate` for
 * install-time disclosure. Nothing from a source runs here; the npm install
 * and the MCPB unpack are separate steps the caller takes after consent.
 */
export * from './airlock-entries';
export * from './candidate';
export * from './checks';
export * from './command-line-risk';
export * from './config-import';
export * from './import-matching';
export * from './jsonc';
export * from './local-command';
export * from './mcpb-source';
export * from './npm-source';
export * from './package-runners';
export * from './pypi-source';
export * from './server-dir';
export * from './version-order';
export * from './zip-reader';
