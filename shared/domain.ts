/**
 * Domain types both sides of Airlock use: servers, their sandbox profiles,
 * tools, rules and decisions. Every type is a zod schema first, so what
 * crosses a boundary (IPC, the store, a config file) is validated with the
 * same definition the code is typed with. No Node, Electron or DOM imports.
 *
 * One file on purpose: the domain's schemas build on each other (a server's record
 * holds its spec, profile, grants and approved tools), each one declaration; what
 * needs no schema lives in plain.ts.
 */
import { z } from 'zod';
import { noScreenDomains, ScreenDomainsSchema, ScreenPermissionSchema } from './screens';

import { SERVER_NAME_MAX, SERVER_NAME_PATTERN } from './plain';

export { isServerName, ownEntry } from './plain';

/**
 * A record keyed by names someone else chose — a server's tool and argument
 * names, a bundle's setting keys, a config file's entries. Parsed into a
 * null-prototype object, key for key (an own `__proto__` included), so a name
 * like `constructor` or `__proto__` is an entry like any other and can never
 * read or replace `Object.prototype`. (zod's own `z.record` assigns keys to a
 * plain object: `__proto__` is lost and replaces the result's prototype.)
 *
 * SECURITY: names are data (issue 9, item 5) — every map keyed by a
 * server-chosen name is a `Map` or a null-prototype object.
 */
export function nameKeyedRecord<K extends z.ZodType<string>, V extends z.ZodType>(key: K, value: V) {
  return z
    .custom<Record<string, unknown>>((input) => input !== null && typeof input === 'object' && !Array.isArray(input), { message: 'expected an object' })
    .transform((input, ctx) => {
      const out = Object.create(null) as Record<z.output<K>, z.output<V>>;
      for (const [name, member] of Object.entries(input)) {
        const checkedKey = key.safeParse(name);
        if (!checkedKey.success) {
          for (const issue of checkedKey.error.issues) ctx.addIssue({ ...issue, path: [name], message: `the name: ${issue.message}` });
          continue;
        }
        const checked = value.safeParse(member);
        if (!checked.success) {
          for (const issue of checked.error.issues) ctx.addIssue({ ...issue, path: [name, ...issue.path] });
          continue;
        }
        Object.defineProperty(out, name, { value: checked.data, enumerable: true, writable: true, configurable: true });
      }
      return out;
    });
}

/** A server's short name: what the user calls it and what namespaces its tools. */
export const ServerNameSchema = z.string().min(1).max(SERVER_NAME_MAX).regex(SERVER_NAME_PATTERN, 'use lowercase letters, digits and dashes, starting with a letter or digit');
export type ServerName = z.infer<typeof ServerNameSchema>;

/** MCP tool annotations exactly as a server sent them: claims, not facts. */
export const ToolAnnotationsSchema = z
  .object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .passthrough();
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

/** A tool as the server defined it (the parts Airlock fingerprints). */
export const ToolDefinitionSchema = z
  .object({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    inputSchema: nameKeyedRecord(z.string(), z.unknown()),
    outputSchema: nameKeyedRecord(z.string(), z.unknown()).optional(),
    annotations: ToolAnnotationsSchema.optional(),
    _meta: nameKeyedRecord(z.string(), z.unknown()).optional(),
  })
  .passthrough();
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

/** sha256 (hex) of the canonical JSON of a whole tool definition. */
export const ToolFingerprintSchema = z.string().regex(/^[0-9a-f]{64}$/);
export type ToolFingerprint = z.infer<typeof ToolFingerprintSchema>;

/** An HTTP header name (RFC 9110 token). */
export const HeaderNameSchema = z.string().min(1).max(128).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'a header name is letters, digits and - (e.g. X-Api-Key)');

/**
 * A header Airlock sends to a remote server. `value` is the template as the
 * person wrote it: `${secret.NAME}` parts are filled from the secret store
 * (NAME is one of the server's granted secrets) when a request is made, so
 * the settings file never holds a secret value.
 */
export const RemoteHeaderSchema = z.object({
  name: HeaderNameSchema,
  value: z.string().max(8192),
});
export type RemoteHeader = z.infer<typeof RemoteHeaderSchema>;

/** Which MCP transport a remote server speaks: found at inspection; `auto` tries streamable HTTP, then the older HTTP+SSE. */
export const RemoteTransportSchema = z.enum(['auto', 'streamable-http', 'sse']);
export type RemoteTransport = z.infer<typeof RemoteTransportSchema>;

/**
 * How Airlock connects to a server that runs elsewhere, by URL. No process,
 * no sandbox: a remote server is never contained.
 */
export const RemoteSpecSchema = z.object({
  /** The MCP endpoint, exactly as the person gave it (https, or http only on loopback). */
  url: z.string().url().max(2048),
  transport: RemoteTransportSchema,
  /** Headers sent with every request (secret parts sealed in the secret store). */
  headers: z.array(RemoteHeaderSchema).max(32),
  /**
   * How Airlock identifies itself to the server's authorization server:
   * a client id the person registered there (its secret, if any, is sealed
   * with the tokens), or a client ID metadata document URL. Absent: dynamic
   * registration when the server asks for sign-in.
   */
  oauth: z
    .object({
      clientId: z.string().min(1).max(512).optional(),
      clientMetadataUrl: z.string().url().max(2048).optional(),
    })
    .optional(),
});
export type RemoteSpec = z.infer<typeof RemoteSpecSchema>;

/**
 * Exactly what runs: argv, working folder and the environment Airlock
 * passes — or, for a remote server (`remote` set), the URL it connects to.
 * A remote server's `command` is its URL and its `args` and `env` are
 * empty: nothing is run.
 */
export const ServerSpecSchema = z.object({
  command: z.string().min(1),
  args: z.array(z.string()),
  cwd: z.string().optional(),
  /** Plain (non-secret) environment variables the user granted. */
  env: nameKeyedRecord(z.string(), z.string()),
  /** Set for a server reached over the network instead of run here. */
  remote: RemoteSpecSchema.optional(),
});
export type ServerSpec = z.infer<typeof ServerSpecSchema>;

/**
 * True when the server runs elsewhere and is reached by URL. SECURITY:
 * invariant 2 — a remote server is never contained (no sandbox is around
 * it); decided from the spec Airlock keeps, never from the server.
 */
export function isRemoteSpec(spec: Pick<ServerSpec, 'remote'> | undefined | null): boolean {
  return spec !== null && spec !== undefined && spec.remote !== undefined;
}

/** The state of the signature on an MCPB bundle, told truthfully. */
export const SignatureStateSchema = z.enum(['none', 'present-unverified', 'verified']);
export type SignatureState = z.infer<typeof SignatureStateSchema>;

/** The lifecycle status an MCP Registry gives a listing. */
export const RegistryStatusSchema = z.enum(['active', 'deprecated', 'deleted']);
export type RegistryStatus = z.infer<typeof RegistryStatusSchema>;

/**
 * The MCP Registry listing a server was installed from: which registry, the
 * listing's name and version, its status and publish date when it was
 * installed. Optional on every provenance that can come from a registry, so
 * records written before it read as they are.
 */
export const RegistryOriginSchema = z.object({
  /** The registry's base URL (the official one, or an organisation's sub-registry). */
  baseUrl: z.string(),
  /** The listing's name, reverse-DNS (`io.github.owner/server`). */
  name: z.string(),
  /** The listing's version (not always the package's). */
  version: z.string(),
  status: RegistryStatusSchema,
  /** When the registry says this version was published. */
  publishedAt: z.string().optional(),
});
export type RegistryOrigin = z.infer<typeof RegistryOriginSchema>;

/** Where a server came from: facts Airlock checked, not what the server says. */
export const ProvenanceSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('local'),
    executable: z.string(),
    executableSha256: z.string(),
    script: z.object({ path: z.string(), sha256: z.string() }).optional(),
  }),
  z.object({
    kind: z.literal('npm'),
    name: z.string(),
    version: z.string(),
    integrity: z.string(),
    publishedAt: z.string().optional(),
    maintainers: z.array(z.string()).optional(),
    installDir: z.string(),
    registry: RegistryOriginSchema.optional(),
  }),
  z.object({
    kind: z.literal('mcpb'),
    name: z.string(),
    version: z.string(),
    author: z.string().optional(),
    signature: SignatureStateSchema,
    bundleSha256: z.string(),
    installDir: z.string(),
    registry: RegistryOriginSchema.optional(),
  }),
  /**
   * A Python package from a package index (PyPI), installed at an exact
   * version into a virtual environment of its own inside `installDir`, every
   * file checked against the hashes of `lockSha256`'s lock.
   */
  z.object({
    kind: z.literal('pypi'),
    name: z.string(),
    version: z.string(),
    /** sha256 (hex) of the package's own wheel, as the index gave it. */
    sha256: z.string(),
    /** The wheel's file name (which build of the package was chosen). */
    file: z.string(),
    /** The index it was resolved against (the person's pip configuration; PyPI by default). */
    index: z.string().optional(),
    /** Packages the lock pins, the server's own included. */
    packageCount: z.number().int().nonnegative(),
    /** sha256 (hex) of the lock (`requirements.txt` with a hash for every file). */
    lockSha256: z.string(),
    publishedAt: z.string().optional(),
    installDir: z.string(),
    registry: RegistryOriginSchema.optional(),
  }),
  z.object({
    kind: z.literal('remote'),
    /** The URL the person added (the audit log names it with every call). */
    url: z.string(),
    /** The host, as DNS is asked for it (Punycode stays Punycode here). */
    host: z.string(),
    /** The transport that answered at inspection. */
    transport: z.enum(['streamable-http', 'sse']),
    /**
     * Where its address was at inspection: the internet, a private network, or
     * this computer. Nothing the server names may send Airlock anywhere more
     * private (absent in older records: read from the URL, else the internet).
     */
    zone: z.enum(['public', 'private', 'loopback']).optional(),
    /** The MCP Registry listing it was added from, if any. */
    registry: RegistryOriginSchema.optional(),
    /** The certificate seen at inspection (https), checked against the system's roots. */
    tls: z
      .object({
        subject: z.string().optional(),
        issuer: z.string().optional(),
        validTo: z.string().optional(),
        fingerprint256: z.string().optional(),
      })
      .optional(),
  }),
]);
export type Provenance = z.infer<typeof ProvenanceSchema>;

/** The folder in Airlock's data a server was installed into (npm, MCPB); none for local commands and remote servers. */
export function installDirOf(provenance: Provenance): string | undefined {
  return provenance.kind === 'npm' || provenance.kind === 'mcpb' || provenance.kind === 'pypi' ? provenance.installDir : undefined;
}

/** Where an imported server's entry was read from (kept with its provenance). */
export const ImportOriginSchema = z.object({
  app: z.enum(['claude', 'vscode', 'cursor', 'file']),
  path: z.string(),
  entry: z.string(),
});
export type ImportOrigin = z.infer<typeof ImportOriginSchema>;

/** The apps Airlock imports from and connects to, as people call them. */
export const APP_LABELS: Record<ImportOrigin['app'], string> = { claude: 'Claude Desktop', vscode: 'VS Code', cursor: 'Cursor', file: 'a config file' };

/**
 * What a server may do, enforced by the OS sandbox. The defaults are the
 * strictest: no network, no persistent writes, no secrets.
 */
export const SandboxProfileSchema = z.object({
  filesystem: z.object({
    /** Extra folders or files the server may read (reads elsewhere follow the deny list). */
    read: z.array(z.string()),
    /** Folders the server may write; everything else is read-only or hidden. */
    write: z.array(z.string()),
    /** A persistent data folder of its own inside Airlock's data (ends containment). */
    persistentData: z.boolean(),
    /**
     * What each read and write grant resolved to (symlinks followed) when it
     * was given, by the path as granted. Set by Airlock, never by a client;
     * a grant that resolves elsewhere at start stops the server from
     * starting. Absent in stores written before pinning (filled at the next start).
     */
    pinned: z.record(z.string(), z.string()).optional(),
    /**
     * Paths inside a write grant that programs on the host run or trust (a
     * repository's `.git`, `.envrc`, `.vscode`, …) which this server may
     * change anyway — a git server that commits. Only a person gives this,
     * warned that git or their shell may then run what the server wrote.
     * Absent: every such path stays protected.
     */
    writeTrusted: z.array(z.string()).optional(),
  }),
  network: z.object({
    /** Domains the server may reach (`example.com`, `*.example.com`). Empty: no network. */
    allowedDomains: z.array(z.string()),
  }),
  /** Names of secrets (stored outside the JSON store) passed to the server as env vars. */
  secrets: z.array(z.string()),
  /** Explicit, recorded consent to run without a sandbox; absent means never. */
  unsandboxed: z.object({ consentedAt: z.string() }).optional(),
});
export type SandboxProfile = z.infer<typeof SandboxProfileSchema>;

/** The default profile: nothing granted. */
export function defaultSandboxProfile(): SandboxProfile {
  return {
    filesystem: { read: [], write: [], persistentData: false },
    network: { allowedDomains: [] },
    secrets: [],
  };
}

/** A tool definition the user approved, with the fingerprint it was approved at. */
export const ApprovedToolSchema = z.object({
  fingerprint: ToolFingerprintSchema,
  definition: ToolDefinitionSchema,
  approvedAt: z.string(),
});
export type ApprovedTool = z.infer<typeof ApprovedToolSchema>;

/**
 * A prompt or resource template the user approved, with the fingerprint it
 * was approved at (sha256 of the canonical JSON of the whole definition).
 */
export const ApprovedDefinitionSchema = z.object({
  fingerprint: ToolFingerprintSchema,
  definition: z.record(z.string(), z.unknown()),
  approvedAt: z.string(),
});
export type ApprovedDefinition = z.infer<typeof ApprovedDefinitionSchema>;

/** MCP log levels, least severe first (RFC 5424 names, as the spec has them). */
export const LogLevelSchema = z.enum(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
export type LogLevel = z.infer<typeof LogLevelSchema>;

/**
 * What a person decided about the requests one server may send back
 * (sampling, elicitation). Roots need no setting: they are the server's own
 * grants, never more.
 */
export const ServerRequestSettingsSchema = z.object({
  sampling: z.object({
    /**
     * `ask`: each request is shown (and the model's answer before it goes
     * back); `always`: requests go to the model and answers back without
     * asking, within the caps; `never`: refused without asking.
     */
    rule: z.enum(['ask', 'always', 'never']),
    /** May a request ask for context from this or all servers (`includeContext` other than `none`)? */
    allowContext: z.boolean(),
    /** Largest `maxTokens` a request may ask for. */
    maxTokens: z.number().int().min(1).max(1_000_000),
    /** Most requests a minute from this server; more are refused. */
    perMinute: z.number().int().min(1).max(600),
  }),
  elicitation: z.object({
    /**
     * Who the server's questions go to: `airlock` (Airlock's window or
     * terminal), `client` (the app that called through the gateway, when it
     * can ask; otherwise Airlock), `never` (declined without asking).
     */
    answer: z.enum(['airlock', 'client', 'never']),
    perMinute: z.number().int().min(1).max(600),
  }),
});
export type ServerRequestSettings = z.infer<typeof ServerRequestSettingsSchema>;

/** The defaults: sampling asks each time (no context, 4096 tokens, 10 a minute); elicitation is asked in Airlock. */
export function defaultServerRequestSettings(): ServerRequestSettings {
  return {
    sampling: { rule: 'ask', allowContext: false, maxTokens: 4096, perMinute: 10 },
    elicitation: { answer: 'airlock', perMinute: 10 },
  };
}

/**
 * A screen as Airlock pinned it when the person approved it: the sha256 of
 * its HTML, what it declared, and the fingerprint of all of that. A screen
 * that reads back different is a change to review before it renders again.
 */
export const ApprovedScreenSchema = z.object({
  fingerprint: ToolFingerprintSchema,
  htmlSha256: z.string().regex(/^[0-9a-f]{64}$/),
  domains: ScreenDomainsSchema,
  permissions: z.array(ScreenPermissionSchema),
  approvedAt: z.string(),
});
export type ApprovedScreen = z.infer<typeof ApprovedScreenSchema>;

/**
 * What a person decided about one server's screens: the screens approved
 * (by `ui://` URI) and the addresses and permissions they allowed. An
 * address a screen asks for that is not here is refused.
 */
export const ScreenSettingsSchema = z.object({
  approved: nameKeyedRecord(z.string(), ApprovedScreenSchema),
  allowed: ScreenDomainsSchema,
  permissions: z.array(ScreenPermissionSchema),
});
export type ScreenSettings = z.infer<typeof ScreenSettingsSchema>;

/** The default: no screen approved, nothing allowed. */
export function defaultScreenSettings(): ScreenSettings {
  return { approved: Object.create(null) as ScreenSettings['approved'], allowed: noScreenDomains(), permissions: [] };
}


/** The three claims a tool makes that Airlock can set against what it does. */
export const CheckedClaimSchema = z.enum(['readOnlyHint', 'destructiveHint', 'openWorldHint']);
export type CheckedClaim = z.infer<typeof CheckedClaimSchema>;

/**
 * One thing a tool did during one of its calls that its claims say it does
 * not: what (in Airlock's words), where (a path in a write grant, a host and
 * port, the sandbox's refusal), and when. Paths and hosts are data.
 */
export const ClaimEvidenceSchema = z.object({
  claim: CheckedClaimSchema,
  /** `wrote` (created), `changed` (modified in place), `deleted`, `renamed`, `overwrote`, `network`, `refused` (the OS sandbox refused it). */
  did: z.enum(['wrote', 'changed', 'deleted', 'renamed', 'overwrote', 'network', 'refused']),
  /** The path (for a rename: "from → to"), the host and port, or the sandbox's line. */
  target: z.string().max(1200),
  /** ISO time Airlock saw it. */
  at: z.string(),
  /** The call it happened during. */
  callId: z.string(),
  /** Other calls to the same server were running too: it is attributed to each (their tools). */
  alongside: z.array(z.string().max(200)).max(20).optional(),
  /** For a network attempt: whether the proxy let it through. */
  allowed: z.boolean().optional(),
});
export type ClaimEvidence = z.infer<typeof ClaimEvidenceSchema>;

/**
 * What Airlock holds about one tool whose behaviour contradicted its claims:
 * - `withdrawn`: its claims are not used (it is treated as unannotated, and
 *   "always allow" rules and session permissions made before `since` do not
 *   count) until the person reviews the evidence;
 * - `distrusted`: the person reviewed it and chose not to trust its claims:
 *   the same, for good (a changed definition does not end it);
 * - `kept`: the person reviewed it and chose to keep trusting its claims for
 *   this definition (`fingerprint`); a later contradiction of the same claims
 *   by it is recorded without withdrawing them again.
 * Behaviour only ever withdraws trust: nothing here makes a tool ask less
 * than its claims alone would.
 */
export const ClaimCheckSchema = z.object({
  state: z.enum(['withdrawn', 'distrusted', 'kept']),
  /** ISO time of the contradiction that withdrew its claims (rules and session permissions from before it do not count while withdrawn). */
  since: z.string(),
  /** ISO time of the latest contradiction: a review answers exactly this one. */
  last: z.string(),
  /** The definition it contradicted last (a `kept` review holds for it only). */
  fingerprint: ToolFingerprintSchema,
  /** The claims it contradicted. */
  claims: z.array(CheckedClaimSchema).max(3),
  /** The latest evidence, newest last (at most 20; the audit log has all of it). */
  evidence: z.array(ClaimEvidenceSchema).max(20),
  /** When and where the person decided (`distrusted`, `kept`). */
  reviewed: z.object({ at: z.string(), by: z.enum(['window', 'command-line']) }).optional(),
});
export type ClaimCheck = z.infer<typeof ClaimCheckSchema>;

/** A server as Airlock keeps it in its store. */
export const ServerRecordSchema = z.object({
  name: ServerNameSchema,
  spec: ServerSpecSchema,
  provenance: ProvenanceSchema,
  importedFrom: ImportOriginSchema.optional(),
  profile: SandboxProfileSchema,
  /** The user chose to trust this server's annotations. */
  trusted: z.boolean(),
  /** Enabled servers start with Airlock; new and imported servers start disabled. */
  enabled: z.boolean(),
  /** Tools as approved, keyed by tool name. */
  approvedTools: nameKeyedRecord(z.string(), ApprovedToolSchema),
  /** Prompts as approved, keyed by prompt name (absent: none approved yet). */
  approvedPrompts: nameKeyedRecord(z.string(), ApprovedDefinitionSchema).optional(),
  /** Resource templates as approved, keyed by URI template (absent: none approved yet). */
  approvedResourceTemplates: nameKeyedRecord(z.string(), ApprovedDefinitionSchema).optional(),
  /** What the person decided about sampling and elicitation from this server (absent: the defaults). */
  serverRequests: ServerRequestSettingsSchema.optional(),
  /** The log level Airlock asks the server for (`logging/setLevel`); absent: the server's own default. */
  logLevel: LogLevelSchema.optional(),
  /** Its screens (MCP Apps): those approved, and the addresses and permissions allowed them (absent: none). */
  screens: ScreenSettingsSchema.optional(),
  /** Tools whose behaviour contradicted their claims, by tool name (absent: none). See `ClaimCheckSchema`. */
  claimChecks: nameKeyedRecord(z.string(), ClaimCheckSchema).optional(),
  /** Why it was saved turned off: it did not start when it was added (the server's last words included). Cleared when it is started again. */
  startProblem: z.object({ reason: z.string(), at: z.string() }).optional(),
  createdAt: z.string(),
});
export type ServerRecord = z.infer<typeof ServerRecordSchema>;

/** The supervisor's state for one server. */
export const ServerStateSchema = z.enum(['stopped', 'starting', 'ready', 'crashed', 'backoff', 'quarantined']);
export type ServerState = z.infer<typeof ServerStateSchema>;

/** Global policy mode: `default` uses trust and containment; `strict` asks for everything. */
export const PolicyModeSchema = z.enum(['default', 'strict']);
export type PolicyMode = z.infer<typeof PolicyModeSchema>;

/** A standing rule the user made for one tool, bound to the definition it was made for. */
export const RuleSchema = z.object({
  server: ServerNameSchema,
  tool: z.string(),
  fingerprint: ToolFingerprintSchema,
  effect: z.enum(['allow', 'deny']),
  createdAt: z.string(),
});
export type Rule = z.infer<typeof RuleSchema>;

/**
 * Who asks for a call, by kind — never by a name someone chose. A gateway
 * client's name is what it calls itself: data, shown as such, never an
 * identity ("You" is only ever the person, and only Airlock decides that).
 * - `user`: the person, in Airlock's own window (the tool console);
 * - `cli`: the person, at the `airlock` command line (`airlock call`);
 * - `client`: another AI app through the gateway (`name` is its own label);
 * - `agent`: Airlock's built-in agent (the model the person chose);
 * - `screen`: a server's own screen (MCP Apps) in Airlock's window — code
 *   the server wrote, so it asks as that server would, never as the person
 *   (a click inside it is not consent to anything).
 */
export const CallerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('user') }),
  z.object({ kind: z.literal('cli') }),
  z.object({ kind: z.literal('client'), name: z.string().min(1).max(200) }),
  z.object({ kind: z.literal('agent'), provider: z.string().min(1).max(100), model: z.string().min(1).max(200) }),
  z.object({ kind: z.literal('screen'), server: ServerNameSchema }),
]);
export type Caller = z.infer<typeof CallerSchema>;

/**
 * How a caller is named on every screen and in the log. Callers recorded by
 * earlier versions (`{ kind: 'agent', name }` was a gateway client) read as
 * clients. Names from clients are data: the shells make them inert.
 */
export function callerLabel(caller: unknown): string {
  const c = (caller && typeof caller === 'object' ? caller : {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : 'an unnamed app');
  switch (c.kind) {
    case 'user':
      return 'You';
    case 'cli':
      return 'You (command line)';
    case 'client':
      return text(c.name);
    case 'agent':
      return typeof c.model === 'string' ? `Airlock's agent (${c.model})` : text(c.name);
    case 'screen':
      return typeof c.server === 'string' && c.server.length > 0 ? `${c.server}'s screen` : 'a server’s screen';
    default:
      return 'an unknown caller';
  }
}

/** True when the caller is the person themself (their own call is their consent, unless strict mode says otherwise). */
export function isPersonCaller(caller: Caller): boolean {
  return caller.kind === 'user' || caller.kind === 'cli';
}

/** The policy's verdict on a call. */
export const VerdictSchema = z.enum(['allow', 'ask', 'deny']);
export type Verdict = z.infer<typeof VerdictSchema>;

/** Whether the sandbox can run on this machine, and if not, what to do. */
export const SandboxSupportSchema = z.object({
  supported: z.boolean(),
  platform: z.string(),
  /** Tools the sandbox needs that are missing (e.g. `bwrap`). */
  missing: z.array(z.string()),
  /** The exact command that installs what is missing, when there is one. */
  fix: z.string().optional(),
  /** One sentence for a person. */
  summary: z.string(),
});
export type SandboxSupport = z.infer<typeof SandboxSupportSchema>;
