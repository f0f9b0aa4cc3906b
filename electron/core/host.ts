import { isIP } from 'node:net';
import { join } from 'node:path';
import { ownEntry, type Caller, type SandboxSupport, type ServerRecord } from '../../shared/domain';
import type { AppInfo, AppNotice, EmitEvent, IpcHandlers, SignOutOutcome } from '../../shared/ipc';
import type { AuditEntryView, CallResultView, ConfirmationView, ServerDetail, ServerSummary, SettingsView } from '../../shared/views';
import { AgentService, createSamplingModel, type AgentTool } from './agent';
import { ConfirmationRegistry, SessionGrants, systemClock, type Answerer, type ConfirmationAnswer } from './approvals';
import { AuditLog, coalescedAppendNotices, defaultAuditKeyPath, fileAuditKey, type AuditFileSystem, type AuditKey, type ChangeActor } from './audit';
import { actorOfShell, ChangeRecorder, grantedLines, profileChanges, sourceWords } from './audit/change-record';
import { NetworkDecisionRecorder } from './audit/network-record';
import { toActivityViews, toAuditEntryViews, toAuditVerifyView } from './audit/views';
import { toConfirmationView } from './approvals/views';
import { CallPipeline, type CallRequest, type CallResult } from './calls/call-pipeline';
import { CodeHasher, CodePins } from './code-pins';
import { CatalogRoom } from './catalog/catalog-room';
import { chatContextSources } from './catalog/chat-context';
import { ServerRequestsRoom } from './server-requests/server-requests-room';
import type { SamplingModel } from './server-requests/sampling-model';
import { AirlockError, messageOf } from './errors';
import { GatewayRoom } from './gateway/gateway-room';
import { mayAnswer, WINDOW_SHELL, type ShellIdentity } from './ipc/shell-identity';
import { InstallFlow } from './install-flow/install-flow';
import { remoteSupport } from './registry/install-plan';
import { RegistryRoom, type RegistryRoomDeps } from './registry/registry-room';
import { RuntimesRoom } from './runtimes';
import { networkHint } from './views/call-hints';
import { serverLimitsView } from './views/resource-limits';
import { lastWords, stateNote, whyUnavailable, type Unavailable } from './views/state-notes';
import { readTool } from './policy/annotations';
import { PolicyRoom } from './policy/policy-room';
import { ServerRemovalRoom } from './server-removal/server-removal-room';
import { ServerSettingsRoom } from './server-settings/server-settings-room';
import { APP_SCREEN_FRAMES, type ScreenFrames } from './screens/screen-frames';
import { ScreenRoom } from './screens/screen-room';
import type { CodeChange } from './policy/decide';
import { isContained, summariseSandbox } from './policy/containment';
import { NetworkQuestions, NoAnswerError } from './approvals/network-questions';
import { checkSandboxSupport } from './sandbox/capability';
import { dataFolderRegistryPath } from './sandbox/data-folders';
import { needsPins, pinGrants } from './sandbox/grant-pins';
import { createSandboxLauncher, type AirlockSandboxLauncher, type SandboxLauncherOptions } from './sandbox/sandbox-launcher';
import { RemoteRoom } from './remote/remote-room';
import { SecretStore, type SecretCipher } from './secrets/secret-store';
import { Supervisor, type SupervisorOptions } from './servers/supervisor';
import { AirlockStore, type StoreBackendFactory } from './store/store';
import { serverSummary, toolsOf, toolView, type ToolViewContext } from './views/views';

/** What a shell (the Electron app, the CLI, a test) gives the core. */
export interface HostHooks {
  /** Pushes an event to whatever shows Airlock's state (a window, nothing in the CLI). */
  emit: EmitEvent;
  /**
   * True when a person can be asked right now about a call that came
   * through `origin`: the window can be asked about any call; a terminal
   * only about the calls made through it. `origin` undefined: can anyone
   * here be asked at all (a network question, for the window or the owner's
   * own terminal)?
   */
  canAsk?: (origin?: string) => boolean;
  /** The shell's file picker (the Electron app); absent elsewhere. */
  pickFile?: (purpose: 'mcpb' | 'config' | 'folder') => Promise<string | undefined>;
  /** Logs a problem for developers; never shown raw to the user. */
  log?: (message: string, error?: unknown) => void;
  /** Opens an https link in the system browser (the Electron app); absent elsewhere. */
  openExternal?: (url: string) => Promise<void>;
}

/** Said first in the notice when a call's outcome could not be written to the audit log. */
const OUTCOME_NOT_RECORDED = 'A call finished, but the audit log could not record how it ended (Activity shows it without an outcome).';

export interface HostOptions {
  /** Airlock's data folder (the store, the audit log, installed servers). */
  dataDir: string;
  /** The app's version, for display. */
  version: string;
  hooks: HostHooks;
  /** How to open the store file: conf by default, electron-store in the app. */
  storeBackend?: StoreBackendFactory;
  /** How secrets are sealed at rest (Electron's safeStorage in the app). */
  secretCipher?: SecretCipher;
  /** How to check the sandbox (tests pass a PATH without bwrap). */
  checkSandbox?: () => SandboxSupport;
  /** The launcher (tests may pass one with options); default: the OS sandbox. */
  launcher?: AirlockSandboxLauncher;
  launcherOptions?: SandboxLauncherOptions;
  /** Supervisor tuning (tests shorten timings). */
  supervisor?: Omit<SupervisorOptions, 'launcher' | 'catalog'>;
  /** Default time a person has to answer a confirmation (ms). */
  confirmationTimeoutMs?: number;
  /** How long after a person's approval its call must be sent (ms; default 30 s; tests shorten it to prove a refused approval sends nothing). */
  approvalTokenTtlMs?: number;
  /** How long removing a remote server waits for its authorization server to revoke its sign-in (ms; default 10 s; tests shorten it). */
  revokeWithinMs?: number;
  /** The home folder (tests use a fake one). */
  homeDir?: string;
  /** The node that runs JavaScript servers (the app passes a real node; Electron's own binary cannot be one). */
  nodePath?: string;
  /** How another app starts the stdio gateway (default: `airlock gateway --stdio` from PATH). */
  gatewayCommand?: { command: string; args: string[] };
  /**
   * The audit log: the key that anchors its end (default — the app's and the
   * CLI's alike: one file outside every data folder, see audit-key.ts; null:
   * none), and its file operations (tests).
   */
  audit?: { key?: AuditKey | null; fs?: AuditFileSystem };
  /** Airlock's own model for servers' sampling requests (the built-in agent provides it); absent: only a gateway app's model can answer. */
  samplingModel?: SamplingModel;
  /** The MCP Registry client's tuning (tests: a short time limit). */
  registry?: RegistryRoomDeps['client'];
  /** Python packages: an index to use instead of pip's configured one (tests, a mirror). */
  pypiIndexUrl?: string;
  /**
   * Shows a remote server's sign-in page to the person (the CLI prints the
   * URL; absent: the shell's `openExternal`, else sign-in is refused plainly).
   */
  signInPage?: (url: string, server: string) => void;
  /** Where servers' screens (MCP Apps) load from: the app's `airlock-screen://` scheme by default; the browser tests pass a loopback origin. */
  screenFrames?: ScreenFrames;
}

/**
 * The composition root of the core: it builds every part from the data
 * folder and the shell's hooks, and is the one object the shells talk to.
 * It never imports Electron.
 */
export class AirlockHost {
  readonly store: AirlockStore;
  readonly secrets: SecretStore;
  readonly audit: AuditLog;
  readonly sessionGrants = new SessionGrants(systemClock);
  readonly confirmations: ConfirmationRegistry;
  readonly supervisor: Supervisor;
  readonly launcher: AirlockSandboxLauncher;
  readonly install: InstallFlow;
  readonly network: NetworkQuestions;
  /** Local servers' code, re-hashed at every start against what the person approved. */
  readonly codePins: CodePins;
  private readonly codeHasher: CodeHasher;
  /** What servers offer besides tools: resources, prompts, completion, logging. */
  readonly catalog: CatalogRoom;
  /** What servers ask back: sampling, elicitation, roots. */
  readonly serverRequests: ServerRequestsRoom;
  /** The built-in chat: providers, conversations, turns. */
  readonly agent: AgentService;
  /** The MCP Registry: search, listings, the registry setting. */
  readonly registry: RegistryRoom;
  /** Remote servers' connectors and sign-ins. */
  readonly remote: RemoteRoom;
  /** The node, python and uv servers run with (Settings › Runtimes). */
  readonly runtimes: RuntimesRoom;
  /** The standing rules and the policy settings (mode, strict durability). */
  readonly policy: PolicyRoom;
  /** What a person decides about one server: trust, grants, environment, secrets, approvals of changed tools and code. */
  readonly serverSettings: ServerSettingsRoom;
  /** Removing a server (a remote one's sign-in revoked first). */
  readonly removal: ServerRemovalRoom;
  /** Servers' screens (MCP Apps): pinned, allowed, and their requests decided. */
  readonly screens: ScreenRoom;
  /** The core as other apps reach it: the gateway facade, the HTTP gateway, connecting apps. */
  readonly gateway: GatewayRoom;
  /** Answers sampling requests with the person's default model (after the person approved them; see agent/sampling-model.ts). */
  readonly samplingModel: SamplingModel;
  private readonly pipeline: CallPipeline;
  /** "The log grew", told to the shells once per turn (a call writes two entries; see append-notices.ts). */
  private readonly appendNotices: (seq: number) => void;
  private readonly checkSandbox: () => SandboxSupport;
  private sandbox: SandboxSupport;
  private readonly disposers: Array<() => void> = [];
  private readonly auditNotices: AppNotice[] = [];
  private readonly networkAudit: NetworkDecisionRecorder;
  /** The file holding the audit log's key, when this host keeps it in one (every sandbox hides it). */
  private auditKeyFile: string | undefined;
  /** Rule, grant, trust and setting changes, as audit entries (off the call path; see change-record.ts). */
  private readonly changes: ChangeRecorder;
  /** Calls in the pipeline now, and who waits for none (see `whenIdle`). */
  private running = 0;
  private readonly idleWaiters: Array<() => void> = [];
  /** Hosts the sandbox's proxy refused each server lately (for the hint on a failed call). */
  private readonly networkRefusals = new Map<string, Array<{ host: string; at: number }>>();

  constructor(private readonly options: HostOptions) {
    const { dataDir } = options;
    this.store = new AirlockStore(dataDir, options.storeBackend);
    this.secrets = new SecretStore(dataDir, options.secretCipher, dataFolderRegistryPath(process.env, options.homeDir));
    this.audit = new AuditLog({ dir: join(dataDir, 'audit'), key: this.auditKey(), ...(options.audit?.fs ? { fs: options.audit.fs } : {}) });
    // A crashed predecessor's unfinished calls get their outcome (unknown) now, not at the next call.
    this.audit.recoverInterrupted().catch((error: unknown) => options.hooks.log?.('audit take-over failed', error));
    this.networkAudit = new NetworkDecisionRecorder(this.audit, () => Date.now(), (error) => options.hooks.log?.('could not record a network decision', error));
    this.changes = new ChangeRecorder(this.audit, (error) => {
      options.hooks.log?.('could not record a change in the audit log', error);
      this.auditNotices.push({ level: 'error', message: `A change was saved, but the audit log could not record it: ${messageOf(error)}` });
    });
    this.checkSandbox = options.checkSandbox ?? (() => checkSandboxSupport());
    this.sandbox = this.checkSandbox();
    this.confirmations = new ConfirmationRegistry({
      sessionGrants: this.sessionGrants,
      defaultTimeoutMs: options.confirmationTimeoutMs ?? 120_000,
      ...(options.approvalTokenTtlMs !== undefined ? { tokenTtlMs: options.approvalTokenTtlMs } : {}),
    });
    this.network = new NetworkQuestions(() => options.hooks.emit('network.didChange', this.network.list()));
    this.launcher =
      options.launcher ??
      createSandboxLauncher({
        ...(options.homeDir ? { homeDir: options.homeDir } : {}),
        onNetworkRequest: (server, host, port) => this.askNetwork(server, host, port),
        // SECURITY: a contained server is never asked about: its read-only tools run unasked
        // because it has no network, and a run-time "allow" must not end that quietly.
        mayAsk: (_server, profile) => !isContained(profile),
        // SECURITY (invariant 5): the audit key stays out of every server's reach, wherever it was moved.
        ...(this.auditKeyFile ? { hiddenFiles: [this.auditKeyFile] } : {}),
        onNetworkDecision: (decision) => {
          // Every decision goes to the audit log; refusals are also kept briefly, so a failed call can name the host.
          this.networkAudit.record(decision);
          if (decision.allowed) return;
          const list = this.networkRefusals.get(decision.serverName) ?? [];
          list.push({ host: isIP(decision.host) === 6 ? `[${decision.host}]:${decision.port}` : isIP(decision.host) ? `${decision.host}:${decision.port}` : decision.host, at: Date.now() });
          this.networkRefusals.set(decision.serverName, list.slice(-20));
        },
        ...options.launcherOptions,
      });
    this.codeHasher = new CodeHasher({ dataDir });
    this.codePins = new CodePins({ hasher: this.codeHasher, now: () => Date.now() });
    this.supervisor = new Supervisor({
      ...options.supervisor,
      launcher: this.launcher,
      catalog: { lookup: (name) => this.supervisedServer(name) },
      serverRequests: (name) => this.serverRequests.handlersFor(name),
      onNotice: (name, notice) => this.catalog.catalog.handleNotice(name, notice),
    });
    const records = () => this.store.read().servers;
    const updateRecord = (name: string, change: (record: ServerRecord) => ServerRecord) => this.updateRecord(name, change);
    this.catalog = new CatalogRoom({
      withConnection: (server, use) => this.supervisor.withConnection(server, use),
      status: (server) => this.supervisor.status(server),
      start: (server) => this.supervisor.start(server),
      note: (server, text) => this.supervisor.note(server, text),
      records,
      updateRecord,
      emit: options.hooks.emit,
      now: () => Date.now(),
    });
    this.serverRequests = new ServerRequestsRoom({
      state: () => this.store.read(),
      updateRecord,
      audit: this.audit,
      canAsk: () => options.hooks.canAsk?.() ?? false,
      emit: options.hooks.emit,
      // The shell's model if it passes one, else the person's default model in Settings › Models (read when asked).
      samplingModel: options.samplingModel ?? {
        available: () => this.samplingModel.available?.() ?? true,
        createMessage: (params, callOptions) => this.samplingModel.createMessage(params, callOptions),
      },
      note: (server, text) => this.supervisor.note(server, text),
      // Steady, not the wall clock: it times requests and the per-minute caps (issue 16.3).
      now: () => performance.now(),
      questionTimeoutMs: options.confirmationTimeoutMs ?? 120_000,
    });
    this.remote = new RemoteRoom({
      secrets: this.secrets,
      record: (name) => this.record(name),
      restartServer: (name) => this.supervisor.restart(name),
      stopServer: (name) => this.supervisor.stop(name),
      emitServers: () => this.emitServers(),
      refuseIfRemoving: (name) => this.removal.refuseIfRemoving(name),
      ...(options.revokeWithinMs !== undefined ? { revokeWithinMs: options.revokeWithinMs } : {}),
      ...(options.signInPage
        ? { showSignInPage: options.signInPage }
        : options.hooks.openExternal
          ? { showSignInPage: (url: string) => void options.hooks.openExternal!(url) }
          : {}),
    });
    this.gateway = new GatewayRoom({
      dataDir,
      ...(options.homeDir ? { homeDir: options.homeDir } : {}),
      ...(options.gatewayCommand ? { gatewayCommand: options.gatewayCommand } : {}),
      log: (message) => options.hooks.log?.(message),
      records: () => this.records(),
      supervisor: this.supervisor,
      serverRequests: this.serverRequests,
      catalog: this.catalog.gateway(),
      callTool: (request) => this.callTool(request),
    });
    this.registry = new RegistryRoom({
      readSetting: () => this.store.read().settings.registryUrl,
      writeSetting: (baseUrl) =>
        this.store.update((data) => {
          const { registryUrl: _old, ...settings } = data.settings;
          return { ...data, settings: baseUrl === undefined ? settings : { ...settings, registryUrl: baseUrl } };
        }),
      ...(options.registry ? { client: options.registry } : {}),
      remote: remoteSupport,
    });
    this.policy = new PolicyRoom({
      store: this.store,
      lookupTool: (server, tool) => this.supervisor.tools.lookup(server, tool),
      startServer: (server) => this.supervisor.start(server),
      codeChangeOf: (server, provenance) => this.codePins.changeOf(server, provenance),
      record: (server) => this.record(server),
      changes: this.changes,
      sessionGrants: this.sessionGrants,
      revokeRequestSession: (server) => this.serverRequests.pipeline.revokeSession(server),
      didChange: () => this.emitServers(),
    });
    this.serverSettings = new ServerSettingsRoom({
      store: this.store,
      record: (server) => this.record(server),
      updateRecord: (server, change) => this.updateRecord(server, change),
      restartIfRunning: (server) => this.restartIfRunning(server),
      detail: (server) => this.serverDetail(server),
      summary: (record) => this.summary(record),
      sendRootsListChanged: (server) => this.supervisor.withConnection(server, (connection) => connection.sendRootsListChanged()),
      lookupTool: (server, tool) => this.supervisor.tools.lookup(server, tool),
      codeChangeOf: (server, provenance) => this.codePins.changeOf(server, provenance),
      secrets: this.secrets,
      changes: this.changes,
      sessionGrants: this.sessionGrants,
      didChange: () => this.emitServers(),
    });
    this.removal = new ServerRemovalRoom({
      store: this.store,
      record: (server) => this.record(server),
      stopServer: (server) => this.supervisor.stop(server),
      withdrawQuestions: (server) => {
        this.confirmations.pending().filter((request) => request.server === server).forEach((request) => this.confirmations.cancel(request.id, 'the server was removed'));
        this.serverRequests.forget(server);
      },
      forgetCatalog: (server) => this.catalog.catalog.forget(server),
      remote: this.remote,
      sessionGrants: this.sessionGrants,
      codePins: this.codePins,
      secrets: this.secrets,
      changes: this.changes,
      dataDir: options.dataDir,
      serverDataDir: (server) => this.serverDataDir(server),
      didChange: () => this.emitServers(),
    });
    this.runtimes = new RuntimesRoom({
      read: () => this.store.read().settings.runtimes,
      update: (change) => this.store.update((data) => ({ ...data, settings: { ...data.settings, runtimes: change({ ...data.settings.runtimes }) } })),
      ...(options.homeDir ? { homeDir: options.homeDir } : {}),
      ...(options.nodePath ? { nodePath: options.nodePath } : {}),
    });
    this.install = new InstallFlow({
      registry: { server: (name, version) => this.registry.server(name, version), remote: remoteSupport },
      ...(options.pypiIndexUrl ? { pypiIndexUrl: options.pypiIndexUrl } : {}),
      dataDir,
      launcher: this.launcher,
      store: this.store,
      secrets: this.secrets,
      ...(options.homeDir ? { homeDir: options.homeDir } : {}),
      ...(options.nodePath ? { nodePath: options.nodePath } : {}),
      runtimes: () => this.runtimes.lookup(),
      toolContext: (record) => this.toolContext(record),
      hashFile: (path) => this.codeHasher.sha256(path),
      onDidChange: () => this.emitServers(),
      startServer: (name) => this.supervisor.start(name),
      stopServer: (name) => this.supervisor.stop(name),
      signInBroker: () => this.remote.broker(),
    });
    this.appendNotices = coalescedAppendNotices((seq) => options.hooks.emit('audit.didAppend', { seq }));
    this.pipeline = new CallPipeline({
      state: () => this.store.read(),
      lookupTool: (server, tool) => this.supervisor.tools.lookup(server, tool),
      ensureReady: async (server) => {
        if (this.supervisor.state(server) !== 'ready') await this.supervisor.start(server);
      },
      toolsSettled: (server) => this.supervisor.toolsSettled(server),
      callServer: (server, tool, args, callOptions) => this.supervisor.callTool(server, tool, args, callOptions),
      secretValues: (server, record) => this.secretValuesOf(server, record),
      saveRule: (rule, answeredIn) => this.policy.saveRule(rule, actorOfShell(answeredIn), 'confirmation'),
      sessionGrants: this.sessionGrants,
      confirmations: this.confirmations,
      audit: this.audit,
      sandboxAvailable: () => this.sandbox.supported,
      codeChange: (server, record) => this.codePins.check(server, record.provenance, 'call'),
      // A call that came through no shell of its own (the agent, the app's own HTTP gateway) can only be asked in the window.
      canAsk: (origin) => options.hooks.canAsk?.(origin ?? WINDOW_SHELL.origin) ?? false,
      now: () => Date.now(),
      onDidAppend: this.appendNotices,
      onAuditError: (message) => {
        options.hooks.log?.('could not record a call outcome', message);
        // One notice, however many outcomes failed: the person's fix (free space, check the folder) is the same.
        if (!this.auditNotices.some((notice) => notice.message.startsWith(OUTCOME_NOT_RECORDED))) {
          this.auditNotices.push({ level: 'error', message: `${OUTCOME_NOT_RECORDED} ${message}` });
        }
      },
      whyUnavailable: (server) => this.unavailable(server)?.message,
    });
    this.screens = new ScreenRoom({
      record: (server) => this.record(server),
      updateRecord: (server, change) => this.updateRecord(server, change),
      tools: (server) => (this.supervisor.state(server) === 'ready' ? this.supervisor.tools.get(server)?.tools : undefined),
      ensureReady: async (server) => {
        if (this.supervisor.state(server) !== 'ready') await this.supervisor.start(server);
      },
      readResource: (server, uri) => this.catalog.catalog.readResource(server, uri),
      callTool: (request) => this.callTool(request),
      recordRequest: (input) => this.audit.appendServerRequest(input),
      changes: this.changes,
      frames: options.screenFrames ?? APP_SCREEN_FRAMES,
      chat: { fromScreen: (conversation, server, text, kind) => this.agent.fromScreen(conversation, server, text, kind) },
      now: () => performance.now(),
    });
    // The agent is one more caller of the pipeline: it reaches tools only through callTool, and holds no way to answer a confirmation.
    this.agent = new AgentService({
      dataDir,
      secrets: this.secrets,
      servers: () => this.records().map((record) => ({ name: record.name, enabled: record.enabled })),
      tools: (servers) => this.agentTools(servers),
      callTool: (request) => this.callTool(request),
      emit: {
        conversations: () => options.hooks.emit('chat.didChange', {}),
        models: () => options.hooks.emit('models.didChange', {}),
        update: (update) => options.hooks.emit('chat.didUpdate', update),
      },
      ...(options.confirmationTimeoutMs ? { confirmationTimeoutMs: options.confirmationTimeoutMs } : {}),
      context: chatContextSources(this.catalog.gateway()),
    });
    this.samplingModel = createSamplingModel({ defaultModel: () => this.agent.models.defaultModel(), clientFor: (ref) => this.agent.clientFor(ref) });
    const emitApprovals = () => options.hooks.emit('approvals.didChange', this.pendingConfirmations());
    this.disposers.push(this.confirmations.onDidOpen(emitApprovals), this.confirmations.onDidClose(emitApprovals));
    const stateSub = this.supervisor.onDidChangeState((change) => {
      if (change.state === 'ready') void this.catalog.catalog.serverReady(change.server);
      this.emitServers();
    });
    const toolsSub = this.supervisor.onDidChangeTools(({ server }) => {
      // SECURITY: a question about a tool that changed while it was open is withdrawn; the
      // pipeline asks again with the new definition (issue 9, item 8).
      this.confirmations.cancelChanged(server, (tool) => this.supervisor.tools.lookup(server, tool)?.fingerprint);
      this.emitServers();
    });
    this.disposers.push(() => stateSub.dispose(), () => toolsSub.dispose());
  }

  // ── App ────────────────────────────────────────────────────────────────

  /** Start-up problems the user must see (a corrupt store kept aside, an unreadable audit key, …). */
  get notices(): AppNotice[] {
    return [...this.store.notices, ...this.auditNotices];
  }

  info(): AppInfo {
    return {
      name: 'Airlock',
      version: this.options.version,
      platform: process.platform,
      dataDir: this.options.dataDir,
      notices: this.notices,
      canPickFiles: this.options.hooks.pickFile !== undefined,
    };
  }

  sandboxStatus(): SandboxSupport {
    return this.sandbox;
  }

  /** Re-checks the sandbox (after the user installed what was missing) and tells every shell. */
  recheckSandbox(): SandboxSupport {
    this.sandbox = this.checkSandbox();
    this.options.hooks.emit('sandbox.didChange', this.sandbox);
    return this.sandbox;
  }

  // ── Servers ────────────────────────────────────────────────────────────

  /** Every server record. */
  records(): ServerRecord[] {
    return Object.values(this.store.read().servers);
  }

  record(name: string): ServerRecord {
    const record = ownEntry(this.store.read().servers, name);
    if (!record) throw new AirlockError('not-found', `There is no server named ${name}.`);
    return record;
  }

  listServers(): ServerSummary[] {
    return this.records()
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((record) => this.summary(record));
  }

  async serverDetail(name: string): Promise<ServerDetail> {
    const record = this.record(name);
    const context = this.toolContext(record);
    const tools = toolsOf(record, this.supervisor.tools.get(name)?.tools);
    const recent = await this.audit.read({ server: name, limit: 20 });
    return {
      ...this.summary(record),
      spec: record.spec,
      provenance: record.provenance,
      ...(record.importedFrom ? { importedFrom: record.importedFrom } : {}),
      profile: record.profile,
      secretsSet: this.secrets.names(name),
      ...codeChangeView(this.codePins.changeOf(name, record.provenance)),
      ...serverLimitsView(this.supervisor.status(name), this.sandbox.supported ? () => this.launcher.limits() : undefined),
      tools: tools.map((tool) => toolView(tool.definition, tool.fingerprint, context)),
      logs: this.supervisor.log(name).slice(-300).map((line) => ({ time: new Date(line.at).toISOString(), source: line.source, text: line.text })),
      recentCalls: recent.flatMap(toAuditEntryViews),
      createdAt: record.createdAt,
    };
  }

  /** Enables a server and starts it in its sandbox. */
  async startServer(name: string): Promise<ServerSummary> {
    this.removal.refuseIfRemoving(name);
    this.updateRecord(name, (record) => ({ ...record, enabled: true }));
    try {
      await this.supervisor.start(name);
    } catch (error) {
      const words = lastWords(this.supervisor.log(name));
      throw new AirlockError('unavailable', `${name} did not start: ${messageOf(error)}${words ? ` — its last output: “${words}”` : ''}`);
    }
    return this.summary(this.record(name));
  }

  /** Stops a server and keeps it from starting with Airlock. */
  async stopServer(name: string): Promise<ServerSummary> {
    this.updateRecord(name, (record) => ({ ...record, enabled: false }));
    await this.supervisor.stop(name);
    return this.summary(this.record(name));
  }

  async restartServer(name: string): Promise<ServerSummary> {
    this.removal.refuseIfRemoving(name);
    this.updateRecord(name, (record) => ({ ...record, enabled: true }));
    try {
      await this.supervisor.restart(name);
    } catch (error) {
      throw new AirlockError('unavailable', `${name} did not restart: ${messageOf(error)}`);
    }
    return this.summary(this.record(name));
  }

  /** Starts every enabled server (the app does this at start-up). Failures are shown on each server. */
  async startEnabledServers(): Promise<void> {
    await Promise.allSettled(this.records().filter((record) => record.enabled).map((record) => this.supervisor.start(record.name)));
  }

  /** Stops a server and deletes it (see ServerRemovalRoom); a remote server's sign-in is revoked first. */
  removeServer(name: string, by: ChangeActor = 'window'): Promise<{ signIn?: SignOutOutcome }> {
    return this.removal.remove(name, by);
  }

  /** Why a server cannot take calls right now (imported, turned off, crashed, no sandbox), or undefined. */
  unavailable(name: string): Unavailable | undefined {
    const record = this.store.read().servers[name];
    if (!record) return undefined;
    const status = this.supervisor.status(name);
    return whyUnavailable(record, { state: status.state, ...(status.lastError ? { lastError: status.lastError } : {}), log: this.supervisor.log(name), sandbox: this.sandbox });
  }

  /** Commits an install (a new server, or an update of one), and records it in the audit log. */
  async commitInstall(request: Parameters<InstallFlow['commit']>[0], by: ChangeActor = 'window'): Promise<ServerSummary> {
    const existing = ownEntry(this.store.read().servers, request.name);
    const record = await this.install.commit(request);
    const saved = this.store.read().servers[record.name] ?? record;
    const changes = existing ? profileChanges(existing.profile, saved.profile) : grantedLines(saved.profile, saved.trusted);
    if (existing && existing.trusted !== saved.trusted) changes.push(`trusted: ${saved.trusted ? 'on' : 'off'} (was ${existing.trusted ? 'on' : 'off'})`);
    this.changes.record({ change: existing ? 'server-updated' : 'server-added', by, server: record.name, changes: [`source: ${sourceWords(saved)}`, ...changes] });
    return this.summary(saved);
  }

  /** Resolves once every change started so far is in the audit log (or its failure reported). */
  changesRecorded(): Promise<void> {
    return this.changes.settled();
  }

  // ── Calls and confirmations ────────────────────────────────────────────

  /** The one choke point: every call from every caller goes through here. */
  async callTool(request: CallRequest): Promise<CallResult> {
    this.running += 1;
    try {
      return await this.pipeline.call(request);
    } finally {
      this.running -= 1;
      if (this.running === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /**
   * Confirmations waiting for an answer, as `shell` may see them: the window
   * every one; a terminal only those of calls made through it.
   */
  pendingConfirmations(shell: ShellIdentity = WINDOW_SHELL): ConfirmationView[] {
    return this.confirmations
      .pending()
      .filter((request) => mayAnswer(shell, request))
      .map((request) => {
        const record = this.store.read().servers[request.server];
        const view = toConfirmationView(request);
        // The sandbox as it is now (grants may have changed while the request waited).
        return record ? { ...view, sandboxSummary: summariseSandbox(record.profile, record.spec.remote).line } : view;
      });
  }

  /**
   * Answers a confirmation. With `shell`, only one routed to that shell
   * (SECURITY: invariant 1 — an answer comes from a shell that was shown the
   * prompt; another process's confirmation reads as one Airlock never asked).
   */
  answerConfirmation(id: string, answer: Omit<ConfirmationAnswer, 'answeredBy'>, answeredBy: Answerer, shell: ShellIdentity = WINDOW_SHELL): { accepted: boolean; reason?: string } {
    const request = this.confirmations.get(id);
    if (request && !mayAnswer(shell, request)) return { accepted: false, reason: 'Airlock did not ask this.' };
    const result = this.confirmations.answer(id, { ...answer, answeredBy });
    return result.ok ? { accepted: true } : { accepted: false, reason: result.message };
  }

  /**
   * Resolves once no call is running (bounded by `timeoutMs`): before this
   * process hands the servers to another, calls in flight finish here.
   */
  async whenIdle(timeoutMs: number): Promise<void> {
    if (this.running === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * A running server wants a host it has no grant for: ask a person, if one
   * can be asked. Nobody to ask (or nobody answering) rejects, so the proxy
   * records "denied: nobody could be asked", not "denied by you".
   */
  private askNetwork(server: string, host: string, port: number): Promise<boolean> {
    if (!(this.options.hooks.canAsk?.(undefined) ?? false)) return Promise.reject(new NoAnswerError('No window or terminal could ask.'));
    return this.network.ask(server, host, port);
  }

  /**
   * Answers a network question, from `by` (the window, a terminal).
   * "Remember" adds the host to the server's grants for later runs (this run
   * already has the answer).
   */
  answerNetwork(id: string, allow: boolean, remember: boolean, by = 'window'): { accepted: boolean } {
    const question = this.network.get(id);
    if (question) this.networkAudit.noteAnswer(question.server, question.host, question.port, by);
    if (!question || !this.network.answer(id, allow)) return { accepted: false };
    if (allow && remember) {
      const grant = isIP(question.host) ? `${question.host.includes(':') ? `[${question.host}]` : question.host}:${question.port}` : question.host;
      let added = false;
      this.store.update((data) => {
        const record = data.servers[question.server];
        if (!record || record.profile.network.allowedDomains.includes(grant)) return data;
        added = true;
        const profile = { ...record.profile, network: { allowedDomains: [...record.profile.network.allowedDomains, grant] } };
        return { ...data, servers: { ...data.servers, [question.server]: { ...record, profile } } };
      });
      if (added) this.changes.record({ change: 'grants', by: actorOfShell(by), via: 'network-question', server: question.server, changes: [`network added: ${grant}`] });
      this.emitServers();
    }
    return { accepted: true };
  }

  /** While a person engages with a confirmation, its countdown pauses: the deadline moves to a minute from now (bounded). */
  extendConfirmation(id: string): number | undefined {
    const deadline = this.confirmations.extend(id, ENGAGED_GRACE_MS);
    if (deadline !== undefined) this.options.hooks.emit('approvals.didChange', this.pendingConfirmations());
    return deadline;
  }

  // ── Audit, settings ────────────────────────────────────────────────────

  async auditEntries(query: { server?: string; tool?: string; verdict?: 'allow' | 'ask' | 'deny'; limit?: number }): Promise<AuditEntryView[]> {
    const records = await this.audit.readActivity({
      ...(query.server ? { server: query.server } : {}),
      ...(query.tool ? { tool: query.tool } : {}),
      ...(query.verdict ? { decision: query.verdict } : {}),
      limit: query.limit ?? 200,
    });
    return records.flatMap(toActivityViews);
  }

  /** The settings a person can change (Settings, `airlock settings`). */
  settings(): SettingsView {
    const { settings } = this.store.read();
    return { policyMode: settings.policyMode, strictDurability: settings.strictDurability === true, flushWindowMs: this.audit.flushWindowMs, runtimes: { ...settings.runtimes } };
  }

  // ── IPC ────────────────────────────────────────────────────────────────

  /**
   * One handler per IPC channel for one shell; the shells wire them through
   * the contract's wrapper. The window's by default; the owner passes each
   * client process's identity (see `ShellIdentity`).
   */
  ipcHandlers(shell: ShellIdentity = WINDOW_SHELL): IpcHandlers {
    const answerer: Answerer = { shell: shell.kind === 'window' ? 'window' : 'terminal' };
    // SECURITY: invariant 1 — the caller kind comes from the shell the owner knows, never from the request.
    const caller: Caller = shell.kind === 'window' ? { kind: 'user' } : { kind: 'cli' };
    const window = shell.kind === 'window';
    // Who made a change: the window, or the command line (a terminal shell). The handler answers once its audit entry is written.
    const by: ChangeActor = window ? 'window' : 'command-line';
    const recorded = async <T>(result: T | Promise<T>): Promise<T> => {
      const value = await result;
      await this.changes.settled();
      return value;
    };
    return {
      'app.info': () => this.info(),
      'sandbox.status': () => this.sandboxStatus(),
      'sandbox.recheck': () => this.recheckSandbox(),
      'servers.list': () => this.listServers(),
      'servers.get': ({ name }) => this.serverDetail(name),
      'servers.start': ({ name }) => this.startServer(name),
      'servers.stop': ({ name }) => this.stopServer(name),
      'servers.restart': ({ name }) => this.restartServer(name),
      'servers.remove': async ({ name }) => recorded(this.removeServer(name, by)),
      'servers.setTrust': ({ name, trusted }) => recorded(this.serverSettings.setTrust(name, trusted, by)),
      'servers.updateProfile': ({ name, profile }) => recorded(this.serverSettings.updateProfile(name, profile, by)),
      ...this.remote.ipcHandlers(),
      'servers.setEnv': ({ name, env }) => this.serverSettings.setEnv(name, env),
      'servers.setUnsandboxed': ({ name, consent }) => recorded(this.serverSettings.setUnsandboxed(name, consent, by)),
      'servers.setSecret': ({ name, key, value }) => recorded(this.serverSettings.setSecret(name, key, value, by)),
      'servers.clearSecret': ({ name, key }) => recorded(this.serverSettings.clearSecret(name, key, by)),
      'servers.approveChange': ({ name, tool, fingerprint }) => recorded(this.serverSettings.approveChange(name, tool, fingerprint, by)),
      'servers.approveCode': ({ name, files }) => recorded(this.serverSettings.approveCode(name, files, by)),
      'servers.revokeRules': ({ name }) => recorded((this.policy.revokeRules(name, by), this.serverDetail(name))),
      'install.prepare': ({ source }) => this.install.prepare(source),
      'install.scanImports': (request) => this.install.scanImports(request),
      'install.probe': ({ draftId, userConfig, profile, env, trusted, secrets }) =>
        this.install.probe(draftId, userConfig, profile, { ...(env ? { env } : {}), ...(trusted !== undefined ? { trusted } : {}), ...(secrets ? { secrets } : {}) }),
      'install.preview': ({ draftId, profile, trusted }) => this.install.preview(draftId, profile, trusted),
      'install.commit': (request) => recorded(this.commitInstall(request, by)),
      'install.cancel': async ({ draftId }) => (await this.install.cancel(draftId), {}),
      'tools.call': async ({ server, tool, arguments: args }): Promise<CallResultView> => {
        const started = Date.now();
        const result = await this.callTool({ server, tool, arguments: args, caller, origin: shell.origin });
        const content = result.result?.content ?? [];
        // A failed call keeps the server's own words; a network hint follows when that looks like the cause.
        const said = [result.message ?? '', ...content.map((item) => (item.type === 'text' ? item.text : ''))].join('\n');
        const refused = [...new Set((this.networkRefusals.get(server) ?? []).filter((refusal) => refusal.at >= started).map((refusal) => refusal.host))];
        const hint = result.outcome === 'tool-error' || result.outcome === 'unknown' ? networkHint(this.record(server), said, refused) : undefined;
        const message = [result.message, hint].filter(Boolean).join('\n');
        return {
          outcome: result.outcome,
          ...(result.nobodyToAsk ? { nobodyToAsk: true } : {}),
          content,
          ...(result.result?.structuredContent !== undefined ? { structuredContent: result.result.structuredContent } : {}),
          ...(message ? { message } : {}),
          durationMs: result.durationMs,
        };
      },
      'approvals.list': () => this.pendingConfirmations(shell),
      'approvals.answer': ({ id, choice, arguments: edited, confirmDestructiveAlways }) =>
        // An "always" answer saves its rule when the waiting call resumes (the pipeline), not here.
        this.answerConfirmation(
          id,
          { choice, ...(edited ? { editedArguments: edited } : {}), ...(confirmDestructiveAlways ? { confirmDestructiveAlways } : {}) },
          answerer,
          shell,
        ),
      'approvals.extend': ({ id }) => {
        const request = this.confirmations.get(id);
        const deadline = request && mayAnswer(shell, request) ? this.extendConfirmation(id) : undefined;
        return deadline === undefined ? {} : { deadline };
      },
      // Network questions are the window's (and the owner's own terminal's, in its process).
      'network.pending': () => (window ? this.network.list().map(({ id, server, host, port, deadline }) => ({ id, server, host, port, deadline })) : []),
      'network.answer': ({ id, allow, remember }) => (window ? recorded(this.answerNetwork(id, allow, remember, 'window')) : { accepted: false }),
      'rules.list': () => this.policy.rules(),
      'rules.add': (request) => recorded(this.policy.addRule(request, by)),
      'rules.remove': ({ server, tool }) => recorded((this.policy.removeRule(server, tool, by), {})),
      'audit.list': (query) => this.auditEntries(query),
      'audit.verify': async ({ scope }) => toAuditVerifyView(scope === 'new' ? await this.audit.verifyNew() : { ...(await this.audit.verify()), scope: 'all' }),
      'settings.get': () => this.settings(),
      'settings.setPolicyMode': ({ mode }) => recorded((this.policy.setMode(mode, by), this.settings())),
      'settings.setStrictDurability': ({ strict }) => recorded((this.policy.setStrictDurability(strict, by), this.settings())),
      'settings.setRuntime': async ({ name, path }) => (await this.runtimes.set(name, path), this.settings()),
      'runtimes.list': () => this.runtimes.list(),
      ...this.gateway.ipcHandlers(),
      'models.get': () => this.agent.modelsView(),
      'models.addProvider': (input) => this.agent.addProvider(input),
      'models.updateProvider': ({ id, ...changes }) => this.agent.updateProvider(id, changes),
      'models.removeProvider': ({ id }) => (this.agent.removeProvider(id), {}),
      'models.test': ({ id }) => this.agent.testProvider(id),
      'models.setDefault': (ref) => this.agent.setDefaultModel(ref),
      'models.setStepLimit': ({ limit }) => this.agent.setStepLimit(limit),
      'chat.list': ({ query }) => this.agent.list(query),
      'chat.get': ({ id }) => this.agent.get(id),
      'chat.create': ({ model }) => this.agent.create(model ? { model } : {}),
      'chat.rename': ({ id, title }) => this.agent.rename(id, title),
      'chat.delete': async ({ id }) => (await this.agent.remove(id), {}),
      'chat.setModel': ({ id, model }) => this.agent.setModel(id, model),
      'chat.setTools': ({ id, tools }) => this.agent.setTools(id, tools),
      'chat.tools': ({ id }) => this.agent.tools(id),
      'chat.commands': ({ id }) => this.agent.commands(id),
      // A terminal's own turns ask there (and in the window); the window's ask in the window.
      'chat.send': ({ id, ...input }) => this.agent.send(id, input, shell.kind === 'window' ? undefined : shell.origin),
      'chat.stop': async ({ id }) => (await this.agent.stop(id), {}),
      'chat.retry': ({ id }) => (this.agent.retry(id, shell.kind === 'window' ? undefined : shell.origin), {}),
      'links.open': async ({ url }) => {
        if (!this.options.hooks.openExternal) throw new AirlockError('unavailable', 'Links open only in the Airlock app.');
        await this.options.hooks.openExternal(url);
        return {};
      },
      'dialog.openFile': async ({ purpose }) => {
        const path = await this.options.hooks.pickFile?.(purpose);
        return path ? { path } : {};
      },
      ...this.catalog.ipcHandlers(),
      ...this.registry.ipcHandlers(),
      ...this.serverRequests.ipcHandlers({ shell: 'window' }),
      ...this.screens.ipcHandlers(shell, recorded),
    };
  }

  /** Stops everything the host started: servers, pending confirmations, drafts. */
  async dispose(): Promise<void> {
    await this.agent.dispose();
    this.confirmations.cancelAll('Airlock is shutting down');
    this.serverRequests.dispose();
    this.network.denyAll();
    await this.gateway.close();
    await this.install.dispose();
    await this.supervisor.stopAll();
    await this.remote.closeAll();
    await this.launcher.close();
    await this.networkAudit.flush();
    await this.changes.settled();
    await this.audit.close();
    for (const dispose of this.disposers.splice(0)) dispose();
  }

  // ── Internals ──────────────────────────────────────────────────────────

  // The key that anchors the audit log's end; without one the log still records every call and says it cannot confirm its end.
  private auditKey(): AuditKey | undefined {
    const given = this.options.audit?.key;
    if (given !== undefined) return given ?? undefined;
    try {
      this.auditKeyFile = defaultAuditKeyPath(process.env, this.options.homeDir);
      return fileAuditKey(this.auditKeyFile, this.options.dataDir);
    } catch (error) {
      this.auditNotices.push({ level: 'error', message: messageOf(error) });
      return undefined;
    }
  }

  // The values the person marked secret for a server: hidden in the audit log wherever they appear in its calls' arguments.
  private secretValuesOf(server: string, record: ServerRecord | undefined = ownEntry(this.store.read().servers, server)): string[] {
    if (!record || record.profile.secrets.length === 0) return [];
    try {
      return Object.values(this.secrets.values(server, record.profile.secrets));
    } catch {
      return [];
    }
  }

  /** Where a server's own persistent data lives (writable only when granted). */
  serverDataDir(name: string): string {
    return join(this.options.dataDir, 'server-data', name);
  }

  /** The tools the agent may be offered: enabled servers' current tools (starting those not running), with Airlock's reading. */
  private async agentTools(servers: readonly string[] | null): Promise<AgentTool[]> {
    const records = this.records().filter((record) => record.enabled && (servers === null || servers.includes(record.name)));
    await Promise.allSettled(records.filter((record) => this.supervisor.state(record.name) !== 'ready').map((record) => this.supervisor.start(record.name)));
    return records.flatMap((record) =>
      (this.supervisor.tools.get(record.name)?.tools ?? []).map((tool) => {
        const reading = readTool(tool.definition.annotations);
        return { server: record.name, definition: tool.definition, serverTrusted: record.trusted, openWorld: reading.openWorld, readOnly: reading.toolClass === 'read-only' };
      }),
    );
  }

  /** What the supervisor starts, read afresh at every start — after pinning grants and re-hashing a local server's code. */
  private async supervisedServer(name: string) {
    let record = ownEntry(this.store.read().servers, name);
    if (!record) return undefined;
    // A store from before grants were pinned: pin them now, at this start.
    if (needsPins(record.profile)) record = this.updateRecord(name, (current) => ({ ...current, profile: pinGrants(current.profile, current.profile) }));
    // SECURITY: a code change since approval voids the rules made before (decide() asks);
    // the hashes are taken before the process runs, at every start, restarts included.
    await this.codePins.check(name, record.provenance, 'start');
    return {
      ...(record.spec.remote ? { remote: await this.remote.link(name, record) } : {}),
      spec: record.spec,
      profile: record.profile,
      context: {
        serverName: name,
        airlockDataDir: this.options.dataDir,
        serverDataDir: this.serverDataDir(name),
        secrets: this.secrets.values(name, record.profile.secrets),
      },
    };
  }

  private summary(record: ServerRecord): ServerSummary {
    const status = this.supervisor.status(record.name);
    const summary = serverSummary(
      record,
      { state: status.state, ...(status.lastError ? { lastError: status.lastError } : {}) },
      toolsOf(record, this.supervisor.tools.get(record.name)?.tools),
      this.codePins.changeOf(record.name, record.provenance),
    );
    const note = stateNote(record, { state: status.state, ...(status.lastError ? { lastError: status.lastError } : {}), log: this.supervisor.log(record.name), sandbox: this.sandbox });
    return note ? { ...summary, stateNote: note } : summary;
  }

  private toolContext(record: ServerRecord): ToolViewContext {
    const data = this.store.read();
    const otherServersTools = new Map<string, string[]>();
    for (const other of Object.values(data.servers)) {
      if (other.name === record.name) continue;
      otherServersTools.set(other.name, toolsOf(other, this.supervisor.tools.get(other.name)?.tools).map((tool) => tool.definition.name));
    }
    return {
      record,
      ownTools: toolsOf(record, this.supervisor.tools.get(record.name)?.tools).map((tool) => tool.definition.name),
      rules: data.rules,
      sessionGrants: this.sessionGrants.list(),
      mode: data.settings.policyMode,
      sandboxAvailable: this.sandbox.supported,
      otherServersTools,
      now: Date.now(),
      codeChange: this.codePins.changeOf(record.name, record.provenance),
    };
  }

  private updateRecord(name: string, change: (record: ServerRecord) => ServerRecord): ServerRecord {
    let updated: ServerRecord | undefined;
    this.store.update((data) => {
      const record = data.servers[name];
      if (!record) throw new AirlockError('not-found', `There is no server named ${name}.`);
      updated = change(record);
      return { ...data, servers: { ...data.servers, [name]: updated } };
    });
    this.emitServers();
    return updated!;
  }

  private async restartIfRunning(name: string): Promise<void> {
    const state = this.supervisor.state(name);
    if (state === 'ready' || state === 'starting' || state === 'backoff') {
      await this.supervisor.restart(name).catch((error: unknown) => this.options.hooks.log?.(`restart of ${name} failed`, error));
    }
  }

  private emitServers(): void {
    try {
      this.options.hooks.emit('servers.didChange', this.listServers());
    } catch (error) {
      this.options.hooks.log?.('could not emit servers.didChange', error);
    }
  }
}

/** How long a confirmation waits after the person last engaged with it. */
const ENGAGED_GRACE_MS = 60_000;

/** The detail page's view of a code change (old and new hash per file), if there is one. */
function codeChangeView(change: CodeChange | null): Pick<ServerDetail, 'codeChange'> {
  return change ? { codeChange: { files: change.files.map((file) => ({ role: file.role, path: file.path, approved: file.approved, current: file.current })) } } : {};
}
