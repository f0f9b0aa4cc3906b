/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, spec 2026-01-26):
 * a tool names a screen — an HTML page the server wrote — in
 * `_meta.ui.resourceUri`, and the `ui://` resource says which web addresses
 * that page asks to load from, connect to or frame (`_meta.ui.csp`) and which
 * device permissions it would like (`_meta.ui.permissions`).
 *
 * Everything here reads what a server wrote: it is a claim, parsed strictly
 * (an address Airlock cannot express exactly in a Content-Security-Policy is
 * left out and said so), never an instruction. What a screen may actually do
 * is what the server asks for *and* the person allowed (see the core's
 * screens room). No Node, Electron or DOM imports.
 */
import { z } from 'zod';
import { noScreenDomains, SCREEN_DOMAIN_KINDS, SCREEN_DOMAIN_WORDS, SCREEN_PERMISSIONS, type ScreenDomainKind, type ScreenDomains, type ScreenPermission } from './plain';

export {
  noScreenDomains,
  SCREEN_DOMAIN_KINDS,
  SCREEN_DOMAIN_WORDS,
  SCREEN_PERMISSION_WORDS,
  SCREEN_PERMISSIONS,
  type ScreenDomainKind,
  type ScreenDomains,
  type ScreenPermission,
} from './plain';

/** The extension's identifier (client capability `extensions`). */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of a screen's HTML. */
export const SCREEN_MIME_TYPE = 'text/html;profile=mcp-app';
/** The URI scheme screens live under. */
export const SCREEN_URI_SCHEME = 'ui://';
/** The deprecated flat key a tool may name its screen with. */
const FLAT_RESOURCE_URI = 'ui/resourceUri';

/** What a declared web address is for, as the CSP directive it maps to. */
export const ScreenDomainKindSchema = z.enum(SCREEN_DOMAIN_KINDS);
/** A device permission a screen may ask for. */
export const ScreenPermissionSchema = z.enum(SCREEN_PERMISSIONS);

/** Web addresses, by what they are for. */
export const ScreenDomainsSchema = z.object({
  connect: z.array(z.string()),
  resource: z.array(z.string()),
  frame: z.array(z.string()),
  baseUri: z.array(z.string()),
}) satisfies z.ZodType<ScreenDomains>;

/** Who may call a tool (`_meta.ui.visibility`; both when not stated). */
export type ToolVisibility = 'model' | 'app';

/** The screen a tool names, and who the tool is for. */
export interface ToolScreen {
  /** The screen's `ui://` URI. */
  uri: string;
  visibility: ToolVisibility[];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function own(object: Record<string, unknown> | undefined, key: string): unknown {
  return object && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

/**
 * Who may call a tool, from its `_meta.ui.visibility`: `model` (the agent, an
 * app's model), `app` (a screen of the same server). Absent or unreadable:
 * both, as the spec says.
 */
export function toolVisibility(meta: unknown): ToolVisibility[] {
  const ui = record(own(record(meta), 'ui'));
  const raw = own(ui, 'visibility');
  if (!Array.isArray(raw)) return ['model', 'app'];
  const out: ToolVisibility[] = [];
  for (const entry of raw) if ((entry === 'model' || entry === 'app') && !out.includes(entry)) out.push(entry);
  return out;
}

/**
 * The screen a tool names (`_meta.ui.resourceUri`, else the deprecated
 * `_meta["ui/resourceUri"]`), or undefined: none named, or a URI that is not
 * `ui://` (the spec requires it; anything else is never fetched as a screen).
 */
export function toolScreen(definition: { _meta?: unknown }): ToolScreen | undefined {
  const meta = record(definition._meta);
  const ui = record(own(meta, 'ui'));
  const nested = own(ui, 'resourceUri');
  const flat = own(meta, FLAT_RESOURCE_URI);
  const uri = typeof nested === 'string' ? nested : typeof flat === 'string' ? flat : undefined;
  if (uri === undefined || !isScreenUri(uri)) return undefined;
  return { uri, visibility: toolVisibility(meta) };
}

/**
 * Whether an MCP client said it can show screens: its capabilities declare
 * the `io.modelcontextprotocol/ui` extension (with the screen MIME type
 * among its `mimeTypes`, when it lists any).
 */
export function clientShowsScreens(capabilities: unknown): boolean {
  const declared = own(record(own(record(capabilities), 'extensions')), UI_EXTENSION);
  const extension = record(declared);
  if (!extension) return false;
  const types = own(extension, 'mimeTypes');
  return !Array.isArray(types) || types.some((type) => typeof type === 'string' && type.replace(/\s+/g, '').toLowerCase() === SCREEN_MIME_TYPE);
}

/** True for a `ui://` URI of reasonable length with no control characters. */
export function isScreenUri(uri: string): boolean {
  return uri.startsWith(SCREEN_URI_SCHEME) && uri.length > SCREEN_URI_SCHEME.length && uri.length <= 2048 && !/[\u0000-\u001f\u007f\s]/.test(uri);
}

/** Most addresses of one kind a screen may declare; more are left out. */
export const MAX_SCREEN_DOMAINS = 32;

/**
 * One declared web address, as Airlock will write it into a
 * Content-Security-Policy, or why it cannot: a scheme (`https`, `wss`,
 * `http`, `ws`), a host (a leading `*.` for its subdomains) and an optional
 * port — nothing else. No paths, no keywords (`'unsafe-inline'`, `*`,
 * `data:`), no spaces, commas or semicolons: a declaration could otherwise
 * smuggle directives into the policy.
 *
 * SECURITY: the CSP is Airlock's, built from these parsed values only; a
 * server's text never reaches the header unparsed.
 */
export function parseScreenDomain(raw: unknown): { ok: true; origin: string } | { ok: false; reason: string } {
  if (typeof raw !== 'string') return { ok: false, reason: 'an address that is not text' };
  const shown = raw.length > 120 ? `${raw.slice(0, 120)}…` : raw;
  const trimmed = raw.trim().replace(/\/$/, '');
  const match = /^(https|wss|http|ws):\/\/(\*\.)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:]+\])(?::(\d{1,5}))?$/i.exec(trimmed);
  if (!match) return { ok: false, reason: `“${shown}” is not a web address Airlock can allow exactly (scheme, host and port only)` };
  const [, scheme, wildcard, host, port] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return { ok: false, reason: `“${shown}” has no valid port` };
  if (wildcard && !host!.includes('.')) return { ok: false, reason: `“${shown}” would allow every name under a top-level domain` };
  return { ok: true, origin: `${scheme!.toLowerCase()}://${wildcard ?? ''}${host!.toLowerCase()}${port !== undefined ? `:${Number(port)}` : ''}` };
}

/** What a screen's resource declares, parsed. */
export interface ScreenDeclaration {
  uri: string;
  mimeType: string | undefined;
  /** The HTML exactly as the server sent it (text, or the decoded blob). */
  html: string;
  domains: ScreenDomains;
  permissions: ScreenPermission[];
  /** Whether the server wants a border drawn around it (absent: Airlock decides). */
  prefersBorder?: boolean;
  /** What Airlock left out or could not read, in words. */
  problems: string[];
}

/**
 * Reads a screen from a `resources/read` result: the one content item for
 * `uri` with the screen MIME type, its HTML and its `_meta.ui` (`csp`,
 * `permissions`, `prefersBorder`). Throws with a sentence when the result
 * is not a screen at all (no item, another type, no HTML); what is only
 * partly wrong (a bad address) is left out and listed in `problems`.
 */
export function readScreenDeclaration(uri: string, contents: readonly unknown[], decodeBase64: (blob: string) => string): ScreenDeclaration {
  const items = contents.map(record).filter((item): item is Record<string, unknown> => item !== undefined);
  const item = items.find((candidate) => candidate.uri === uri) ?? (items.length === 1 ? items[0] : undefined);
  if (!item) throw new Error(`the server sent no content for ${uri}`);
  const mimeType = typeof item.mimeType === 'string' ? item.mimeType : undefined;
  if (mimeType === undefined || mimeType.replace(/\s+/g, '').toLowerCase() !== SCREEN_MIME_TYPE) {
    throw new Error(`${uri} is not a screen: its type is ${mimeType ?? 'not stated'}, not ${SCREEN_MIME_TYPE}`);
  }
  let html: string;
  if (typeof item.text === 'string') html = item.text;
  else if (typeof item.blob === 'string') html = decodeBase64(item.blob);
  else throw new Error(`the server sent no HTML for ${uri}`);
  const problems: string[] = [];
  const ui = record(own(record(item._meta), 'ui'));
  const csp = record(own(ui, 'csp'));
  const domains = noScreenDomains();
  const keys: Record<ScreenDomainKind, string> = { connect: 'connectDomains', resource: 'resourceDomains', frame: 'frameDomains', baseUri: 'baseUriDomains' };
  for (const kind of SCREEN_DOMAIN_KINDS) {
    const raw = own(csp, keys[kind]);
    if (raw === undefined) continue;
    if (!Array.isArray(raw)) {
      problems.push(`its ${keys[kind]} is not a list; none were taken`);
      continue;
    }
    for (const entry of raw) {
      const parsed = parseScreenDomain(entry);
      if (!parsed.ok) problems.push(`${parsed.reason}; it is left out`);
      else if (domains[kind].length >= MAX_SCREEN_DOMAINS) {
        problems.push(`it declares more than ${MAX_SCREEN_DOMAINS} addresses to ${SCREEN_DOMAIN_WORDS[kind]}; the rest are left out`);
        break;
      } else if (!domains[kind].includes(parsed.origin)) domains[kind].push(parsed.origin);
    }
    domains[kind].sort();
  }
  const permissions: ScreenPermission[] = [];
  const asked = record(own(ui, 'permissions'));
  for (const permission of SCREEN_PERMISSIONS) if (own(asked, permission) !== undefined) permissions.push(permission);
  const border = own(ui, 'prefersBorder');
  return { uri, mimeType, html, domains, permissions, ...(typeof border === 'boolean' ? { prefersBorder: border } : {}), problems };
}

/** Addresses of `declared` that are also in `allowed`, kind by kind: what a screen may actually use. */
export function allowedScreenDomains(declared: ScreenDomains, allowed: ScreenDomains): ScreenDomains {
  const out = noScreenDomains();
  for (const kind of SCREEN_DOMAIN_KINDS) out[kind] = declared[kind].filter((origin) => allowed[kind].includes(origin));
  return out;
}
