/**
 * The catalog as the rest of Airlock uses it: the IPC handlers of the
 * Resources and Prompts tabs, approvals of changed prompts and templates,
 * Airlock's own log level per server, and the gateway's view. The host
 * composes it; it holds no policy of its own beyond the catalog's.
 */
import type { LoggingLevel, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovedDefinition, ServerRecord, ServerState } from '../../../shared/domain';
import type { EmitEvent, IpcHandlers } from '../../../shared/ipc';
import type { CatalogView } from '../../../shared/views';
import { AirlockError, messageOf } from '../errors';
import type { GatewayCatalog } from '../gateway/gateway-core';
import type { ServerConnection } from '../servers/server-connection';
import { AIRLOCK_SUBSCRIBER, Catalog } from './catalog';
import type { ShellIdentity } from '../ipc/shell-identity';
import { toCatalogView, toPromptResultView, toResourceReadView } from './views';

/** The subscriber name of Airlock's own window (resources it watches). */
const WINDOW_SUBSCRIBER = '\u0000window';

/** What the room needs from the rest of the core. */
export interface CatalogRoomDeps {
  withConnection<T>(server: string, use: (connection: ServerConnection) => Promise<T>): Promise<T>;
  status(server: string): { state: ServerState; capabilities?: ServerCapabilities; serverInfo?: { name: string; version: string; title?: string }; instructions?: string };
  start(server: string): Promise<void>;
  note(server: string, text: string): void;
  /** Every record, read fresh. */
  records(): Readonly<Record<string, ServerRecord>>;
  /** Changes one record (throws not-found for an unknown server). */
  updateRecord(name: string, change: (record: ServerRecord) => ServerRecord): ServerRecord;
  emit: EmitEvent;
  now(): number;
}

export class CatalogRoom {
  readonly catalog: Catalog;

  constructor(private readonly deps: CatalogRoomDeps) {
    this.catalog = new Catalog({
      withConnection: deps.withConnection,
      capabilities: (server) => deps.status(server).capabilities,
      ensureReady: (server) => this.#ensureReady(server),
      record: (server) => own(deps.records(), server),
      note: deps.note,
      now: deps.now,
    });
    this.catalog.onDidChange((change) => {
      if (change.kind === 'resources' || change.kind === 'prompts') deps.emit('catalog.didChange', { server: change.server, kind: change.kind });
      else if (change.kind === 'resource-updated' && this.catalog.isSubscribed(change.server, change.uri, WINDOW_SUBSCRIBER)) {
        deps.emit('catalog.didChange', { server: change.server, kind: 'resource-updated', uri: change.uri });
      }
    });
  }

  /** The catalog view of one server (its last listing; the live one once it runs). */
  async view(name: string): Promise<CatalogView> {
    const record = this.#record(name);
    const status = this.deps.status(name);
    const listing = await this.catalog.current(name);
    const problem = listing ? undefined : status.state === 'ready' ? undefined : record.enabled ? `${name} is ${status.state}; its resources and prompts are listed once it runs.` : `${name} is disabled; start it to see its resources and prompts.`;
    return toCatalogView(record, status.state, status.capabilities, listing, problem);
  }

  /** Approves the definition of a prompt or template the person reviewed (by fingerprint). */
  async approve(name: string, kind: 'prompt' | 'resource-template', key: string, fingerprint: string): Promise<CatalogView> {
    this.#record(name);
    const listing = await this.catalog.current(name);
    const pinned = kind === 'prompt' ? listing?.prompts.find((p) => p.key === key) : listing?.resourceTemplates.find((t) => t.key === key);
    if (!pinned) throw new AirlockError('not-found', `${name} does not offer ${kind === 'prompt' ? 'a prompt named' : 'the resource template'} ${key} right now.`);
    if (pinned.fingerprint !== fingerprint) throw new AirlockError('conflict', `It changed again since you looked at it; review the new change.`);
    const approved: ApprovedDefinition = { fingerprint, definition: structuredClone(pinned.definition), approvedAt: new Date(this.deps.now()).toISOString() };
    this.deps.updateRecord(name, (record) =>
      kind === 'prompt'
        ? { ...record, approvedPrompts: { ...record.approvedPrompts, [key]: approved } }
        : { ...record, approvedResourceTemplates: { ...record.approvedResourceTemplates, [key]: approved } },
    );
    return this.view(name);
  }

  /** Airlock's own log level for a server (persisted, applied now if it runs and at each start). */
  async setOwnLogLevel(name: string, level: LoggingLevel | null): Promise<{ level?: LoggingLevel }> {
    this.deps.updateRecord(name, (record) => {
      const { logLevel: _previous, ...rest } = record;
      return level ? { ...rest, logLevel: level } : rest;
    });
    const caps = this.deps.status(name).capabilities;
    if (caps && !caps.logging) throw new AirlockError('not-found', `${name} does not offer logging; its level was kept for when it does.`);
    await this.catalog.setLogLevel(name, level ?? undefined, AIRLOCK_SUBSCRIBER);
    return level ? { level } : {};
  }

  /**
   * One handler per catalog channel, for the shell that calls. Live updates
   * of a resource are the window's (it shows them); a terminal reads.
   */
  ipcHandlers(shell: ShellIdentity): Pick<IpcHandlers, 'catalog.get' | 'catalog.approve' | 'resources.read' | 'resources.subscribe' | 'prompts.get' | 'completion.complete' | 'logging.setLevel'> {
    return {
      'catalog.get': ({ name }) => this.view(name),
      'catalog.approve': ({ name, kind, key, fingerprint }) => this.approve(name, kind, key, fingerprint),
      'resources.read': async ({ server, uri }) => (this.#record(server), toResourceReadView(server, uri, await this.catalog.readResource(server, uri))),
      'resources.subscribe': async ({ server, uri, subscribe }) => {
        this.#record(server);
        if (shell.kind !== 'window') throw new AirlockError('unavailable', 'Live updates of a resource are shown in the Airlock window; read it again with `airlock read` instead.');
        if (subscribe) await this.catalog.subscribe(server, uri, WINDOW_SUBSCRIBER);
        else await this.catalog.unsubscribe(server, uri, WINDOW_SUBSCRIBER);
        return {};
      },
      'prompts.get': async ({ server, name, arguments: args }) => (this.#record(server), toPromptResultView(server, name, await this.catalog.getPrompt(server, name, args))),
      'completion.complete': async ({ server, ref, argument, context }) => {
        this.#record(server);
        const result = await this.catalog.complete(server, { ref, argument, ...(context ? { context } : {}) });
        return {
          values: result.completion.values.slice(0, 100),
          ...(result.completion.total !== undefined ? { total: result.completion.total } : {}),
          ...(result.completion.hasMore !== undefined ? { hasMore: result.completion.hasMore } : {}),
        };
      },
      'logging.setLevel': ({ name, level }) => this.setOwnLogLevel(name, level),
    };
  }

  /** The catalog as the gateway sees it: enabled servers only. */
  gateway(): GatewayCatalog {
    const enabled = (servers: readonly string[]) => servers.filter((server) => own(this.deps.records(), server)?.enabled === true);
    return {
      describe: async (server) => {
        const record = this.#record(server);
        if (!record.enabled) throw new AirlockError('unavailable', `${server} is disabled; start it first (airlock start ${server}).`);
        await this.#ensureReady(server);
        await this.catalog.current(server);
        const status = this.deps.status(server);
        return {
          server,
          capabilities: status.capabilities ?? {},
          ...(status.serverInfo ? { serverInfo: status.serverInfo } : {}),
          ...(status.instructions !== undefined ? { instructions: status.instructions } : {}),
        };
      },
      servers: async (filter) => enabled(filter ?? Object.keys(this.deps.records())),
      resources: (servers) => this.catalog.resources(enabled(servers)),
      resourceTemplates: (servers) => this.catalog.resourceTemplates(enabled(servers)),
      prompts: (servers) => this.catalog.prompts(enabled(servers)),
      readResource: async (server, uri, bounds) => {
        this.#enabled(server);
        return this.catalog.readResource(server, uri, bounds);
      },
      getPrompt: async (server, name, args, bounds) => {
        this.#enabled(server);
        return this.catalog.getPrompt(server, name, args, bounds);
      },
      complete: async (server, params, bounds) => {
        this.#enabled(server);
        return this.catalog.complete(server, params, bounds);
      },
      subscribe: async (server, uri, subscriber) => {
        this.#enabled(server);
        return this.catalog.subscribe(server, uri, subscriber);
      },
      unsubscribe: (server, uri, subscriber) => this.catalog.unsubscribe(server, uri, subscriber),
      setLogLevel: async (server, level, subscriber) => {
        this.#enabled(server);
        return this.catalog.setLogLevel(server, level, subscriber);
      },
      release: (subscriber) => this.catalog.release(subscriber),
      onDidChange: (listener) => {
        const dispose = this.catalog.onDidChange(listener);
        return { dispose };
      },
    };
  }

  async #ensureReady(server: string): Promise<void> {
    // A running server needs no look at the store (a read of the settings file per request).
    if (this.deps.status(server).state === 'ready') return;
    const record = own(this.deps.records(), server);
    if (!record) throw new AirlockError('not-found', `There is no server named ${server}.`);
    if (!record.enabled) throw new AirlockError('unavailable', `${server} is disabled; start it first.`);
    try {
      await this.deps.start(server);
    } catch (error) {
      throw new AirlockError('unavailable', `${server} did not start: ${messageOf(error)}`);
    }
  }

  #record(name: string): ServerRecord {
    const record = own(this.deps.records(), name);
    if (!record) throw new AirlockError('not-found', `There is no server named ${name}.`);
    return record;
  }

  #enabled(name: string): void {
    // SECURITY: a gateway client reaches only enabled servers, as for tools.
    if (!this.#record(name).enabled) throw new AirlockError('not-found', `There is no enabled server named ${name}.`);
  }
}

function own(records: Readonly<Record<string, ServerRecord>>, name: string): ServerRecord | undefined {
  return Object.hasOwn(records, name) ? records[name] : undefined;
}
