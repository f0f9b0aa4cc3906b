/**
 * What the "Find servers" screen and `airlock search` show of the MCP
 * Registry: listings, their install choices and the registry setting. Every
 * text a listing carries is the publisher's words (the renderer shows it
 * inert and marked so); what Airlock worked out itself (supported or not, why,
 * local or remote) is Airlock's. No Node, Electron or DOM imports.
 */
import { z } from 'zod';
import { RegistryStatusSchema } from './domain';

/** The official MCP Registry, the default base URL. */
export const OFFICIAL_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';

/** One way to run a listed server, as Airlock reads it. */
export const RegistryOptionViewSchema = z.object({
  /** Its position in the listing's own order (`packages` first, then `remotes`): what `install.prepare` names. */
  index: z.number().int().nonnegative(),
  kind: z.enum(['npm', 'pypi', 'mcpb', 'oci', 'nuget', 'remote', 'other']),
  /** A package runs here, in the sandbox; a remote runs on someone else's machine. */
  where: z.enum(['local', 'remote']),
  /** "npm @scope/pkg 1.2.3", "PyPI pkg 0.6.2", "remote (streamable-http) https://…" — the publisher's identifiers, shown inert. */
  label: z.string(),
  /** Airlock can install it now. */
  supported: z.boolean(),
  /** Why not, in Airlock's words ("remote — not supported yet"). */
  reason: z.string().optional(),
});
export type RegistryOptionView = z.infer<typeof RegistryOptionViewSchema>;

/** One listing (one version of one server) as search results and the detail show it. */
export const RegistryListingViewSchema = z.object({
  /** Reverse-DNS name (`io.github.owner/server`): the publisher's. */
  name: z.string(),
  title: z.string().optional(),
  description: z.string(),
  version: z.string(),
  status: RegistryStatusSchema,
  publishedAt: z.string().optional(),
  updatedAt: z.string().optional(),
  isLatest: z.boolean().optional(),
  /** The repository URL, shown as text (never a live link the page follows). */
  repository: z.string().optional(),
  websiteUrl: z.string().optional(),
  /** What kinds of source it offers, local ones first. */
  sources: z.array(z.string()),
  hasLocal: z.boolean(),
  hasRemote: z.boolean(),
  /** Its install choices, local and supported ones first. */
  options: z.array(RegistryOptionViewSchema),
  /** Things a person should know, in Airlock's words (deprecated, deleted, a field that was not understood). */
  warnings: z.array(z.string()),
});
export type RegistryListingView = z.infer<typeof RegistryListingViewSchema>;

/** A page of search results. */
export const RegistrySearchViewSchema = z.object({
  baseUrl: z.string(),
  servers: z.array(RegistryListingViewSchema),
  /** Pass it back for the next page; absent on the last page. */
  nextCursor: z.string().optional(),
  /** Served from Airlock's brief cache (no request was made). */
  cached: z.boolean(),
  /** Listings the registry sent that Airlock could not read, counted (each is named in `problems`). */
  skipped: z.number().int().nonnegative(),
  problems: z.array(z.string()),
});
export type RegistrySearchView = z.infer<typeof RegistrySearchViewSchema>;

/** The registry setting. */
export const RegistrySettingsViewSchema = z.object({
  baseUrl: z.string(),
  /** True when it is the official registry (nothing set). */
  official: z.boolean(),
});
export type RegistrySettingsView = z.infer<typeof RegistrySettingsViewSchema>;

/**
 * What the disclosure says about the listing a draft came from: the
 * registry's facts and the publisher's words for each input it asks for.
 */
export const RegistryDisclosureSchema = z.object({
  baseUrl: z.string(),
  name: z.string(),
  title: z.string().optional(),
  /** The publisher's description of the server. */
  description: z.string(),
  version: z.string(),
  status: RegistryStatusSchema,
  publishedAt: z.string().optional(),
  repository: z.string().optional(),
  /** The choice the person picked, and how many there were. */
  option: RegistryOptionViewSchema,
  optionCount: z.number().int(),
  /** Each argument, setting and secret the listing declares, with the publisher's description. */
  inputs: z.array(z.object({ kind: z.enum(['argument', 'setting', 'secret']), name: z.string(), description: z.string().optional() })),
});
export type RegistryDisclosure = z.infer<typeof RegistryDisclosureSchema>;
