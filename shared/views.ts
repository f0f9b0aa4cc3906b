/**
 * What the renderer is shown: views the core computes from its state. The
 * renderer holds no policy — every reading, decision preview and warning here
 * was worked out by the core. No Node, Electron or DOM imports.
 *
 * One file on purpose: every view the window is shown, beside each other and beside
 * the contract that carries them (ipc.ts), so a change to what a screen sees reads whole;
 * it holds types and their schemas, no logic.
 */
import { z } from 'zod';
import { RegistryDisclosureSchema } from './registry';
import { GuaranteeViewSchema } from './sandbox-views';
import { ScreenDomainsSchema, ScreenPermissionSchema } from './screens';
import {
  CallerSchema,
  ClaimEvidenceSchema,
  CheckedClaimSchema,
  ImportOriginSchema,
  nameKeyedRecord,
  PolicyModeSchema,
  ProvenanceSchema,
  SandboxProfileSchema,
  ServerNameSchema,
  ServerSpecSchema,
  ServerStateSchema,
  ToolAnnotationsSchema,
  VerdictSchema,
} from './domain';

/** Airlock's own reading of a tool, from its normalised annotations. */
export const ToolReadingViewSchema = z.object({
  /** read-only (only when explicit), changes-things, or destructive (the default). */
  class: z.enum(['read-only', 'changes-things', 'destructive']),
  openWorld: z.boolean(),
  idempotent: z.boolean(),
  /** Claims read-only and explicitly destructive: counted as destructive. */
  contradictory: z.boolean(),
  /** One line per annotation: what the server said, or "not stated — treated as …". */
  claims: z.array(z.string()),
});
export type ToolReadingView = z.infer<typeof ToolReadingViewSchema>;

/** Something about a tool worth a person's attention (never a verdict by itself). */
export const ToolWarningSchema = z.object({
  kind: z.enum(['contradictory', 'addresses-model', 'mentions-other-tool', 'secret-path', 'hidden-characters', 'name-collision', 'oversized', 'open-world-without-network']),
  message: z.string(),
});
export type ToolWarning = z.infer<typeof ToolWarningSchema>;

/** A readable, field-by-field difference between two definitions of a tool. */
export const DefinitionDiffViewSchema = z.object({
  changes: z.array(
    z.object({
      /** e.g. "description", "parameter path: description", "annotations.readOnlyHint". */
      field: z.string(),
      before: z.string().optional(),
      after: z.string().optional(),
      /** Word-level parts for text fields. */
      parts: z.array(z.object({ value: z.string(), added: z.boolean(), removed: z.boolean() })).optional(),
    }),
  ),
  /** Annotation changes that would make Airlock ask less: suspicious after approval. */
  loosenings: z.array(z.string()),
});
export type DefinitionDiffView = z.infer<typeof DefinitionDiffViewSchema>;

/** What the policy would do for a call of this tool right now. */
export const PolicyPreviewSchema = z.object({
  verdict: VerdictSchema,
  /** "Runs without asking", "Asks", "Always asks", "Blocked". */
  label: z.string(),
  reasons: z.array(z.string()),
});
export type PolicyPreview = z.infer<typeof PolicyPreviewSchema>;

/**
 * What a tool did against its claims, for its row on the server's page and
 * `airlock show`: the state (`withdrawn` until the person reviews it,
 * `distrusted` or `kept` after), what Airlock does now, and the evidence.
 */
export const ClaimsCheckViewSchema = z.object({
  state: z.enum(['withdrawn', 'distrusted', 'kept']),
  /** What Airlock does now, in a sentence. */
  summary: z.string(),
  claims: z.array(CheckedClaimSchema),
  /** ISO time of the contradiction that withdrew its claims. */
  since: z.string(),
  /** ISO time of the latest one: the review answers exactly this (`servers.reviewClaims`). */
  last: z.string(),
  /** The evidence, newest first, each with Airlock's sentence for it. */
  evidence: z.array(ClaimEvidenceSchema.extend({ words: z.string() })),
  reviewed: z.object({ at: z.string(), by: z.enum(['window', 'command-line']) }).optional(),
});
export type ClaimsCheckView = z.infer<typeof ClaimsCheckViewSchema>;

/** One tool of a server: its claims beside Airlock's reading and the effective decision. */
export const ToolViewSchema = z.object({
  name: z.string(),
  /** `server__tool`, how gateway clients see it. */
  namespacedName: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: nameKeyedRecord(z.string(), z.unknown()),
  /** The annotations exactly as the server sent them: claims. */
  claimed: ToolAnnotationsSchema.optional(),
  reading: ToolReadingViewSchema,
  preview: PolicyPreviewSchema,
  fingerprint: z.string(),
  /** The standing rule for the current definition, if any. */
  rule: z.object({ effect: z.enum(['allow', 'deny']), createdAt: z.string() }).optional(),
  /** When the user approved this definition. */
  approvedAt: z.string().optional(),
  /** The definition changed since it was approved: paused until approved again. */
  pendingChange: z.object({ diff: DefinitionDiffViewSchema, suspicious: z.boolean() }).optional(),
  /**
   * Not in the set the person approved: listed after install (or never
   * reviewed). Pending review — its first call asks, whatever the server's
   * trust or sandbox — until approved (`servers.approveChange`).
   */
  isNew: z.boolean(),
  /** The screen (MCP Apps) it names: shown with its result in the console and the chat. */
  screen: z.object({ uri: z.string() }).optional(),
  /** Who the server says may call it, when not everyone: `model` (agents), `app` (its screens). */
  visibility: z.array(z.enum(['model', 'app'])).optional(),
  warnings: z.array(ToolWarningSchema),
  /** It did, during its calls, something its claims say it does not: the evidence and what Airlock does about it (absent: nothing seen). */
  claimsCheck: ClaimsCheckViewSchema.optional(),
});
export type ToolView = z.infer<typeof ToolViewSchema>;


/**
 * One grant of a server (a folder it may read or write, a domain, a secret)
 * and when Airlock last saw it used. Reads cannot be seen; a secret counts
 * as used when the server handled a call while it held it.
 */
export const GrantUseViewSchema = z.object({
  kind: z.enum(['read', 'write', 'domain', 'secret']),
  value: z.string(),
  /** ISO time it was last seen used; absent: not since Airlock began keeping track (`since`). */
  lastUsed: z.string().optional(),
  /** ISO time Airlock began keeping track of it. */
  since: z.string().optional(),
  /** False where Airlock cannot see it used (a read grant). */
  observable: z.boolean(),
  /** In words: "last used 3 days ago", "not used in the 41 days Airlock has watched it". */
  note: z.string(),
  /** Unused for 30 days or more: suggested for removal (never removed without the person). */
  suggestRemoval: z.boolean(),
});
export type GrantUseView = z.infer<typeof GrantUseViewSchema>;

/** A local server's code as pinned and as found at its last start (executable, script). */
export const CodeChangeViewSchema = z.object({
  files: z.array(
    z.object({
      role: z.enum(['executable', 'script']),
      path: z.string(),
      /** sha256 the person approved. */
      approved: z.string(),
      /** sha256 at its last start; null when the file could not be read. */
      current: z.string().nullable(),
    }),
  ),
});
export type CodeChangeView = z.infer<typeof CodeChangeViewSchema>;

/** One row of the Servers list. */
export const ServerSummarySchema = z.object({
  name: ServerNameSchema,
  state: ServerStateSchema,
  enabled: z.boolean(),
  trusted: z.boolean(),
  /** False only when the user consented to run this server without a sandbox (shown red). */
  sandboxed: z.boolean(),
  /** Set for a server reached by URL: it runs on `host`, outside any sandbox (never contained). */
  remote: z.object({ url: z.string(), host: z.string() }).optional(),
  network: z.boolean(),
  /** "Can read ~/Projects · writes nowhere · no internet · no secrets". */
  summary: z.string(),
  /** "npm @scope/pkg@1.2.3", "MCPB bundle (unsigned)", "local command". */
  source: z.string(),
  toolCount: z.number().int(),
  /** Tools whose definition changed since it was approved (paused until approved again). */
  pendingChanges: z.number().int(),
  /** Tools added after install, not reviewed yet (each asks before its first call until approved). */
  newTools: z.number().int(),
  /** Its executable or script changed since it was approved (found at its last start): every call asks. */
  codeChanged: z.boolean(),
  /** Tools that did something their claims say they do not, waiting for the person's review (their claims are not used meanwhile). */
  claimsToReview: z.number().int(),
  /** The last error the supervisor recorded (a crash, a sandbox refusal). */
  lastError: z.string().optional(),
  /**
   * Why it is in this state and what to do, in plain words, when the state
   * alone does not say: imported and not started yet, crashed (with its last
   * line of output), the sandbox missing.
   */
  stateNote: z.string().optional(),
  /** Set while the organisation's policy forbids this server: it does not run (its settings are kept), with the rule that blocks it. */
  blockedByOrganisation: z.object({ key: z.string(), rule: z.string(), message: z.string() }).optional(),
});
export type ServerSummary = z.infer<typeof ServerSummarySchema>;

/** A line of a server's log (its stderr and Airlock's notes about it). */
export const LogLineViewSchema = z.object({ time: z.string(), source: z.string(), text: z.string() });

/** One audit entry as the Activity page shows it. */
export const AuditEntryViewSchema = z.object({
  seq: z.number().int(),
  time: z.string(),
  /** A call's decision or outcome, a network request a server made through its sandbox's proxy, a refusal the OS's sandbox reported (macOS), a change a person made (a rule, grants, trust, a setting, a server), or a tool that did something its claims say it does not (`claims`). */
  kind: z.enum(['decision', 'outcome', 'network', 'change', 'sandbox', 'claims']),
  callId: z.string(),
  /** Who called, worded by kind: "You (console)", "You (command line)", "app “Claude Desktop”", "Airlock's agent (model)". */
  caller: z.string(),
  /** The caller's kind, which only the owner assigns (a client's name is data). */
  callerKind: z.enum(['user', 'cli', 'client', 'agent', 'screen', 'unknown']),
  server: z.string(),
  tool: z.string(),
  /** What happened, in words: "allowed", "allowed after you answered in the window", "refused: nobody could be asked", … */
  verdict: z.string().optional(),
  reasons: z.array(z.string()).optional(),
  answeredBy: z.string().optional(),
  outcome: z.string().optional(),
  durationMs: z.number().optional(),
  arguments: z.unknown().optional(),
  rule: z.string().optional(),
  /** Network rows: the host and port the server tried to reach; sandbox rows: what it tried, in the sandbox's words. */
  target: z.string().optional(),
  /** Network and sandbox rows: identical ones counted into this one (a flood is one row). */
  repeats: z.number().int().optional(),
  /** Change rows: what changed, one line each ("write grant added: /srv/notes"). Claims rows: what the tool did against its claims, one line each. */
  changes: z.array(z.string()).optional(),
});
export type AuditEntryView = z.infer<typeof AuditEntryViewSchema>;

/**
 * One resource limit a sandboxed server runs under, in Airlock's words.
 * `holds: false` when the kernel does not apply it here, with `note` saying
 * why (the process limit when Airlock runs as root).
 */
export const ResourceLimitViewSchema = z.object({
  kind: z.enum(['processes', 'memory', 'cpu', 'openFiles']),
  /** "Processes and threads". */
  label: z.string(),
  /** "1,024, counting everything it starts". */
  value: z.string(),
  holds: z.boolean(),
  note: z.string().optional(),
});
export type ResourceLimitView = z.infer<typeof ResourceLimitViewSchema>;

/** The review page of one server. */
export const ServerDetailSchema = ServerSummarySchema.extend({
  spec: ServerSpecSchema,
  provenance: ProvenanceSchema,
  importedFrom: ImportOriginSchema.optional(),
  profile: SandboxProfileSchema,
  /** Names of secrets that have a value (values are never sent to the renderer). */
  secretsSet: z.array(z.string()),
  /** Its code changed since it was approved: old and new hash of each file, until the person approves the new code. */
  codeChange: CodeChangeViewSchema.optional(),
  /**
   * The resource limits it runs under (those of its running sandbox, else
   * those its next start gets); empty when no sandbox can run here (then
   * no limit applies), with `limitsNote` saying so.
   */
  limits: z.array(ResourceLimitViewSchema),
  limitsNote: z.string().optional(),
  tools: z.array(ToolViewSchema),
  /** Its grants, each with when Airlock last saw it used; those unused for 30 days are suggested for removal. */
  grants: z.array(GrantUseViewSchema),
  logs: z.array(LogLineViewSchema),
  recentCalls: z.array(AuditEntryViewSchema),
  createdAt: z.string(),
});
export type ServerDetail = z.infer<typeof ServerDetailSchema>;

/** A risky part of a command line, as a span of one argument. */
export const CommandRiskSchema = z.object({
  arg: z.number().int(),
  start: z.number().int(),
  end: z.number().int(),
  reason: z.string(),
  severity: z.enum(['warning', 'danger']),
});
export type CommandRisk = z.infer<typeof CommandRiskSchema>;

/** A grant the server probably needs, with the reason: proposed, never granted until the person accepts it. */
export const GrantProposalSchema = z.object({
  kind: z.enum(['read', 'write', 'domain']),
  value: z.string(),
  reason: z.string(),
});
export type GrantProposalView = z.infer<typeof GrantProposalSchema>;

/** Everything a person sees before anything from a source runs. */
export const DisclosureSchema = z.object({
  draftId: z.string(),
  suggestedName: z.string(),
  /** "npm package", "MCPB bundle", "local command", "imported from Claude Desktop". */
  sourceLabel: z.string(),
  provenance: ProvenanceSchema,
  importedFrom: ImportOriginSchema.optional(),
  /** The exact, untruncated command line. */
  argv: z.array(z.string()),
  cwd: z.string().optional(),
  risks: z.array(CommandRiskSchema),
  /** Names (not values) of plain environment variables it will get. */
  envNames: z.array(z.string()),
  /** Secrets it asks for. */
  secrets: z.array(
    z.object({
      name: z.string(),
      description: z.string().optional(),
      required: z.boolean(),
      /** Its value came with the import and goes to the secret store: nothing to type. */
      held: z.boolean().optional(),
    }),
  ),
  /** The profile it will get if nothing is changed (the defaults, plus what its command line needs, never silently granted). */
  profile: SandboxProfileSchema,
  /** Values the server needs before it can run (MCPB `user_config`, VS Code inputs); secrets are separate. */
  userConfig: z.array(
    z.object({
      key: z.string(),
      title: z.string(),
      description: z.string().optional(),
      type: z.enum(['string', 'number', 'boolean', 'directory', 'file']),
      required: z.boolean(),
      default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]).optional(),
    }),
  ),
  /** Paths the command line mentions that the server probably needs: suggestions, not grants. */
  suggestedPaths: z.array(z.object({ path: z.string(), access: z.enum(['read', 'write']) })),
  /** Grants it probably needs (paths its command line and settings name, its API's domain), each with why: proposals the person accepts or not. */
  proposals: z.array(GrantProposalSchema),
  /** Plain settings it gets, with their values (secrets are separate and never shown). */
  env: z.record(z.string(), z.string()),
  warnings: z.array(z.string()),
  /** For an update: the installed server this replaces (its name stays; trust and enablement carry over unless changed). */
  replaces: z.object({ name: z.string(), trusted: z.boolean(), enabled: z.boolean(), version: z.string() }).optional(),
  /** From the MCP Registry: the listing, its status, and the publisher's words for each input. */
  registry: RegistryDisclosureSchema.optional(),
  /** Where this computer's sandbox holds less than Linux's, row by row (absent or empty on Linux): the person decides knowing it. */
  platformWeaker: z.array(GuaranteeViewSchema).optional(),
  /**
   * Arguments that make node or python run code from outside the program
   * Airlock pinned (`--import`, `-e`, `python -c`, a data: URL …): inspecting
   * and adding it are refused unless the person allows them
   * (`allowCodeArguments` on the install source, or on `install.scanImports`).
   */
  codeArguments: z.array(z.object({ arg: z.number().int().nonnegative(), text: z.string(), reason: z.string() })).optional(),
  /** The source was prepared with `allowCodeArguments`: the person allowed them, warned. */
  codeArgumentsAllowed: z.boolean().optional(),
});
export type Disclosure = z.infer<typeof DisclosureSchema>;

/**
 * An entry found in another app's config:
 * - `importable`: it can be imported (with its disclosure once prepared);
 * - `unsupported` / `invalid`: it cannot, and `reason` says why;
 * - `in-airlock`: a server Airlock already has (`inAirlock` names it), not imported again;
 * - `airlock`: Airlock's own entry (its gateway, or `airlock run NAME`), never imported.
 */
export const ImportEntryViewSchema = z.object({
  name: z.string(),
  status: z.enum(['importable', 'unsupported', 'invalid', 'in-airlock', 'airlock']),
  reason: z.string().optional(),
  /** What the entry runs, as the app's config wrote it (its command line, or its address). */
  runs: z.string().optional(),
  /** The server Airlock already has for it, and why it is the same one (same package, address or command line). */
  inAirlock: z.object({ server: z.string(), why: z.string() }).optional(),
  /** Unsupported only for want of the folder `${workspaceFolder}` stands for (`workspace` on `install.scanImports`). */
  needsWorkspace: z.boolean().optional(),
  disclosure: DisclosureSchema.optional(),
});
export type ImportEntryView = z.infer<typeof ImportEntryViewSchema>;

/** What the probe in the locked sandbox found. */
// ── Screens (MCP Apps) ─────────────────────────────────────────────────

/**
 * One screen of a server (a `ui://` page its tools name), as its page, the
 * install disclosure and `airlock show` show it: what it asks for (the
 * server's claims: addresses, permissions) beside what the person allowed,
 * and whether it is the screen they approved.
 * - `approved`: it reads back as approved; it renders;
 * - `new`: never approved (added after install, or not read then);
 * - `changed`: its HTML or what it asks for differs from what was approved
 *   (`changes` says how); it does not render until approved again;
 * - `unreadable`: the server did not give a screen for it (`problem`);
 * - `not-read`: the server is not running; shown as last approved.
 */
export const ScreenViewSchema = z.object({
  uri: z.string(),
  /** The tools that name it. */
  tools: z.array(z.string()),
  state: z.enum(['approved', 'new', 'changed', 'unreadable', 'not-read']),
  problem: z.string().optional(),
  /** What it asks to use, by kind (as it reads now; or as approved when not read). */
  declared: ScreenDomainsSchema,
  /** Of those, what the person allowed (the rest are refused). */
  allowed: ScreenDomainsSchema,
  permissions: z.object({ asked: z.array(ScreenPermissionSchema), granted: z.array(ScreenPermissionSchema) }),
  /** The HTML's sha256 and size, as read now (or as approved). */
  htmlSha256: z.string().optional(),
  size: z.number().int().optional(),
  /** What differs from the approved screen, one line each. */
  changes: z.array(z.string()),
  /** Addresses Airlock left out (not exact web addresses) and other notes, in words. */
  notes: z.array(z.string()),
  /** The fingerprint of the screen as read now: what "Approve" approves. */
  fingerprint: z.string().optional(),
  prefersBorder: z.boolean().optional(),
});
export type ScreenView = z.infer<typeof ScreenViewSchema>;

/** A server's screens, and everything the person allowed them (an allowed address no screen asks for now included). */
export const ServerScreensViewSchema = z.object({
  server: z.string(),
  screens: z.array(ScreenViewSchema),
  allowed: ScreenDomainsSchema,
  permissions: z.array(ScreenPermissionSchema),
});
export type ServerScreensView = z.infer<typeof ServerScreensViewSchema>;

/**
 * A screen opened in Airlock's window: where its frame loads (a page on the
 * screens' origin, one origin per server), its HTML, and what it may use.
 * Or, when it cannot render now, why — with the screen to review.
 */
export const ScreenOpenViewSchema = z.discriminatedUnion('ready', [
  z.object({
    ready: z.literal(true),
    /** The screen's session: every request it makes names it. */
    id: z.string(),
    server: z.string(),
    tool: z.string(),
    uri: z.string(),
    /** The frame's address (Airlock's relay page on this server's screen origin). */
    frameUrl: z.string(),
    /** The origin of that page: the only one the window talks to for this screen. */
    frameOrigin: z.string(),
    html: z.string(),
    /** The iframe `allow` list (granted permissions only). */
    allow: z.string(),
    /** Addresses it may use (declared ∩ allowed), as the screen is told. */
    domains: ScreenDomainsSchema,
    permissions: z.array(ScreenPermissionSchema),
    prefersBorder: z.boolean().optional(),
    /**
     * True when the screen may reach no address on the web (none it asks for
     * is allowed): it may be given a call's arguments while the model writes
     * them and before the call is decided. False: only once the call was
     * allowed — a server's page that can send them out sees a call's inputs
     * only after the person could see them (SECURITY.md rule 2).
     */
    argumentsBeforeDecision: z.boolean(),
  }),
  z.object({ ready: z.literal(false), reason: z.string(), screen: ScreenViewSchema.optional() }),
]);
export type ScreenOpenView = z.infer<typeof ScreenOpenViewSchema>;

/** What a screen's tool call came back with (a tool result, or Airlock's refusal as an error result). */
export const ScreenCallResultSchema = z.object({
  content: z.array(z.unknown()),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});
export type ScreenCallResult = z.infer<typeof ScreenCallResultSchema>;

export const ProbeReportSchema = z.object({
  serverInfo: z.object({ name: z.string(), version: z.string(), title: z.string().optional() }),
  instructions: z.string().optional(),
  tools: z.array(ToolViewSchema),
  prompts: z.array(z.object({ name: z.string(), description: z.string().optional() })),
  resources: z.array(z.object({ uri: z.string(), name: z.string().optional() })),
  /** Its tools' screens (MCP Apps), read at the inspection: what each asks for (absent: none). */
  screens: z.array(ScreenViewSchema).optional(),
  warnings: z.array(z.string()),
  /** The end of the server's stderr during the probe. */
  log: z.array(z.string()),
});
export type ProbeReport = z.infer<typeof ProbeReportSchema>;

/** A confirmation a person must answer (minted by the core). */
export const ConfirmationViewSchema = z.object({
  id: z.string(),
  /** Verb, object, consequence — written by Airlock, never by the server (one line: notifications, logs). */
  headline: z.string(),
  /** Airlock's words for what the call may do, from its own reading ("it may delete or overwrite things"). */
  consequence: z.string(),
  /**
   * What the call acts on: only arguments the tool's schema declares with a
   * target-like name (path, source, destination, url…), in schema order.
   * Values are the caller's: show them inert.
   */
  targets: z.array(z.object({ key: z.string(), values: z.array(z.string()) })),
  /**
   * Every argument as it will be sent, in the order the tool's schema declares
   * them; arguments the schema does not declare come last, `declared: false`.
   */
  argumentList: z.array(z.object({ key: z.string(), value: z.unknown(), declared: z.boolean(), target: z.boolean() })),
  /** The tool and its target in one line, restated right above the question ("files › write_file on path /x"). */
  restatement: z.string(),
  caller: CallerSchema,
  callerLabel: z.string(),
  server: z.string(),
  serverTrusted: z.boolean(),
  serverSandboxed: z.boolean(),
  /** Set for a server reached by URL: where it runs (shown instead of a sandbox badge). */
  serverRemote: z.object({ url: z.string(), host: z.string() }).optional(),
  sandboxSummary: z.string(),
  tool: z.string(),
  toolTitle: z.string().optional(),
  toolDescription: z.string().optional(),
  inputSchema: nameKeyedRecord(z.string(), z.unknown()),
  arguments: nameKeyedRecord(z.string(), z.unknown()),
  claimed: ToolAnnotationsSchema.optional(),
  reading: ToolReadingViewSchema,
  reasons: z.array(z.string()),
  destructive: z.boolean(),
  /** The organisation's policy forbids "always allow" for this tool (allowAlwaysForDestructive: false): the sentence that says so. */
  alwaysForbidden: z.string().optional(),
  /** What changed since the user last approved this tool. */
  changes: DefinitionDiffViewSchema.optional(),
  /** Epoch milliseconds. */
  deadline: z.number(),
  createdAt: z.number(),
});
export type ConfirmationView = z.infer<typeof ConfirmationViewSchema>;

/** A standing rule as the review pages show it. */
export const RuleViewSchema = z.object({
  server: z.string(),
  tool: z.string(),
  effect: z.enum(['allow', 'deny']),
  createdAt: z.string(),
  fingerprint: z.string(),
  /** False when the tool changed since: the rule no longer counts. */
  current: z.boolean(),
});
export type RuleView = z.infer<typeof RuleViewSchema>;

/** The result of a tool call, as the console shows it. */
export const CallResultViewSchema = z.object({
  /** `not-running`: not sent, because the server was not running (it crashed, or could not start). */
  outcome: z.enum(['ok', 'tool-error', 'unknown', 'denied', 'not-running']),
  /** The MCP result content (rendered as inert text). */
  content: z.array(z.unknown()),
  structuredContent: z.unknown().optional(),
  message: z.string().optional(),
  /** The call needed a person's confirmation and nobody could be asked (no window, no terminal to ask on). */
  nobodyToAsk: z.boolean().optional(),
  /** With `nobodyToAsk`: what a person can do to let such calls through (open the app, a rule, trust), each with its command. */
  waysForward: z.array(z.object({ kind: z.enum(['open-app', 'rule', 'trust', 'approve-code', 'review-claims']), words: z.string(), command: z.string().optional() })).optional(),
  durationMs: z.number(),
});
export type CallResultView = z.infer<typeof CallResultViewSchema>;

/** A program Airlock runs servers with (node, python, uv), and where it was found. */
export const RuntimeViewSchema = z.object({
  name: z.enum(['node', 'python', 'uv']),
  /** The absolute path Airlock uses; absent when none was found. */
  path: z.string().optional(),
  version: z.string().optional(),
  /** "your setting", "your login shell's PATH", "nvm", "Homebrew", … */
  from: z.string().optional(),
  /** What to do when it is missing or the setting is wrong. */
  problem: z.string().optional(),
});
export type RuntimeView = z.infer<typeof RuntimeViewSchema>;

/** Settings a person can change. */
export const SettingsViewSchema = z.object({
  policyMode: PolicyModeSchema,
  /** Every decision is flushed to disk before its call is sent (otherwise within `flushWindowMs`; a crash of Airlock loses nothing either way). */
  strictDurability: z.boolean(),
  /** The audit log's flush window (ms): what a power cut can lose, without strict durability. */
  flushWindowMs: z.number().int().nonnegative(),
  /** Programs the person pointed Airlock at (empty: Airlock looks for them itself). */
  runtimes: z.object({ node: z.string().optional(), python: z.string().optional(), uv: z.string().optional() }),
});
export type SettingsView = z.infer<typeof SettingsViewSchema>;

/** The audit chain's health. */
export const AuditVerifyViewSchema = z.object({
  ok: z.boolean(),
  entries: z.number().int(),
  files: z.number().int(),
  /** The first problem (when not ok), then repairs and notes worth showing (also when ok). */
  problems: z.array(z.object({ file: z.string(), line: z.number().int(), message: z.string() })),
  /**
   * The end of the log: confirmed by the keyed record of where it ended;
   * `unchecked` without a key; `unconfirmed` when that record is missing or
   * made with another key; `tampered`; `truncated`.
   */
  end: z.enum(['confirmed', 'empty', 'unchecked', 'unconfirmed', 'tampered', 'truncated']),
  /** `all`: every entry was read; `new`: the entries appended since the last clean check (an earlier edit in place needs `all`). */
  scope: z.enum(['all', 'new']).optional(),
});
export type AuditVerifyView = z.infer<typeof AuditVerifyViewSchema>;

/** The gateway other AI apps use, and the apps Airlock can connect it to. */
export const GatewayStatusSchema = z.object({
  /** The streamable HTTP gateway on loopback, when it runs. */
  http: z.object({ running: z.boolean(), url: z.string().optional(), tokenFile: z.string() }),
  /** The command an app runs for the stdio gateway. */
  stdioCommand: z.object({ command: z.string(), args: z.array(z.string()) }),
  apps: z.array(
    z.object({
      app: z.enum(['claude', 'vscode', 'cursor']),
      label: z.string(),
      configPath: z.string(),
      exists: z.boolean(),
      connected: z.boolean(),
      /** The app's other servers (they run unconfined there). */
      otherServers: z.array(z.string()),
      /** Those of them already imported into Airlock (through disclosure): they can be taken out of the app. */
      importedIntoAirlock: z.array(z.string()),
      /** Why the config could not be read, if it could not. */
      problem: z.string().optional(),
    }),
  ),
});
export type GatewayStatus = z.infer<typeof GatewayStatusSchema>;

/** A server asked, while running, to reach a host it has no grant for. */
export const NetworkQuestionViewSchema = z.object({
  id: z.string(),
  server: z.string(),
  host: z.string(),
  port: z.number().int(),
  /** Epoch milliseconds; no answer by then is a deny. */
  deadline: z.number(),
});
export type NetworkQuestionView = z.infer<typeof NetworkQuestionViewSchema>;

// ── Catalog: what servers offer besides tools (resources, prompts) ─────────

/** Something about a resource or prompt worth a person's attention (never a verdict). */
export const CatalogWarningSchema = z.object({
  kind: z.enum(['hidden-characters', 'addresses-model', 'oversized', 'claimed-text-sent-binary', 'binary-in-text', 'truncated', 'html']),
  message: z.string(),
});
export type CatalogWarning = z.infer<typeof CatalogWarningSchema>;

/** A resource a server lists (all of it the server's claims: name, description, size, type). */
export const ResourceViewSchema = z.object({
  uri: z.string(),
  /** How gateway clients see the URI (`airlock://server/<uri>`). */
  gatewayUri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
  warnings: z.array(CatalogWarningSchema),
});
export type ResourceView = z.infer<typeof ResourceViewSchema>;

/** Fields a prompt or resource template has for pinning: its fingerprint, when approved, and what changed since. */
const PinnedFields = {
  fingerprint: z.string(),
  approvedAt: z.string().optional(),
  /** The definition changed since it was approved: withheld from gateway clients until approved again. */
  pendingChange: z.object({ diff: DefinitionDiffViewSchema }).optional(),
  /** New since the server's definitions were last approved. */
  isNew: z.boolean(),
};

/** A resource template (RFC 6570 URI template) a server offers. */
export const ResourceTemplateViewSchema = z.object({
  uriTemplate: z.string(),
  gatewayUriTemplate: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  ...PinnedFields,
  warnings: z.array(CatalogWarningSchema),
});
export type ResourceTemplateView = z.infer<typeof ResourceTemplateViewSchema>;

/** A prompt a server offers: its text is the server's, shown as such. */
export const PromptViewSchema = z.object({
  name: z.string(),
  /** `server__prompt`, how gateway clients see it. */
  namespacedName: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() })),
  ...PinnedFields,
  warnings: z.array(CatalogWarningSchema),
});
export type PromptView = z.infer<typeof PromptViewSchema>;

/** Everything a server offers besides tools, for the Resources and Prompts tabs. */
export const CatalogViewSchema = z.object({
  server: z.string(),
  state: ServerStateSchema,
  /** What the server declared at its handshake (claims). */
  offers: z.object({ resources: z.boolean(), subscribe: z.boolean(), prompts: z.boolean(), completions: z.boolean(), logging: z.boolean() }),
  resources: z.array(ResourceViewSchema),
  resourceTemplates: z.array(ResourceTemplateViewSchema),
  prompts: z.array(PromptViewSchema),
  /** Airlock stopped reading a listing early (a cap was reached). */
  truncated: z.array(z.string()),
  /** The log level Airlock asks this server for, if set. */
  logLevel: z.string().optional(),
  /** Why the lists are empty, when the server is not running or listing failed. */
  problem: z.string().optional(),
});
export type CatalogView = z.infer<typeof CatalogViewSchema>;

/** One part of a resource's contents: text (inert), or binary described by its size. */
export const ResourceContentViewSchema = z.object({
  uri: z.string(),
  mimeType: z.string().optional(),
  kind: z.enum(['text', 'binary']),
  /** The text as the server sent it (shown inert, never as HTML). */
  text: z.string().optional(),
  /** Binary contents, base64, when small enough to pass on. */
  blob: z.string().optional(),
  bytes: z.number().int(),
  warnings: z.array(CatalogWarningSchema),
});
export type ResourceContentView = z.infer<typeof ResourceContentViewSchema>;

/** A resource as read. */
export const ResourceReadViewSchema = z.object({ server: z.string(), uri: z.string(), contents: z.array(ResourceContentViewSchema) });
export type ResourceReadView = z.infer<typeof ResourceReadViewSchema>;

/** A prompt as the server filled it in: messages written by the server. */
export const PromptResultViewSchema = z.object({
  server: z.string(),
  name: z.string(),
  description: z.string().optional(),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.unknown(), warnings: z.array(CatalogWarningSchema) })),
});
export type PromptResultView = z.infer<typeof PromptResultViewSchema>;

/** Completions the server suggests for an argument. */
export const CompletionViewSchema = z.object({ values: z.array(z.string()), total: z.number().optional(), hasMore: z.boolean().optional() });
export type CompletionView = z.infer<typeof CompletionViewSchema>;

// ── Requests from servers: sampling, elicitation, roots ────────────────────

/** Fields every question about a server's request has. */
const QuestionViewBase = {
  id: z.string(),
  server: z.string(),
  /** The app whose call was running when the server asked (a label: data), if any. */
  during: z.string().optional(),
  /** Airlock's reasons, in its own words. */
  reasons: z.array(z.string()),
  /** Epoch milliseconds; no answer by then is a refusal (a cancel for questions). */
  deadline: z.number(),
  createdAt: z.number(),
};

/** A sampling message (the server's words; content as MCP has it). */
const SamplingMessageViewSchema = z.object({ role: z.enum(['user', 'assistant']), content: z.unknown() });

/** A question waiting for a person about a request from a server. */
export const ServerRequestViewSchema = z.discriminatedUnion('kind', [
  z.object({
    ...QuestionViewBase,
    kind: z.literal('sampling-request'),
    /** "<server> wants a model to write a reply" — Airlock's words. */
    headline: z.string(),
    answerer: z.enum(['client', 'model']),
    answererLabel: z.string(),
    messages: z.array(SamplingMessageViewSchema),
    systemPrompt: z.string().optional(),
    includeContext: z.enum(['none', 'thisServer', 'allServers']),
    maxTokens: z.number(),
    temperature: z.number().optional(),
    stopSequences: z.array(z.string()).optional(),
    modelPreferences: z.unknown().optional(),
    /** The request as it would be sent (edit, then answer with it). */
    params: z.record(z.string(), z.unknown()),
    limits: z.object({ maxTokens: z.number(), allowContext: z.boolean() }),
  }),
  z.object({
    ...QuestionViewBase,
    kind: z.literal('sampling-response'),
    headline: z.string(),
    answererLabel: z.string(),
    messages: z.array(SamplingMessageViewSchema),
    /** The model's answer, before it goes back to the server. */
    result: z.record(z.string(), z.unknown()),
  }),
  z.object({
    ...QuestionViewBase,
    kind: z.literal('elicitation-form'),
    /** "<server> asks you" — Airlock's words; the server's own message is `message`. */
    headline: z.string(),
    message: z.string(),
    /** MCP's restricted schema: flat fields, with defaults and enums (SEP-1034, SEP-1330). Defaults are shown, never submitted for the person. */
    fields: z.array(
      z.object({
        key: z.string(),
        type: z.enum(['string', 'number', 'integer', 'boolean', 'choice', 'choices']),
        title: z.string().optional(),
        description: z.string().optional(),
        required: z.boolean(),
        default: z.unknown().optional(),
        format: z.string().optional(),
        minimum: z.number().optional(),
        maximum: z.number().optional(),
        minLength: z.number().optional(),
        maxLength: z.number().optional(),
        minItems: z.number().optional(),
        maxItems: z.number().optional(),
        options: z.array(z.object({ value: z.string(), title: z.string() })).optional(),
        /** It looks like it asks for a secret (the spec forbids that in a form). */
        secretLooking: z.boolean(),
      }),
    ),
    requestedSchema: z.record(z.string(), z.unknown()),
  }),
  z.object({
    ...QuestionViewBase,
    kind: z.literal('elicitation-url'),
    headline: z.string(),
    message: z.string(),
    /** The full URL, exactly. */
    url: z.string(),
    /** The host to highlight (Unicode when it was Punycode). */
    host: z.string(),
    /** The host as DNS sees it (shown beside `host` when they differ). */
    asciiHost: z.string(),
    punycode: z.boolean(),
    /** The person opened it (in the system browser, from Airlock). */
    opened: z.boolean(),
  }),
]);
export type ServerRequestView = z.infer<typeof ServerRequestViewSchema>;

/** One request from a server as the Activity page shows it. */
export const ServerRequestEntryViewSchema = z.object({
  seq: z.number().int(),
  time: z.string(),
  requestId: z.string(),
  server: z.string(),
  /** `screen`: something a server's screen asked of Airlock's window (`method` says what). */
  kind: z.enum(['sampling', 'elicitation', 'roots', 'screen']),
  method: z.string().optional(),
  /** "allowed", "denied", "asked", "relayed to <app>" … */
  decision: z.string(),
  reasons: z.array(z.string()),
  answeredBy: z.string().optional(),
  /** Sampling: how the person answered the request itself ("allow-once (window), edited"), when `answeredBy` is their answer to the model's reply. */
  requestAnsweredBy: z.string().optional(),
  /** How it ended ("answered", "refused", "accept", "decline", "cancel"…), once written. */
  outcome: z.string().optional(),
  detail: z.string().optional(),
  durationMs: z.number().optional(),
  request: z.unknown().optional(),
  response: z.unknown().optional(),
});
export type ServerRequestEntryView = z.infer<typeof ServerRequestEntryViewSchema>;

// ── Organisations: the managed policy and the audit log's OpenTelemetry export ──

/** A setting the organisation's policy locks, as every shell shows it ("set by your organisation"). */
export const OrganisationLockViewSchema = z.object({
  /** What a person would change: the mode, trusting servers, running unsandboxed, the HTTP gateway, "always" for destructive tools, sampling without review, the registry, the audit export. */
  setting: z.enum(['mode', 'trust', 'unsandboxed', 'httpGateway', 'alwaysForDestructive', 'samplingWithoutReview', 'registry', 'otlp']),
  /** The policy key that locks it (`allowTrust`). */
  key: z.string(),
  /** The value the organisation set, in words. */
  value: z.string(),
  /** The file (or registry key, or profile) that set it. */
  location: z.string(),
  /** "set by your organisation (allowTrust: false, /etc/airlock/managed-policy.json)" */
  words: z.string(),
});
export type OrganisationLockView = z.infer<typeof OrganisationLockViewSchema>;

/** Where a server the organisation provides comes from, as the install flow takes it (`install.prepare`'s source). */
export const ProvidedSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('npm'), package: z.string() }),
  z.object({ kind: z.literal('pypi'), package: z.string() }),
  z.object({ kind: z.literal('remote'), url: z.string() }),
  z.object({ kind: z.literal('local'), argv: z.array(z.string()).min(1) }),
]);
export type ProvidedSource = z.infer<typeof ProvidedSourceSchema>;

/** The organisation's managed policy as Settings, `airlock settings`, `doctor` and `--json` show it. */
export const OrganisationViewSchema = z.object({
  /** `none`: no policy; `active`: in force; `unreadable`: it could not be read, so nothing it could forbid runs. */
  status: z.enum(['none', 'active', 'unreadable']),
  /** Where Airlock looks on this OS, highest precedence first. */
  locations: z.array(z.string()),
  /** The documents in force, with their sha256. */
  documents: z.array(z.object({ location: z.string(), sha256: z.string().optional() })).optional(),
  /** What the administrator must fix, with the file and line. */
  problems: z.array(z.object({ location: z.string(), line: z.number().int().optional(), key: z.string().optional(), message: z.string() })).optional(),
  /** Files that are not a policy because someone other than an administrator can change them. */
  ignored: z.array(z.object({ location: z.string(), why: z.string() })),
  locks: z.array(OrganisationLockViewSchema),
  /** The bounds on network grants. */
  network: z.object({ allowedDomains: z.array(z.string()).optional(), deniedDomains: z.array(z.string()).optional() }).optional(),
  /** Write grants only inside the person's home folder. */
  writesOnlyInHome: z.boolean().optional(),
  allowedServers: z.array(z.string()).optional(),
  deniedServers: z.array(z.string()).optional(),
  /**
   * The servers the organisation provides: where from (in words, and as the
   * source the install flow takes), whether installed (under which name), and
   * the command that installs one. Installing one is the usual install, with its disclosure.
   */
  providedServers: z.array(
    z.object({ name: z.string(), source: z.string(), installSource: ProvidedSourceSchema, description: z.string().optional(), installedAs: z.string().optional(), install: z.string() }),
  ),
  /** The servers the policy stops from running, with the rule. */
  blocked: z.array(z.object({ server: z.string(), key: z.string(), rule: z.string(), message: z.string() })),
});
export type OrganisationView = z.infer<typeof OrganisationViewSchema>;

/** Where and how the audit log is streamed over OTLP/HTTP, and how far it got. */
export const AuditExportViewSchema = z.object({
  /**
   * `off`: not configured; `idle`: caught up; `sending`; `retrying`: the collector did not take the last batch (see `lastError`, `nextRetryAt`);
   * `paused`: the organisation's policy cannot be read, so nothing is sent anywhere until it is fixed (`lastError` says why).
   */
  state: z.enum(['off', 'idle', 'sending', 'retrying', 'paused']),
  /** Who configured it: the organisation's policy (locked), Settings, or the OTEL_EXPORTER_OTLP_* environment variables. */
  from: z.enum(['policy', 'settings', 'environment']).optional(),
  /** The collector's logs URL. */
  endpoint: z.string().optional(),
  protocol: z.enum(['http/protobuf', 'http/json']).optional(),
  /** Names of the headers sent (their values are never shown). */
  headerNames: z.array(z.string()),
  /** The last entry the collector acknowledged. */
  acknowledged: z.number().int(),
  /** The last entry written to the log. */
  head: z.number().int(),
  /** Entries written and not yet acknowledged (they wait in the log itself, on disk). */
  backlog: z.number().int(),
  /** When the oldest entry waiting was written (absent when nothing waits, or it was not read yet). */
  oldestWaitingAt: z.string().optional(),
  /** Said once the backlog passes its threshold (entries or age): the collector is falling behind. */
  warning: z.string().optional(),
  lastError: z.string().optional(),
  lastSuccessAt: z.string().optional(),
  nextRetryAt: z.string().optional(),
  /** Set when the organisation's policy locks the export (`audit.otlp`). */
  lock: OrganisationLockViewSchema.optional(),
});
export type AuditExportView = z.infer<typeof AuditExportViewSchema>;
