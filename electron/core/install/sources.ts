/**
 * The install sources' own code — npm, PyPI, MCPB bundles, local commands,
 * other apps' configs — loaded on demand by the install flow (see index.ts).
 */
export * from './config-import';
export * from './import-matching';
export * from './local-command';
export * from './mcpb-source';
export * from './npm-source';
export * from './pypi-source';
export * from './zip-reader';
