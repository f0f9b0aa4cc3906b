import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ServerRecord } from '../../shared/domain';
import type { IpcHandlers } from '../../shared/ipc';
import { AgentService, createSamplingModel } from './agent';
import { offeredTools } from './agent/offered-tools';
import { AppRoom } from './app/app-room';
import { ApprovalsRoom } from './approvals/approvals-room';
import { ConfirmationRegistry, SessionGrants, systemClock } from './approvals';
import type { AuditLog } from './audit';
import { AuditExportRoom } from './audit-export/audit-export-room';
import { AuditRoom } from './audit/audit-room';
import type { ChangeRecorder } from './audit/change-record';
import { actorOfShell } from './audit/change-record';
import { CallsRoom } from './calls/calls-room';
import { CatalogRoom } from './catalog/catalog-room';
import { chatContextSources } from './catalog/chat-context';
import { CodeHasher, CodePins } from './code-pins';
import { GatewayRoom } from './gateway/gateway-room';
import type { HostOptions } from './host-options';
import { InstallFlow } from './install-flow/install-flow';
import { InstallRoom } from './install-flow/install-room';
import { ManagedPolicyRoom } from './managed-policy/managed-policy-room';
import { defaultPolicySource } from './managed-policy/policy-sources';
import { WINDOW_SHELL, type ShellIdentity } from './ipc/shell-identity';
import { isContained } from './policy/containment';
import { PolicyRoom } from './rules/policy-room';
import { modelBoundContext, modelBoundResult } from './redaction/model-bound';
import { recordLookup, serverSecretValues, type ServerSecretsDeps } from './redaction/server-secrets';
import { remoteSupport } from './registry/install-plan';
import { RegistryRoom } from './registry/registry-room';
import { RemoteRoom } from './remote/remote-room';
import { RuntimesRoom } from './runtimes';
import { checkSandboxSupport } from './sandbox/capability';
import { dataFolderRegistryPath } from './sandbox/data-folders';
import { createSandboxLauncher, type AirlockSandboxLauncher } from './sandbox/sandbox-launcher';
import { SecretStore } from './secrets/secret-store';
import { ServerControlRoom } from './server-control/server-control-room';
import { SandboxPlanRoom } from './sandbox-plan/sandbox-plan-room';
import { APP_SCREEN_FRAMES } from './screens/screen-frames';
import { ScreenRoom } from './screens/screen-room';
import { ServerRemovalRoom } from './server-removal/server-removal-room';
import type { SamplingModel } from './server-requests/sampling-model';
import { ServerRequestsRoom } from './server-requests/server-requests-room';
import { ServerSettingsRoom } from './server-settings/server-settings-room';
import { Supervisor } from './servers/supervisor';
import { AirlockStore } from './store/store';
import { lastWords } from './views/state-notes';

export type { HostHooks, HostOptions } from './host-options';

/**
 * The composition root of the core: it builds every room from the data
 * folder and the shell's hooks, wires them to each other, and hands each
 * shell the rooms' channels for *its* identity. It decides nothing itself:
 * who may do what is decided in each room's `ipcHandlers(shell)`. It never
 * imports Electron.
 */
export class AirlockHost {
  readonly store: AirlockStore;
  readonly secrets: SecretStore;
  readonly activity: AuditRoom;
  readonly sessionGrants = new SessionGrants(systemClock);
  readonly confirmations: ConfirmationRegistry;
  readonly approvals: ApprovalsRoom;
  readonly app: AppRoom;
  readonly launcher: AirlockSandboxLauncher;
  readonly supervisor: Supervisor;
  readonly servers: ServerControlRoom;
  readonly codePins: CodePins;
  readonly catalog: CatalogRoom;
  readonly serverRequests: ServerRequestsRoom;
  readonly remote: RemoteRoom;
  readonly gateway: GatewayRoom;
  readonly registry: RegistryRoom;
  readonly policy: PolicyRoom;
  readonly serverSettings: ServerSettingsRoom;
  readonly removal: ServerRemovalRoom;
  /** Servers' screens (MCP Apps): pinned, allowed, and their requests decided. */
  readonly screens: ScreenRoom;
  readonly sandboxPlan: SandboxPlanRoom;
  readonly runtimes: RuntimesRoom;
  readonly install: InstallFlow;
  readonly installs: InstallRoom;
  readonly calls: CallsRoom;
  readonly agent: AgentService;
  readonly samplingModel: SamplingModel;
  /** The organisation's managed policy: what it forbids and locks. */
  readonly organisation: ManagedPolicyRoom;
  /** The audit log, streamed to an OpenTelemetry collector. */
  readonly auditExport: AuditExportRoom;
  private readonly disposers: Array<() => void> = [];

  constructor(private readonly options: HostOptions) {
    const { dataDir, hooks } = options;
    const home = options.homeDir ? { homeDir: options.homeDir } : {};
    const nodePath = options.nodePath ? { nodePath: options.nodePath } : {};
    const log = (message: string, error?: unknown) => hooks.log?.(message, error);
    const emitServers = () => this.servers.didChange();
    const updateRecord = (name: string, change: (record: ServerRecord) => ServerRecord) => this.servers.updateRecord(name, change);
    const record = (name: string) => this.servers.record(name);
    const lookupTool = (server: string, tool: string) => this.supervisor.tools.lookup(server, tool);
    const startServer = (name: string) => this.supervisor.start(name);
    const stopServer = (name: string) => this.supervisor.stop(name);

    this.store = new AirlockStore(dataDir, options.storeBackend);
    this.secrets = new SecretStore(dataDir, options.secretCipher, dataFolderRegistryPath(process.env, options.homeDir));
    // SECURITY: invariant 5 — one redaction, of every value the person gave the server, in every entry and model request.
    const secretsOf: ServerSecretsDeps = { record: recordLookup(() => this.store.read().servers), secrets: this.secrets };
    this.activity = new AuditRoom({
      dataDir,
      ...home,
      ...(options.audit ? { options: options.audit } : {}),
      secretValues: (server) => serverSecretValues(secretsOf, server),
      emit: hooks.emit,
      log,
      onDidAppend: () => this.auditExport.nudge(),
    });
    const changes = this.activity.changes;
    // What most rooms ask for, under the names their Deps use (each room takes only what it declares).
    const parts = {
      dataDir,
      ...home,
      store: this.store,
      // What calls and servers' requests are decided on: the store as the organisation's policy reads it.
      state: () => this.organisation.decidedState(this.store.read()),
      audit: this.audit,
      ensureReady: async (server: string) => void (this.supervisor.state(server) !== 'ready' && (await startServer(server))),
      note: (server: string, text: string) => this.supervisor.note(server, text),
      serverDataDir: (server: string) => this.servers.serverDataDir(server),
      secrets: this.secrets,
      changes,
      sessionGrants: this.sessionGrants,
      emit: hooks.emit,
      log,
      records: () => this.servers.records(),
      record,
      updateRecord,
      lookupTool,
      startServer,
      stopServer,
      didChange: emitServers,
      emitServers,
      settings: () => this.app.settings(),
      refuseIfRemoving: (name: string) => this.removal.refuseIfRemoving(name),
      codeChangeOf: (server: string, provenance: ServerRecord['provenance']) => this.codePins.changeOf(server, provenance),
      detail: (server: string) => this.servers.detail(server),
      summary: (server: ServerRecord) => this.servers.summary(server),
    };
    // Read before anything starts: a server the policy forbids never starts, not even once.
    this.organisation = new ManagedPolicyRoom({
      ...parts,
      source: options.managedPolicy?.source ?? defaultPolicySource(),
      homeDir: options.homeDir ?? homedir(),
      serverState: (name) => this.supervisor.state(name),
      didChange: () => {
        emitServers();
        if (this.organisation.lock('httpGateway')) void this.gateway.stopHttp().catch((error: unknown) => log('could not stop the HTTP gateway', error));
        this.auditExport.nudge();
      },
      ...(options.managedPolicy?.pollMs !== undefined ? { pollMs: options.managedPolicy.pollMs } : {}),
    });
    const organisation = this.organisation;
    this.auditExport = new AuditExportRoom({
      ...parts,
      auditDir: join(dataDir, 'audit'),
      stateFile: join(dataDir, 'audit-export.json'),
      version: options.version,
      organisation,
      env: options.auditExport?.env ?? process.env,
      ...(options.auditExport?.tuning ? { tuning: options.auditExport.tuning } : {}),
    });
    this.app = new AppRoom({
      ...parts,
      version: options.version,
      checkSandbox: options.checkSandbox ?? (() => checkSandboxSupport()),
      notices: () => [...this.store.notices, ...this.activity.notices, ...organisation.notices],
      flushWindowMs: () => this.audit.flushWindowMs,
      effectiveMode: (mode) => organisation.effectiveMode(mode),
      ...(hooks.pickFile ? { pickFile: hooks.pickFile } : {}),
      ...(hooks.openExternal ? { openExternal: hooks.openExternal } : {}),
    });
    const timeouts = { defaultTimeoutMs: options.confirmationTimeoutMs ?? 120_000, ...(options.approvalTokenTtlMs !== undefined ? { tokenTtlMs: options.approvalTokenTtlMs } : {}) };
    this.confirmations = new ConfirmationRegistry({ sessionGrants: this.sessionGrants, ...timeouts });
    this.approvals = new ApprovalsRoom({
      ...parts,
      confirmations: this.confirmations,
      noteNetworkAnswer: (...args) => this.activity.noteNetworkAnswer(...args),
      canAsk: () => hooks.canAsk?.(undefined) ?? false,
      refusesHost: (host) => organisation.refusesHost(host),
      didChangeServers: emitServers,
    });
    this.launcher =
      options.launcher ??
      createSandboxLauncher({
        ...home,
        onNetworkRequest: (server, host, port) => this.approvals.askNetwork(server, host, port),
        // SECURITY: a contained server is never asked about: its read-only tools run unasked
        // because it has no network, and a run-time "allow" must not end that quietly.
        mayAsk: (_server, profile) => !isContained(profile),
        // SECURITY (invariant 5): the audit key stays out of every server's reach, wherever it was moved.
        ...(this.activity.keyFile ? { hiddenFiles: [this.activity.keyFile] } : {}),
        onViolation: (server, text) => this.activity.recordSandboxRefusal(server, text),
        // Every decision goes to the audit log; refusals are also kept briefly, so a failed call can name the host.
        onNetworkDecision: (decision) => (this.activity.recordNetwork(decision), this.calls.noteNetworkDecision(decision)),
        ...options.launcherOptions,
      });
    const codeHasher = new CodeHasher({ dataDir });
    this.codePins = new CodePins({ hasher: codeHasher, now: () => Date.now() });
    this.supervisor = new Supervisor({
      ...options.supervisor,
      launcher: this.launcher,
      catalog: { lookup: (name) => this.servers.supervised(name) },
      serverRequests: (name) => this.serverRequests.handlersFor(name),
      onNotice: (name, notice) => this.catalog.catalog.handleNotice(name, notice),
    });
    this.servers = new ServerControlRoom({
      ...parts,
      supervisor: this.supervisor,
      codePins: this.codePins,
      remote: { link: (name, server) => this.remote.link(name, server) },
      sandbox: () => this.app.sandbox,
      limits: () => this.launcher.limits(),
      guardStart: (record) => organisation.guardStart(record),
      blocked: (record) => organisation.block(record),
    });
    this.catalog = new CatalogRoom({
      ...parts,
      withConnection: (server, use) => this.supervisor.withConnection(server, use),
      status: (server) => this.supervisor.status(server),
      start: startServer,
      records: () => this.store.read().servers,
      now: () => Date.now(),
    });
    this.serverRequests = new ServerRequestsRoom({
      ...parts,
      refuseSamplingWithoutReview: (server) => organisation.refuse('samplingWithoutReview', `let ${server}'s sampling requests run without review`, server),
      // SECURITY: invariant 1 in reverse — a server's question is routed to this process's own shell, when it can ask; only it (and the window) may answer.
      askers: () => ((hooks.canAsk?.() ?? false) ? [this.ownShell.origin] : []),
      recordChange: (input) => changes.record(input),
      secretValues: (server) => serverSecretValues(secretsOf, server),
      // The shell's model if it passes one, else the person's default model in Settings › Models (read when asked).
      samplingModel: options.samplingModel ?? {
        available: () => this.samplingModel.available?.() ?? true,
        createMessage: (params, callOptions) => this.samplingModel.createMessage(params, callOptions),
      },
      // Steady, not the wall clock: it times requests and the per-minute caps.
      now: () => performance.now(),
      questionTimeoutMs: options.confirmationTimeoutMs ?? 120_000,
    });
    this.remote = new RemoteRoom({
      ...parts,
      restartServer: (name) => this.supervisor.restart(name),
      ...(options.revokeWithinMs !== undefined ? { revokeWithinMs: options.revokeWithinMs } : {}),
      ...(options.signInPage ? { showSignInPage: options.signInPage } : hooks.openExternal ? { showSignInPage: (url: string) => void hooks.openExternal!(url) } : {}),
    });
    this.gateway = new GatewayRoom({
      ...parts,
      ...(options.gatewayCommand ? { gatewayCommand: options.gatewayCommand } : {}),
      supervisor: this.supervisor,
      serverRequests: this.serverRequests,
      catalog: this.catalog.gateway(),
      callTool: (request) => this.calls.call(request),
      refuseHttp: () => organisation.refuse('httpGateway', 'start the HTTP gateway'),
    });
    this.registry = new RegistryRoom({ ...parts, organisation, ...(options.registry ? { client: options.registry } : {}), remote: remoteSupport });
    this.policy = new PolicyRoom({ ...parts, organisation, revokeRequestSession: (server) => this.serverRequests.pipeline.revokeSession(server) });
    this.serverSettings = new ServerSettingsRoom({
      ...parts,
      organisation,
      restartIfRunning: (server) => this.servers.restartIfRunning(server),
      sendRootsListChanged: (server) => this.supervisor.withConnection(server, (connection) => connection.sendRootsListChanged()),
    });
    this.removal = new ServerRemovalRoom({
      ...parts,
      withdrawQuestions: (server) => {
        this.confirmations.pending().filter((request) => request.server === server).forEach((request) => this.confirmations.cancel(request.id, 'the server was removed'));
        this.serverRequests.forget(server);
      },
      forgetCatalog: (server) => this.catalog.catalog.forget(server),
      remote: this.remote,
      codePins: this.codePins,
    });
    this.sandboxPlan = new SandboxPlanRoom({ ...parts, records: () => this.store.read().servers, launcher: this.launcher });
    this.runtimes = new RuntimesRoom({
      ...parts,
      ...nodePath,
      read: () => this.store.read().settings.runtimes,
      update: (change) => this.store.update((data) => ({ ...data, settings: { ...data.settings, runtimes: change({ ...data.settings.runtimes }) } })),
    });
    this.install = new InstallFlow({
      ...parts,
      ...nodePath,
      registry: { server: (name, version) => this.registry.server(name, version), remote: remoteSupport },
      ...(options.pypiIndexUrl ? { pypiIndexUrl: options.pypiIndexUrl } : {}),
      launcher: this.launcher,
      runtimes: () => this.runtimes.lookup(),
      toolContext: (server) => this.servers.toolContext(server),
      hashFile: (path) => codeHasher.sha256(path),
      whyNotRunning: (name) => {
        const { lastError } = this.supervisor.status(name);
        const words = lastWords(this.supervisor.log(name));
        return lastError ? `${lastError}${words ? ` — its last output: “${words}”` : ''}.` : undefined;
      },
      onDidChange: emitServers,
      signInBroker: () => this.remote.broker(),
      organisation: (server, what) => organisation.refuseServer(server, what),
    });
    this.installs = new InstallRoom({ ...parts, flow: this.install });
    this.calls = new CallsRoom({
      record,
      pipeline: {
        ...parts,
        organisation: { facts: (record) => organisation.callFacts(record), revision: () => organisation.revision },
        toolsSettled: (server) => this.supervisor.toolsSettled(server),
        secretValues: (server, known) => serverSecretValues(secretsOf, server, known),
        callServer: (server, tool, args, callOptions) => this.supervisor.callTool(server, tool, args, callOptions),
        saveRule: (rule, answeredIn) => this.policy.saveRule(rule, actorOfShell(answeredIn), 'confirmation'),
        confirmations: this.confirmations,
        sandboxAvailable: () => this.app.sandbox.supported,
        codeChange: (server, known) => this.codePins.check(server, known.provenance, 'call'),
        // A call that came through no shell of its own (the agent, the app's own HTTP gateway) can only be asked in the window.
        canAsk: (origin) => hooks.canAsk?.(origin ?? WINDOW_SHELL.origin) ?? false,
        now: () => Date.now(),
        onDidAppend: this.activity.appendNotices,
        onAuditError: (message) => this.activity.outcomeNotRecorded(message),
        whyUnavailable: (server) => this.servers.unavailable(server)?.message,
      },
    });
    this.screens = new ScreenRoom({
      ...parts,
      tools: (server) => (this.supervisor.state(server) === 'ready' ? this.supervisor.tools.get(server)?.tools : undefined),
      readResource: (server, uri) => this.catalog.catalog.readResource(server, uri),
      callTool: (request) => this.calls.call(request),
      recordRequest: (input) => this.audit.appendServerRequest(input),
      frames: options.screenFrames ?? APP_SCREEN_FRAMES,
      chat: { fromScreen: (conversation, server, text, kind) => this.agent.fromScreen(conversation, server, text, kind) },
      now: () => performance.now(),
    });
    // The agent is one more caller of the pipeline: it reaches tools only through the calls room, and holds no way to answer a confirmation.
    this.agent = new AgentService({
      ...parts,
      servers: () => this.servers.records().map((server) => ({ name: server.name, enabled: server.enabled })),
      tools: (servers) => offeredTools(this.servers.records(), this.supervisor, servers),
      // SECURITY: invariant 5 — what the model is sent of a server's words has the person's secrets for it taken out.
      callTool: async (request) => modelBoundResult(secretsOf, request.server, await this.calls.call(request)),
      emit: {
        conversations: () => hooks.emit('chat.didChange', {}),
        models: () => hooks.emit('models.didChange', {}),
        update: (update) => hooks.emit('chat.didUpdate', update),
      },
      ...(options.confirmationTimeoutMs ? { confirmationTimeoutMs: options.confirmationTimeoutMs } : {}),
      context: modelBoundContext(secretsOf, chatContextSources(this.catalog.gateway())),
    });
    this.samplingModel = createSamplingModel({ defaultModel: () => this.agent.models.defaultModel(), clientFor: (ref) => this.agent.clientFor(ref) });
    const stateSub = this.supervisor.onDidChangeState((change) => {
      if (change.state === 'ready') void this.catalog.catalog.serverReady(change.server);
      emitServers();
    });
    const toolsSub = this.supervisor.onDidChangeTools(({ server }) => {
      // SECURITY: a question about a tool that changed while it was open is withdrawn; the pipeline asks again with the new definition.
      this.confirmations.cancelChanged(server, (tool) => lookupTool(server, tool)?.fingerprint);
      emitServers();
    });
    this.disposers.push(() => stateSub.dispose(), () => toolsSub.dispose());
    this.auditExport.start();
  }

  /** The audit log itself. */
  get audit(): AuditLog {
    return this.activity.log;
  }

  /** Rule, grant, trust and setting changes, as audit entries. */
  get changes(): ChangeRecorder {
    return this.activity.changes;
  }

  /** This process's own shell (see HostHooks.ownShell). */
  get ownShell(): ShellIdentity {
    return this.options.hooks.ownShell ?? WINDOW_SHELL;
  }

  /**
   * One handler per IPC channel for one shell — the window's by default; the
   * owner passes each client process's identity (see `ShellIdentity`). Every
   * room decides, from that shell, who may do what.
   */
  ipcHandlers(shell: ShellIdentity = WINDOW_SHELL): IpcHandlers {
    return {
      ...this.app.ipcHandlers(shell),
      ...this.servers.ipcHandlers(shell),
      ...this.removal.ipcHandlers(shell),
      ...this.serverSettings.ipcHandlers(shell),
      ...this.remote.ipcHandlers(shell),
      ...this.installs.ipcHandlers(shell),
      ...this.calls.ipcHandlers(shell),
      ...this.approvals.ipcHandlers(shell),
      ...this.policy.ipcHandlers(shell),
      ...this.activity.ipcHandlers(shell),
      ...this.runtimes.ipcHandlers(shell),
      ...this.gateway.ipcHandlers(shell),
      ...this.agent.ipcHandlers(shell),
      ...this.catalog.ipcHandlers(shell),
      ...this.registry.ipcHandlers(shell),
      ...this.sandboxPlan.ipcHandlers(shell),
      ...this.serverRequests.ipcHandlers(shell),
      ...this.organisation.ipcHandlers(shell),
      ...this.auditExport.ipcHandlers(shell),
      ...this.screens.ipcHandlers(shell),
    };
  }

  /** Stops everything the host started: servers, pending confirmations, drafts. */
  async dispose(): Promise<void> {
    await this.agent.dispose();
    this.approvals.dispose();
    this.serverRequests.dispose();
    await this.gateway.close();
    await this.install.dispose();
    await this.supervisor.stopAll();
    await this.remote.closeAll();
    await this.launcher.close();
    this.organisation.dispose();
    await this.auditExport.stop();
    await this.activity.close();
    for (const dispose of this.disposers.splice(0)) dispose();
  }
}
