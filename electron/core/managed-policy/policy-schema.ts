/**
 * What an organisation's managed policy can say, version 1: a strict zod
 * schema, so a key this version does not know is an error the administrator
 * sees (with the file and line), never silently ignored. The key names are
 * the ones the documentation promises (docs/organisations.md): files written
 * for version 1 keep working in later Airlocks.
 */
import { z } from 'zod';
import { ServerNameSchema } from '../../../shared/domain';

/** How an administrator names servers: by npm package, PyPI package, MCP Registry listing, URL or command line (globs allowed). */
export const ServerMatcherSchema = z
  .strictObject({
    /** `name-or-glob[@range]`: `@modelcontextprotocol/*`, `@acme/notes@^2.1.0`. */
    npm: z.string().min(1).max(300).optional(),
    /** `name-or-glob[==version]`: `mcp-server-time`, `acme-*==1.4.0`. */
    pypi: z.string().min(1).max(300).optional(),
    /** An MCP Registry listing name (glob): `io.github.acme/*`. */
    registry: z.string().min(1).max(300).optional(),
    /** A remote server's URL (glob on host and path): `https://mcp.acme.example/**`. */
    url: z.string().min(1).max(2048).optional(),
    /** The command line, one glob per argument; a last `**` matches any further arguments: `["docker", "**"]`. */
    command: z.array(z.string().min(1).max(1024)).min(1).max(64).optional(),
  })
  .refine((matcher) => Object.values(matcher).filter((value) => value !== undefined).length === 1, {
    message: 'a matcher names exactly one of npm, pypi, registry, url or command',
  });
export type ServerMatcher = z.infer<typeof ServerMatcherSchema>;

/** A server the organisation provides: where it comes from (one source), and what people are told about it. */
export const ProvidedServerSchema = z
  .strictObject({
    /** `name@version` (an exact version). */
    npm: z.string().min(1).max(300).optional(),
    /** `name==version`. */
    pypi: z.string().min(1).max(300).optional(),
    /** A remote server's URL (https). */
    url: z.string().url().max(2048).optional(),
    /** A command line (argv). */
    command: z.array(z.string().min(1).max(1024)).min(1).max(64).optional(),
    /** One line people see beside it. */
    description: z.string().max(500).optional(),
  })
  .refine((server) => [server.npm, server.pypi, server.url, server.command].filter((value) => value !== undefined).length === 1, {
    message: 'a provided server names exactly one source: npm, pypi, url or command',
  });
export type ProvidedServer = z.infer<typeof ProvidedServerSchema>;

/** The OTLP protocols Airlock speaks (OTLP over HTTP). */
export const OtlpProtocolSchema = z.enum(['http/protobuf', 'http/json']);
export type OtlpProtocol = z.infer<typeof OtlpProtocolSchema>;

/** Where the audit log is streamed: an OTLP/HTTP logs endpoint. */
export const OtlpTargetSchema = z.strictObject({
  /** The collector's base URL (`https://otel.acme.example:4318`; `/v1/logs` is added) or its full logs URL (ending in `/v1/logs`). */
  endpoint: z
    .string()
    .url()
    .max(2048)
    .refine((url) => /^https?:\/\//i.test(url), { message: 'the endpoint is an http or https URL' }),
  /** Default `http/protobuf`. */
  protocol: OtlpProtocolSchema.optional(),
  /** Headers sent with every export (e.g. an API key for the collector). */
  headers: z.record(z.string().min(1).max(128).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'a header name is letters, digits and -'), z.string().max(8192)).optional(),
});
export type OtlpTarget = z.infer<typeof OtlpTargetSchema>;

const Domain = z
  .string()
  .min(1)
  .max(253)
  .regex(/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$|^\*$/i, 'a domain is `example.com`, `*.example.com` or `*`');

/** Version 1 of the managed policy. */
export const ManagedPolicySchema = z.strictObject({
  /** Always 1 for this shape. */
  version: z.literal(1, { message: 'this Airlock reads managed policy version 1: write "version": 1' }),
  /** Only servers matching one of these may run (absent: any server not denied). */
  allowedServers: z.array(ServerMatcherSchema).max(1000).optional(),
  /** Servers matching one of these never run; a deny wins over an allow. */
  deniedServers: z.array(ServerMatcherSchema).max(1000).optional(),
  /** Servers the organisation provides, by name: they may run even with an allow list that does not name them. */
  servers: z.record(ServerNameSchema, ProvidedServerSchema).optional(),
  /** The MCP Registry Airlock searches (locked). */
  registry: z
    .string()
    .url()
    .max(2048)
    .refine((url) => /^https:\/\//i.test(url), { message: 'the registry is an https URL' })
    .optional(),
  /** true: no server runs without the OS sandbox around it (a person's consent to run one unsandboxed does not count). */
  requireSandbox: z.boolean().optional(),
  /** `"strict"`: strict mode, locked (every call asks). */
  mode: z.literal('strict', { message: 'mode can only be "strict" (it locks strict mode)' }).optional(),
  /** false: people may not mark a server as trusted (its annotations never reduce prompts). */
  allowTrust: z.boolean().optional(),
  /** false: people may not consent to run a server without a sandbox. */
  allowUnsandboxed: z.boolean().optional(),
  /** false: the HTTP gateway (for other apps, on loopback) may not run. */
  allowHttpGateway: z.boolean().optional(),
  /** false: a destructive tool cannot be "always allowed" (every call asks). */
  allowAlwaysForDestructive: z.boolean().optional(),
  /** false: a server's sampling requests cannot be set to run without review (`always`). */
  allowSamplingWithoutReview: z.boolean().optional(),
  /** false: write grants only inside the person's home folder. */
  allowWritesOutsideHome: z.boolean().optional(),
  /** What people may grant servers on the network: a grant must match an allowed domain (when listed) and no denied one. */
  network: z
    .strictObject({
      allowedDomains: z.array(Domain).max(1000).optional(),
      deniedDomains: z.array(Domain).max(1000).optional(),
    })
    .optional(),
  /** The audit log, streamed to the organisation's collector (locked). */
  audit: z.strictObject({ otlp: OtlpTargetSchema.optional() }).optional(),
});
export type ManagedPolicy = z.infer<typeof ManagedPolicySchema>;

/** The keys a policy can lock, as people see them named in refusals ("set by your organisation (allowTrust)"). */
export type PolicyKey =
  | 'allowedServers'
  | 'deniedServers'
  | 'servers'
  | 'registry'
  | 'requireSandbox'
  | 'mode'
  | 'allowTrust'
  | 'allowUnsandboxed'
  | 'allowHttpGateway'
  | 'allowAlwaysForDestructive'
  | 'allowSamplingWithoutReview'
  | 'allowWritesOutsideHome'
  | 'network.allowedDomains'
  | 'network.deniedDomains'
  | 'audit.otlp';

/** The keys whose values are booleans (the registry and plist readers turn 0/1 into them). */
export const BOOLEAN_KEYS = ['requireSandbox', 'allowTrust', 'allowUnsandboxed', 'allowHttpGateway', 'allowAlwaysForDestructive', 'allowSamplingWithoutReview', 'allowWritesOutsideHome'] as const;

/** The keys whose values are lists or objects (the registry reader takes them as JSON text or as a sub-key). */
export const STRUCTURED_KEYS = ['allowedServers', 'deniedServers', 'servers', 'network', 'audit'] as const;
