import { rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { APP_LABELS, type PolicyMode, type Rule, type SandboxProfile, type SandboxSupport, type ServerRecord } from '../../shared/domain';
import type { AppInfo, AppNotice, EmitEvent, IpcHandlers } from '../../shared/ipc';
import type { AuditEntryView, CallResultView, ConfirmationView, GatewayStatus, RuleView, ServerDetail, ServerSummary } from '../../shared/views';
import { AgentService, createSamplingModel, type AgentTool, type SamplingModel } from './agent';
import { ConfirmationRegistry, SessionGrants, systemClock, type Answerer, type ConfirmationAnswer } from './approvals';
import { AuditLog } from './audit';
import { toAuditEntryViews, toAuditVerifyView } from './audit/views';
import { toConfirmationView } from './approvals/views';
import { CallPipeline, type CallRequest, type CallResult } from './calls/call-pipeline';
import { AirlockError } from './errors';
import { connectApp, ConnectError, previewConnect, undoConnect, type ConnectApp } from './connect';
import type { GatewayCore } from './gateway/gateway-core';
import { GATEWAY_TOKEN_FILE, loadOrCreateGatewayToken, startHttpGateway, type HttpGateway } from './gateway';
import { InstallFlow } from './install-flow/install-flow';
import { readTool } from './policy/annotations';
import { isContained, summariseSandbox } from './policy/containment';
import { NetworkQuestions } from './approvals/network-questions';
import { checkSandboxSupport } from './sandbox/capability';
import { createSandboxLauncher, type AirlockSandboxLauncher, type SandboxLauncherOptions } from './sandbox/sandbox-launcher';
import { SecretStore, type SecretCipher } from './secrets/secret-store';
import { Supervisor, type SupervisorOptions } from './servers/supervisor';
import { AirlockStore, type StoreBackendFactory } from './store/store';
import { fingerprintTool } from './tools/fingerprint';
import { serverSummary, toolsOf, toolView, type ToolViewContext } from './views/views';

/** What a shell (the Electron app, the CLI, a test) gives the core. */
export interface HostHooks {
  /** Pushes an event to whatever shows Airlock's state (a window, nothing in the CLI). */
  emit: EmitEvent;
  /** True when a person can be asked right now (a window is open, a terminal is attached). */
  canAsk?: () => boolean;
  /** The shell's file picker (the Electron app); absent elsewhere. */
  pickFile?: (purpose: 'mcpb' | 'config' | 'folder') => Promise<string | undefined>;
  /** Logs a problem for developers; never shown raw to the user. */
  log?: (message: string, error?: unknown) => void;
  /** Opens an https link in the system browser (the Electron app); absent elsewhere. */
  openExternal?: (url: string) => Promise<void>;
}

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
  /** The home folder (tests use a fake one). */
  homeDir?: string;
  /** The node that runs JavaScript servers (the app passes a real node; Electron's own binary cannot be one). */
  nodePath?: string;
  /** How another app starts the stdio gateway (default: `airlock gateway --stdio` from PATH). */
  gatewayCommand?: { command: string; args: string[] };
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
  /** The built-in chat: providers, conversations, turns. */
  readonly agent: AgentService;
  /** Answers sampling requests with the person's default model (after the person approved them; see agent/sampling-model.ts). */
  readonly samplingModel: SamplingModel;
  private readonly pipeline: CallPipeline;
  private readonly checkSandbox: () => SandboxSupport;
  private sandbox: SandboxSupport;
  private readonly disposers: Array<() => void> = [];
  private httpGateway: HttpGateway | undefined;

  constructor(private readonly options: HostOptions) {
    const { dataDir } = options;
    this.store = new AirlockStore(dataDir, options.storeBackend);
    this.secrets = new SecretStore(dataDir, options.secretCipher);
    this.audit = new AuditLog({ dir: join(dataDir, 'audit') });
    this.checkSandbox = options.checkSandbox ?? (() => checkSandboxSupport());
    this.sandbox = this.checkSandbox();
    this.confirmations = new ConfirmationRegistry({
      sessionGrants: this.sessionGrants,
      defaultTimeoutMs: options.confirmationTimeoutMs ?? 120_000,
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
        ...options.launcherOptions,
      });
    this.supervisor = new Supervisor({
      ...options.supervisor,
      launcher: this.launcher,
      catalog: { lookup: (name) => this.supervisedServer(name) },
    });
    this.install = new InstallFlow({
      dataDir,
      launcher: this.launcher,
      store: this.store,
      secrets: this.secrets,
      ...(options.homeDir ? { homeDir: options.homeDir } : {}),
      ...(options.nodePath ? { nodePath: options.nodePath } : {}),
      toolContext: (record) => this.toolContext(record),
      onDidChange: () => this.emitServers(),
      startServer: (name) => this.supervisor.start(name),
      stopServer: (name) => this.supervisor.stop(name),
    });
    this.pipeline = new CallPipeline({
      state: () => this.store.read(),
      lookupTool: (server, tool) => this.supervisor.tools.lookup(server, tool),
      ensureReady: async (server) => {
        if (this.supervisor.state(server) !== 'ready') await this.supervisor.start(server);
      },
      callServer: (server, tool, args, callOptions) => this.supervisor.callTool(server, tool, args, callOptions),
      saveRule: (rule) => this.saveRule(rule),
      sessionGrants: this.sessionGrants,
      confirmations: this.confirmations,
      audit: this.audit,
      sandboxAvailable: () => this.sandbox.supported,
      canAsk: () => options.hooks.canAsk?.() ?? false,
      now: () => Date.now(),
      onDidAppend: (seq) => options.hooks.emit('audit.didAppend', { seq }),
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
    });
    this.samplingModel = createSamplingModel({ defaultModel: () => this.agent.models.defaultModel(), clientFor: (ref) => this.agent.clientFor(ref) });
    const emitApprovals = () => options.hooks.emit('approvals.didChange', this.pendingConfirmations());
    this.disposers.push(this.confirmations.onDidOpen(emitApprovals), this.confirmations.onDidClose(emitApprovals));
    const stateSub = this.supervisor.onDidChangeState(() => this.emitServers());
    const toolsSub = this.supervisor.onDidChangeTools(() => this.emitServers());
    this.disposers.push(() => stateSub.dispose(), () => toolsSub.dispose());
  }

  // ── App ────────────────────────────────────────────────────────────────

  /** Start-up problems the user must see (a corrupt store kept aside, …). */
  get notices(): AppNotice[] {
    return [...this.store.notices];
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
    const record = this.store.read().servers[name];
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
      tools: tools.map((tool) => toolView(tool.definition, tool.fingerprint, context)),
      logs: this.supervisor.log(name).slice(-300).map((line) => ({ time: new Date(line.at).toISOString(), source: line.source, text: line.text })),
      recentCalls: recent.flatMap(toAuditEntryViews),
      createdAt: record.createdAt,
    };
  }

  /** Enables a server and starts it in its sandbox. */
  async startServer(name: string): Promise<ServerSummary> {
    this.updateRecord(name, (record) => ({ ...record, enabled: true }));
    try {
      await this.supervisor.start(name);
    } catch (error) {
      throw new AirlockError('unavailable', `${name} did not start: ${messageOf(error)}`);
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

  /** Stops a server and deletes it: its record, installed files, data, secrets, rules and grants. */
  async removeServer(name: string): Promise<void> {
    const record = this.record(name);
    await this.supervisor.stop(name);
    this.confirmations.pending().filter((request) => request.server === name).forEach((request) => this.confirmations.cancel(request.id, 'the server was removed'));
    this.store.update((data) => {
      const servers = { ...data.servers };
      delete servers[name];
      return { ...data, servers, rules: data.rules.filter((rule) => rule.server !== name) };
    });
    this.sessionGrants.revoke(name);
    this.secrets.deleteAll(name);
    const installDir = record.provenance.kind === 'local' ? undefined : record.provenance.installDir;
    for (const dir of [installDir, this.serverDataDir(name)]) {
      if (dir && dir.startsWith(this.options.dataDir)) await rm(dir, { recursive: true, force: true });
    }
    this.emitServers();
  }

  setTrust(name: string, trusted: boolean): ServerSummary {
    return this.summary(this.updateRecord(name, (record) => ({ ...record, trusted })));
  }

  /** Replaces a server's grants; a running server restarts under the new profile. */
  async updateProfile(name: string, profile: Omit<SandboxProfile, 'unsandboxed'>): Promise<ServerDetail> {
    const record = this.updateRecord(name, (current) => ({
      ...current,
      profile: { ...profile, ...(current.profile.unsandboxed ? { unsandboxed: current.profile.unsandboxed } : {}) },
    }));
    await this.restartIfRunning(record.name);
    return this.serverDetail(name);
  }

  /** Records (or withdraws) the explicit consent to run one server without a sandbox. */
  async setUnsandboxed(name: string, consent: boolean): Promise<ServerDetail> {
    this.updateRecord(name, (record) => {
      const { unsandboxed: _previous, ...rest } = record.profile;
      return { ...record, profile: consent ? { ...rest, unsandboxed: { consentedAt: new Date().toISOString() } } : rest };
    });
    await this.restartIfRunning(name);
    return this.serverDetail(name);
  }

  async setSecret(name: string, key: string, value: string): Promise<ServerDetail> {
    this.record(name);
    this.secrets.set(name, key, value);
    this.updateRecord(name, (record) =>
      record.profile.secrets.includes(key) ? record : { ...record, profile: { ...record.profile, secrets: [...record.profile.secrets, key] } },
    );
    await this.restartIfRunning(name);
    return this.serverDetail(name);
  }

  async clearSecret(name: string, key: string): Promise<ServerDetail> {
    this.record(name);
    this.secrets.delete(name, key);
    this.updateRecord(name, (record) => ({ ...record, profile: { ...record.profile, secrets: record.profile.secrets.filter((secret) => secret !== key) } }));
    await this.restartIfRunning(name);
    return this.serverDetail(name);
  }

  /**
   * Approves a changed (or new) tool definition — the one the person saw,
   * named by its fingerprint. A different current definition is refused.
   */
  async approveChange(name: string, tool: string, fingerprint: string): Promise<ServerDetail> {
    const current = this.supervisor.tools.lookup(name, tool);
    if (!current) throw new AirlockError('not-found', `${name} does not offer a tool named ${tool} right now.`);
    if (current.fingerprint !== fingerprint) {
      throw new AirlockError('conflict', `The tool ${tool} changed again since you looked at it; review the new change.`);
    }
    this.updateRecord(name, (record) => ({
      ...record,
      approvedTools: { ...record.approvedTools, [tool]: { fingerprint, definition: current.definition, approvedAt: new Date().toISOString() } },
    }));
    return this.serverDetail(name);
  }

  /** Removes every rule and session grant for a server's tools. */
  async revokeRules(name: string): Promise<ServerDetail> {
    this.record(name);
    this.store.update((data) => ({ ...data, rules: data.rules.filter((rule) => rule.server !== name) }));
    this.sessionGrants.revoke(name);
    this.emitServers();
    return this.serverDetail(name);
  }

  // ── Calls and confirmations ────────────────────────────────────────────

  /** The one choke point: every call from every caller goes through here. */
  callTool(request: CallRequest): Promise<CallResult> {
    return this.pipeline.call(request);
  }

  pendingConfirmations(): ConfirmationView[] {
    return this.confirmations.pending().map((request) => {
      const record = this.store.read().servers[request.server];
      const view = toConfirmationView(request);
      // The sandbox as it is now (grants may have changed while the request waited).
      return record ? { ...view, sandboxSummary: summariseSandbox(record.profile).line } : view;
    });
  }

  answerConfirmation(id: string, answer: Omit<ConfirmationAnswer, 'answeredBy'>, answeredBy: Answerer): { accepted: boolean; reason?: string } {
    const result = this.confirmations.answer(id, { ...answer, answeredBy });
    return result.ok ? { accepted: true } : { accepted: false, reason: result.message };
  }

  /** A running server wants a host it has no grant for: ask a person, if one can be asked. */
  private askNetwork(server: string, host: string, port: number): Promise<boolean> {
    if (!(this.options.hooks.canAsk?.() ?? false)) return Promise.resolve(false);
    return this.network.ask(server, host, port);
  }

  /**
   * Answers a network question. "Remember" adds the host to the server's
   * grants for later runs (this run already has the answer).
   */
  answerNetwork(id: string, allow: boolean, remember: boolean): { accepted: boolean } {
    const question = this.network.get(id);
    if (!question || !this.network.answer(id, allow)) return { accepted: false };
    if (allow && remember) {
      const grant = isIP(question.host) ? `${question.host.includes(':') ? `[${question.host}]` : question.host}:${question.port}` : question.host;
      this.store.update((data) => {
        const record = data.servers[question.server];
        if (!record || record.profile.network.allowedDomains.includes(grant)) return data;
        const profile = { ...record.profile, network: { allowedDomains: [...record.profile.network.allowedDomains, grant] } };
        return { ...data, servers: { ...data.servers, [question.server]: { ...record, profile } } };
      });
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

  // ── Rules, audit, settings ─────────────────────────────────────────────

  rules(): RuleView[] {
    const data = this.store.read();
    return data.rules.map((rule) => {
      // The live listing when the server runs; otherwise the definition the user approved.
      const current = this.supervisor.tools.lookup(rule.server, rule.tool)?.fingerprint ?? data.servers[rule.server]?.approvedTools[rule.tool]?.fingerprint;
      return { server: rule.server, tool: rule.tool, effect: rule.effect, createdAt: rule.createdAt, fingerprint: rule.fingerprint, current: current === rule.fingerprint };
    });
  }

  /**
   * Saves a standing rule for the definition the person reviewed. An "always
   * allow" for a destructive tool needs the second confirmation.
   */
  async addRule(request: { server: string; tool: string; effect: 'allow' | 'deny'; fingerprint: string; confirmDestructive?: boolean }): Promise<RuleView> {
    const record = this.record(request.server);
    if (record.enabled) await this.supervisor.start(request.server).catch(() => {});
    const definition = this.supervisor.tools.lookup(request.server, request.tool)?.definition ?? record.approvedTools[request.tool]?.definition;
    const fingerprint = this.supervisor.tools.lookup(request.server, request.tool)?.fingerprint ?? record.approvedTools[request.tool]?.fingerprint;
    if (!definition || !fingerprint) throw new AirlockError('not-found', `${request.server} does not offer a tool named ${request.tool}.`);
    if (fingerprint !== request.fingerprint) throw new AirlockError('conflict', `${request.tool} changed since you reviewed it; review it again.`);
    if (request.effect === 'allow' && readTool(definition.annotations).toolClass === 'destructive' && !request.confirmDestructive) {
      throw new AirlockError('invalid-request', `${request.tool} may delete or overwrite things: always allowing it needs a second, explicit confirmation.`);
    }
    const rule: Rule = { server: request.server, tool: request.tool, fingerprint, effect: request.effect, createdAt: new Date().toISOString() };
    this.saveRule(rule);
    return { ...rule, current: true };
  }

  removeRule(server: string, tool: string): void {
    this.store.update((data) => ({ ...data, rules: data.rules.filter((rule) => !(rule.server === server && rule.tool === tool)) }));
    this.emitServers();
  }

  /** Saves a rule (replacing any other rule for the same tool). */
  saveRule(rule: Rule): void {
    this.store.update((data) => ({
      ...data,
      rules: [...data.rules.filter((existing) => !(existing.server === rule.server && existing.tool === rule.tool)), rule],
    }));
    this.emitServers();
  }

  async auditEntries(query: { server?: string; tool?: string; verdict?: 'allow' | 'ask' | 'deny'; limit?: number }): Promise<AuditEntryView[]> {
    const records = await this.audit.read({
      ...(query.server ? { server: query.server } : {}),
      ...(query.tool ? { tool: query.tool } : {}),
      ...(query.verdict ? { decision: query.verdict } : {}),
      limit: query.limit ?? 200,
    });
    return records.flatMap(toAuditEntryViews);
  }

  policyMode(): PolicyMode {
    return this.store.read().settings.policyMode;
  }

  setPolicyMode(mode: PolicyMode): { policyMode: PolicyMode } {
    this.store.update((data) => ({ ...data, settings: { ...data.settings, policyMode: mode } }));
    this.emitServers();
    return { policyMode: mode };
  }

  // ── Gateway ────────────────────────────────────────────────────────────

  /** The core as the gateway sees it: enabled servers' tools, and the choke point. */
  gatewayCore(): GatewayCore {
    return {
      listTools: (servers) =>
        this.records()
          .filter((record) => record.enabled && (!servers || servers.includes(record.name)))
          .flatMap((record) => (this.supervisor.tools.get(record.name)?.tools ?? []).map((tool) => ({ server: record.name, definition: tool.definition }))),
      callTool: async (request): Promise<CallToolResult> => {
        const result = await this.callTool(request);
        if (result.outcome === 'ok' || (result.outcome === 'tool-error' && result.result)) return result.result!;
        throw new AirlockError(result.outcome === 'denied' ? 'forbidden-sender' : 'unavailable', result.message ?? 'The call failed.');
      },
      onDidChangeTools: (listener) => {
        const tools = this.supervisor.onDidChangeTools(() => listener());
        const state = this.supervisor.onDidChangeState(() => listener());
        return { dispose: () => (tools.dispose(), state.dispose()) };
      },
    };
  }

  /** The gateway's state and, for each app Airlock can connect, whether it is connected. */
  async gatewayStatus(): Promise<GatewayStatus> {
    const stdioCommand = this.options.gatewayCommand ?? { command: 'airlock', args: ['gateway', '--stdio'] };
    const imported = this.records().filter((record) => record.importedFrom);
    const apps = await Promise.all(
      CONNECT_APPS.map(async ({ app, label }) => {
        const gateway = this.gatewayEntryFor(label);
        try {
          const preview = await previewConnect(app, { ...this.connectEnvironment(), ...gateway });
          const others = preview.otherServers.map((server) => server.name);
          return {
            app,
            label,
            configPath: preview.path,
            exists: preview.exists,
            connected: preview.connected,
            otherServers: others,
            importedIntoAirlock: others.filter((name) => imported.some((record) => record.importedFrom!.path === preview.path && record.importedFrom!.entry === name)),
          };
        } catch (error) {
          return { app, label, configPath: error instanceof ConnectError ? error.path : '', exists: false, connected: false, otherServers: [], importedIntoAirlock: [], problem: messageOf(error) };
        }
      }),
    );
    return {
      http: { running: this.httpGateway !== undefined, ...(this.httpGateway ? { url: this.httpGateway.url } : {}), tokenFile: join(this.options.dataDir, GATEWAY_TOKEN_FILE) },
      stdioCommand,
      apps,
    };
  }

  /** Starts the streamable HTTP gateway on loopback (bearer token in the data folder). */
  async startHttpGateway(port: number): Promise<GatewayStatus> {
    if (!this.httpGateway) {
      const token = await loadOrCreateGatewayToken(this.options.dataDir);
      try {
        this.httpGateway = await startHttpGateway(this.gatewayCore(), { port, token, log: (message) => this.options.hooks.log?.(message) });
      } catch (error) {
        throw new AirlockError('unavailable', `The HTTP gateway could not start on port ${port}: ${messageOf(error)}`);
      }
    }
    return this.gatewayStatus();
  }

  async stopHttpGateway(): Promise<GatewayStatus> {
    await this.httpGateway?.close();
    this.httpGateway = undefined;
    return this.gatewayStatus();
  }

  /**
   * Adds Airlock's gateway to an app's config (a backup is kept). With
   * `moveImported`, the app's servers that were already imported into
   * Airlock — so they went through disclosure — are taken out of its config.
   */
  async connect(app: ConnectApp, moveImported: boolean): Promise<{ changed: boolean; backupPath?: string; removedServers: string[] }> {
    const label = CONNECT_APPS.find((candidate) => candidate.app === app)!.label;
    const status = (await this.gatewayStatus()).apps.find((candidate) => candidate.app === app)!;
    const result = await connectApp(app, {
      ...this.connectEnvironment(),
      ...this.gatewayEntryFor(label),
      ...(moveImported && status.importedIntoAirlock.length ? { moveServers: status.importedIntoAirlock } : {}),
    });
    return { changed: result.changed, ...(result.backupPath ? { backupPath: result.backupPath } : {}), removedServers: result.removedServers };
  }

  async undoConnect(app: ConnectApp): Promise<{ restoredFrom: string }> {
    const result = await undoConnect(app, this.connectEnvironment());
    return { restoredFrom: result.restoredFrom };
  }

  private gatewayEntryFor(label: string) {
    const base = this.options.gatewayCommand ?? { command: 'airlock', args: ['gateway', '--stdio'] };
    return { command: base.command, args: [...base.args, '--client', label] };
  }

  private connectEnvironment() {
    return { ...(this.options.homeDir ? { home: this.options.homeDir } : {}) };
  }

  // ── IPC ────────────────────────────────────────────────────────────────

  /** One handler per IPC channel; the shells wire them through the contract's wrapper. */
  ipcHandlers(): IpcHandlers {
    const window: Answerer = { shell: 'window' };
    return {
      'app.info': () => this.info(),
      'sandbox.status': () => this.sandboxStatus(),
      'sandbox.recheck': () => this.recheckSandbox(),
      'servers.list': () => this.listServers(),
      'servers.get': ({ name }) => this.serverDetail(name),
      'servers.start': ({ name }) => this.startServer(name),
      'servers.stop': ({ name }) => this.stopServer(name),
      'servers.restart': ({ name }) => this.restartServer(name),
      'servers.remove': async ({ name }) => (await this.removeServer(name), {}),
      'servers.setTrust': ({ name, trusted }) => this.setTrust(name, trusted),
      'servers.updateProfile': ({ name, profile }) => this.updateProfile(name, profile),
      'servers.setUnsandboxed': ({ name, consent }) => this.setUnsandboxed(name, consent),
      'servers.setSecret': ({ name, key, value }) => this.setSecret(name, key, value),
      'servers.clearSecret': ({ name, key }) => this.clearSecret(name, key),
      'servers.approveChange': ({ name, tool, fingerprint }) => this.approveChange(name, tool, fingerprint),
      'servers.revokeRules': ({ name }) => this.revokeRules(name),
      'install.prepare': ({ source }) => this.install.prepare(source),
      'install.scanImports': (request) => this.install.scanImports(request),
      'install.probe': ({ draftId, userConfig }) => this.install.probe(draftId, userConfig),
      'install.commit': (request) => this.install.commit(request).then((record) => this.summary(record)),
      'install.cancel': async ({ draftId }) => (await this.install.cancel(draftId), {}),
      'tools.call': async ({ server, tool, arguments: args }): Promise<CallResultView> => {
        const result = await this.callTool({ server, tool, arguments: args, caller: { kind: 'user' } });
        return {
          outcome: result.outcome,
          content: result.result?.content ?? [],
          ...(result.result?.structuredContent !== undefined ? { structuredContent: result.result.structuredContent } : {}),
          ...(result.message ? { message: result.message } : {}),
          durationMs: result.durationMs,
        };
      },
      'approvals.list': () => this.pendingConfirmations(),
      'approvals.answer': ({ id, choice, arguments: edited, confirmDestructiveAlways }) =>
        this.answerConfirmation(
          id,
          { choice, ...(edited ? { editedArguments: edited } : {}), ...(confirmDestructiveAlways ? { confirmDestructiveAlways } : {}) },
          window,
        ),
      'approvals.extend': ({ id }) => {
        const deadline = this.extendConfirmation(id);
        return deadline === undefined ? {} : { deadline };
      },
      'network.pending': () => this.network.list().map(({ id, server, host, port, deadline }) => ({ id, server, host, port, deadline })),
      'network.answer': ({ id, allow, remember }) => this.answerNetwork(id, allow, remember),
      'rules.list': () => this.rules(),
      'rules.add': (request) => this.addRule(request),
      'rules.remove': ({ server, tool }) => (this.removeRule(server, tool), {}),
      'audit.list': (query) => this.auditEntries(query),
      'audit.verify': async () => toAuditVerifyView(await this.audit.verify()),
      'settings.get': () => ({ policyMode: this.policyMode() }),
      'settings.setPolicyMode': ({ mode }) => this.setPolicyMode(mode),
      'gateway.status': () => this.gatewayStatus(),
      'gateway.startHttp': ({ port }) => this.startHttpGateway(port),
      'gateway.stopHttp': () => this.stopHttpGateway(),
      'connect.apply': ({ app, moveImported }) => this.connect(app, moveImported),
      'connect.undo': ({ app }) => this.undoConnect(app),
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
      'chat.send': ({ id, ...input }) => this.agent.send(id, input),
      'chat.stop': async ({ id }) => (await this.agent.stop(id), {}),
      'chat.retry': ({ id }) => (this.agent.retry(id), {}),
      'links.open': async ({ url }) => {
        if (!this.options.hooks.openExternal) throw new AirlockError('unavailable', 'Links open only in the Airlock app.');
        await this.options.hooks.openExternal(url);
        return {};
      },
      'dialog.openFile': async ({ purpose }) => {
        const path = await this.options.hooks.pickFile?.(purpose);
        return path ? { path } : {};
      },
    };
  }

  /** Stops everything the host started: servers, pending confirmations, drafts. */
  async dispose(): Promise<void> {
    await this.agent.dispose();
    this.confirmations.cancelAll('Airlock is shutting down');
    this.network.denyAll();
    await this.httpGateway?.close();
    await this.install.dispose();
    await this.supervisor.stopAll();
    await this.launcher.close();
    for (const dispose of this.disposers.splice(0)) dispose();
  }

  // ── Internals ──────────────────────────────────────────────────────────

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

  private supervisedServer(name: string) {
    const record = this.store.read().servers[name];
    if (!record) return undefined;
    return {
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
    return serverSummary(record, { state: status.state, ...(status.lastError ? { lastError: status.lastError } : {}) }, toolsOf(record, this.supervisor.tools.get(record.name)?.tools));
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
      rules: data.rules,
      sessionGrants: this.sessionGrants.list(),
      mode: data.settings.policyMode,
      sandboxAvailable: this.sandbox.supported,
      otherServersTools,
      now: Date.now(),
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

/** The apps `connect` knows, as people call them. */
const CONNECT_APPS: Array<{ app: ConnectApp; label: string }> = (['claude', 'vscode', 'cursor'] as const).map((app) => ({ app, label: APP_LABELS[app] }));

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

