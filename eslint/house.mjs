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

/**
 * Who may ask which OS Airlock runs on (`process.platform`, `os.platform()`)
 * or whether it runs as root (`process.geteuid`). Inside the sandbox only
 * its platform seam may (electron/core/sandbox/platform/: it picks the
 * backend, and the backend says what holds); everywhere else only the files
 * below, each for a reason that is not the sandbox's. A new question about
 * the OS goes into the seam, or into this list with its reason.
 */
export const platformQuestions = {
  seam: 'electron/core/sandbox/platform/',
  allowed: [
    { path: 'electron/cli/tty.ts', why: "the terminal's own device (no /dev/tty on Windows)" },
    { path: 'electron/core/app/app-room.ts', why: 'the app tells its window which OS it is on' },
    { path: 'electron/core/data-dir.ts', why: "where each OS keeps an app's data" },
    { path: 'electron/core/gateway/gateway-token.ts', why: 'file permissions of the gateway token on each OS' },
    { path: 'electron/core/install/config-import.ts', why: 'where other AI apps keep their configuration on each OS' },
    { path: 'electron/core/install/local-command.ts', why: 'how a command is looked up on each OS' },
    { path: 'electron/core/install/mcpb-source.ts', why: "an MCPB bundle's declared platforms" },
    { path: 'electron/core/ipc/local-socket.ts', why: 'a named pipe on Windows, a Unix socket elsewhere' },
    { path: 'electron/core/managed-policy/managed-policy-room.ts', why: "how often the organisation's policy is read on each OS" },
    { path: 'electron/core/managed-policy/policy-sources.ts', why: "where each OS keeps the organisation's policy" },
    { path: 'electron/core/runtimes/runtimes.ts', why: "a login shell's PATH (none on Windows)" },
  ],
};
