/**
 * The MCP Registry as the rest of Airlock uses it: search and listings for
 * the "Find servers" screen and `airlock search`, the base-URL setting, and
 * listings for the install flow (which turns one into a disclosure). The
 * host composes it; it decides nothing about what runs — that is the install
 * flow's disclosure and the person's consent.
 */
import type { IpcHandlers } from '../../../shared/ipc';
import { OFFICIAL_REGISTRY_URL, type RegistryListingView, type RegistrySearchView, type RegistrySettingsView } from '../../../shared/registry';
import { AirlockError } from '../errors';
import type { AirlockStore } from '../store/store';
import { listingView, type RemoteSupport } from './install-plan';
import { checkBaseUrl, RegistryClient, RegistryError } from './registry-client';
import type { RegistryEntry } from './server-json';
import type { ShellIdentity } from '../ipc/shell-identity';

export interface RegistryRoomDeps {
  /** Where the base URL the person set is kept (`settings.registryUrl`; absent: the official registry). */
  store: Pick<AirlockStore, 'read' | 'update'>;
  /** The organisation's registry, when its policy names one (then it is the only one), and its refusal of a change. */
  organisation?: { registryUrl(): string | undefined; refuse(setting: 'registry', what: string): void };
  /** How remote servers are added (the host passes `remoteSupport`); absent: remotes are "not supported yet". */
  remote?: RemoteSupport;
  /** Client tuning (tests shorten the time limit and the cache). */
  client?: { timeoutMs?: number; cacheMs?: number; fetch?: typeof fetch };
}

export class RegistryRoom {
  readonly client: RegistryClient;

  constructor(private readonly deps: RegistryRoomDeps) {
    this.client = new RegistryClient({ baseUrl: () => this.baseUrl(), ...deps.client });
  }

  /** The base URL in use. */
  baseUrl(): string {
    return this.#setting() ?? OFFICIAL_REGISTRY_URL;
  }

  settings(): RegistrySettingsView {
    const set = this.#setting();
    return { baseUrl: set ?? OFFICIAL_REGISTRY_URL, official: set === undefined };
  }

  /** Sets the base URL (checked first: a bad one saves nothing); undefined goes back to the official registry. */
  setBaseUrl(baseUrl: string | undefined): RegistrySettingsView {
    const checked = baseUrl === undefined || baseUrl.trim() === '' ? undefined : guard(() => checkBaseUrl(baseUrl));
    const saved = checked === OFFICIAL_REGISTRY_URL ? undefined : checked;
    this.deps.organisation?.refuse('registry', `change the registry to ${saved ?? 'the official one'}`);
    this.deps.store.update((data) => {
      const { registryUrl: _old, ...settings } = data.settings;
      return { ...data, settings: saved === undefined ? settings : { ...settings, registryUrl: saved } };
    });
    this.client.clear();
    return this.settings();
  }

  async search(query: { search?: string; cursor?: string; limit?: number }): Promise<RegistrySearchView> {
    const page = await guardAsync(() => this.client.search(query));
    return {
      baseUrl: page.baseUrl,
      servers: page.entries.map((entry) => listingView(entry, this.deps.remote)),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      cached: page.cached,
      skipped: page.problems.length,
      problems: page.problems,
    };
  }

  /** One listing, as the detail shows it. */
  async listing(name: string, version?: string): Promise<RegistryListingView> {
    return listingView(await this.server(name, version), this.deps.remote);
  }

  /** One listing, for the install flow. */
  server(name: string, version?: string): Promise<RegistryEntry & { baseUrl: string }> {
    return guardAsync(() => this.client.server(name, version));
  }

  ipcHandlers(_shell: ShellIdentity): Pick<IpcHandlers, 'registry.search' | 'registry.get' | 'registry.settings' | 'registry.setBaseUrl'> {
    return {
      'registry.search': (query) => this.search(query),
      'registry.get': ({ name, version }) => this.listing(name, version),
      'registry.settings': () => this.settings(),
      'registry.setBaseUrl': ({ baseUrl }) => this.setBaseUrl(baseUrl ?? undefined),
    };
  }

  /** The base URL the person set (undefined: the official registry). */
  #setting(): string | undefined {
    return this.deps.organisation?.registryUrl() ?? this.deps.store.read().settings.registryUrl;
  }
}

/** The registry's errors as the core's: a missing listing is not-found, a bad setting invalid, the rest unavailable. */
function toAirlockError(error: unknown): unknown {
  if (!(error instanceof RegistryError)) return error;
  const code = error.reason === 'not-found' ? 'not-found' : error.reason === 'setting' ? 'invalid-request' : 'unavailable';
  return new AirlockError(code, error.message);
}

function guard<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw toAirlockError(error);
  }
}

async function guardAsync<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toAirlockError(error);
  }
}
