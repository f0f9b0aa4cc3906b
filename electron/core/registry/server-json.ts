/**
 * The MCP Registry's wire format (API v0.1, `server.json` schema 2025-12-11),
 * read defensively: unknown fields are kept and ignored (the format grows),
 * required ones are checked with a message naming the field, and every
 * string is bounded. Nothing here trusts a listing: its text is the
 * publisher's, and its arguments become an argv only through `install-plan.ts`,
 * never through a shell.
 */
import { z } from 'zod';
import { RegistryStatusSchema, type RegistryStatus } from '../../../shared/domain';
import { messageOf } from '../errors';

/** A bounded string: a listing that sends a megabyte of description is refused, not shown. */
const Str = (max = 4096) => z.string().max(max);

/** An input's fields (schema `Input`). */
const InputSchema = z
  .object({
    description: Str().optional(),
    isRequired: z.boolean().optional(),
    format: Str(64).optional(),
    value: Str().optional(),
    isSecret: z.boolean().optional(),
    default: Str().optional(),
    placeholder: Str().optional(),
    choices: z.array(Str(1024)).max(256).optional(),
  })
  .passthrough();
export type RegistryInput = z.infer<typeof InputSchema>;

const InputWithVariablesSchema = InputSchema.extend({
  variables: z.record(Str(256), InputSchema).optional(),
});

/** A command-line argument (schema `Argument`: positional or named). */
export const ArgumentSchema = z.discriminatedUnion('type', [
  InputWithVariablesSchema.extend({ type: z.literal('positional'), valueHint: Str(256).optional(), isRepeated: z.boolean().optional() }).passthrough(),
  InputWithVariablesSchema.extend({ type: z.literal('named'), name: Str(256).min(1), isRepeated: z.boolean().optional() }).passthrough(),
]);
export type RegistryArgument = z.infer<typeof ArgumentSchema>;

/** An environment variable (schema `KeyValueInput`). */
export const KeyValueInputSchema = InputWithVariablesSchema.extend({ name: Str(256).min(1) }).passthrough();
export type RegistryKeyValue = z.infer<typeof KeyValueInputSchema>;

const TransportSchema = z
  .object({
    type: Str(64),
    url: Str(4096).optional(),
    headers: z.array(KeyValueInputSchema).max(256).optional(),
  })
  .passthrough();

/** One package (schema `Package`). */
export const PackageSchema = z
  .object({
    registryType: Str(64).min(1),
    registryBaseUrl: Str(2048).optional(),
    identifier: Str(2048).min(1),
    version: Str(255).optional(),
    fileSha256: Str(64).optional(),
    runtimeHint: Str(64).optional(),
    transport: TransportSchema.optional(),
    runtimeArguments: z.array(ArgumentSchema).max(256).optional(),
    packageArguments: z.array(ArgumentSchema).max(256).optional(),
    environmentVariables: z.array(KeyValueInputSchema).max(256).optional(),
  })
  .passthrough();
export type RegistryPackage = z.infer<typeof PackageSchema>;

/** A remote endpoint (schema `StreamableHttpTransport` | `SseTransport`). */
export const RemoteSchema = TransportSchema.extend({ url: Str(4096) });
export type RegistryRemote = z.infer<typeof RemoteSchema>;

/** `server.json` (schema `ServerDetail`). */
export const ServerJsonSchema = z
  .object({
    $schema: Str(2048).optional(),
    name: Str(200).min(3).regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'must be reverse-DNS with one slash, like io.github.owner/server'),
    description: Str(),
    title: Str(200).optional(),
    version: Str(255).min(1),
    repository: z.object({ url: Str(2048), source: Str(64).optional(), id: Str(256).optional(), subfolder: Str(1024).optional() }).passthrough().optional(),
    websiteUrl: Str(2048).optional(),
    packages: z.array(PackageSchema).max(64).optional(),
    remotes: z.array(RemoteSchema).max(64).optional(),
  })
  .passthrough();
export type ServerJson = z.infer<typeof ServerJsonSchema>;

const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';

/** The registry's own facts about a listing (`_meta["io.modelcontextprotocol.registry/official"]`). */
export interface OfficialMeta {
  status: RegistryStatus;
  publishedAt?: string;
  updatedAt?: string;
  isLatest?: boolean;
}

/** A listing: the publisher's `server.json` and the registry's facts about it. */
export interface RegistryEntry {
  server: ServerJson;
  official: OfficialMeta;
  /** Names of top-level fields Airlock does not know (kept, shown as a note). */
  unknownFields: string[];
}

const KNOWN_FIELDS = new Set(['$schema', 'name', 'description', 'title', 'version', 'repository', 'websiteUrl', 'packages', 'remotes', 'icons', '_meta']);

/** A listing or page the registry sent that Airlock cannot read, saying which part and why. */
export class RegistryFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryFormatError';
  }
}

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 4)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'the listing'}: ${issue.message}`)
    .join('; ');
}

/** Reads one `ServerResponse` (`{ server, _meta }`). Throws `RegistryFormatError`. */
export function readEntry(raw: unknown): RegistryEntry {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new RegistryFormatError('a listing must be an object with a “server”');
  const record = raw as Record<string, unknown>;
  if (!('server' in record)) throw new RegistryFormatError('a listing has no “server” (is this an MCP Registry v0.1 answer?)');
  const parsed = ServerJsonSchema.safeParse(record.server);
  if (!parsed.success) {
    const name = typeof (record.server as { name?: unknown } | null)?.name === 'string' ? `“${String((record.server as { name: string }).name).slice(0, 200)}”` : 'a listing';
    throw new RegistryFormatError(`${name} is not a valid server.json: ${issues(parsed.error)}`);
  }
  const meta = (record._meta ?? {}) as Record<string, unknown>;
  const official = (meta && typeof meta === 'object' ? (meta)[OFFICIAL_META] : undefined) as Record<string, unknown> | undefined;
  const status = RegistryStatusSchema.safeParse(official?.status);
  const text = (value: unknown) => (typeof value === 'string' && value.length <= 64 ? value : undefined);
  return {
    server: parsed.data,
    official: {
      // A sub-registry that says nothing about status lists active servers.
      status: status.success ? status.data : 'active',
      ...(text(official?.publishedAt) ? { publishedAt: text(official?.publishedAt)! } : {}),
      ...(text(official?.updatedAt) ? { updatedAt: text(official?.updatedAt)! } : {}),
      ...(typeof official?.isLatest === 'boolean' ? { isLatest: official.isLatest } : {}),
    },
    unknownFields: Object.keys(record.server as object).filter((key) => !KNOWN_FIELDS.has(key)),
  };
}

/** A page of listings: the ones read, and the ones skipped with why. */
export interface RegistryPage {
  entries: RegistryEntry[];
  nextCursor?: string;
  problems: string[];
}

/** Reads a `ServerList` (`{ servers: [...], metadata: { nextCursor, count } }`). One bad listing is skipped, not fatal. */
export function readPage(raw: unknown): RegistryPage {
  if (raw === null || typeof raw !== 'object' || !Array.isArray((raw as { servers?: unknown }).servers)) {
    throw new RegistryFormatError('the answer has no “servers” list (is this an MCP Registry v0.1 address?)');
  }
  const list = (raw as { servers: unknown[] }).servers;
  if (list.length > 1000) throw new RegistryFormatError(`the answer lists ${list.length} servers in one page; Airlock reads at most 1000`);
  const entries: RegistryEntry[] = [];
  const problems: string[] = [];
  for (const item of list) {
    try {
      entries.push(readEntry(item));
    } catch (error) {
      problems.push(messageOf(error));
    }
  }
  const metadata = (raw as { metadata?: { nextCursor?: unknown } }).metadata;
  const cursor = metadata?.nextCursor;
  return { entries, ...(typeof cursor === 'string' && cursor.length > 0 && cursor.length <= 1024 ? { nextCursor: cursor } : {}), problems };
}
