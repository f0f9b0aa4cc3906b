/**
 * The typed IPC contract between the renderer and the main process. Every
 * channel is declared here once: its name (`<domain>.<verb>`), a zod schema
 * for the request and for the response, and a line saying who calls it and
 * when. Channel strings appear nowhere else. The main process validates every
 * request and every response against these schemas; the preload exposes only
 * the names listed here.
 *
 * One file by design: the whole contract — every channel, its schemas and who
 * calls it — in one place (STYLE.md, Contracts), so no channel can hide elsewhere.
 */
import { z } from 'zod';
import { LogLevelSchema, nameKeyedRecord, PolicyModeSchema, RemoteTransportSchema, SandboxProfileSchema, SandboxSupportSchema, ServerNameSchema, ServerRequestSettingsSchema } from './domain';
import {
  AuditEntryViewSchema,
  AuditVerifyViewSchema,
  CallResultViewSchema,
  ConfirmationViewSchema,
  DisclosureSchema,
  ImportEntryViewSchema,
  ProbeReportSchema,
  RuleViewSchema,
  ServerDetailSchema,
  ServerSummarySchema,
  GatewayStatusSchema,
  NetworkQuestionViewSchema,
  RuntimeViewSchema,
  SettingsViewSchema,
  ToolViewSchema,
  CatalogViewSchema,
  CompletionViewSchema,
  PromptResultViewSchema,
  ResourceReadViewSchema,
  ServerRequestEntryViewSchema,
  ServerRequestViewSchema,
  OrganisationViewSchema,
  AuditExportViewSchema,
  ScreenCallResultSchema,
  ScreenOpenViewSchema,
  ServerScreensViewSchema,
} from './views';
import { ScreenDomainsSchema, ScreenPermissionSchema } from './screens';

export { signOutWords } from './plain';
import {
  ChatCommandsViewSchema,
  ChatToolsViewSchema,
  ChatUpdateSchema,
  ConversationSummarySchema,
  ConversationViewSchema,
  ModelRefSchema,
  ModelsViewSchema,
  ProviderIdSchema,
  ProviderKindSchema,
  ProviderTestViewSchema,
  ProviderViewSchema,
  ToolSelectionSchema,
} from './chat';
import { RegistryListingViewSchema, RegistrySearchViewSchema, RegistrySettingsViewSchema } from './registry';
import { SandboxGuaranteesViewSchema, SandboxPlanViewSchema, SandboxPlatformSchema } from './sandbox-views';

/** A request/response channel: what goes in, what comes out, and why it exists. */
export interface ChannelSpec<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  request: Req;
  response: Res;
  /** Who calls it and when. */
  doc: string;
}

/** A main → renderer event. */
export interface EventSpec<Payload extends z.ZodType = z.ZodType> {
  payload: Payload;
  doc: string;
}

/** Requests that carry nothing. Extra keys are refused, not ignored. */
const Empty = z.strictObject({});
/** Answers that carry nothing. */
const Done = z.object({});

/** A remote server's sign-in as its page shows it: never a token. */
export const RemoteSignInSchema = z.object({
  signedIn: z.boolean(),
  scopes: z.string().optional(),
  expiresAt: z.number().optional(),
  renewable: z.boolean(),
  authorizationServer: z.string().optional(),
  clientId: z.string().optional(),
  account: z.string().optional(),
  stepUpScope: z.string().optional(),
});
export type RemoteSignIn = z.infer<typeof RemoteSignInSchema>;
/** How ending a sign-in went at the authorization server (sign-out, or removing the server): the tokens are deleted here whatever it says. */
export const SignOutOutcomeSchema = z.object({ revoked: z.enum(['yes', 'not-offered', 'failed']), detail: z.string().optional() });
export type SignOutOutcome = z.infer<typeof SignOutOutcomeSchema>;

/** A server, by name. */
const ByName = z.strictObject({ name: ServerNameSchema });
/** Text a person typed: bounded. */
const Text = (max = 4096) => z.string().max(max);
/** Tool arguments: a JSON object (validated against the tool's schema in the core). */
const Arguments = nameKeyedRecord(z.string().max(256), z.unknown());

/** Plain settings (environment variables) for a server, by name; secrets go through their own channels. */
const PlainEnv = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/), Text(8192));

/** A conversation, by the id Airlock minted. */
const ConversationId = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'not a conversation id');
/** A provider's key: a line of text, never sent back. */
const ApiKey = z.string().min(1).max(4096).regex(/^[^\s]+$/, 'a key has no spaces or line breaks');

/** Values for a server's `user_config` fields, by key. */
const UserConfigValues = nameKeyedRecord(z.string().max(128), z.union([Text(), z.number(), z.boolean(), z.array(Text()).max(64)]));

/** Where a server comes from, as the install screen asks for it. */
/**
 * On a source that runs a command line: the person allows arguments that make
 * node or python run code from outside the program Airlock pinned (`--import`,
 * `-e`, `python -c`, a data: URL …; the disclosure's `codeArguments`). Without
 * it, inspecting and adding such a server are refused, as NODE_OPTIONS is.
 */
const AllowCodeArguments = z.boolean().optional();

export const InstallSourceSchema = z.discriminatedUnion('kind', [
  /** An npm package (`name` or `name@range`), with arguments for its command. */
  z.strictObject({ kind: z.literal('npm'), package: Text(214), args: z.array(Text()).max(256).optional(), allowCodeArguments: AllowCodeArguments }),
  z.strictObject({ kind: z.literal('mcpb'), path: Text(), allowCodeArguments: AllowCodeArguments }),
  z.strictObject({ kind: z.literal('local'), argv: z.array(Text()).min(1).max(256), allowCodeArguments: AllowCodeArguments }),
  /** A new version of an installed npm server: a new disclosure, installed beside the old one until committed. */
  z.strictObject({ kind: z.literal('update'), server: ServerNameSchema, range: Text(214), allowCodeArguments: AllowCodeArguments }),
  /** The one-click example: server-filesystem confined to one folder. */
  z.strictObject({ kind: z.literal('example'), folder: Text() }),
  /** A Python package from the package index (`name`, `name==1.2.3`), with arguments for its program. */
  z.strictObject({ kind: z.literal('pypi'), package: Text(214), args: z.array(Text()).max(256).optional(), allowCodeArguments: AllowCodeArguments }),
  /**
   * A listing of the MCP Registry (`io.github.owner/server`, a version or the
   * newest), installed through one of its choices (`option`, default the first
   * local one Airlock supports).
   */
  z.strictObject({ kind: z.literal('registry'), name: Text(200), version: Text(255).optional(), option: z.number().int().min(0).max(1000).optional(), allowCodeArguments: AllowCodeArguments }),
  /**
   * A server that runs elsewhere, by URL (https, or http on this computer). Header values are
   * literals (sealed in the secret store at once) or `${secret.NAME}` templates.
   */
  z.strictObject({
    kind: z.literal('remote'),
    url: Text(2048),
    headers: z.array(z.strictObject({ name: Text(128), value: Text(8192) })).max(32).optional(),
    transport: RemoteTransportSchema.optional(),
    /** The OAuth client registered at the server's sign-in service (for one that does not let apps register themselves). */
    oauthClient: z.strictObject({ id: Text(512), secret: Text(4096).optional() }).optional(),
  }),
]);
export type InstallSource = z.infer<typeof InstallSourceSchema>;

/** Another app whose MCP config Airlock can read. */
export const ImportAppSchema = z.enum(['claude', 'vscode', 'cursor']);

/** A profile as the user edits it (running unsandboxed has its own, explicit channel). */
export const EditableProfileSchema = SandboxProfileSchema.omit({ unsandboxed: true }).strict();

/**
 * What a file picker is for: an MCP bundle, a config file to import, a
 * folder (a grant), or a program (node, python, uv) servers run with.
 */
export const FilePickPurposeSchema = z.enum(['mcpb', 'config', 'folder', 'program']);
export type FilePickPurpose = z.infer<typeof FilePickPurposeSchema>;

/** A notice the user must see: something went wrong but nothing was lost. */
export const AppNoticeSchema = z.object({
  level: z.enum(['info', 'warning', 'error']),
  /** What happened and what to do, in plain words. */
  message: z.string(),
  /**
   * `settings-unreadable`: Airlock's settings file could not be read and was
   * kept aside; the settings in use are not the person's (`airlock list`
   * exits 1 while it lasts).
   */
  kind: z.enum(['settings-unreadable']).optional(),
});
export type AppNotice = z.infer<typeof AppNoticeSchema>;

/** What the app is and where it keeps its data. */
export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  platform: z.string(),
  /** Airlock's data folder (the same one the `airlock` CLI uses by default). */
  dataDir: z.string(),
  /** Problems found at start-up (e.g. a corrupt store kept aside). */
  notices: z.array(AppNoticeSchema),
  /** The shell has a native file picker (the Electron app does; the browser harness does not). */
  canPickFiles: z.boolean(),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

/** Every request/response channel. */
export const channels = {
  /** Renderer, at start-up: the app's name, version, data folder and start-up notices. */
  'app.info': { request: Empty, response: AppInfoSchema, doc: 'Renderer at start-up: app name, version, data folder, notices.' },
  /** Renderer, on the Settings screen and at start-up: can this machine sandbox servers? */
  'sandbox.status': {
    request: Empty,
    response: SandboxSupportSchema,
    doc: 'Renderer, Settings and start-up: whether the sandbox can run here and what is missing.',
  },
  /** Renderer, after the user installed what was missing: check again and broadcast the result. */
  'sandbox.recheck': {
    request: Empty,
    response: SandboxSupportSchema,
    doc: 'Renderer, "Check again" on Settings: re-runs the sandbox check and emits sandbox.didChange.',
  },

  // ── Servers ────────────────────────────────────────────────────────────
  'servers.list': { request: Empty, response: z.array(ServerSummarySchema), doc: 'Renderer, Servers screen: one summary per server.' },
  'servers.get': { request: ByName, response: ServerDetailSchema, doc: 'Renderer, server detail page: everything about one server.' },
  'servers.start': { request: ByName, response: ServerSummarySchema, doc: 'Renderer, Start button: enables and starts a server (in its sandbox).' },
  'servers.stop': { request: ByName, response: ServerSummarySchema, doc: 'Renderer, Stop button: stops a server and keeps it from starting with Airlock.' },
  'servers.restart': { request: ByName, response: ServerSummarySchema, doc: 'Renderer, Restart button: restarts a server, clearing quarantine.' },
  'servers.remove': {
    request: z.strictObject({ name: ServerNameSchema, confirm: z.literal(true) }),
    response: z.object({ signIn: SignOutOutcomeSchema.optional() }),
    doc: "Renderer, after the removal confirmation: stops a server, deletes its files, secrets and rules; a remote server's sign-in is revoked first where its server offers that (signIn: how that went).",
  },
  'servers.signInStatus': {
    request: z.strictObject({ name: ServerNameSchema }),
    response: RemoteSignInSchema.nullable(),
    doc: "Server page of a remote server: its account, scopes, expiry (null when it does not sign in with OAuth).",
  },
  'servers.signIn': {
    request: z.strictObject({ name: ServerNameSchema }),
    response: RemoteSignInSchema.nullable(),
    doc: 'Sign in / Grant more access on a remote server: the sign-in page opens in the browser; restarts it after.',
  },
  'servers.signOut': {
    request: z.strictObject({ name: ServerNameSchema }),
    response: SignOutOutcomeSchema,
    doc: 'Sign out of a remote server: revoked where the server offers it, the tokens deleted here whatever it says.',
  },
  'servers.setTrust': {
    request: z.strictObject({ name: ServerNameSchema, trusted: z.boolean() }),
    response: ServerSummarySchema,
    doc: "Renderer, the trust switch: whether this server's annotations may reduce prompts.",
  },
  'servers.updateProfile': {
    request: z.strictObject({ name: ServerNameSchema, profile: EditableProfileSchema }),
    response: ServerDetailSchema,
    doc: 'Renderer, grants editor: replaces the sandbox profile; a running server restarts under it.',
  },
  'servers.setUnsandboxed': {
    request: z.strictObject({ name: ServerNameSchema, consent: z.boolean() }),
    response: ServerDetailSchema,
    doc: 'Renderer, explicit consent dialog: lets one server run without a sandbox (recorded), or takes that back.',
  },
  'servers.setSecret': {
    request: z.strictObject({ name: ServerNameSchema, key: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/), value: Text(65536) }),
    response: ServerDetailSchema,
    doc: 'Renderer, secrets section: sets or replaces a secret (never sent back).',
  },
  'servers.clearSecret': {
    request: z.strictObject({ name: ServerNameSchema, key: z.string().max(128) }),
    response: ServerDetailSchema,
    doc: 'Renderer, secrets section: clears a secret.',
  },
  'servers.approveChange': {
    request: z.strictObject({ name: ServerNameSchema, tool: Text(256), fingerprint: z.string().regex(/^[0-9a-f]{64}$/) }),
    response: ServerDetailSchema,
    doc: 'Renderer, pending changes: approves the changed definition the person saw (by its fingerprint).',
  },
  /**
   * Renderer (a tool's row) and `airlock review-claims`: the person's decision
   * about a tool that did something its claims say it does not — keep
   * trusting its claims (for this definition), or not. `last` is the latest
   * contradiction the person saw: a newer one is refused (conflict).
   */
  'servers.reviewClaims': {
    request: z.strictObject({ name: ServerNameSchema, tool: Text(256), decision: z.enum(['keep', 'distrust']), last: Text(64) }),
    response: ServerDetailSchema,
    doc: 'Renderer, a tool row with claims contradicted, and `airlock review-claims`: keeps trusting its claims, or not (a change entry).',
  },
  'servers.approveCode': {
    request: z.strictObject({
      name: ServerNameSchema,
      /** The hashes the person saw, per file: approving pins exactly these. */
      files: z.array(z.strictObject({ path: Text(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })).min(1).max(4),
    }),
    response: ServerDetailSchema,
    doc: "Renderer, detail page: approves a local server's changed code (the hashes the person saw) and pins it; the 'always allow' rules and session permissions made for the old code are removed (denials stay).",
  },
  'servers.setEnv': {
    request: z.strictObject({ name: ServerNameSchema, env: PlainEnv }),
    response: ServerDetailSchema,
    doc: 'Renderer, settings on the server page (and `airlock grant/revoke --env`): replaces its plain settings; a running server restarts with them.',
  },
  'servers.revokeRules': { request: ByName, response: ServerDetailSchema, doc: "Renderer, detail page: removes every rule and session grant for a server's tools." },

  // ── Install ────────────────────────────────────────────────────────────
  'install.prepare': {
    request: z.strictObject({ source: InstallSourceSchema }),
    response: DisclosureSchema,
    doc: 'Renderer, install step 1 → 2: reads a source (nothing runs) and returns the disclosure.',
  },
  'install.scanImports': {
    request: z.strictObject({
      app: ImportAppSchema.optional(),
      path: Text().optional(),
      allowCodeArguments: AllowCodeArguments,
      /** The folder `${workspaceFolder}` stands for (a workspace's own `.vscode/mcp.json` is its folder's without it). */
      workspace: Text().optional(),
      /** Prepare (look up, disclose) only these entries; the others are listed as read. `[]`: an overview, nothing looked up. */
      entries: z.array(Text(256)).max(500).optional(),
    }),
    response: z.array(z.object({ app: z.string(), path: z.string(), workspace: z.string().optional(), entries: z.array(ImportEntryViewSchema), error: z.string().optional() })),
    doc: "Renderer and CLI, import: lists other apps' configs found (or one path) and each entry's status; prepares a disclosure for each importable entry asked for (all when `entries` is absent).",
  },
  'install.probe': {
    request: z.strictObject({
      draftId: Text(64),
      userConfig: UserConfigValues.optional(),
      /** All its plain settings, as chosen so far (what the source set, as edited). */
      env: PlainEnv.optional(),
      /** The grants and trust chosen so far: each tool's "what happens on a call" is computed for them. */
      profile: EditableProfileSchema.optional(),
      trusted: z.boolean().optional(),
      /** A remote server's header secrets, typed before its inspection (it is reached with them); kept for the commit. */
      secrets: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/), Text(8192)).optional(),
    }),
    response: ProbeReportSchema,
    doc: 'Renderer and CLI, "Inspect in a locked sandbox": starts the server with the grants it is about to get (`profile`, default the draft\'s), read-only, no network, no secrets; lists what it offers, stops it.',
  },
  'install.preview': {
    request: z.strictObject({ draftId: Text(64), profile: EditableProfileSchema, trusted: z.boolean() }),
    response: z.object({ tools: z.array(ToolViewSchema) }),
    doc: 'Renderer, the grant step: the inspected tools with what a call of each would do under the grants and trust now chosen.',
  },
  'install.commit': {
    request: z.strictObject({
      draftId: Text(64),
      name: ServerNameSchema,
      profile: EditableProfileSchema,
      trusted: z.boolean(),
      secrets: nameKeyedRecord(z.string().max(128), Text(65536)),
      userConfig: UserConfigValues.optional(),
      /** All its plain settings: what the source set, as the person edited it (`--env KEY=VALUE` adds to them). */
      env: PlainEnv.optional(),
      enable: z.boolean(),
      /** Which of the addresses and permissions its screens ask for the person allows (absent: none). */
      screens: z.strictObject({ allowed: ScreenDomainsSchema, permissions: z.array(ScreenPermissionSchema).max(8) }).optional(),
    }),
    response: ServerSummarySchema,
    doc: 'Renderer, the final install step: saves the server with the grants and trust chosen (and what its screens may use), and starts it if asked.',
  },
  'install.cancel': { request: z.strictObject({ draftId: Text(64) }), response: Done, doc: 'Renderer, Cancel at any install step: removes everything the draft created.' },

  // ── Calls, confirmations, rules ────────────────────────────────────────
  'tools.call': {
    request: z.strictObject({ server: ServerNameSchema, tool: Text(256), arguments: Arguments }),
    response: CallResultViewSchema,
    doc: "Renderer, tool console: the person's own call (their consent), through the same policy and audit.",
  },
  'approvals.list': { request: Empty, response: z.array(ConfirmationViewSchema), doc: 'Renderer, at start-up and on change: confirmations waiting for an answer.' },
  'approvals.answer': {
    request: z.strictObject({
      id: Text(64),
      choice: z.enum(['allow-once', 'allow-session', 'allow-always', 'deny', 'deny-always']),
      arguments: Arguments.optional(),
      confirmDestructiveAlways: z.boolean().optional(),
    }),
    response: z.object({ accepted: z.boolean(), reason: z.string().optional() }),
    doc: 'Renderer, the confirmation dialog: answers a confirmation main issued (optionally with edited arguments).',
  },
  'approvals.extend': {
    request: z.strictObject({ id: Text(64) }),
    response: z.object({ deadline: z.number().optional() }),
    doc: 'Renderer, the dialog while the person reads or edits: pauses the countdown by moving the deadline forward (bounded).',
  },
  'network.pending': { request: Empty, response: z.array(NetworkQuestionViewSchema), doc: 'Renderer, at start-up and on change: servers waiting to reach a host they have no grant for.' },
  'network.answer': {
    request: z.strictObject({ id: Text(64), allow: z.boolean(), remember: z.boolean() }),
    response: z.object({ accepted: z.boolean() }),
    doc: 'Renderer, the network question: allow or deny this host for this run; "remember" also adds it to the server’s grants.',
  },
  'rules.list': { request: Empty, response: z.array(RuleViewSchema), doc: 'Renderer, review pages: every standing rule.' },
  'rules.add': {
    request: z.strictObject({
      server: ServerNameSchema,
      tool: Text(256),
      effect: z.enum(['allow', 'deny']),
      /** The fingerprint the person reviewed; refused if the tool changed since. */
      fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
      /** The second, explicit confirmation an "always allow" for a destructive tool needs. */
      confirmDestructive: z.boolean().optional(),
    }),
    response: RuleViewSchema,
    doc: 'Renderer and CLI, "always allow/deny": saves a rule bound to the definition the person reviewed.',
  },
  'rules.remove': {
    request: z.strictObject({ server: ServerNameSchema, tool: Text(256) }),
    response: Done,
    doc: 'Renderer, revoke button: removes the rule for one tool.',
  },

  // ── Audit, settings ────────────────────────────────────────────────────
  'audit.list': {
    request: z.strictObject({
      server: ServerNameSchema.optional(),
      tool: Text(256).optional(),
      verdict: z.enum(['allow', 'ask', 'deny']).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    }),
    response: z.array(AuditEntryViewSchema),
    doc: 'Renderer, Activity page: audit entries, newest first, filtered.',
  },
  'audit.verify': {
    /** `new`: only the entries appended since this process's last clean check (the whole log when the files before it changed). */
    request: z.strictObject({ scope: z.enum(['all', 'new']).optional() }),
    response: AuditVerifyViewSchema,
    doc: "Renderer, Activity page: checks the audit log's hash chain (all of it, or what was appended since the last check).",
  },
  'settings.get': { request: Empty, response: SettingsViewSchema, doc: 'Renderer, Settings: the current settings.' },
  'settings.setPolicyMode': {
    request: z.strictObject({ mode: PolicyModeSchema }),
    response: SettingsViewSchema,
    doc: 'Renderer, Settings: default or strict policy mode.',
  },
  'settings.setStrictDurability': {
    request: z.strictObject({ strict: z.boolean() }),
    response: SettingsViewSchema,
    doc: 'Renderer, Settings; CLI `airlock settings strict-durability`: flush every decision to disk before its call (on), or within the audit window (off).',
  },
  'settings.setRuntime': {
    request: z.strictObject({ name: z.enum(['node', 'python', 'uv']), path: Text(4096).optional() }),
    response: SettingsViewSchema,
    doc: 'Renderer, Settings › Programs (and `airlock runtimes set`): points Airlock at a node, python or uv; without a path, Airlock looks for it itself again.',
  },
  'runtimes.list': {
    request: Empty,
    response: z.array(RuntimeViewSchema),
    doc: 'Renderer, Settings › Programs (and `airlock doctor`): the node, python and uv Airlock found, and where.',
  },
  // ── Gateway ────────────────────────────────────────────────────────────
  'gateway.status': { request: Empty, response: GatewayStatusSchema, doc: 'Renderer, Settings › Other AI apps: the gateway and each app’s connection.' },
  'gateway.startHttp': {
    request: z.strictObject({ port: z.number().int().min(0).max(65535) }),
    response: GatewayStatusSchema,
    doc: 'Renderer, Settings: starts the streamable HTTP gateway on 127.0.0.1 (bearer token required).',
  },
  'gateway.stopHttp': { request: Empty, response: GatewayStatusSchema, doc: 'Renderer, Settings: stops the HTTP gateway.' },
  'connect.apply': {
    request: z.strictObject({
      app: ImportAppSchema,
      moveImported: z.boolean(),
      /** With moveImported: replace each imported entry in place with `airlock run NAME` (the app keeps a switch per server) instead of one gateway entry. */
      perServer: z.boolean().optional(),
    }),
    response: z.object({ changed: z.boolean(), backupPath: z.string().optional(), removedServers: z.array(z.string()), replacedServers: z.array(z.string()).optional() }),
    doc: "Renderer, Settings › Connect: adds Airlock's gateway to the app's config (with a backup), optionally taking out the servers already imported into Airlock.",
  },
  'connect.undo': {
    request: z.strictObject({ app: ImportAppSchema }),
    response: z.object({ restoredFrom: z.string() }),
    doc: "Renderer, Settings › Undo: restores the app's config from the last backup.",
  },
  // ── Catalog: resources, prompts, completion, logging ───────────────────
  'catalog.get': {
    request: ByName,
    response: CatalogViewSchema,
    doc: "Renderer, server detail's Resources and Prompts tabs: what the server offers besides tools, with each prompt's and template's pinning state.",
  },
  'catalog.approve': {
    request: z.strictObject({
      name: ServerNameSchema,
      kind: z.enum(['prompt', 'resource-template']),
      /** The prompt's name or the template's URI template. */
      key: Text(2048),
      /** The fingerprint the person reviewed; refused if it changed again since. */
      fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
    }),
    response: CatalogViewSchema,
    doc: 'Renderer, a changed prompt or resource template: approves the definition the person saw (it is withheld from apps until then).',
  },
  'resources.read': {
    request: z.strictObject({ server: ServerNameSchema, uri: Text(8192) }),
    response: ResourceReadViewSchema,
    doc: 'Renderer, Resources tab: reads one resource (size-capped; text shown inert, binary described, problems flagged).',
  },
  'resources.subscribe': {
    request: z.strictObject({ server: ServerNameSchema, uri: Text(8192), subscribe: z.boolean() }),
    response: Done,
    doc: 'Renderer, Resources tab "watch": asks for (or stops) catalog.didChange events when the resource changes.',
  },
  'prompts.get': {
    request: z.strictObject({ server: ServerNameSchema, name: Text(1024), arguments: z.record(z.string().max(256), Text(65536)).optional() }),
    response: PromptResultViewSchema,
    doc: 'Renderer, Prompts tab: fills in a prompt with arguments (its messages are the server’s text).',
  },
  'completion.complete': {
    request: z.strictObject({
      server: ServerNameSchema,
      ref: z.discriminatedUnion('type', [z.strictObject({ type: z.literal('ref/prompt'), name: Text(1024) }), z.strictObject({ type: z.literal('ref/resource'), uri: Text(8192) })]),
      argument: z.strictObject({ name: Text(256), value: Text(4096) }),
      context: z.strictObject({ arguments: z.record(z.string().max(256), Text(4096)) }).optional(),
    }),
    response: CompletionViewSchema,
    doc: 'Renderer, a prompt or template argument being typed: the server’s suggestions.',
  },
  'logging.setLevel': {
    request: z.strictObject({ name: ServerNameSchema, level: LogLevelSchema.nullable() }),
    response: z.object({ level: LogLevelSchema.optional() }),
    doc: 'Renderer, Settings or server detail: the log level Airlock asks the server for (null: the server’s default); kept and applied at each start.',
  },

  // ── Requests from servers: sampling, elicitation, roots ────────────────
  'requests.pending': {
    request: Empty,
    response: z.array(ServerRequestViewSchema),
    doc: 'Renderer, at start-up and on change: servers’ sampling requests, model answers and questions waiting for the person.',
  },
  'requests.answer': {
    request: z.strictObject({
      id: Text(64),
      answer: z.union([
        /** A sampling request: the choice, with the (edited) request to send. */
        z.strictObject({ choice: z.enum(['allow-once', 'allow-session', 'allow-always', 'deny', 'deny-always']), params: z.record(z.string(), z.unknown()).optional() }),
        /** The model's answer: approve (optionally edited) or refuse. */
        z.strictObject({ choice: z.enum(['approve', 'refuse']), result: z.record(z.string(), z.unknown()).optional() }),
        /** An elicitation: accept with the form's values, decline, or cancel. */
        z.strictObject({
          action: z.enum(['accept', 'decline', 'cancel']),
          content: z.record(z.string().max(256), z.union([Text(65536), z.number(), z.boolean(), z.array(Text(1024)).max(256)])).optional(),
        }),
      ]),
    }),
    response: z.object({ accepted: z.boolean(), reason: z.string().optional() }),
    doc: 'Renderer, the sampling and elicitation dialogs: answers a question main issued (checked against that question).',
  },
  'requests.extend': {
    request: z.strictObject({ id: Text(64) }),
    response: z.object({ deadline: z.number().optional() }),
    doc: 'Renderer, while the person reads or edits a question: moves its deadline forward (bounded).',
  },
  'requests.openUrl': {
    request: z.strictObject({ id: Text(64) }),
    response: z.object({ url: z.string() }),
    doc: 'Renderer, "Open in browser" on a URL question: the main process opens the question’s https URL in the system browser (never in an app window); nothing opens before this click.',
  },
  'requests.settings': {
    request: ByName,
    response: ServerRequestSettingsSchema,
    doc: 'Renderer, server detail: what the person allows this server to ask back (sampling rule and caps, where its questions go).',
  },
  'requests.setSettings': {
    request: z.strictObject({ name: ServerNameSchema, settings: ServerRequestSettingsSchema }),
    response: ServerRequestSettingsSchema,
    doc: 'Renderer, server detail: changes what this server may ask back.',
  },
  'requests.history': {
    request: z.strictObject({ server: ServerNameSchema.optional(), kind: z.enum(['sampling', 'elicitation', 'roots']).optional(), limit: z.number().int().min(1).max(1000).optional() }),
    response: z.array(ServerRequestEntryViewSchema),
    doc: 'Renderer, Activity: every sampling, elicitation and roots answer with its decision, newest first.',
  },
  // ── Models (Settings › Models) ──────────────────────────────────────────
  'models.get': { request: Empty, response: ModelsViewSchema, doc: 'Renderer, Settings › Models and the chat: providers (keys never included), the default model, the step limit.' },
  'models.addProvider': {
    request: z.strictObject({ kind: ProviderKindSchema, label: Text(100).min(1), baseUrl: Text(2048).optional(), apiKey: ApiKey.optional() }),
    response: ProviderViewSchema,
    doc: 'Renderer, Settings › Models › Add: saves a provider; its key goes to the secret store and is never sent back.',
  },
  'models.updateProvider': {
    request: z.strictObject({ id: ProviderIdSchema, label: Text(100).min(1).optional(), baseUrl: Text(2048).nullable().optional(), apiKey: ApiKey.optional() }),
    response: ProviderViewSchema,
    doc: 'Renderer, Settings › Models: renames a provider, changes its address, or replaces its key.',
  },
  'models.removeProvider': {
    request: z.strictObject({ id: ProviderIdSchema, confirm: z.literal(true) }),
    response: Done,
    doc: 'Renderer, Settings › Models, after the removal confirmation: removes a provider and its key.',
  },
  'models.test': { request: z.strictObject({ id: ProviderIdSchema }), response: ProviderTestViewSchema, doc: 'Renderer, "Test connection": lists the provider’s models (keeps the list) and says what happened.' },
  'models.setDefault': { request: ModelRefSchema.strict(), response: ModelsViewSchema, doc: 'Renderer, Settings › Models: the model new conversations (and sampling) use.' },
  'models.setStepLimit': {
    request: z.strictObject({ limit: z.number().int().min(1).max(100) }),
    response: ModelsViewSchema,
    doc: 'Renderer, Settings › Models: tool-using steps a turn may take before the model must ask the person to continue.',
  },

  // ── Chat ───────────────────────────────────────────────────────────────
  'chat.list': { request: z.strictObject({ query: Text(200).optional() }), response: z.array(ConversationSummarySchema), doc: 'Renderer, the chat’s list: conversations, newest first; with a query, those whose title or text match.' },
  'chat.get': { request: z.strictObject({ id: ConversationId }), response: ConversationViewSchema, doc: 'Renderer, opening a conversation: its messages, tool cards, usage, and whether a turn runs.' },
  'chat.create': { request: z.strictObject({ model: ModelRefSchema.strict().optional() }), response: ConversationViewSchema, doc: 'Renderer, "New conversation".' },
  'chat.rename': { request: z.strictObject({ id: ConversationId, title: Text(200) }), response: ConversationViewSchema, doc: 'Renderer, renaming a conversation.' },
  'chat.delete': { request: z.strictObject({ id: ConversationId, confirm: z.literal(true) }), response: Done, doc: 'Renderer, after the delete confirmation: stops its turn and deletes the conversation’s file.' },
  'chat.setModel': {
    request: z.strictObject({ id: ConversationId, model: ModelRefSchema.strict().nullable() }),
    response: ConversationViewSchema,
    doc: 'Renderer, the conversation’s model picker (null: the default model).',
  },
  'chat.setTools': {
    request: z.strictObject({ id: ConversationId, tools: ToolSelectionSchema.strict() }),
    response: ConversationViewSchema,
    doc: 'Renderer, the conversation’s tools picker: which servers and tools the model may see.',
  },
  'chat.tools': { request: z.strictObject({ id: ConversationId }), response: ChatToolsViewSchema, doc: 'Renderer, the tools picker: servers and their tools, and which are on for this conversation.' },
  'chat.commands': { request: z.strictObject({ id: ConversationId }), response: ChatCommandsViewSchema, doc: 'Renderer, typing `/` or `@`: prompts and resources the enabled servers of the conversation offer (prompts changed since approval withheld).' },
  'chat.send': {
    request: z.strictObject({
      id: ConversationId,
      text: Text(100_000),
      prompt: z.strictObject({ server: ServerNameSchema, name: Text(256), arguments: z.record(Text(128), Text()) }).optional(),
      resources: z.array(z.strictObject({ server: ServerNameSchema, uri: Text(2048) })).max(20).optional(),
    }),
    response: z.object({ messageId: z.string() }),
    doc: 'Renderer and CLI, sending a message: saves it and starts a turn, which streams as chat.didUpdate events.',
  },
  'chat.stop': { request: z.strictObject({ id: ConversationId }), response: Done, doc: 'Renderer, Stop: ends the stream and cancels calls in flight; resolves when the turn has ended.' },
  'chat.retry': { request: z.strictObject({ id: ConversationId }), response: Done, doc: 'Renderer, "Try again" after an error: runs the turn again on the same messages.' },
  // ── MCP Registry (Find servers) ────────────────────────────────────────
  'registry.search': {
    request: z.strictObject({ search: Text(200).optional(), cursor: Text(1024).optional(), limit: z.number().int().min(1).max(100).optional() }),
    response: RegistrySearchViewSchema,
    doc: 'Renderer, Find servers (and `airlock search`): one page of listings matching the text, newest version of each; `cursor` for the next page; answers are cached briefly.',
  },
  'registry.get': {
    request: z.strictObject({ name: Text(200), version: Text(255).optional() }),
    response: RegistryListingViewSchema,
    doc: 'Renderer, a picked listing: its install choices (local and supported first) and warnings; install.prepare with a registry source then discloses one.',
  },
  'registry.settings': { request: Empty, response: RegistrySettingsViewSchema, doc: 'Renderer, Find servers and Settings: which registry Airlock searches.' },
  'registry.setBaseUrl': {
    request: z.strictObject({ baseUrl: Text(2048).nullable().optional() }),
    response: RegistrySettingsViewSchema,
    doc: 'Renderer, Settings (and `airlock settings registry URL`): the registry to search (an organisation’s sub-registry); empty or null: the official one.',
  },
  // ── Screens (MCP Apps): servers' own pages, rendered in the window ─────
  'screens.list': {
    request: z.strictObject({ server: ServerNameSchema }),
    response: ServerScreensViewSchema,
    doc: 'Renderer, a server’s Screens section (and `airlock show`): each screen its tools name, what it asks for and what is allowed; read from the server when it runs.',
  },
  'screens.approve': {
    request: z.strictObject({ server: ServerNameSchema, uri: Text(2048), fingerprint: Text(64) }),
    response: ServerScreensViewSchema,
    doc: 'Renderer, "Approve this screen" (and `airlock screens NAME --approve URI`): pins the screen the person saw (by its fingerprint); refused when it changed again since.',
  },
  'screens.setAllowed': {
    request: z.strictObject({ server: ServerNameSchema, allowed: ScreenDomainsSchema, permissions: z.array(ScreenPermissionSchema).max(8) }),
    response: ServerScreensViewSchema,
    doc: 'Renderer, the Screens section’s allow/refuse choices (and `airlock screens NAME allow|refuse`): which asked-for addresses and permissions this server’s screens may use.',
  },
  'screens.open': {
    request: z.strictObject({ server: ServerNameSchema, tool: Text(256) }),
    response: ScreenOpenViewSchema,
    doc: 'Renderer, a tool card or the tool console showing a tool’s screen: reads it, checks it is the approved one, and opens a session the screen’s requests name. Window only.',
  },
  'screens.frame': {
    request: z.strictObject({ id: Text(64), key: Text(64) }),
    response: z.object({ csp: z.string(), permissionsPolicy: z.string() }),
    doc: 'Main, serving a screen’s frame on its origin: the Content-Security-Policy and Permissions-Policy Airlock built for that session. Window only.',
  },
  'screens.callTool': {
    request: z.strictObject({ id: Text(64), name: Text(256), arguments: z.record(z.string(), z.unknown()).optional() }),
    response: ScreenCallResultSchema,
    doc: 'Renderer, relaying a screen’s tools/call: only its own server’s tools visible to apps, through the call pipeline as “NAME’s screen”, rate-limited; refusals come back as error results. Window only.',
  },
  'screens.openLink': {
    request: z.strictObject({ id: Text(64), url: Text(4096) }),
    response: z.object({ requestId: z.string(), url: z.string() }),
    doc: 'Renderer, a screen’s ui/open-link: recorded, then shown to the person with its full address outside the screen (nothing opens yet). Window only.',
  },
  'screens.answerLink': {
    request: z.strictObject({ requestId: Text(64), open: z.boolean() }),
    response: z.object({ url: z.string().optional() }),
    doc: 'Renderer, the person’s Open or Cancel on a screen’s link: recorded; Open returns the address (main opens it in the system browser, https only). Window only.',
  },
  'screens.message': {
    request: z.strictObject({ id: Text(64), conversationId: Text(128), text: Text(20_000), context: z.boolean().optional() }),
    response: z.object({ accepted: z.boolean(), reason: z.string().optional() }),
    doc: 'Renderer, a screen in a chat sending ui/message (or ui/update-model-context with context: true): recorded and put into that conversation as the server’s words, never the person’s. Window only.',
  },
  'screens.close': { request: z.strictObject({ id: Text(64) }), response: Done, doc: 'Renderer, a screen’s frame removed: its session ends (later requests naming it are refused).' },
  'links.open': {
    request: z.strictObject({ url: z.string().max(4096).regex(/^https:\/\//i, 'only https links are opened') }),
    response: Done,
    doc: 'Renderer, after the person clicked a link and saw its full address: opens it in the system browser (https only).',
  },
  // ── What the sandbox guarantees (platform backends) ───────────────────
  /** Renderer, a server's Permissions page and Settings: this computer's sandbox, row by row. */
  'sandbox.guarantees': {
    request: Empty,
    response: SandboxGuaranteesViewSchema,
    doc: "Renderer, Permissions page and Settings: what this computer's sandbox guarantees, row by row, and where it holds less than Linux's.",
  },
  /** CLI `airlock show NAME --sandbox-plan [--platform …]`: the exact plan, computed on any OS. */
  'servers.sandboxPlan': {
    request: z.strictObject({ name: ServerNameSchema, platform: SandboxPlatformSchema.optional() }),
    response: SandboxPlanViewSchema,
    doc: "CLI `show --sandbox-plan`: a server's launch plan for this or another platform (rules, network, limits, the exact argv; macOS's whole profile), starting nothing; secrets shown as placeholders.",
  },
  'dialog.openFile': {
    request: z.strictObject({ purpose: FilePickPurposeSchema }),
    response: z.object({ path: z.string().optional() }),
    doc: 'Renderer, "Browse…" beside every path a person can type (grants, a bundle, a config to import, a program servers run with): the shell\'s file picker; no path when the person cancelled (the browser harness has none unless a test gives it a stand-in).',
  },
  // ── Organisations: the managed policy, and the audit log streamed over OpenTelemetry ──
  'organisation.get': {
    request: Empty,
    response: OrganisationViewSchema,
    doc: 'Renderer, Settings and a server’s page; CLI `airlock settings`, `doctor`: the organisation’s policy, what it locks and blocks, and problems with its files.',
  },
  'organisation.reload': {
    request: Empty,
    response: OrganisationViewSchema,
    doc: 'Renderer, Settings › "Read the policy again"; CLI `airlock settings --reload-policy`: reads the policy locations now (they are also read every few seconds).',
  },
  'audit.exportStatus': { request: Empty, response: AuditExportViewSchema, doc: 'Renderer, Settings › Audit log streaming; CLI `airlock settings`, `doctor`: where the audit log is streamed and its backlog.' },
  'audit.setExport': {
    request: z.strictObject({
      endpoint: z.string().url().max(2048).regex(/^https?:\/\//i, 'an http or https URL').nullable(),
      protocol: z.enum(['http/protobuf', 'http/json']).optional(),
      headers: z.record(z.string().min(1).max(128).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/), z.string().max(8192)).optional(),
    }),
    response: AuditExportViewSchema,
    doc: 'Renderer, Settings › Audit log streaming; CLI `airlock settings audit-export URL|off`: streams the audit log to an OTLP/HTTP collector (null: off). Refused when the organisation’s policy sets it.',
  },
  'audit.exportRange': {
    request: z.strictObject({ from: z.number().int().min(1).optional(), to: z.number().int().min(1).optional() }),
    response: z.object({ sent: z.number().int(), first: z.number().int().optional(), last: z.number().int().optional(), endpoint: z.string() }),
    doc: 'CLI `airlock audit export --otlp`: sends a range of entries (by sequence number) to the configured collector now, by hand; the streamed position is not changed.',
  },
} as const satisfies Record<string, ChannelSpec>;

/** Every main → renderer event. */
export const events = {
  /** Main, whenever the sandbox check is re-run: the new status. */
  'sandbox.didChange': { payload: SandboxSupportSchema, doc: 'Main, after a re-check: the sandbox status.' },
  /** Main, whenever a server is added, removed, changes state or its tools change. */
  'servers.didChange': { payload: z.array(ServerSummarySchema), doc: 'Main, on any server change: the new list.' },
  /** Main, whenever a confirmation opens or closes. */
  'approvals.didChange': { payload: z.array(ConfirmationViewSchema), doc: 'Main, on any confirmation opened or closed: those still waiting.' },
  /** Main, whenever a network question opens or closes. */
  'network.didChange': { payload: z.array(NetworkQuestionViewSchema), doc: 'Main, on any network question opened or closed: those still waiting.' },
  /** Main, whenever a question about a server's request opens, changes or closes. */
  'requests.didChange': { payload: z.array(ServerRequestViewSchema), doc: 'Main, on any sampling or elicitation question opened or closed: those still waiting.' },
  /** Main, when a server's lists change or a watched resource changes. */
  'catalog.didChange': {
    payload: z.object({ server: z.string(), kind: z.enum(['resources', 'prompts', 'resource-updated']), uri: z.string().optional() }),
    doc: 'Main, when a server’s resources or prompts change, or a watched resource is updated: the tab refreshes.',
  },
  /** Main, after each audit append. */
  'audit.didAppend': { payload: z.object({ seq: z.number().int() }), doc: 'Main, after each audit entry: the Activity page refreshes.' },
  /** Main, when a conversation was added, renamed, deleted, or a turn started or ended. */
  'chat.didChange': { payload: z.object({}), doc: 'Main, when the list of conversations changed: the chat’s list reloads.' },
  /** Main, while a turn runs: a message, streamed text, a status, the turn's start or end. */
  'chat.didUpdate': { payload: ChatUpdateSchema, doc: 'Main, for every step of a running turn: the open conversation applies it.' },
  /** Main, when a tool did something its claims say it does not and Airlock withdrew them: the shells tell the person at once. */
  'claims.didContradict': {
    payload: z.object({ server: z.string(), tool: z.string(), message: z.string() }),
    doc: 'Main, when a tool contradicted its claims and they were withdrawn: a notification and a notice, with a way to review.',
  },
  /** Main, when providers, the default model or the step limit changed. */
  'models.didChange': { payload: z.object({}), doc: 'Main, when Settings › Models changed: pickers reload.' },
} as const satisfies Record<string, EventSpec>;

export type Channels = typeof channels;
export type ChannelName = keyof Channels;
export type Events = typeof events;
export type EventName = keyof Events;
export type RequestOf<C extends ChannelName> = z.input<Channels[C]['request']>;
export type ResponseOf<C extends ChannelName> = z.output<Channels[C]['response']>;
export type PayloadOf<E extends EventName> = z.output<Events[E]['payload']>;

/** What the main process implements: one handler per channel, typed from the contract. */
export type IpcHandlers = {
  [C in ChannelName]: (request: z.output<Channels[C]['request']>) => Promise<ResponseOf<C>> | ResponseOf<C>;
};

/** How the core pushes an event to whichever shell shows it. */
export type EmitEvent = <E extends EventName>(event: E, payload: PayloadOf<E>) => void;

/** Why a call failed, as a stable code the renderer can switch on. */
export const IpcErrorCodeSchema = z.enum([
  'forbidden-sender',
  'unknown-channel',
  'invalid-request',
  'invalid-response',
  'not-found',
  'conflict',
  'unavailable',
  'internal',
  /** The organisation's managed policy locks this (the message names the key). */
  'locked-by-organisation',
]);
export type IpcErrorCode = z.infer<typeof IpcErrorCodeSchema>;

/** Every call resolves to this: a value, or a plain error. Nothing throws across the bridge. */
export type IpcResult<T> = { ok: true; value: T } | { ok: false; code: IpcErrorCode; message: string };

/** The object the preload exposes as `window.airlock` (frozen). */
export interface AirlockBridge {
  invoke<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<IpcResult<ResponseOf<C>>>;
  on<E extends EventName>(event: E, listener: (payload: PayloadOf<E>) => void): () => void;
}

/** The names as plain lists, for the preload and the contract tests. */
export const channelNames = Object.keys(channels) as ChannelName[];
export const eventNames = Object.keys(events) as EventName[];

/** True when `name` is a declared channel (guards free-form strings from the renderer). */
export function isChannelName(name: unknown): name is ChannelName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(channels, name);
}

/** True when `name` is a declared event. */
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}
