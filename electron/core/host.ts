import { join } from 'node:path';
import type { SandboxProfile } from '../../shared/domain';
import type { IpcHandlers } from '../../shared/ipc';
import type { AgentService } from './agent';
import { composeAgent } from './agent/agent-wiring';
import type { AppRoom } from './app/app-room';
import { composeApp } from './app/app-wiring';
import { ApprovalsRoom } from './approvals/approvals-room';
import { ConfirmationRegistry, SessionGrants, systemClock } from './approvals';
import type { AuditLog } from './audit';
import { AuditExportRoom } from './audit-export/audit-export-room';
import { AuditRoom } from './audit/audit-room';
import type { ChangeRecorder } from './audit/change-record';
import type { CallsRoom } from './calls/calls-room';
import { composeCalls } from './calls/calls-wiring';
import { CatalogRoom } from './catalog/catalog-room';
import type { ClaimsRoom } from './claims';
import { composeClaims } from './claims/claims-wiring';
import { CodeHasher, CodePins } from './code-pins';
import type { GatewayRoom } from './gateway/gateway-room';
import { composeGateway } from './gateway/gateway-wiring';
import type { HostOptions } from './host-options';
import { hostParts } from './host-parts';
import type { InstallFlow } from './install-flow/install-flow';
import type { InstallRoom } from './install-flow/install-room';
import { composeInstall } from './install-flow/install-wiring';
import type { ManagedPolicyRoom } from './managed-policy/managed-policy-room';
import { composeOrganisation } from './managed-policy/policy-wiring';
import { WINDOW_SHELL, type ShellIdentity } from './ipc/shell-identity';
import { isContained } from './policy/containment';
import { PolicyRoom } from './rules/policy-room';
import { hostSecrets, serverSecretValues } from './redaction/server-secrets';
import { remoteSupport } from './registry/install-plan';
import { RegistryRoom } from './registry/registry-room';
import { RemoteRoom } from './remote/remote-room';
import { RuntimesRoom } from './runtimes';
import { dataFolderRegistryPath } from './sandbox/data-folders';
import { composeLauncher } from './sandbox/launcher-wiring';
import type { AirlockSandboxLauncher } from './sandbox/sandbox-launcher';
import { SecretStore } from './secrets/secret-store';
import { ServerControlRoom } from './server-control/server-control-room';
import { SandboxPlanRoom } from './sandbox-plan/sandbox-plan-room';
import { APP_SCREEN_FRAMES } from './screens/screen-frames';
import type { ScreenRoom } from './screens/screen-room';
import { composeScreens } from './screens/screen-wiring';
import { ServerRemovalRoom } from './server-removal/server-removal-room';
import type { SamplingModel } from './server-requests/sampling-model';
import type { ServerRequestsRoom } from './server-requests/server-requests-room';
import { composeServerRequests } from './server-requests/server-requests-wiring';
import { ServerSettingsRoom } from './server-settings/server-settings-room';
import { Supervisor } from './servers/supervisor';
import { AirlockStore } from './store/store';

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
  /** What tools did during their calls, set against what they claim; when grants were last used. */
  readonly claims: ClaimsRoom;
  private readonly disposers: Array<() => void> = [];

  constructor(private readonly options: HostOptions) {
    const { dataDir, hooks } = options;
    const home = options.homeDir ? { homeDir: options.homeDir } : {};
    const nodePath = options.nodePath ? { nodePath: options.nodePath } : {};
    const log = (message: string, error?: unknown) => hooks.log?.(message, error);
    const emitServers = () => this.servers.didChange();
    this.store = new AirlockStore(dataDir, options.storeBackend);
    // A folder the person chose keeps everything inside it: nothing is recorded in the per-user list elsewhere.
    this.secrets = new SecretStore(dataDir, options.secretCipher, options.selfContained ? null : dataFolderRegistryPath(process.env, options.homeDir));
    // SECURITY: invariant 5 — one redaction, of every value the person gave the server, in every entry and model request.
    const { deps: secretsOf, dispose: forgetGiven } = hostSecrets(() => this.store.read().servers, this.secrets);
    this.disposers.push(forgetGiven);
    this.activity = new AuditRoom({
      dataDir,
      ...home,
      // A folder the person chose keeps no key outside it: the log's end is unanchored unless they name a key file.
      ...(options.audit ? { options: options.audit } : options.selfContained && !process.env.AIRLOCK_AUDIT_KEY_FILE ? { options: { key: null } } : {}),
      secretValues: (server) => serverSecretValues(secretsOf, server),
      emit: hooks.emit,
      log,
      onDidAppend: () => this.auditExport.nudge(),
    });
    const changes = this.activity.changes;
    const parts = hostParts({ dataDir, ...home, store: this.store, secrets: this.secrets, audit: this.audit, changes, sessionGrants: this.sessionGrants, emit: hooks.emit, log }, () => this);
    // Read before anything starts: a server the policy forbids never starts, not even once.
    this.organisation = composeOrganisation({ ...parts, ...options.managedPolicy }, () => this);
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
    this.claims = composeClaims({ ...parts, audit: this.audit }, () => this);
    // SECURITY: a contained server is never asked about: its read-only tools run unasked
    // because it has no network, and a run-time "allow" must not end that quietly.
    const mayAsk = (_server: string, profile: SandboxProfile) => !isContained(profile);
    this.launcher = options.launcher ?? composeLauncher({ ...home, mayAsk, ...(options.selfContained ? { recordDataFolder: false } : {}), options: options.launcherOptions }, () => this);
    this.app = composeApp({ ...parts, version: options.version, checkSandbox: options.checkSandbox, launcher: this.launcher, hooks }, () => this);
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
      grantUse: (record) => this.claims.grants(record),
    });
    this.catalog = new CatalogRoom({
      ...parts,
      withConnection: (server, use) => this.supervisor.withConnection(server, use),
      status: (server) => this.supervisor.status(server),
      start: parts.startServer,
      records: () => this.store.read().servers,
      now: () => Date.now(),
    });
    const askingShell = () => ((hooks.canAsk?.() ?? false) ? this.ownShell.origin : undefined);
    const timeout = options.confirmationTimeoutMs !== undefined ? { questionTimeoutMs: options.confirmationTimeoutMs } : {};
    this.serverRequests = composeServerRequests({ ...parts, secretsOf, askingShell, ownShell: () => this.ownShell, samplingModel: options.samplingModel, ...timeout, ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}) }, () => this);
    this.remote = new RemoteRoom({
      ...parts,
      restartServer: (name) => this.supervisor.restart(name),
      ...(options.revokeWithinMs !== undefined ? { revokeWithinMs: options.revokeWithinMs } : {}),
      ...(options.signInPage ? { showSignInPage: options.signInPage } : hooks.openExternal ? { showSignInPage: (url: string) => void hooks.openExternal!(url) } : {}),
    });
    this.gateway = composeGateway({ ...parts, ...(options.gatewayCommand ? { gatewayCommand: options.gatewayCommand } : {}) }, () => this);
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
      withdrawQuestions: (server) => (this.confirmations.cancelServer(server, 'the server was removed'), this.serverRequests.forget(server)),
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
    const installing = { ...nodePath, ...(options.pypiIndexUrl ? { pypiIndexUrl: options.pypiIndexUrl } : {}), codeHasher };
    ({ flow: this.install, room: this.installs } = composeInstall({ ...parts, ...installing }, () => this));
    this.calls = composeCalls({ ...parts, secretsOf, canAsk: hooks.canAsk }, () => this);
    this.screens = composeScreens({ ...parts, secretsOf, frames: options.screenFrames ?? APP_SCREEN_FRAMES }, () => this);
    // The agent is one more caller of the pipeline: it reaches tools only through the calls room, and holds no way to answer a confirmation.
    const chat = { secretsOf, confirmationTimeoutMs: options.confirmationTimeoutMs };
    ({ agent: this.agent, samplingModel: this.samplingModel } = composeAgent({ ...parts, ...chat }, () => this));
    const stateSub = this.supervisor.onDidChangeState((change) => {
      if (change.state === 'ready') void this.catalog.catalog.serverReady(change.server);
      emitServers();
    });
    const toolsSub = this.supervisor.onDidChangeTools(({ server }) => {
      // SECURITY: a question about a tool that changed while it was open is withdrawn; the pipeline asks again with the new definition.
      this.confirmations.cancelChanged(server, (tool) => parts.lookupTool(server, tool)?.fingerprint);
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
      ...this.claims.ipcHandlers(shell),
    };
  }

  /** Stops everything the host started: servers, pending confirmations, drafts. */
  async dispose(): Promise<void> {
    await this.agent.dispose();
    this.approvals.dispose();
    this.serverRequests.dispose();
    await this.gateway.close();
    await this.install.dispose();
    // What the last calls did is set against their claims (and recorded) before the servers and the log close.
    await this.claims.settled();
    await this.supervisor.stopAll();
    await this.remote.closeAll();
    await this.launcher.close();
    this.claims.close();
    this.organisation.dispose();
    await this.auditExport.stop();
    await this.activity.close();
    for (const dispose of this.disposers.splice(0)) dispose();
  }
}
