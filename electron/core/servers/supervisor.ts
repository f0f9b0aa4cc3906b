/**
 * The one place that starts and stops servers (ARCHITECTURE.md: one place that
 * spawns and kills processes), driving each server's state machine (lifecycle.ts).
 * One file on purpose: starting, stopping, restarting and backing off share one
 * table of servers; the process group, the connection, the probe, the transport and
 * the tool index are files of their own.
 */
import type { CallToolResult, Implementation, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxProfile, ServerSpec, ServerState } from '../../../shared/domain';
import type { LaunchContext, LaunchPlan, ResourceLimits, SandboxLauncher } from '../sandbox/launcher';
import { systemClock, type Clock, type TimerHandle } from './clock';
import { Emitter, type Event } from './emitter';
import {
  DEFAULT_LIFECYCLE_POLICY,
  transition,
  type LifecycleEffect,
  type LifecycleEvent,
  type LifecyclePolicy,
  type LifecycleSnapshot,
} from './lifecycle';
import { LogRing, type LogLine, type LogRingLimits } from './log-ring';
import { ChannelError } from './connection-channel';
import type { CallOptions, ConnectionOptions, ServerConnection, ServerNotice, ServerRequestHandlers, ToolListing } from './server-connection';
import type { StdioStats } from './stdio-transport';
import { ToolCallError } from './tool-call-error';
import { ToolIndex, type ServerTools, type ToolIndexView, type ToolsDiff } from './tool-index';
import { messageOf } from '../errors';

/**
 * How the supervisor reaches a server that runs elsewhere (electron/core/remote):
 * no process, no sandbox, no launch plan — a connection over the network.
 */
export interface RemoteConnector {
  /**
   * Opens the channel and completes the MCP handshake over it (trying the
   * transports the server may speak). `signal` aborts when the supervisor
   * stops the session meanwhile. Rejects with a `ChannelError` saying why.
   */
  open(options: ConnectionOptions, signal: AbortSignal): Promise<ServerConnection>;
}

/** What the supervisor needs to launch one server. */
export interface SupervisedServer {
  spec: ServerSpec;
  profile: SandboxProfile;
  context: LaunchContext;
  /** Set for a remote server: the supervisor connects through it and never asks the launcher (there is nothing to sandbox). */
  remote?: RemoteConnector;
}

/**
 * Where the supervisor gets a server's spec, profile and launch context,
 * read afresh at every start (so a changed grant applies on restart). A
 * narrow interface: the composition root adapts the store to it.
 */
export interface ServerCatalog {
  lookup(name: string): SupervisedServer | undefined | Promise<SupervisedServer | undefined>;
}

/** A server moved from one lifecycle state to another. */
export interface ServerStateChange {
  server: string;
  previous: ServerState;
  state: ServerState;
  /** Why, in words a person can read, when there is more to say than the state. */
  reason?: string;
}

/** A server's tool listing changed (or was read for the first time). */
export interface ServerToolsChange {
  server: string;
  tools: ServerTools;
  diff: ToolsDiff;
}

/** What the UI and CLI can show about a server right now. */
export interface ServerStatus {
  server: string;
  state: ServerState;
  pid?: number;
  /** False when the launch plan ran the server without the OS sandbox (and for a remote server, which has none). */
  sandboxed?: boolean;
  /** The resource limits its last launch plan ran it under (sandboxed plans only). */
  limits?: ResourceLimits;
  /** Set for a server reached over the network: where, and over which transport. */
  remote?: string;
  lastError?: string;
  /** Crashes inside the quarantine window. */
  recentCrashes: number;
  /** Claims the server made at its handshake. */
  serverInfo?: Implementation;
  capabilities?: ServerCapabilities;
  protocolVersion?: string;
  /** The server's instructions (data, never instructions to Airlock). */
  instructions?: string;
  stdio?: StdioStats;
}

/** Per-call options; bounds default to the supervisor's. */
export interface ToolCallOptions {
  timeoutMs?: number;
  maxTotalMs?: number;
  signal?: AbortSignal;
  onProgress?: CallOptions['onProgress'];
}

/** Everything the supervisor is built from. */
export interface SupervisorOptions {
  launcher: SandboxLauncher;
  catalog: ServerCatalog;
  /** Time for backoff and the crash window (tests step it by hand). */
  clock?: Clock;
  policy?: Partial<LifecyclePolicy>;
  /** Limits and timings for each connection (stdio caps, shutdown, paging, handshake). */
  connection?: Omit<ConnectionOptions, 'log' | 'now' | 'onToolsListChanged' | 'requests' | 'onNotice'>;
  /** Who answers a server's own requests (sampling, elicitation, roots); only these are declared. */
  serverRequests?: (server: string) => ServerRequestHandlers;
  /** Told what each server notifies besides tool changes (lists, resource updates, log lines kept). */
  onNotice?: (server: string, notice: ServerNotice) => void;
  /** Default call bounds: 60 s without progress, 10 min at most. */
  defaultCall?: { timeoutMs: number; maxTotalMs: number };
  logLimits?: Partial<LogRingLimits>;
  /** Delay that coalesces a burst of `tools/list_changed` into one refresh. */
  refreshDelayMs?: number;
}

interface Session {
  id: number;
  cancelled: boolean;
  /** Aborted when the session is shut down (a remote connection being opened stops). */
  abort: AbortController;
  plan?: LaunchPlan;
  connection?: ServerConnection;
  done: Promise<void>;
  refreshTimer?: ReturnType<typeof setTimeout>;
  refreshing: boolean;
  refreshQueued: boolean;
  /** Listings are numbered when they start; an older one never replaces a newer one. */
  listingsStarted: number;
  listingApplied: number;
  /** Waiting for the listing to be current again (see `toolsSettled`). */
  settledWaiters: Array<() => void>;
}

interface Entry {
  name: string;
  snapshot: LifecycleSnapshot;
  session?: Session;
  /** Resolves when every session started so far has ended and been cleaned up. */
  settled: Promise<void>;
  restartTimer?: TimerHandle;
  log: LogRing;
  lastError?: string;
  sandboxed?: boolean;
  limits?: ResourceLimits;
  remote?: string;
  serverInfo?: Implementation;
  capabilities?: ServerCapabilities;
  protocolVersion?: string;
  instructions?: string;
  lastStats?: StdioStats;
}

class LaunchFailed extends Error {}

/** A `tools/list_changed` was received and its listing is not applied yet. */
function refreshPending(session: Session): boolean {
  return !session.cancelled && (session.refreshTimer !== undefined || session.refreshing || session.refreshQueued);
}

/** Tells everyone waiting for the listing that it is current (or that the session ended). */
function settle(session: Session): void {
  for (const waiter of session.settledWaiters.splice(0)) waiter();
}

/** Is a spawn error one a retry cannot fix (missing or non-executable command)? */
function isSpawnRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR' || code === 'EPERM';
}

/**
 * The one place that starts and stops MCP server processes. Per server it
 * runs the lifecycle state machine ({@link transition}), restarts crashed
 * servers with exponential backoff, quarantines one that keeps crashing
 * until a user restart, keeps its log and its current tools, and carries
 * calls with bounded time. It never retries a call.
 */
export class Supervisor {
  private readonly entries = new Map<string, Entry>();
  private readonly index = new ToolIndex();
  private readonly stateEmitter = new Emitter<ServerStateChange>();
  private readonly toolsEmitter = new Emitter<ServerToolsChange>();
  private readonly clock: Clock;
  private readonly policy: LifecyclePolicy;
  private nextSessionId = 1;

  /** Fires on every state change of every server. */
  readonly onDidChangeState: Event<ServerStateChange> = this.stateEmitter.event;
  /** Fires when a server's tools are first listed and whenever a relisting differs. */
  readonly onDidChangeTools: Event<ServerToolsChange> = this.toolsEmitter.event;

  constructor(private readonly options: SupervisorOptions) {
    this.clock = options.clock ?? systemClock;
    this.policy = { ...DEFAULT_LIFECYCLE_POLICY, ...options.policy };
  }

  /** The current tools of every server, fingerprinted. */
  get tools(): ToolIndexView {
    return this.index;
  }

  /** A server's lifecycle state (`stopped` for one never started). */
  state(name: string): ServerState {
    return this.entries.get(name)?.snapshot.state ?? 'stopped';
  }

  /** What can be shown about a server now. */
  status(name: string): ServerStatus {
    const entry = this.entries.get(name);
    if (!entry) return { server: name, state: 'stopped', recentCrashes: 0 };
    const connection = entry.session?.connection;
    return {
      server: name,
      state: entry.snapshot.state,
      pid: entry.snapshot.state === 'starting' || entry.snapshot.state === 'ready' ? connection?.pid : undefined,
      sandboxed: entry.sandboxed,
      ...(entry.limits ? { limits: entry.limits } : {}),
      ...(entry.remote !== undefined ? { remote: entry.remote } : {}),
      lastError: entry.lastError,
      recentCrashes: entry.snapshot.crashes.length,
      serverInfo: entry.serverInfo,
      capabilities: entry.capabilities,
      protocolVersion: entry.protocolVersion,
      ...(entry.instructions !== undefined ? { instructions: entry.instructions } : {}),
      stdio: connection?.channel.stats() ?? entry.lastStats,
    };
  }

  /** The server's log: its stderr, its log notifications and Airlock's notes, capped. */
  log(name: string): LogLine[] {
    return this.entries.get(name)?.log.snapshot() ?? [];
  }

  /** Adds one of Airlock's own notes to a server's log (bounded like the rest). */
  note(name: string, text: string): void {
    this.entry(name).log.push('airlock', text);
  }

  /**
   * Starts a server. Resolves when it is ready; rejects if this attempt
   * fails (a crashed server keeps being restarted with backoff in the
   * background) or if the server is quarantined.
   */
  async start(name: string): Promise<void> {
    const entry = this.entry(name);
    if (entry.snapshot.state === 'quarantined') {
      throw new Error(`${name} is quarantined after repeated failures${entry.lastError ? ` (${entry.lastError})` : ''}; restart it to try again`);
    }
    if (entry.snapshot.state === 'ready') return;
    const settled = this.whenSettled(entry);
    this.dispatch(entry, { type: 'start' });
    return settled;
  }

  /** Stops a server; resolves when its process group is gone and its launch plan disposed. */
  async stop(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.dispatch(entry, { type: 'stop' });
    await entry.settled;
  }

  /** A user restart: stops what runs, clears quarantine and the crash history, starts again. */
  async restart(name: string): Promise<void> {
    const entry = this.entry(name);
    entry.lastError = undefined;
    const settled = this.whenSettled(entry);
    this.dispatch(entry, { type: 'restart' });
    return settled;
  }

  /** Stops a server and forgets it: its state, log and tools (for a server the user removed). */
  async remove(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.dispatch(entry, { type: 'stop' });
    if (entry.restartTimer !== undefined) this.clock.clearTimeout(entry.restartTimer);
    await entry.settled;
    this.entries.delete(name);
    this.index.delete(name);
  }

  /** Stops every server. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((name) => this.stop(name)));
  }

  /**
   * Calls a tool on a ready server, once, with a timeout that progress can
   * extend and a hard maximum that nothing extends. Throws
   * {@link ToolCallError}; never retries (invariant 4: that is the policy layer's call).
   */
  async callTool(name: string, tool: string, args: Record<string, unknown>, options: ToolCallOptions = {}): Promise<CallToolResult> {
    const entry = this.entries.get(name);
    const connection = entry?.session?.connection;
    if (!entry || entry.snapshot.state !== 'ready' || !connection) {
      throw new ToolCallError('not-running', name, tool, `${name} is not running (${entry?.snapshot.state ?? 'stopped'})`, { sent: false });
    }
    const defaults = this.options.defaultCall ?? { timeoutMs: 60_000, maxTotalMs: 600_000 };
    return connection.callTool(name, tool, args, {
      timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
      maxTotalMs: options.maxTotalMs ?? defaults.maxTotalMs,
      signal: options.signal,
      onProgress: options.onProgress,
    });
  }

  /**
   * Resolves true once the server's tool listing is current — no
   * `tools/list_changed` it sent is still waiting to be read — or false when
   * that takes longer than `maxWaitMs` (a server that keeps announcing
   * changes). Resolves true at once for a server that is not running.
   */
  toolsSettled(name: string, maxWaitMs = 5_000): Promise<boolean> {
    const session = this.entries.get(name)?.session;
    if (!session || !refreshPending(session)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        session.settledWaiters = session.settledWaiters.filter((waiter) => waiter !== done);
        resolve(false);
      }, maxWaitMs);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      session.settledWaiters.push(done);
    });
  }

  /**
   * Runs `use` with a ready server's connection (resources, prompts,
   * completion, logging). Rejects when the server is not running; never
   * starts or restarts anything.
   */
  async withConnection<T>(name: string, use: (connection: ServerConnection) => Promise<T>): Promise<T> {
    const entry = this.entries.get(name);
    const connection = entry?.session?.connection;
    if (!entry || entry.snapshot.state !== 'ready' || !connection) throw new Error(`${name} is not running (${entry?.snapshot.state ?? 'stopped'})`);
    return use(connection);
  }

  /** Lists a ready server's tools again now (paging capped) and updates the index. */
  async listTools(name: string): Promise<ServerTools> {
    const entry = this.entries.get(name);
    const session = entry?.session;
    if (!entry || !session?.connection || entry.snapshot.state !== 'ready') throw new Error(`${name} is not running`);
    await this.listAndApply(entry, session, session.connection);
    return this.index.get(name) as ServerTools;
  }

  private entry(name: string): Entry {
    let entry = this.entries.get(name);
    if (!entry) {
      entry = {
        name,
        snapshot: { state: 'stopped', crashes: [] },
        settled: Promise.resolve(),
        log: new LogRing(this.options.logLimits, () => this.clock.now()),
      };
      this.entries.set(name, entry);
    }
    return entry;
  }

  /** Resolves at the next `ready`; rejects at the next `stopped`, `crashed` or `quarantined`. */
  private whenSettled(entry: Entry): Promise<void> {
    return new Promise((resolve, reject) => {
      const subscription = this.stateEmitter.event((change) => {
        if (change.server !== entry.name) return;
        if (change.state === 'ready') {
          subscription.dispose();
          resolve();
        } else if (change.state === 'stopped' || change.state === 'crashed' || change.state === 'quarantined') {
          subscription.dispose();
          reject(new Error(`${entry.name} did not start: ${entry.lastError ?? change.state}`));
        }
      });
    });
  }

  /** Runs one event through the state machine and carries out its effects. Stale sessions are ignored. */
  private dispatch(entry: Entry, event: LifecycleEvent, from?: Session): void {
    if (from && from !== entry.session) return;
    const previous = entry.snapshot.state;
    const result = transition(entry.snapshot, event, this.policy);
    entry.snapshot = result.snapshot;
    for (const effect of result.effects) this.run(entry, effect);
    if (result.snapshot.state !== previous) {
      if (result.snapshot.state === 'quarantined') entry.log.push('airlock', `quarantined${entry.lastError ? `: ${entry.lastError}` : ''}`);
      this.stateEmitter.fire({ server: entry.name, previous, state: result.snapshot.state, reason: entry.lastError });
    }
  }

  private run(entry: Entry, effect: LifecycleEffect): void {
    switch (effect.type) {
      case 'spawn': {
        const previous = entry.settled;
        const session: Session = {
          id: this.nextSessionId++,
          cancelled: false,
          abort: new AbortController(),
          done: Promise.resolve(),
          refreshing: false,
          refreshQueued: false,
          listingsStarted: 0,
          listingApplied: 0,
          settledWaiters: [],
        };
        entry.session = session;
        // The previous process group is gone before a new one starts.
        session.done = previous.then(() => this.runSession(entry, session));
        entry.settled = session.done;
        return;
      }
      case 'shutdown': {
        const session = entry.session;
        if (!session) return;
        session.cancelled = true;
        session.abort.abort();
        if (session.refreshTimer) clearTimeout(session.refreshTimer);
        void session.connection?.close();
        return;
      }
      case 'schedule-restart':
        entry.log.push('airlock', `restarting in ${effect.delayMs} ms`);
        entry.restartTimer = this.clock.setTimeout(() => {
          entry.restartTimer = undefined;
          this.dispatch(entry, { type: 'backoff-elapsed' });
        }, effect.delayMs);
        return;
      case 'cancel-restart':
        if (entry.restartTimer !== undefined) this.clock.clearTimeout(entry.restartTimer);
        entry.restartTimer = undefined;
        return;
    }
  }

  /** One process's life: plan, spawn, handshake, first listing, wait for its end, clean up. Never rejects. */
  private async runSession(entry: Entry, session: Session): Promise<void> {
    let outcome: LifecycleEvent | undefined;
    let connection: ServerConnection | undefined;
    let plan: LaunchPlan | undefined;
    try {
      if (session.cancelled) return;
      let server: SupervisedServer | undefined;
      try {
        server = await this.options.catalog.lookup(entry.name);
      } catch (error) {
        throw new LaunchFailed(`reading the server's settings failed: ${messageOf(error)}`);
      }
      if (!server) throw new LaunchFailed(`no server named ${entry.name}`);
      if (session.cancelled) return;
      if (server.remote) {
        await this.runRemote(entry, session, server.remote);
        return;
      }
      try {
        // SECURITY: invariant 5 — the launcher fails closed (e.g. no sandbox); we do not retry around it.
        plan = await this.options.launcher.plan(server.spec, server.profile, server.context);
      } catch (error) {
        throw new LaunchFailed(`the launcher refused: ${messageOf(error)}`);
      }
      session.plan = plan;
      entry.sandboxed = plan.sandboxed;
      entry.limits = plan.limits;
      // What the sandbox tells the person about this launch (a planted file held aside) goes to the server's log.
      plan.onNote?.((text) => entry.log.push('airlock', text));
      // The MCP client is loaded with the first server that starts, not when Airlock starts.
      const { ServerConnection: Connection } = await import('./server-connection');
      if (session.cancelled) return;
      connection = new Connection(plan, this.connectionOptions(entry, session));
      session.connection = connection;
      try {
        await connection.connect();
      } catch (error) {
        if (connection.pid === undefined && isSpawnRefusal(error)) {
          throw new LaunchFailed(`could not run ${plan.command}: ${(error as Error).message}`);
        }
        throw error;
      }
      entry.log.push('airlock', `started pid ${connection.pid}${plan.sandboxed ? '' : ' WITHOUT the sandbox'}`);
      outcome = await this.runConnected(entry, session, connection);
    } catch (error) {
      if (!session.cancelled) outcome = this.failure(entry, connection, error);
    } finally {
      this.endSession(entry, session, outcome);
      if (connection) {
        await connection.close().catch(() => undefined); // The session is over; a connection that fails to close is already stopped.
        entry.lastStats = connection.channel.stats();
      }
      if (plan) {
        await plan.dispose().catch((error: unknown) => entry.log.push('airlock', `cleaning up the launch failed: ${String(error)}`));
      }
      this.dispatch(entry, { type: 'shutdown-complete' }, session);
    }
  }

  /** A session's end, whatever ended it: its refresh stopped, its waiters settled (nobody waits on a listing that will not come), the outcome dispatched. */
  private endSession(entry: Entry, session: Session, outcome: LifecycleEvent | undefined): void {
    if (session.refreshTimer) clearTimeout(session.refreshTimer);
    session.refreshTimer = undefined;
    session.refreshQueued = false;
    settle(session);
    if (outcome) {
      entry.log.push('airlock', entry.lastError ?? outcome.type);
      this.dispatch(entry, outcome, session);
    }
  }

  /**
   * A connected session from the handshake on: what the server claims about
   * itself, the first listing, ready, then wait for the channel to end.
   * Returns the event its end means (undefined when it was stopped).
   */
  private async runConnected(entry: Entry, session: Session, connection: ServerConnection): Promise<LifecycleEvent | undefined> {
    entry.serverInfo = connection.serverInfo;
    entry.capabilities = connection.capabilities;
    entry.protocolVersion = connection.protocolVersion;
    entry.instructions = connection.instructions;
    if (session.cancelled) return undefined;
    await this.listAndApply(entry, session, connection);
    if (session.cancelled) return undefined;
    this.dispatch(entry, { type: 'ready' }, session);
    const exit = await connection.exited;
    if (session.cancelled) return undefined;
    const faulty = connection.channel.faulty;
    entry.lastError = faulty ? faulty.message : exit.reason ?? `the server exited (${exit.signal ?? `code ${exit.code}`})`;
    return faulty ? { type: 'faulty' } : { type: 'crash', at: this.clock.now() };
  }

  /** What a failed session means: faulty, a launch that retrying cannot fix, or a crash (restarted with backoff). */
  private failure(entry: Entry, connection: ServerConnection | undefined, error: unknown): LifecycleEvent {
    const faulty = connection?.channel.faulty;
    entry.lastError = faulty?.message ?? messageOf(error);
    if (faulty) return { type: 'faulty' };
    // A remote server that needs the person (a sign-in, more access), refuses its address, certificate
    // or answers, is not retried on its own: the person acts first. An unreachable one is retried.
    const needsPerson = error instanceof ChannelError && error.kind !== 'unreachable' && error.kind !== 'interrupted' && error.kind !== 'session-expired';
    return error instanceof LaunchFailed || needsPerson ? { type: 'launch-failed' } : { type: 'crash', at: this.clock.now() };
  }

  /** What a session's connection is told, local or remote: its log, its clock, and where its listings, requests and notices go. */
  private connectionOptions(entry: Entry, session: Session) {
    return {
      ...this.options.connection,
      log: entry.log,
      now: () => this.clock.now(),
      onToolsListChanged: () => this.scheduleRefresh(entry, session),
      ...(this.options.serverRequests ? { requests: this.options.serverRequests(entry.name) } : {}),
      ...(this.options.onNotice
        ? {
            onNotice: (notice: ServerNotice) => {
              // A stale session's notices are dropped like its listings.
              if (entry.session === session && !session.cancelled) this.options.onNotice?.(entry.name, notice);
            },
          }
        : {}),
    };
  }

  /**
   * A remote server's session: no launch plan and no sandbox — the connector
   * opens the connection (and signs in with what it holds); then the same
   * life as any server. Never rejects; cleans up in the caller's `finally`
   * through `session.connection`.
   */
  private async runRemote(entry: Entry, session: Session, connector: RemoteConnector): Promise<void> {
    let outcome: LifecycleEvent | undefined;
    let connection: ServerConnection | undefined;
    entry.sandboxed = false;
    try {
      connection = await connector.open(this.connectionOptions(entry, session), session.abort.signal);
      session.connection = connection;
      if (session.cancelled) return;
      entry.remote = connection.channel.describe();
      entry.log.push('airlock', `connected to ${entry.remote} (no sandbox: it runs elsewhere)`);
      outcome = await this.runConnected(entry, session, connection);
    } catch (error) {
      if (!session.cancelled) outcome = this.failure(entry, connection, error);
    } finally {
      this.endSession(entry, session, outcome);
      if (connection) await connection.close().catch(() => undefined); // The session is over; a connection that fails to close is already stopped.
      // The caller's `finally` dispatches shutdown-complete.
    }
  }

  /** Coalesces `tools/list_changed` bursts: at most one refresh running and one queued. */
  private scheduleRefresh(entry: Entry, session: Session): void {
    if (session.cancelled) return;
    if (session.refreshTimer || session.refreshing) {
      session.refreshQueued = true;
      return;
    }
    session.refreshTimer = setTimeout(() => {
      session.refreshTimer = undefined;
      void this.refresh(entry, session);
    }, this.options.refreshDelayMs ?? 50);
  }

  private async refresh(entry: Entry, session: Session): Promise<void> {
    const connection = session.connection;
    if (session.cancelled || !connection || entry.session !== session) {
      settle(session);
      return;
    }
    session.refreshing = true;
    session.refreshQueued = false;
    try {
      // SECURITY: SECURITY.md rule 6 — re-read tools after every list_changed; a changed
      // definition gets a new fingerprint, which voids rules made for the old one (invariant 3).
      await this.listAndApply(entry, session, connection);
    } catch (error) {
      entry.log.push('airlock', `refreshing tools failed: ${messageOf(error)}`);
    } finally {
      session.refreshing = false;
      if (session.refreshQueued) {
        session.refreshQueued = false;
        this.scheduleRefresh(entry, session);
      }
      if (!refreshPending(session)) settle(session);
    }
  }

  /** Lists tools and applies the result unless a listing started later was applied first. */
  private async listAndApply(entry: Entry, session: Session, connection: ServerConnection): Promise<void> {
    const sequence = ++session.listingsStarted;
    const listing = await connection.listTools();
    if (session.cancelled || sequence < session.listingApplied) return;
    session.listingApplied = sequence;
    this.applyListing(entry, session, listing);
  }

  private applyListing(entry: Entry, session: Session, listing: ToolListing): void {
    if (entry.session !== session) return;
    const first = this.index.get(entry.name) === undefined;
    const diff = this.index.set(entry.name, listing, this.clock.now());
    if (first || diff.added.length > 0 || diff.removed.length > 0 || diff.changed.length > 0) {
      this.toolsEmitter.fire({ server: entry.name, tools: this.index.get(entry.name) as ServerTools, diff });
    }
  }
}
