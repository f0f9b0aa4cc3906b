/**
 * The house: which part of Airlock may import which. This table is the one
 * description of the layering — the linter enforces it (eslint/airlock-rules.mjs),
 * and docs/architecture.md shows the same picture in words.
 *
 * A path is matched by prefix, from the repository's root, without extension.
 */

/** The floors: each folder, what it holds, and what it may import. */
export const floors = [
  {
    name: 'shared',
    path: 'shared/',
    holds: 'the IPC contract and the domain types both sides use',
    may: ['shared/'],
    node: false,
    electron: false,
    packages: ['zod'],
  },
  {
    name: 'renderer',
    path: 'renderer/',
    holds: 'the user interface (React); it talks only to window.airlock through renderer/api.ts',
    may: ['renderer/', 'shared/'],
    node: false,
    electron: false,
    packages: ['react', 'react-dom', 'react-markdown', 'remark-gfm', '@modelcontextprotocol/sdk/shared/uriTemplate.js', '@modelcontextprotocol/ext-apps', '@modelcontextprotocol/client', '@modelcontextprotocol/core'],
  },
  {
    name: 'preload',
    path: 'electron/preload/',
    holds: 'one frozen object built from the contract',
    may: ['electron/preload/', 'shared/'],
    node: false,
    electron: true,
    packages: [],
  },
  {
    name: 'main',
    path: 'electron/main/',
    holds: 'the Electron shell: windows, IPC wiring, notifications',
    may: ['electron/main/', 'shared/', 'core-faces'],
    node: true,
    electron: true,
    packages: true,
  },
  {
    name: 'cli',
    path: 'electron/cli/',
    holds: 'the airlock command',
    may: ['electron/cli/', 'shared/', 'core-faces', 'package'],
    node: true,
    electron: false,
    packages: true,
  },
  {
    name: 'core',
    path: 'electron/core/',
    holds: 'every decision and every side effect on servers; plain Node, never Electron',
    may: ['electron/core/', 'shared/', 'package'],
    node: true,
    electron: false,
    packages: true,
  },
];

/**
 * What the shells may use of the core: its top-level files (host.ts, the
 * errors, the data folder), the process plumbing (ipc/), and each room's
 * index.ts — never a room's inner files.
 */
export const coreFaces = {
  topLevel: 'electron/core/',
  folders: ['electron/core/ipc/'],
  index: 'index',
};

/** Rules inside the core: a room that must stay pure, or must not reach up. */
export const coreRules = [
  {
    from: 'electron/core/policy/',
    // decide() is pure: no store, no audit log, no approvals, no processes, no files.
    mayNot: ['electron/core/store/', 'electron/core/audit/', 'electron/core/approvals/', 'electron/core/servers/', 'electron/core/calls/', 'electron/core/sandbox/', 'electron/core/host'],
    node: false,
    why: 'the policy is pure: it decides from facts passed in, and touches nothing',
  },
  {
    from: 'electron/core/sandbox/',
    mayNot: ['electron/core/policy/', 'electron/core/calls/', 'electron/core/host'],
    why: 'the sandbox confines processes; it never decides calls',
  },
  {
    from: 'electron/core/servers/',
    mayNot: ['electron/core/policy/', 'electron/core/calls/', 'electron/core/host'],
    why: 'the supervisor runs servers; it never decides calls',
  },
];
