/**
 * Where the command line points for more: `airlock --help`, each command's
 * help and `airlock doctor` end with a "See docs/…" line (paths from the
 * Airlock folder). test/docs/docs-pages.test.ts checks that each page and
 * heading exists.
 */

/** The page that explains each command at length; `airlock --help` itself points to docs/command-line.md. */
export const COMMAND_DOCS: Readonly<Record<string, string>> = {
  add: 'docs/finding-servers.md',
  update: 'docs/finding-servers.md',
  search: 'docs/finding-servers.md',
  registry: 'docs/finding-servers.md',
  runtimes: 'docs/finding-servers.md#the-programs-servers-run-with',
  import: 'docs/importing.md',
  grant: 'docs/permissions.md',
  revoke: 'docs/permissions.md',
  trust: 'docs/permissions.md',
  approve: 'docs/permissions.md#what-you-never-saw-does-not-run-unasked',
  mode: 'docs/permissions.md#how-a-call-is-decided',
  rules: 'docs/permissions.md#how-a-call-is-decided',
  call: 'docs/permissions.md#who-asks',
  requests: 'docs/servers-ask-back.md',
  audit: 'docs/activity-log.md',
  settings: 'docs/activity-log.md#durability',
  signin: 'docs/remote-servers.md',
  signout: 'docs/remote-servers.md',
  screens: 'docs/mcp-apps.md',
  'review-claims': 'docs/claims-and-behaviour.md',
  gateway: 'docs/using-from-other-apps.md',
  run: 'docs/using-from-other-apps.md',
  connect: 'docs/using-from-other-apps.md',
  chat: 'docs/chat.md',
  models: 'docs/chat.md',
  doctor: 'docs/sandbox.md',
};

/** The line after each part of `airlock doctor`'s report: where that part is explained at length. */
export const DOCTOR_DOCS = {
  sandbox: 'See docs/sandbox.md for what each row means on each platform.',
  runtimes: 'See docs/finding-servers.md#the-programs-servers-run-with.',
  node: 'See README.md#what-it-needs.',
  organisation: 'See docs/organisations.md.',
  dataFolder: 'See docs/where-things-are-kept.md.',
} as const;
