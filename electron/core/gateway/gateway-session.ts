/**
 * Everything a gateway session relays besides tool calls: resources,
 * templates, prompts, completion, logging and subscriptions from the core's
 * catalog to the client, and what servers ask back (sampling, elicitation)
 * from the core to the client — after Airlock's decision, never before
 * (the core's server-request pipeline decides; this only carries).
 *
 * Names are mapped by a `GatewayNaming`: namespaced (`server__prompt`,
 * `airlock://server/<uri>`) when several servers share the gateway, the
 * original ones in the transparent single-server mode (`airlock run`).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  LoggingLevelSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { AirlockError, messageOf } from '../errors';
import type { CatalogChange } from '../catalog/catalog';
import type { GatewayCatalog, GatewayCore } from './gateway-core';
import { gatewayPromptName, gatewayResourceUri, parseGatewayPromptName, parseGatewayResourceUri } from './catalog-names';
import { SCREEN_URI_SCHEME } from '../../../shared/screens';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How a session names what servers offer. */
export interface GatewayNaming {
  prompt(server: string, name: string): string | undefined;
  parsePrompt(name: string): { server: string; prompt: string } | undefined;
  uri(server: string, uri: string): string | undefined;
  parseUri(uri: string): { server: string; uri: string } | undefined;
}

/** Several servers behind one gateway: names that cannot collide. */
export const NAMESPACED: GatewayNaming = {
  prompt: gatewayPromptName,
  parsePrompt: parseGatewayPromptName,
  uri: gatewayResourceUri,
  parseUri: parseGatewayResourceUri,
};

/** One server, served as itself: its own names and URIs. */
export function transparentNaming(server: string): GatewayNaming {
  return {
    prompt: (_server, name) => name,
    parsePrompt: (name) => ({ server, prompt: name }),
    uri: (_server, uri) => uri,
    parseUri: (uri) => ({ server, uri }),
  };
}

const LEVELS = LoggingLevelSchema.options;
/** How long a relayed sampling request or question may take at the client (a person answers there). */
const RELAY_TIMEOUT_MS = 10 * 60_000;

/** Per session: which calls are running (the stream a server's request belongs on), level, subscriptions. */
export class GatewaySession {
  /** The subscriber name this session has in the catalog. */
  readonly subscriber = `gateway:${randomUUID()}`;
  readonly #calls = new Map<string, Extra[]>();
  readonly #subscriptions = new Set<string>();
  readonly #screens = new Set<string>();
  #level: LoggingLevel | undefined;

  /** The client read one of `server`'s screens (a `ui://` resource): it may be showing it, and relaying its calls. */
  openedScreen(server: string): void {
    this.#screens.add(server);
  }

  /** The servers whose screens this client read. */
  screenServers(): ReadonlySet<string> {
    return this.#screens;
  }

  /** Notes a running call to `server`; returns its end. */
  callStarted(server: string, extra: Extra): () => void {
    const list = this.#calls.get(server) ?? [];
    list.push(extra);
    this.#calls.set(server, list);
    return () => {
      const current = this.#calls.get(server) ?? [];
      const at = current.indexOf(extra);
      if (at >= 0) current.splice(at, 1);
      if (current.length === 0) this.#calls.delete(server);
    };
  }

  /** The latest running call to `server`, if any (a server's request is sent on its stream). */
  latestCall(server: string): Extra | undefined {
    const list = this.#calls.get(server);
    return list?.[list.length - 1];
  }

  get level(): LoggingLevel | undefined {
    return this.#level;
  }

  set level(level: LoggingLevel | undefined) {
    this.#level = level;
  }

  /** Whether a log line at `level` passes this session's level. */
  wants(level: LoggingLevel): boolean {
    return this.#level === undefined || LEVELS.indexOf(level) >= LEVELS.indexOf(this.#level);
  }

  subscribe(server: string, uri: string): void {
    this.#subscriptions.add(`${server}\u0000${uri}`);
  }

  unsubscribe(server: string, uri: string): void {
    this.#subscriptions.delete(`${server}\u0000${uri}`);
  }

  isSubscribed(server: string, uri: string): boolean {
    return this.#subscriptions.has(`${server}\u0000${uri}`);
  }
}

/** What the catalog relay needs to know about its session. */
export interface CatalogRelayOptions {
  catalog: GatewayCatalog;
  /** What the session's server declared (handlers are added only for these). */
  capabilities: ServerCapabilities;
  naming: GatewayNaming;
  session: GatewaySession;
  /** The servers this session sees (the `--servers` filter, or the one server). */
  servers: () => Promise<string[]>;
  /** Whether the client shows screens (MCP Apps); when not, `ui://` resources are neither listed nor read (default: it does). */
  showsScreens?: () => boolean;
  /** True once the client finished `initialize` (notifications may flow). */
  initialized: () => boolean;
  log: (message: string) => void;
}

/**
 * Adds the resources, prompts, completion and logging handlers to a
 * session's `Server` (only those its capabilities declare), and forwards the
 * catalog's changes. Returns the function that stops forwarding.
 */
export function relayCatalog(server: Server, options: CatalogRelayOptions): () => void {
  const { catalog, naming, session, log } = options;
  const caps = options.capabilities;

  const address = (servers: readonly string[], parsed: { server: string } | undefined, what: string) => {
    if (!parsed || !servers.includes(parsed.server)) throw new McpError(ErrorCode.InvalidParams, `Unknown ${what}`);
    return parsed.server;
  };
  // A client that shows no screens is offered none: a screen is a page for an app that renders it.
  const hidden = (uri: string) => options.showsScreens?.() === false && uri.startsWith(SCREEN_URI_SCHEME);
  const refuseHidden = (parsed: { uri: string } | undefined, asked: string) => {
    if (parsed && hidden(parsed.uri)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${asked} (a screen: this app did not say it can show screens — the io.modelcontextprotocol/ui extension — so Airlock offers it none)`);
    }
  };

  if (caps.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async () => {
      const resources = [];
      for (const { server: name, resource } of await catalog.resources(await options.servers())) {
        if (hidden(resource.uri)) continue;
        const uri = naming.uri(name, resource.uri);
        if (uri) resources.push({ ...resource, uri });
      }
      return { resources };
    });
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
      const resourceTemplates = [];
      for (const { server: name, template } of await catalog.resourceTemplates(await options.servers())) {
        if (hidden(template.uriTemplate)) continue;
        const uriTemplate = naming.uri(name, template.uriTemplate);
        if (uriTemplate) resourceTemplates.push({ ...template, uriTemplate });
      }
      return { resourceTemplates };
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const parsed = naming.parseUri(request.params.uri);
      const name = address(await options.servers(), parsed, `resource: ${request.params.uri}`);
      refuseHidden(parsed, request.params.uri);
      const result = await relayed(() => catalog.readResource(name, parsed!.uri, { signal: extra.signal, ...progressTo(extra, request.params._meta?.progressToken) }));
      // The client read a screen: from now on a bare tool name may be that screen's call (see screenToolAddress).
      if (parsed!.uri.startsWith(SCREEN_URI_SCHEME)) session.openedScreen(name);
      return { ...result, contents: result.contents.map((item) => ({ ...item, uri: naming.uri(name, item.uri) ?? item.uri })) };
    });
    if (caps.resources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, async (request) => {
        const parsed = naming.parseUri(request.params.uri);
        const name = address(await options.servers(), parsed, `resource: ${request.params.uri}`);
        refuseHidden(parsed, request.params.uri);
        await relayed(() => catalog.subscribe(name, parsed!.uri, session.subscriber));
        session.subscribe(name, parsed!.uri);
        return {};
      });
      server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
        const parsed = naming.parseUri(request.params.uri);
        if (parsed) {
          session.unsubscribe(parsed.server, parsed.uri);
          await relayed(() => catalog.unsubscribe(parsed.server, parsed.uri, session.subscriber));
        }
        return {};
      });
    }
  }

  if (caps.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async () => {
      const prompts = [];
      for (const { server: name, prompt } of await catalog.prompts(await options.servers())) {
        const promptName = naming.prompt(name, prompt.name);
        if (promptName) prompts.push({ ...prompt, name: promptName });
      }
      return { prompts };
    });
    server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      const parsed = naming.parsePrompt(request.params.name);
      const name = address(await options.servers(), parsed, `prompt: ${request.params.name}`);
      const result = await relayed(() => catalog.getPrompt(name, parsed!.prompt, request.params.arguments, { signal: extra.signal }));
      // Embedded resources and links point back through the gateway.
      return { ...result, messages: result.messages.map((message) => ({ ...message, content: mapContentUri(message.content, name, naming) })) };
    });
  }

  if (caps.completions) {
    server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
      const ref = request.params.ref;
      const servers = await options.servers();
      if (ref.type === 'ref/prompt') {
        const parsed = naming.parsePrompt(ref.name);
        const name = address(servers, parsed, `prompt: ${ref.name}`);
        return relayed(() => catalog.complete(name, { ...request.params, ref: { ...ref, name: parsed!.prompt } }, { signal: extra.signal }));
      }
      const parsed = naming.parseUri(ref.uri);
      const name = address(servers, parsed, `resource template: ${ref.uri}`);
      return relayed(() => catalog.complete(name, { ...request.params, ref: { ...ref, uri: parsed!.uri } }, { signal: extra.signal }));
    });
  }

  if (caps.logging) {
    server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      session.level = request.params.level;
      // The servers are asked for the most verbose level any session wants; this session then
      // gets only what passes its own.
      for (const name of await options.servers()) {
        await catalog.setLogLevel(name, request.params.level, session.subscriber).catch((error: unknown) => log(`gateway: setting ${name}'s log level failed: ${messageOf(error)}`));
      }
      return {};
    });
  }

  let pendingLists = new Set<'resources' | 'prompts'>();
  const onChange = async (change: CatalogChange) => {
    if (!options.initialized()) return;
    if (!(await options.servers()).includes(change.server)) return;
    switch (change.kind) {
      case 'resources':
      case 'prompts': {
        if ((change.kind === 'resources' && !caps.resources?.listChanged) || (change.kind === 'prompts' && !caps.prompts?.listChanged)) return;
        // Several changes in one turn make one notification.
        if (pendingLists.size === 0) {
          queueMicrotask(() => {
            const kinds = pendingLists;
            pendingLists = new Set();
            for (const kind of kinds) {
              const sent = kind === 'resources' ? server.sendResourceListChanged() : server.sendPromptListChanged();
              sent.catch((error: unknown) => log(`gateway: could not send ${kind}/list_changed: ${messageOf(error)}`));
            }
          });
        }
        pendingLists.add(change.kind);
        return;
      }
      case 'resource-updated': {
        if (!session.isSubscribed(change.server, change.uri)) return;
        const uri = naming.uri(change.server, change.uri);
        if (uri) await server.sendResourceUpdated({ uri }).catch((error: unknown) => log(`gateway: could not relay a resource update: ${messageOf(error)}`));
        return;
      }
      case 'log': {
        if (!caps.logging || !session.wants(change.level)) return;
        const params = { level: change.level, ...(change.logger !== undefined || naming === NAMESPACED ? { logger: naming === NAMESPACED ? `${change.server}${change.logger ? `/${change.logger}` : ''}` : change.logger } : {}), data: change.data };
        // A line logged during a call goes on that call's stream (streamable HTTP), like the server sent it.
        const call = session.latestCall(change.server);
        const sent = call ? call.sendNotification({ method: 'notifications/message', params }) : server.notification({ method: 'notifications/message', params });
        await sent.catch((error: unknown) => log(`gateway: could not relay a log line: ${messageOf(error)}`));
        return;
      }
      case 'elicitation-complete': {
        if (!server.getClientCapabilities()?.elicitation?.url) return;
        await server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: change.elicitationId } }).catch(() => undefined); // The client may be gone; a lost completion notice is harmless (the question already ended).
        return;
      }
    }
  };
  const subscription = catalog.onDidChange((change) => void onChange(change).catch((error: unknown) => log(`gateway: relaying a change failed: ${messageOf(error)}`)));
  return () => {
    subscription.dispose();
    void catalog.release(session.subscriber).catch(() => undefined); // Releasing after the session ended: a server gone has nothing to release.
  };
}

/**
 * Registers a session as an app that may answer servers' sampling and
 * elicitation requests, with what it declared at `initialize`. The core's
 * pipeline decides first; a request reaches the client only after that,
 * on the stream of the call it belongs to.
 */
export function registerSessionPeer(server: Server, core: GatewayCore, session: GatewaySession, label: string): { id: string; dispose(): void } | undefined {
  const caps = server.getClientCapabilities();
  if (!core.registerPeer || !caps) return undefined;
  const elicitation = caps.elicitation;
  const form = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
  const url = elicitation?.url !== undefined;
  if (caps.sampling === undefined && !form && !url) return undefined;
  const options = (signal?: AbortSignal) => ({ timeout: RELAY_TIMEOUT_MS, resetTimeoutOnProgress: true, ...(signal ? { signal } : {}) });
  return core.registerPeer({
    label,
    sampling: caps.sampling !== undefined,
    elicitation: { form, url },
    createMessage: async (name, params, { signal }) => {
      const call = session.latestCall(name);
      const request = { method: 'sampling/createMessage' as const, params };
      return call ? call.sendRequest(request, CreateMessageResultSchema, options(signal)) : server.createMessage(params, options(signal));
    },
    elicit: async (name, params, { signal }) => {
      const call = session.latestCall(name);
      return call ? call.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, options(signal)) : server.elicitInput(params, options(signal));
    },
  });
}

/** Catalog errors as the client should see them: the server's own MCP code, or Airlock's refusal. */
async function relayed<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof McpError) throw error;
    const mcpCode = (error as { mcpCode?: unknown }).mcpCode;
    const serverMessage = (error as { serverMessage?: unknown }).serverMessage;
    if (typeof mcpCode === 'number' && typeof serverMessage === 'string') throw new McpError(mcpCode, serverMessage);
    if (error instanceof AirlockError) throw new McpError(error.code === 'not-found' ? ErrorCode.InvalidParams : ErrorCode.InternalError, error.message);
    throw new McpError(ErrorCode.InternalError, 'Airlock could not relay this request because of an internal error; the details are in Airlock’s log.');
  }
}

/** Progress for a relayed request, when the client asked for it. */
function progressTo(extra: Extra, token: string | number | undefined) {
  if (token === undefined) return {};
  let last = -Infinity;
  return {
    onProgress: (progress: { progress: number; total?: number; message?: string }) => {
      if (!(progress.progress > last)) return;
      last = progress.progress;
      void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...progress } }).catch(() => undefined); // Progress is best effort in MCP; a client gone misses only progress.
    },
  };
}

/** A content item's resource URI (embedded resource or link), named as this session names it. */
export function mapContentUri<T>(content: T, server: string, naming: GatewayNaming): T {
  const item = content as { type?: string; uri?: unknown; resource?: { uri?: unknown } };
  if (item?.type === 'resource_link' && typeof item.uri === 'string') return { ...item, uri: naming.uri(server, item.uri) ?? item.uri } as T;
  if (item?.type === 'resource' && item.resource && typeof item.resource.uri === 'string') return { ...item, resource: { ...item.resource, uri: naming.uri(server, item.resource.uri) ?? item.resource.uri } } as T;
  return content;
}

