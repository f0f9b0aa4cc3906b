/**
 * One MCP client connection to one server, both ways: what Airlock asks it
 * (tools, prompts, resources, completion, paged and bounded) and what it asks
 * Airlock (sampling, elicitation, roots), with its notices. One file on purpose:
 * every request shares the connection's bounds, paging and timeouts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CompleteResultSchema,
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  EmptyResultSchema,
  ErrorCode,
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListRootsRequestSchema,
  ListToolsResultSchema,
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ReadResourceResultSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ClientCapabilities,
  type CompleteRequest,
  type CompleteResult,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type GetPromptResult,
  type Implementation,
  type ListRootsResult,
  type LoggingLevel,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolDefinition } from '../../../shared/domain';
import { SCREEN_MIME_TYPE, UI_EXTENSION } from '../../../shared/screens';
import type { LaunchPlan } from '../sandbox/launcher';
import { inertLine, LogRing } from './log-ring';
import { collectPages, DEFAULT_PAGING_LIMITS, type Listing, type PagingLimits } from './paging';
import {
  ProcessStdioTransport,
  type ProcessExit,
  type ShutdownTimings,
  type StdioLimits,
  type StdioStats,
} from './stdio-transport';
import { ChannelError, type ConnectionChannel } from './connection-channel';
import { ToolCallError } from './tool-call-error';

/** Timing and caps for one connection to a server. */
export interface ConnectionOptions {
  clientInfo?: Implementation;
  stdio?: Partial<StdioLimits>;
  shutdown?: Partial<ShutdownTimings>;
  paging?: Partial<PagingLimits>;
  /** Bound on the `initialize` handshake. */
  initializeTimeoutMs?: number;
  /** Bound on each list request (one page). */
  listTimeoutMs?: number;
  /** Log notifications kept per second; the rest are counted and dropped. */
  logNotificationsPerSecond?: number;
  log?: LogRing;
  now?: () => number;
  /** Called when the server says its tools changed. */
  onToolsListChanged?: () => void;
  /**
   * Requests from the server that Airlock answers. Only the kinds given here
   * are declared as client capabilities at `initialize`; anything else the
   * server asks is a protocol error (-32601), never a prompt.
   */
  requests?: ServerRequestHandlers;
  /** What the server tells Airlock besides tool changes (lists, updates, log lines kept). */
  onNotice?: (notice: ServerNotice) => void;
}

/** What a request from a server carries besides its params. */
export interface ServerRequestExtra {
  /** Aborted when the server cancels its request or the connection ends. */
  signal: AbortSignal;
}

/**
 * Handlers for requests *from* a server. Each is the caller's decision path
 * (see electron/core/server-requests); this class only declares the
 * capability and passes the validated params along.
 */
export interface ServerRequestHandlers {
  sampling?: (params: CreateMessageRequest['params'], extra: ServerRequestExtra) => Promise<CreateMessageResult>;
  elicitation?: (params: ElicitRequest['params'], extra: ServerRequestExtra) => Promise<ElicitResult>;
  roots?: (extra: ServerRequestExtra) => Promise<ListRootsResult>;
}

/** A notification from a server other than `tools/list_changed`. */
export type ServerNotice =
  | { kind: 'resources-list-changed' }
  | { kind: 'resource-updated'; uri: string }
  | { kind: 'prompts-list-changed' }
  | { kind: 'log'; level: LoggingLevel; logger?: string; data: unknown }
  | { kind: 'elicitation-complete'; elicitationId: string };

/** Bounds for a single catalog request (read, get, complete, subscribe). */
export interface RequestBounds {
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: CallOptions['onProgress'];
}

/**
 * The client capabilities Airlock declares for a set of handlers: exactly
 * what it answers — and, always, the MCP Apps extension: Airlock renders a
 * tool's screen (`text/html;profile=mcp-app`) in its window and passes it on
 * to the apps behind its gateway, so a server that offers screens only to a
 * host that can show them offers them here (and at the inspection, which
 * declares the same).
 */
export function declaredCapabilities(handlers: ServerRequestHandlers | undefined): ClientCapabilities {
  const capabilities: ClientCapabilities = { extensions: { [UI_EXTENSION]: { mimeTypes: [SCREEN_MIME_TYPE] } } };
  if (handlers?.sampling) capabilities.sampling = {};
  if (handlers?.elicitation) capabilities.elicitation = { form: {}, url: {} };
  if (handlers?.roots) capabilities.roots = { listChanged: true };
  return capabilities;
}

/** Per-call bounds and hooks for {@link ServerConnection.callTool}. */
export interface CallOptions {
  /** Inactivity timeout: reset by each progress notification. */
  timeoutMs: number;
  /** Hard maximum for the whole call, progress or not. */
  maxTotalMs: number;
  signal?: AbortSignal;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

/** A tool listing, with names the server listed more than once (only the first is kept). */
export interface ToolListing extends Listing<ToolDefinition> {
  duplicateNames: string[];
}

/** Airlock's name and version as told to servers. */
export const AIRLOCK_CLIENT_INFO: Implementation = { name: 'airlock', version: '0.1.0' };

const DEFAULTS = { initializeTimeoutMs: 20_000, listTimeoutMs: 10_000, requestTimeoutMs: 30_000, logNotificationsPerSecond: 50 };
const PROTOCOL_NOTES_MAX = 20;

class HardMaximumReached extends Error {}

// Node fires a timer of more than 2^31−1 ms (or Infinity, or NaN) after 1 ms: clamp instead.
const MAX_DELAY_MS = 2 ** 31 - 1;
function clampDelay(ms: number): number {
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 1), MAX_DELAY_MS) : MAX_DELAY_MS;
}

/**
 * The SDK request options that pass a server's progress on to the caller:
 * each notification resets the request's timeout, and a handler that throws
 * breaks nothing. None without a handler.
 */
function progressOptions(onProgress: CallOptions['onProgress']) {
  if (!onProgress) return {};
  return {
    resetTimeoutOnProgress: true,
    onprogress: (progress: { progress: number; total?: number; message?: string }) => {
      try {
        onProgress({ progress: progress.progress, total: progress.total, message: progress.message });
      } catch {
        // a caller's progress handler must not break the request
      }
    },
  };
}

/** The size of a value as JSON (depth is already capped by the transport). */
function jsonChars(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}
class CallerAborted extends Error {}

/** A process Airlock runs on stdio, as a {@link ConnectionChannel}. */
class StdioChannel implements ConnectionChannel {
  constructor(readonly transport: ProcessStdioTransport) {}
  get pid(): number | undefined {
    return this.transport.pid;
  }
  get exited(): Promise<ProcessExit> {
    return this.transport.exited;
  }
  get faulty(): Error | undefined {
    return this.transport.faulty;
  }
  stats(): StdioStats {
    return this.transport.stats();
  }
  close(): Promise<void> {
    return this.transport.close();
  }
  describe(): string {
    return `pid ${this.transport.pid}`;
  }
}

/** Is `value` a ready-made channel (a remote server's) rather than a launch plan? */
function isChannel(value: Pick<LaunchPlan, 'command' | 'args' | 'env' | 'cwd' | 'endTree'> | ConnectionChannel): value is ConnectionChannel {
  return 'transport' in value && typeof (value).close === 'function';
}

/**
 * One running server and the MCP client talking to it: spawn (or, for a
 * remote server, the channel it is given), handshake, bounded listings,
 * bounded calls, stop. It never restarts anything — the {@link Supervisor}
 * decides that — and it never retries a call.
 */
export class ServerConnection {
  /** What carries the messages: the server's process on stdio, or a remote server's HTTP session. */
  readonly channel: ConnectionChannel;
  readonly client: Client;
  readonly log: LogRing;
  private readonly options: ConnectionOptions;
  private readonly paging: PagingLimits;
  private negotiatedVersion?: string;
  private protocolNotes = 0;
  private logWindowStart = 0;
  private logWindowCount = 0;
  private logDropped = 0;

  /**
   * Prepares a connection; nothing runs until {@link connect}. Given a
   * launch plan it runs that process on stdio; given a channel (a remote
   * server's) it talks over that.
   */
  constructor(plan: Pick<LaunchPlan, 'command' | 'args' | 'env' | 'cwd' | 'endTree'> | ConnectionChannel, options: ConnectionOptions = {}) {
    this.options = options;
    this.paging = { ...DEFAULT_PAGING_LIMITS, ...options.paging };
    const now = options.now ?? Date.now;
    this.log = options.log ?? new LogRing({}, now);
    if (isChannel(plan)) {
      this.channel = plan;
      // The SDK tells the transport the negotiated version (an HTTP transport sends it as a header): keep that, and note it.
      const transport = plan.transport;
      const own = transport.setProtocolVersion?.bind(transport);
      transport.setProtocolVersion = (version) => {
        this.negotiatedVersion = version;
        own?.(version);
      };
    } else {
      const transport = new ProcessStdioTransport(plan, { limits: options.stdio, shutdown: options.shutdown, log: this.log, now });
      transport.setProtocolVersion = (version) => (this.negotiatedVersion = version);
      this.channel = new StdioChannel(transport);
    }
    // SECURITY: SECURITY.md rule 6 — Airlock declares only the capabilities it has handlers for;
    // any other request from the server is answered -32601 by the SDK, never shown as a prompt.
    this.client = new Client(options.clientInfo ?? AIRLOCK_CLIENT_INFO, { capabilities: declaredCapabilities(options.requests) });
    this.client.onerror = (error) => {
      // Unknown or duplicate response ids, late answers after a timeout, bad notifications:
      // noted (boundedly), never fatal.
      if (this.protocolNotes++ < PROTOCOL_NOTES_MAX) this.log.push('airlock', `protocol: ${error.message.slice(0, 300)}`);
    };
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.options.onToolsListChanged?.());
    this.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => this.onLogNotification(notification.params));
    this.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.notice({ kind: 'resources-list-changed' }));
    this.client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.notice({ kind: 'prompts-list-changed' }));
    this.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => this.notice({ kind: 'resource-updated', uri: notification.params.uri }));
    this.client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) =>
      this.notice({ kind: 'elicitation-complete', elicitationId: notification.params.elicitationId }),
    );
    const requests = options.requests;
    // Registered under a schema that only names the method: the SDK's client then checks the
    // params itself and answers a malformed request with -32602 "Invalid sampling request: …"
    // (under the full schema a malformed request would fail earlier, as an internal error).
    if (requests?.sampling) {
      const sampling = requests.sampling;
      this.client.setRequestHandler(z.object({ method: z.literal('sampling/createMessage') }).passthrough(), (request, extra) =>
        sampling(CreateMessageRequestSchema.parse(request).params, { signal: extra.signal }),
      );
    }
    if (requests?.elicitation) {
      const elicitation = requests.elicitation;
      this.client.setRequestHandler(z.object({ method: z.literal('elicitation/create') }).passthrough(), (request, extra) =>
        elicitation(ElicitRequestSchema.parse(request).params, { signal: extra.signal }),
      );
    }
    if (requests?.roots) {
      const roots = requests.roots;
      this.client.setRequestHandler(ListRootsRequestSchema, (_request, extra) => roots({ signal: extra.signal }));
    }
  }

  /**
   * Spawns the plan's process and completes the MCP handshake within
   * `initializeTimeoutMs`. On failure the process group is stopped before
   * the error is thrown. {@link close} during the handshake ends it.
   */
  async connect(): Promise<void> {
    try {
      await this.client.connect(this.channel.transport, {
        timeout: this.options.initializeTimeoutMs ?? DEFAULTS.initializeTimeoutMs,
      });
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** Creates a connection and connects it. */
  static async open(plan: Pick<LaunchPlan, 'command' | 'args' | 'env' | 'cwd' | 'endTree'>, options: ConnectionOptions = {}): Promise<ServerConnection> {
    const connection = new ServerConnection(plan, options);
    await connection.connect();
    return connection;
  }

  /** What the server said about itself (claims, shown as such). */
  get serverInfo(): Implementation | undefined {
    return this.client.getServerVersion();
  }

  get capabilities(): ServerCapabilities | undefined {
    return this.client.getServerCapabilities();
  }

  /** The server's instructions: data to show, never instructions to Airlock. */
  get instructions(): string | undefined {
    return this.client.getInstructions();
  }

  get protocolVersion(): string | undefined {
    return this.negotiatedVersion;
  }

  get pid(): number | undefined {
    return this.channel.pid;
  }

  /** Resolves when the server's process has exited, or its remote session ended (for any reason). */
  get exited(): Promise<ProcessExit> {
    return this.channel.exited;
  }

  /**
   * Lists the server's tools, paging with caps; a name listed twice keeps its
   * first definition and is reported. Empty when the server did not declare
   * the `tools` capability.
   */
  async listTools(): Promise<ToolListing> {
    if (!this.capabilities?.tools) {
      // A server that does not offer tools has none; asking would only earn a -32601.
      return { items: [], pages: 0, truncated: false, duplicateNames: [] };
    }
    const listing = await collectPages(async (cursor) => {
      const page = await this.client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ListToolsResultSchema,
        { timeout: this.listTimeoutMs },
      );
      return { items: page.tools as unknown as ToolDefinition[], nextCursor: page.nextCursor, chars: jsonChars(page.tools) };
    }, this.paging);
    const seen = new Set<string>();
    const duplicateNames = new Set<string>();
    const items: ToolDefinition[] = [];
    for (const tool of listing.items) {
      if (seen.has(tool.name)) duplicateNames.add(tool.name);
      else {
        seen.add(tool.name);
        items.push(tool);
      }
    }
    if (listing.truncated) this.log.push('airlock', `tools/list stopped early (${listing.reason}) after ${listing.pages} pages`);
    if (duplicateNames.size > 0) this.log.push('airlock', `tools listed more than once (first kept): ${[...duplicateNames].join(', ').slice(0, 500)}`);
    return { ...listing, items, duplicateNames: [...duplicateNames] };
  }

  /** Lists prompts with caps (only meaningful when the server has the `prompts` capability). */
  listPrompts(): Promise<Listing<Prompt>> {
    return collectPages(async (cursor) => {
      const page = await this.client.request({ method: 'prompts/list', params: cursor === undefined ? {} : { cursor } }, ListPromptsResultSchema, { timeout: this.listTimeoutMs });
      return { items: page.prompts, nextCursor: page.nextCursor, chars: jsonChars(page.prompts) };
    }, this.paging);
  }

  /** Lists resources with caps (only meaningful when the server has the `resources` capability). */
  listResources(): Promise<Listing<Resource>> {
    return collectPages(async (cursor) => {
      const page = await this.client.request({ method: 'resources/list', params: cursor === undefined ? {} : { cursor } }, ListResourcesResultSchema, { timeout: this.listTimeoutMs });
      return { items: page.resources, nextCursor: page.nextCursor, chars: jsonChars(page.resources) };
    }, this.paging);
  }

  /** Lists resource templates with caps. */
  listResourceTemplates(): Promise<Listing<ResourceTemplate>> {
    return collectPages(async (cursor) => {
      const page = await this.client.request(
        { method: 'resources/templates/list', params: cursor === undefined ? {} : { cursor } },
        ListResourceTemplatesResultSchema,
        { timeout: this.listTimeoutMs },
      );
      return { items: page.resourceTemplates, nextCursor: page.nextCursor, chars: jsonChars(page.resourceTemplates) };
    }, this.paging);
  }

  /** Reads one resource (contents are the server's data: the catalog caps and flags them). */
  async readResource(uri: string, bounds: RequestBounds = {}): Promise<ReadResourceResult> {
    return this.client.request({ method: 'resources/read', params: { uri } }, ReadResourceResultSchema, this.requestOptions(bounds));
  }

  /** Asks the server to send `notifications/resources/updated` for a URI. */
  async subscribeResource(uri: string, bounds: RequestBounds = {}): Promise<void> {
    await this.client.request({ method: 'resources/subscribe', params: { uri } }, EmptyResultSchema, this.requestOptions(bounds));
  }

  async unsubscribeResource(uri: string, bounds: RequestBounds = {}): Promise<void> {
    await this.client.request({ method: 'resources/unsubscribe', params: { uri } }, EmptyResultSchema, this.requestOptions(bounds));
  }

  /** Gets a prompt with its arguments (the text is the server's). */
  async getPrompt(name: string, args: Record<string, string> | undefined, bounds: RequestBounds = {}): Promise<GetPromptResult> {
    return this.client.request({ method: 'prompts/get', params: { name, ...(args ? { arguments: args } : {}) } }, GetPromptResultSchema, this.requestOptions(bounds));
  }

  /** Asks for completions of a prompt or resource-template argument. */
  async complete(params: CompleteRequest['params'], bounds: RequestBounds = {}): Promise<CompleteResult> {
    return this.client.request({ method: 'completion/complete', params }, CompleteResultSchema, this.requestOptions(bounds));
  }

  /** Sets the least severe level the server should send log messages for. */
  async setLoggingLevel(level: LoggingLevel, bounds: RequestBounds = {}): Promise<void> {
    await this.client.request({ method: 'logging/setLevel', params: { level } }, EmptyResultSchema, this.requestOptions(bounds));
  }

  /** Pings the server (MCP `ping`); rejects when it does not answer in time. */
  async ping(bounds: RequestBounds = {}): Promise<void> {
    await this.client.request({ method: 'ping' }, EmptyResultSchema, this.requestOptions(bounds));
  }

  /** Tells the server the roots Airlock would give changed (its grants changed). */
  async sendRootsListChanged(): Promise<void> {
    await this.client.sendRootsListChanged();
  }

  /**
   * Calls a tool once. The inactivity timeout is reset by progress, but the
   * hard maximum always holds; on either, and on abort, the SDK sends
   * `notifications/cancelled`. Errors are {@link ToolCallError}s; nothing is retried.
   * SECURITY: SECURITY.md rule 4 and invariant 4.
   */
  async callTool(server: string, tool: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    if (options.signal?.aborted) {
      throw new ToolCallError('aborted', server, tool, 'the call was cancelled before it was sent', { sent: false });
    }
    const maxTotalMs = clampDelay(options.maxTotalMs);
    const timeoutMs = Math.min(clampDelay(options.timeoutMs), maxTotalMs);
    const { onProgress } = options;
    // Our own abort for the hard maximum, needed only when progress can reset the SDK's timeout (or the
    // maximum is the nearer bound): the SDK's `maxTotalTimeout` is only checked when progress arrives
    // and then rejects without sending a cancellation. Otherwise — a call's hot path — the SDK's
    // timeout is already a hard bound below the maximum, and the caller's signal cancels as it is.
    const own = onProgress !== undefined || timeoutMs >= maxTotalMs ? new AbortController() : undefined;
    const hardTimer = own && setTimeout(() => own.abort(new HardMaximumReached('hard maximum reached')), maxTotalMs);
    const onCallerAbort = () => own?.abort(new CallerAborted(String(options.signal?.reason ?? 'aborted')));
    if (own) options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const signal = own?.signal ?? options.signal;
    try {
      return await this.client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CallToolResultSchema, {
        timeout: timeoutMs,
        ...(signal ? { signal } : {}),
        ...progressOptions(onProgress),
      });
    } catch (error) {
      throw this.classify(error, signal, server, tool);
    } finally {
      if (own) {
        clearTimeout(hardTimer);
        options.signal?.removeEventListener('abort', onCallerAbort);
      }
    }
  }

  /** Stops the server (stdin, SIGTERM, SIGKILL to its group; or ends its remote session) and closes the client. */
  async close(): Promise<void> {
    await this.channel.close();
    await this.client.close().catch(() => undefined); // The process is already stopped; the client may have closed with it.
  }

  private requestOptions(bounds: RequestBounds) {
    return {
      timeout: clampDelay(bounds.timeoutMs ?? DEFAULTS.requestTimeoutMs),
      ...(bounds.signal ? { signal: bounds.signal } : {}),
      ...progressOptions(bounds.onProgress),
    };
  }

  private notice(notice: ServerNotice): void {
    try {
      this.options.onNotice?.(notice);
    } catch (error) {
      if (this.protocolNotes++ < PROTOCOL_NOTES_MAX) this.log.push('airlock', `a notification handler failed: ${String(error).slice(0, 200)}`);
    }
  }

  private get listTimeoutMs(): number {
    return this.options.listTimeoutMs ?? DEFAULTS.listTimeoutMs;
  }

  private classify(error: unknown, signal: AbortSignal | undefined, server: string, tool: string): ToolCallError {
    if (signal?.aborted) {
      const reason: unknown = signal.reason;
      if (reason instanceof HardMaximumReached) {
        return new ToolCallError('timeout', server, tool, 'the call reached its hard maximum time — outcome unknown, the server may have acted', {
          sent: true,
          hardMaximum: true,
          cause: error,
        });
      }
      return new ToolCallError('aborted', server, tool, 'the call was cancelled — outcome unknown, the server may have acted', { sent: true, cause: error });
    }
    if (error instanceof McpError) {
      if (error.code === ErrorCode.RequestTimeout) {
        return new ToolCallError('timeout', server, tool, 'the server did not answer in time — outcome unknown, the server may have acted', {
          sent: true,
          hardMaximum: /maximum total timeout/i.test(error.message),
          cause: error,
        });
      }
      if (error.code === ErrorCode.ConnectionClosed) {
        return new ToolCallError('disconnected', server, tool, 'the server disconnected during the call — outcome unknown, the server may have acted', {
          sent: true,
          cause: error,
        });
      }
      // The server's own words are what a person needs to act on — on one line (SECURITY: a shell prints this message
      // as Airlock's lines, and the server's words must not start one of them).
      const said = inertLine(error.message.replace(/^MCP error -?\d+:\s*/, '').trim().slice(0, 2000));
      return new ToolCallError('server-error', server, tool, `the server answered with an error (${error.code})${said ? `: ${said}` : ''}`, { sent: true, code: error.code, cause: error });
    }
    if (error instanceof ChannelError) {
      // The channel knows whether the server can have acted (a 401/403/404 before acting, a host not reached: it cannot).
      return error.serverMayHaveActed
        ? new ToolCallError('disconnected', server, tool, `${error.message} — outcome unknown, the server may have acted`, { sent: true, cause: error })
        : new ToolCallError('refused', server, tool, error.message, { sent: false, cause: error });
    }
    if (error instanceof Error && /not connected|not reading its input/i.test(error.message)) {
      return new ToolCallError('not-running', server, tool, `the call was not sent: ${error.message}`, { sent: false, cause: error });
    }
    return new ToolCallError('invalid-result', server, tool, 'the server answered with something that is not a tool result — outcome unknown', {
      sent: true,
      cause: error,
    });
  }

  private onLogNotification(params: { level: string; logger?: string; data?: unknown }): void {
    const now = (this.options.now ?? Date.now)();
    if (now - this.logWindowStart >= 1000) {
      if (this.logDropped > 0) this.log.push('airlock', `${this.logDropped} log notifications dropped (more than ${this.logLimit} a second)`);
      this.logWindowStart = now;
      this.logWindowCount = 0;
      this.logDropped = 0;
    }
    if (++this.logWindowCount > this.logLimit) {
      if (this.logDropped++ === 0) this.log.push('airlock', `more than ${this.logLimit} log notifications a second: dropping the rest of this second`);
      return;
    }
    let text: string;
    try {
      text = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
    } catch {
      text = String(params.data);
    }
    this.log.push('notification', `[${params.level}]${params.logger ? ` ${params.logger}:` : ''} ${text ?? ''}`);
    // Only what was kept travels on (a flood is bounded here, before any client sees it).
    this.notice({ kind: 'log', level: params.level as LoggingLevel, ...(params.logger !== undefined ? { logger: params.logger } : {}), data: params.data });
  }

  private get logLimit(): number {
    return this.options.logNotificationsPerSecond ?? DEFAULTS.logNotificationsPerSecond;
  }
}
