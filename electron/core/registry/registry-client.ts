/**
 * The MCP Registry client: search with paging by cursor, one listing by name
 * and version, a brief in-memory cache. It speaks only to the base URL the
 * person chose (the official registry by default, an organisation's
 * sub-registry otherwise), with a time limit and a size limit on every
 * answer, and says plainly what went wrong when the registry is unreachable,
 * slow, or answers something that is not a registry's answer.
 *
 * SECURITY (invariant 7): an answer is data to validate, never to trust; a
 * base URL must be https (plain http only on this machine's loopback, for a
 * local mirror or a test), and carries no credentials.
 */
import { isIP } from 'node:net';
import { readEntry, readPage, RegistryFormatError, type RegistryEntry, type RegistryPage } from './server-json';

/** Anything that went wrong talking to the registry, in words a person can act on. */
export class RegistryError extends Error {
  constructor(
    message: string,
    /** `not-found` for a listing the registry does not have; `unreachable` for network trouble; `format` for a garbled answer; `setting` for a bad base URL. */
    readonly reason: 'not-found' | 'unreachable' | 'format' | 'setting',
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

/** Checks and normalises a registry base URL (no trailing slash). Throws `RegistryError` saying what is wrong. */
export function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new RegistryError(`“${text}” is not a web address; a registry's address looks like https://registry.example.com`, 'setting');
  }
  if (url.username || url.password) throw new RegistryError('a registry address must not carry a user name or password', 'setting');
  if (url.search || url.hash) throw new RegistryError('a registry address has no “?…” or “#…” part', 'setting');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || (isIP(host) === 4 && host.startsWith('127.')) || host === '::1';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new RegistryError(`a registry address must start with https:// (plain http only for this computer, 127.0.0.1 or localhost), not ${url.protocol}//`, 'setting');
  }
  return url.toString().replace(/\/+$/, '');
}

export interface RegistryClientOptions {
  /** The base URL to use now (read at every request: the setting can change). */
  baseUrl(): string;
  /** Per request, in milliseconds (default 15 s). */
  timeoutMs?: number;
  /** How long an answer is reused (default 60 s). */
  cacheMs?: number;
  /** Largest answer read (default 4 MiB). */
  maxBytes?: number;
  now?(): number;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

/** A search, as the screen and `airlock search` ask it. */
export interface RegistryQuery {
  search?: string;
  cursor?: string;
  /** Listings per page (default 30, at most 100). */
  limit?: number;
}

/** One page of results, and whether it came from the cache. */
export interface RegistrySearchResult extends RegistryPage {
  baseUrl: string;
  cached: boolean;
}

const MAX_CACHE_ENTRIES = 200;

export class RegistryClient {
  private readonly cache = new Map<string, { at: number; body: unknown }>();

  constructor(private readonly options: RegistryClientOptions) {}

  /** `GET /v0.1/servers?search=&cursor=&limit=&version=latest`: the newest version of each matching server. */
  async search(query: RegistryQuery = {}): Promise<RegistrySearchResult> {
    const baseUrl = checkBaseUrl(this.options.baseUrl());
    const params = new URLSearchParams();
    if (query.search?.trim()) params.set('search', query.search.trim().slice(0, 200));
    if (query.cursor) params.set('cursor', query.cursor);
    params.set('limit', String(Math.min(Math.max(Math.trunc(query.limit ?? 30), 1), 100)));
    params.set('version', 'latest');
    const { body, cached } = await this.get(`${baseUrl}/v0.1/servers?${params}`);
    try {
      return { ...readPage(body), baseUrl, cached };
    } catch (error) {
      throw this.formatError(baseUrl, error);
    }
  }

  /** `GET /v0.1/servers/{name}/versions/{version|latest}`: one listing. */
  async server(name: string, version = 'latest'): Promise<RegistryEntry & { baseUrl: string }> {
    const baseUrl = checkBaseUrl(this.options.baseUrl());
    if (!/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(name) || name.length > 200) {
      throw new RegistryError(`“${name}” is not a registry name; they look like io.github.owner/server`, 'setting');
    }
    if (!version || version.length > 255 || /[\s/]/.test(version)) throw new RegistryError(`“${version}” is not a version`, 'setting');
    const url = `${baseUrl}/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`;
    const { body } = await this.get(url, `${name}${version === 'latest' ? '' : ` version ${version}`}`);
    let entry: RegistryEntry;
    try {
      entry = readEntry(body);
    } catch (error) {
      throw this.formatError(baseUrl, error);
    }
    // SECURITY (invariant 7): the answer must be the listing asked for, not another one.
    if (entry.server.name !== name) throw new RegistryError(`The registry answered a request for ${name} with ${entry.server.name}; Airlock will not use it.`, 'format');
    if (version !== 'latest' && entry.server.version !== version) {
      throw new RegistryError(`The registry answered a request for ${name} ${version} with version ${entry.server.version}; Airlock will not use it.`, 'format');
    }
    return { ...entry, baseUrl };
  }

  /** Forgets every cached answer (after the base URL changed). */
  clear(): void {
    this.cache.clear();
  }

  private formatError(baseUrl: string, error: unknown): RegistryError {
    const detail = error instanceof RegistryFormatError ? error.message : String(error);
    return new RegistryError(`${baseUrl} answered, but not in the MCP Registry's format: ${detail}`, 'format');
  }

  private async get(url: string, what?: string): Promise<{ body: unknown; cached: boolean }> {
    const now = this.options.now?.() ?? Date.now();
    const hit = this.cache.get(url);
    if (hit && now - hit.at < (this.options.cacheMs ?? 60_000)) return { body: hit.body, cached: true };
    const origin = new URL(url).origin;
    const timeoutMs = this.options.timeoutMs ?? 15_000;
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new RegistryError(`${origin} did not answer within ${Math.round(timeoutMs / 1000)} s. Try again later, or check the registry address in Settings.`, 'unreachable');
      }
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new RegistryError(`Airlock could not reach ${origin} (${cause?.code ?? cause?.message ?? (error as Error).message}). Check your connection or the registry address in Settings.`, 'unreachable');
    }
    if (response.status === 404) {
      await response.body?.cancel().catch(() => undefined); // Cancelling a body Airlock will not read; the status is what is reported.
      throw new RegistryError(what ? `The registry at ${origin} has no server ${what}.` : `${origin} has no MCP Registry API here (404). Check the registry address.`, 'not-found');
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined); // Cancelling a body Airlock will not read; the status is what is reported.
      throw new RegistryError(`${origin} answered ${response.status} ${response.statusText}. Try again later.`, 'unreachable');
    }
    let text: string;
    try {
      text = await this.readCapped(response, origin);
    } catch (error) {
      if (error instanceof RegistryError) throw error;
      // The time limit covers the whole answer: a registry that starts and then stalls is as slow as one that never starts.
      throw new RegistryError(`${origin} stopped sending its answer (${(error as Error).name === 'TimeoutError' ? `not finished within ${Math.round(timeoutMs / 1000)} s` : (error as Error).message}). Try again later.`, 'unreachable');
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new RegistryError(`${origin} answered with something that is not JSON (it starts “${text.slice(0, 60).replace(/\s+/g, ' ')}”); is this an MCP Registry address?`, 'format');
    }
    if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(url, { at: now, body });
    return { body, cached: false };
  }

  private async readCapped(response: Response, origin: string): Promise<string> {
    const max = this.options.maxBytes ?? 4 * 1024 * 1024;
    const reader = response.body?.getReader();
    if (!reader) return '';
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined); // Cancelling a body past its cap; the cap is what is reported.
        throw new RegistryError(`${origin} sent more than ${Math.round(max / 1024 / 1024)} MiB for one answer; Airlock stopped reading.`, 'format');
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}
