/**
 * The house: which part of Airlock may import which. This table is the one
 * description of the layering — the linter enforces it (eslint/airlock-rules.mjs),
 * and docs/architecture.md shows the same picture in words (held to it by
 * test/docs/architecture.test.ts).
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
    packages: ['react', 'react-dom', '@modelcontextprotocol/sdk/shared/uriTemplate.js', '@modelcontextprotocol/ext-apps', '@modelcontextprotocol/client', '@modelcontextprotocol/core'],
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
 * The core's rooms: each folder under electron/core/, and what it holds, in
 * the words docs/architecture.md uses. test/docs/architecture.test.ts holds
 * this list to the folders on disk and to the page, so neither can drift.
 */
export const rooms = [
  { path: 'electron/core/policy/', holds: 'decide(): the call policy as one pure function, with the reading of annotations, containment and definition diffs' },
  { path: 'electron/core/rules/', holds: 'the standing rules ("always allow", "always deny") and the policy settings, saved and recorded' },
  { path: 'electron/core/approvals/', holds: 'confirmations of calls: minted, shown, answered once, their approval a single-use token; session grants; network questions' },
  { path: 'electron/core/calls/', holds: 'the call pipeline: the one door every tool call goes through, decided, recorded, then sent' },
  { path: 'electron/core/claims/', holds: "what a tool did during its calls (network attempts, changes in its write grants) set against what it claims; contradictions recorded and the claims withdrawn until the person reviews; when each grant was last used" },
  { path: 'electron/core/audit/', holds: 'the hash-chained audit log of every decision and outcome: its writer, lock, head, repair, reading and checking' },
  { path: 'electron/core/audit-export/', holds: 'the audit log streamed to an OpenTelemetry collector' },
  { path: 'electron/core/sandbox/', holds: 'the OS sandbox around each server: a profile turned into a launch, a backend per platform, the network proxy' },
  { path: 'electron/core/sandbox-plan/', holds: "what this computer's sandbox guarantees, row by row, and one server's exact plan" },
  { path: 'electron/core/servers/', holds: 'the supervisor: the one place that starts and stops server processes, their connections and current tools' },
  { path: 'electron/core/server-control/', holds: 'the servers as a person sees and runs them: the list, a server page, start, stop, restart' },
  { path: 'electron/core/server-settings/', holds: "what a person decides about one server: trust, grants, what it may ask" },
  { path: 'electron/core/server-removal/', holds: 'removing a server: stopped, its questions withdrawn, its sign-in revoked, its files deleted' },
  { path: 'electron/core/server-requests/', holds: 'requests from servers (sampling, elicitation, roots), decided like calls and queued for a person' },
  { path: 'electron/core/catalog/', holds: 'what servers offer besides tools: resources, templates, prompts, completion, logging' },
  { path: 'electron/core/screens/', holds: "servers' screens (MCP Apps): pinned, allowed, their requests decided" },
  { path: 'electron/core/install/', holds: 'the sources a server can come from (npm, PyPI, MCPB, a command, a remote URL, another app), each turned into a candidate' },
  { path: 'electron/core/install-flow/', holds: 'installing: a draft disclosed, inspected in the locked sandbox, committed with what the person chose' },
  { path: 'electron/core/registry/', holds: 'the MCP Registry: search, listings, and the plan to install one' },
  { path: 'electron/core/runtimes/', holds: 'the programs servers run with (node, python, uv): found, or chosen by the person' },
  { path: 'electron/core/remote/', holds: 'remote servers: their transports, OAuth sign-in and tokens' },
  { path: 'electron/core/secrets/', holds: 'the secrets a person gives servers, sealed at rest, never sent to the window' },
  { path: 'electron/core/redaction/', holds: 'those secrets taken out of whatever a server wrote, before a log or a model sees it' },
  { path: 'electron/core/code-pins/', holds: "a local server's code, hashed again at every start against what the person approved" },
  { path: 'electron/core/managed-policy/', holds: "the organisation's managed policy: what it forbids and locks" },
  { path: 'electron/core/agent/', holds: 'the built-in chat: model providers, conversations, the agent loop (one more caller of the call pipeline)' },
  { path: 'electron/core/gateway/', holds: "the gateway: Airlock's servers served to other AI apps over MCP (stdio, loopback HTTP)" },
  { path: 'electron/core/connect/', holds: "adding Airlock to another app's config, and undoing it" },
  { path: 'electron/core/app/', holds: 'what Airlock says about itself and this machine: version, notices, settings, links, the file picker' },
  { path: 'electron/core/ipc/', holds: 'the contract run in the core: one dispatch for every shell, and the owner socket other Airlock processes use' },
  { path: 'electron/core/store/', holds: 'everything Airlock persists except secrets and the audit log, with its migrations' },
  { path: 'electron/core/views/', holds: 'views the window is shown, computed from the state (tool readings, limits, hints)' },
  { path: 'electron/core/tools/', holds: "a tool's fingerprint and canonical JSON, and warnings about what its description says" },
  { path: 'electron/core/net/', holds: 'what an address is: the one reading of "public or not"' },
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
    { path: 'electron/core/install/config-locations.ts', why: 'where other AI apps keep their configuration on each OS' },
    { path: 'electron/core/install/local-command.ts', why: 'how a command is looked up on each OS' },
    { path: 'electron/core/install/mcpb-source.ts', why: "an MCPB bundle's declared platforms" },
    { path: 'electron/core/ipc/local-socket.ts', why: 'a named pipe on Windows, a Unix socket elsewhere' },
    { path: 'electron/core/ipc/owner-lock.ts', why: 'where the owner listens: a named pipe on Windows, a Unix socket elsewhere' },
    { path: 'electron/main/file-picker.ts', why: 'the system picker filters programs by extension on Windows only' },
    { path: 'electron/core/managed-policy/managed-policy-room.ts', why: "how often the organisation's policy is read on each OS" },
    { path: 'electron/core/managed-policy/policy-sources.ts', why: "where each OS keeps the organisation's policy" },
    { path: 'electron/core/runtimes/runtimes.ts', why: "a login shell's PATH (none on Windows)" },
  ],
};
