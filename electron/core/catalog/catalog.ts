import type {
  CompleteRequest,
  CompleteResult,
  GetPromptResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApprovedDefinition, ServerRecord } from '../../../shared/domain';
import { LogLevelSchema } from '../../../shared/domain';
import { AirlockError, messageOf } from '../errors';
import { loadMcpTypes, mcpTypes } from '../mcp-types';
import type { RequestBounds, ServerConnection, ServerNotice } from '../servers/server-connection';
import { CatalogIndex, pin, type Pinned, type ServerCatalog } from './catalog-index';
import { checkResourceSize } from './content-checks';
import { templateCovers } from './template-match';

/** What the catalog needs from the rest of the core. */
export interface CatalogDeps {
  /** Runs `use` with the server's live connection; rejects when it is not running. */
  withConnection<T>(server: string, use: (connection: ServerConnection) => Promise<T>): Promise<T>;
  /** What the server declared at its handshake, while it runs. */
  capabilities(server: string): ServerCapabilities | undefined;
  /** Starts the server when it is enabled and not running (like a tool call does). */
  ensureReady(server: string): Promise<void>;
  /** The server's record (approved prompts and templates, its log level). */
  record(server: string): ServerRecord | undefined;
  /** A note in the server's log. */
  note(server: string, text: string): void;
  now(): number;
  /** Delay that coalesces a burst of `list_changed` into one relisting. */
  refreshDelayMs?: number;
}

/** Something changed in what a server offers, or it said something. */
export type CatalogChange =
  | { server: string; kind: 'resources' }
  | { server: string; kind: 'prompts' }
  | { server: string; kind: 'resource-updated'; uri: string }
  | { server: string; kind: 'log'; level: LoggingLevel; logger?: string; data: unknown }
  | { server: string; kind: 'elicitation-complete'; elicitationId: string };

/** A subscriber (a gateway session, the window) is named by an opaque string. */
export type Subscriber = string;

/** Airlock's own interest, as a subscriber (the person's choice in Settings or the CLI). */
export const AIRLOCK_SUBSCRIBER = '\u0000airlock';

const LEVELS = LogLevelSchema.options;

interface Listing {
  running?: Promise<void>;
  timer?: ReturnType<typeof setTimeout>;
  again: Set<'resources' | 'prompts'>;
  /** Lists whose last reading failed: what was listed before may no longer be what the server offers. */
  failed: Set<'resources' | 'prompts'>;
}

/**
 * What servers offer besides tools — resources, resource templates,
 * prompts, completion, logging — for every shell: listed with caps when a
 * server becomes ready and again after each `list_changed`; prompts and
 * templates fingerprinted like tools; reads size-capped; subscriptions and
 * log levels shared by everyone who asked (a gateway session, the person),
 * so one server is asked once and each asker gets what it asked for.
 *
 * SECURITY: invariant 3, extended — a prompt or resource template that
 * changed after the person approved it is withheld (`get` refuses it, the
 * gateway leaves it out) until approved again; server data is capped and
 * flagged (content-checks.ts), never trusted.
 */
export class Catalog {
  readonly #index = new CatalogIndex();
  readonly #listings = new Map<string, Listing>();
  readonly #subscriptions = new Map<string, Map<string, Set<Subscriber>>>();
  readonly #levels = new Map<string, Map<Subscriber, LoggingLevel>>();
  readonly #applied = new Map<string, LoggingLevel>();
  readonly #listeners = new Set<(change: CatalogChange) => void>();

  constructor(private readonly deps: CatalogDeps) {}

  /** Fires when lists change, a subscribed resource updates, or a server logs (after the flood cap). */
  onDidChange(listener: (change: CatalogChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A server became ready: list everything, then subscribe again and set its log level again. */
  serverReady(server: string): Promise<void> {
    this.#applied.delete(server);
    const listed = this.#relist(server, ['resources', 'prompts']);
    void listed.then(async () => {
      await this.#resubscribe(server);
      await this.#applyLogLevel(server);
    });
    return listed;
  }

  /** A server said something: relist, pass an update on, or pass a log line on. */
  handleNotice(server: string, notice: ServerNotice): void {
    switch (notice.kind) {
      case 'resources-list-changed':
        return this.#scheduleRelist(server, 'resources');
      case 'prompts-list-changed':
        return this.#scheduleRelist(server, 'prompts');
      case 'resource-updated':
        // Only URIs someone subscribed to travel on; a server cannot push updates nobody asked for.
        if (this.#subscriptions.get(server)?.get(notice.uri)?.size) this.#fire({ server, kind: 'resource-updated', uri: notice.uri });
        return;
      case 'log':
        return this.#fire({ server, kind: 'log', level: notice.level, ...(notice.logger !== undefined ? { logger: notice.logger } : {}), data: notice.data });
      case 'elicitation-complete':
        return this.#fire({ server, kind: 'elicitation-complete', elicitationId: notice.elicitationId });
    }
  }

  /** A removed server is forgotten. */
  forget(server: string): void {
    this.#index.delete(server);
    this.#subscriptions.delete(server);
    this.#levels.delete(server);
    this.#applied.delete(server);
    const listing = this.#listings.get(server);
    if (listing?.timer) clearTimeout(listing.timer);
    this.#listings.delete(server);
  }

  /** The server's catalog as last listed, after any listing in progress. */
  async current(server: string): Promise<ServerCatalog | undefined> {
    await this.#listings.get(server)?.running?.catch(() => undefined); // A listing that failed reported it itself; this only waits for it to end.
    return this.#index.get(server);
  }

  /** The last listing without waiting (views). */
  snapshot(server: string): ServerCatalog | undefined {
    return this.#index.get(server);
  }

  /** Whether a prompt or template changed since the person approved it (then it is withheld). */
  pendingChange(server: string, kind: 'prompt' | 'resource-template', pinned: Pinned<unknown>): ApprovedDefinition | undefined {
    const approved = approvedOf(this.deps.record(server), kind, pinned.key);
    return approved && approved.fingerprint !== pinned.fingerprint ? approved : undefined;
  }

  /**
   * Why a prompt or template is withheld from apps and from use: `new` (the
   * server listed it after the person reviewed it), `changed` (since they
   * approved it), or undefined (approved as it is).
   * SECURITY: what the person never reviewed is not served — as a new tool
   * asks, a new prompt waits for approval (a server can swap a reviewed
   * prompt for one with another name).
   */
  withheld(server: string, kind: 'prompt' | 'resource-template', pinned: Pinned<unknown>): 'new' | 'changed' | undefined {
    const approved = approvedOf(this.deps.record(server), kind, pinned.key);
    if (!approved) return 'new';
    return approved.fingerprint !== pinned.fingerprint ? 'changed' : undefined;
  }

  /** Resources of the given servers (listed, not read). */
  async resources(servers: readonly string[]): Promise<Array<{ server: string; resource: Resource }>> {
    const out: Array<{ server: string; resource: Resource }> = [];
    for (const server of servers) for (const resource of (await this.current(server))?.resources ?? []) out.push({ server, resource });
    return out;
  }

  /** Resource templates of the given servers, without those withheld since a change. */
  async resourceTemplates(servers: readonly string[]): Promise<Array<{ server: string; template: ResourceTemplate }>> {
    const out: Array<{ server: string; template: ResourceTemplate }> = [];
    for (const server of servers) {
      for (const pinned of (await this.current(server))?.resourceTemplates ?? []) {
        if (!this.withheld(server, 'resource-template', pinned)) out.push({ server, template: pinned.definition });
      }
    }
    return out;
  }

  /** Prompts of the given servers, without those withheld since a change. */
  async prompts(servers: readonly string[]): Promise<Array<{ server: string; prompt: Prompt }>> {
    const out: Array<{ server: string; prompt: Prompt }> = [];
    for (const server of servers) {
      for (const pinned of (await this.current(server))?.prompts ?? []) {
        if (!this.withheld(server, 'prompt', pinned)) out.push({ server, prompt: pinned.definition });
      }
    }
    return out;
  }

  /**
   * Reads a resource (starting the server if enabled); contents past the cap
   * are refused. A URI only a template the person has not approved would
   * make is refused; a listed resource, a URI of an approved template, and
   * one the server lists nowhere (a link in a tool's result, as MCP allows)
   * are read.
   */
  async readResource(server: string, uri: string, bounds: RequestBounds = {}): Promise<ReadResourceResult> {
    this.#offers(server, 'resources', 'resources');
    await this.deps.ensureReady(server);
    this.#refuseWithheldRead(server, uri, await this.current(server));
    const result = await this.#request(server, (connection) => connection.readResource(uri, bounds));
    checkResourceSize(server, uri, result);
    return result;
  }

  /**
   * Gets a prompt with its arguments: only one the server lists, as the
   * person approved it. SECURITY: a prompt the server does not list (one
   * dropped from its list, one it never listed) is refused like a new one —
   * a server cannot serve words nobody reviewed under a name it keeps off
   * its list.
   */
  async getPrompt(server: string, name: string, args: Record<string, string> | undefined, bounds: RequestBounds = {}): Promise<GetPromptResult> {
    this.#offers(server, 'prompts', 'prompts');
    await this.deps.ensureReady(server);
    this.#refuseUnapprovedPrompt(server, name, await this.current(server));
    return this.#request(server, (connection) => connection.getPrompt(name, args, bounds));
  }

  /** Completion for a prompt's or a resource template's argument: only one the server lists, as the person approved it. */
  async complete(server: string, params: CompleteRequest['params'], bounds: RequestBounds = {}): Promise<CompleteResult> {
    await this.deps.ensureReady(server);
    const listed = await this.current(server);
    const ref = params.ref;
    if (ref.type === 'ref/prompt') this.#refuseUnapprovedPrompt(server, ref.name, listed);
    else if (ref.type === 'ref/resource') {
      if (!listed || this.#listings.get(server)?.failed.has('resources')) throw unlistedError(server, `resource template “${ref.uri}”`, true);
      const pinned = this.#index.template(server, ref.uri);
      const withheld = pinned ? this.withheld(server, 'resource-template', pinned) : undefined;
      if (withheld) throw withheldError(server, 'resource template', withheld, `airlock resources ${server} --approve-template ${ref.uri}`);
      if (!pinned && !listed.resources.some((resource) => resource.uri === ref.uri)) throw unlistedError(server, `resource template “${ref.uri}”`, false);
    } else throw new AirlockError('invalid-request', 'Completion is for a prompt’s or a resource template’s argument.');
    return this.#request(server, (connection) => connection.complete(params, bounds));
  }

  #refuseUnapprovedPrompt(server: string, name: string, listed: ServerCatalog | undefined): void {
    // SECURITY: a list that could not be read again says nothing of what the server offers now.
    if (!listed || this.#listings.get(server)?.failed.has('prompts')) throw unlistedError(server, `prompt “${name}”`, true);
    const pinned = this.#index.prompt(server, name);
    if (!pinned) throw unlistedError(server, `prompt “${name}”`, false);
    const withheld = this.withheld(server, 'prompt', pinned);
    if (withheld) throw withheldError(server, `prompt “${name}”`, withheld, `airlock prompts ${server} --approve ${name}`);
  }

  /** SECURITY: a URI only unapproved templates would make is not read (their description was never reviewed: they are withheld). */
  #refuseWithheldRead(server: string, uri: string, listed: ServerCatalog | undefined): void {
    if (!listed || listed.resources.some((resource) => resource.uri === uri)) return;
    const makers = listed.resourceTemplates.filter((template) => templateCovers(template.key, uri));
    if (makers.length === 0 || makers.some((template) => !this.withheld(server, 'resource-template', template))) return;
    const template = makers[0]!;
    throw withheldError(server, `resource template “${template.key}”`, this.withheld(server, 'resource-template', template)!, `airlock resources ${server} --approve-template ${template.key}`);
  }

  /** `subscriber` wants `resources/updated` for a URI; the server is asked once for everyone. */
  async subscribe(server: string, uri: string, subscriber: Subscriber): Promise<void> {
    this.#offers(server, 'resources', 'resource subscriptions', (caps) => caps.resources?.subscribe === true);
    await this.deps.ensureReady(server);
    const byUri = this.#subscriptions.get(server) ?? new Map<string, Set<Subscriber>>();
    this.#subscriptions.set(server, byUri);
    const subscribers = byUri.get(uri) ?? new Set<Subscriber>();
    const first = subscribers.size === 0;
    subscribers.add(subscriber);
    byUri.set(uri, subscribers);
    if (!first) return;
    try {
      await this.#request(server, (connection) => connection.subscribeResource(uri));
    } catch (error) {
      subscribers.delete(subscriber);
      if (subscribers.size === 0) byUri.delete(uri);
      throw error;
    }
  }

  /** `subscriber` no longer wants updates; the server is told when nobody does. */
  async unsubscribe(server: string, uri: string, subscriber: Subscriber): Promise<void> {
    const subscribers = this.#subscriptions.get(server)?.get(uri);
    if (!subscribers?.delete(subscriber) || subscribers.size > 0) return;
    this.#subscriptions.get(server)?.delete(uri);
    await this.#request(server, (connection) => connection.unsubscribeResource(uri)).catch(() => undefined); // The subscriber is forgotten whatever the server says; a server gone has no subscription.
  }

  /** Who subscribed to a URI (gateway sessions forward updates only for their own). */
  isSubscribed(server: string, uri: string, subscriber: Subscriber): boolean {
    return this.#subscriptions.get(server)?.get(uri)?.has(subscriber) === true;
  }

  /**
   * Sets the least severe log level `subscriber` wants from a server. The
   * server is asked for the most verbose level anyone wants (each gateway
   * session filters to its own); `undefined` withdraws the subscriber's wish.
   */
  async setLogLevel(server: string, level: LoggingLevel | undefined, subscriber: Subscriber): Promise<void> {
    const levels = this.#levels.get(server) ?? new Map<Subscriber, LoggingLevel>();
    this.#levels.set(server, levels);
    if (level === undefined) levels.delete(subscriber);
    else levels.set(subscriber, level);
    await this.#applyLogLevel(server);
  }

  /** A subscriber (a closed gateway session) goes away: its subscriptions and log levels end. */
  async release(subscriber: Subscriber): Promise<void> {
    for (const [server, byUri] of this.#subscriptions) {
      for (const uri of [...byUri.keys()]) if (byUri.get(uri)?.has(subscriber)) await this.unsubscribe(server, uri, subscriber);
    }
    for (const [server, levels] of this.#levels) {
      if (levels.delete(subscriber)) await this.#applyLogLevel(server).catch(() => undefined); // A server that cannot take its level keeps its own; its next start applies Airlock's.
    }
  }

  /** The level the server is asked for now: the most verbose wish (Airlock's own persisted one included). */
  effectiveLogLevel(server: string): LoggingLevel | undefined {
    const wishes = [...(this.#levels.get(server)?.values() ?? [])];
    const own = this.deps.record(server)?.logLevel;
    if (own) wishes.push(own);
    if (wishes.length === 0) return undefined;
    return wishes.reduce((a, b) => (LEVELS.indexOf(a) <= LEVELS.indexOf(b) ? a : b));
  }

  async #applyLogLevel(server: string): Promise<void> {
    const level = this.effectiveLogLevel(server);
    if (!level || this.#applied.get(server) === level) return;
    if (!this.deps.capabilities(server)?.logging) return;
    try {
      await this.deps.withConnection(server, (connection) => connection.setLoggingLevel(level));
      this.#applied.set(server, level);
    } catch (error) {
      this.deps.note(server, `setting the log level to ${level} failed: ${messageOf(error)}`);
    }
  }

  async #resubscribe(server: string): Promise<void> {
    for (const uri of this.#subscriptions.get(server)?.keys() ?? []) {
      await this.deps.withConnection(server, (connection) => connection.subscribeResource(uri)).catch((error: unknown) => this.deps.note(server, `subscribing again to a resource failed: ${messageOf(error)}`));
    }
  }

  #offers(server: string, capability: 'resources' | 'prompts', what: string, check?: (caps: ServerCapabilities) => boolean): void {
    const caps = this.deps.capabilities(server);
    // Before the first start the capabilities are unknown: let the request try (it starts the server).
    if (caps && (!caps[capability] || (check && !check(caps)))) throw new AirlockError('not-found', `${server} does not offer ${what}.`);
  }

  async #request<T>(server: string, use: (connection: ServerConnection) => Promise<T>): Promise<T> {
    try {
      return await this.deps.withConnection(server, use);
    } catch (error) {
      if (error instanceof AirlockError) throw error;
      // A connection's errors come from the SDK, which has loaded its types by then (this loads nothing more).
      const { McpError } = await loadMcpTypes();
      if (error instanceof McpError) throw new ServerAnswerError(server, error.code, error.message.replace(/^MCP error -?\d+: /, ''));
      throw new AirlockError('unavailable', `${server}: ${messageOf(error)}`);
    }
  }

  #scheduleRelist(server: string, what: 'resources' | 'prompts'): void {
    const listing = this.#listings.get(server) ?? { again: new Set(), failed: new Set() };
    this.#listings.set(server, listing);
    listing.again.add(what);
    if (listing.timer) return;
    listing.timer = setTimeout(() => {
      listing.timer = undefined;
      const kinds = [...listing.again];
      listing.again.clear();
      void this.#relist(server, kinds);
    }, this.deps.refreshDelayMs ?? 50);
  }

  /** Lists what the server declared (paging capped), one listing at a time per server. */
  #relist(server: string, kinds: Array<'resources' | 'prompts'>): Promise<void> {
    const listing = this.#listings.get(server) ?? { again: new Set(), failed: new Set() };
    this.#listings.set(server, listing);
    const previous = listing.running ?? Promise.resolve();
    const run = previous
      .catch(() => undefined) // The previous listing's failure was reported by it; this one runs regardless.
      .then(() => this.#list(server, kinds))
      .then(
        () => kinds.forEach((kind) => listing.failed.delete(kind)),
        (error: unknown) => {
          kinds.forEach((kind) => listing.failed.add(kind));
          this.deps.note(server, `listing ${kinds.join(' and ')} failed: ${messageOf(error)}`);
        },
      );
    listing.running = run;
    return run;
  }

  async #list(server: string, kinds: Array<'resources' | 'prompts'>): Promise<void> {
    const caps = this.deps.capabilities(server) ?? {};
    const change: Partial<ServerCatalog> = {};
    const truncated = new Set(this.#index.get(server)?.truncated ?? []);
    if (kinds.includes('resources')) {
      for (const name of ['resources', 'resource templates']) truncated.delete(name);
      if (caps.resources) {
        const [resources, templates] = await this.deps.withConnection(server, async (connection) => [await connection.listResources(), await connection.listResourceTemplates()] as const);
        change.resources = resources.items;
        change.resourceTemplates = pin(templates.items, (template) => template.uriTemplate);
        if (resources.truncated) truncated.add('resources');
        if (templates.truncated) truncated.add('resource templates');
      } else {
        change.resources = [];
        change.resourceTemplates = [];
      }
    }
    if (kinds.includes('prompts')) {
      truncated.delete('prompts');
      if (caps.prompts) {
        const prompts = await this.deps.withConnection(server, (connection) => connection.listPrompts());
        change.prompts = pin(prompts.items, (prompt) => prompt.name);
        if (prompts.truncated) truncated.add('prompts');
      } else change.prompts = [];
    }
    this.#index.update(server, { ...change, truncated: [...truncated] }, this.deps.now());
    for (const kind of kinds) this.#fire({ server, kind });
  }

  #fire(change: CatalogChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch {
        // one broken listener must not stop the others
      }
    }
  }
}

/**
 * The server answered a catalog request with an MCP error: said to a person
 * as "<server>: <message>", and relayed to a gateway client with the
 * server's own code (a missing resource stays -32002, bad params -32602).
 */
export class ServerAnswerError extends AirlockError {
  constructor(
    server: string,
    readonly mcpCode: number,
    readonly serverMessage: string,
  ) {
    super(mcpCode === mcpTypes().ErrorCode.InvalidParams || mcpCode === -32002 ? 'not-found' : 'unavailable', `${server}: ${serverMessage}`);
    this.name = 'ServerAnswerError';
  }
}

/** The refusal of a withheld prompt or template, with what to do. */
function withheldError(server: string, what: string, why: 'new' | 'changed', fix: string): AirlockError {
  const said = why === 'new' ? `is new since you reviewed ${server}` : 'changed since you approved it';
  return new AirlockError('conflict', `${server}'s ${what} ${said}, so Airlock does not use it until you approve it: review it on the server's page in Airlock, or run \`${fix}\`.`);
}

/** The refusal of a prompt or template the server does not list (or could not be listed). */
function unlistedError(server: string, what: string, notListed: boolean): AirlockError {
  if (notListed) return new AirlockError('unavailable', `Airlock could not list what ${server} offers, so it does not use its ${what}: only what a server lists, and you reviewed, is served.`);
  return new AirlockError('not-found', `${server} does not list a ${what}, so Airlock does not use it: only what a server lists, and you reviewed, is served.`);
}

/** The approved definition of a prompt or template, looked up without trusting the key. */
export function approvedOf(record: ServerRecord | undefined, kind: 'prompt' | 'resource-template', key: string): ApprovedDefinition | undefined {
  const map = kind === 'prompt' ? record?.approvedPrompts : record?.approvedResourceTemplates;
  // SECURITY: names are data — `constructor` or `__proto__` must not find Object.prototype.
  return map && Object.hasOwn(map, key) ? map[key] : undefined;
}

