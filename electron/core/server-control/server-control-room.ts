/**
 * The server-control room: the servers as a person sees and runs them — the
 * list and each server's page (its state, tools with Airlock's reading,
 * permissions, recent calls, log), and starting, stopping and restarting
 * one. It also says what the supervisor starts: the record read afresh at
 * every start, its grants pinned and a local server's code re-hashed first.
 *
 * SECURITY: a code change since approval voids the rules made before it
 * (decide() asks): the hashes are taken before the process runs, at every
 * start; a server being removed is never started meanwhile.
 */
import { join } from 'node:path';
import { ownEntry, type SandboxSupport, type ServerRecord } from '../../../shared/domain';
import type { EmitEvent, IpcHandlers } from '../../../shared/ipc';
import type { GrantUseView, ServerDetail, ServerSummary } from '../../../shared/views';
import type { SessionGrants } from '../approvals';
import type { AuditLog } from '../audit';
import { toAuditEntryViews } from '../audit/views';
import type { CodePins } from '../code-pins';
import { AirlockError, messageOf } from '../errors';
import type { ShellIdentity } from '../ipc/shell-identity';
import type { CodeChange } from '../policy/decide';
import type { RemoteRoom } from '../remote/remote-room';
import { needsPins, pinGrants } from '../sandbox/grant-pins';
import type { SecretStore } from '../secrets/secret-store';
import type { Supervisor } from '../servers/supervisor';
import type { AirlockStore } from '../store/store';
import { serverLimitsView } from '../views/resource-limits';
import { lastWords, stateNote, whyUnavailable, type Unavailable } from '../views/state-notes';
import { serverSummary, toolsOf, toolView, type ToolViewContext } from '../views/views';

export interface ServerControlRoomDeps {
  dataDir: string;
  store: Pick<AirlockStore, 'read' | 'update'>;
  supervisor: Supervisor;
  codePins: CodePins;
  sessionGrants: Pick<SessionGrants, 'list'>;
  secrets: Pick<SecretStore, 'names' | 'values'>;
  audit: Pick<AuditLog, 'read'>;
  remote: Pick<RemoteRoom, 'link'>;
  /** Whether servers can be sandboxed here, as last checked. */
  sandbox(): SandboxSupport;
  /** The limits the next sandboxed launch gets. */
  limits(): ReturnType<NonNullable<Parameters<typeof serverLimitsView>[1]>>;
  /** Throws when the server is being removed (nothing may start it then). */
  refuseIfRemoving(name: string): void;
  /** Throws when the organisation's policy forbids the server (its record is kept as it is). */
  guardStart?(record: ServerRecord): void;
  /** The organisation's block on a server, if its policy forbids it. */
  blocked?(record: ServerRecord): { key: string; rule: string; message: string } | undefined;
  /** Its grants with when each was last used (claims/grant-use.ts); absent: none shown. */
  grantUse?(record: ServerRecord): GrantUseView[];
  emit: EmitEvent;
  log?(message: string, error?: unknown): void;
}

export class ServerControlRoom {
  constructor(private readonly deps: ServerControlRoomDeps) {}

  /** Every server record. */
  records(): ServerRecord[] {
    return Object.values(this.deps.store.read().servers);
  }

  record(name: string): ServerRecord {
    const record = ownEntry(this.deps.store.read().servers, name);
    if (!record) throw new AirlockError('not-found', `There is no server named ${name}.`);
    return record;
  }

  list(): ServerSummary[] {
    return this.records()
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((record) => this.summary(record));
  }

  async detail(name: string): Promise<ServerDetail> {
    const { supervisor, codePins } = this.deps;
    const record = this.record(name);
    const context = this.toolContext(record);
    const tools = toolsOf(record, supervisor.tools.get(name)?.tools);
    const recent = await this.deps.audit.read({ server: name, limit: 20 });
    return {
      ...this.summary(record),
      spec: record.spec,
      provenance: record.provenance,
      ...(record.importedFrom ? { importedFrom: record.importedFrom } : {}),
      profile: record.profile,
      secretsSet: this.deps.secrets.names(name),
      ...codeChangeView(codePins.changeOf(name, record.provenance)),
      ...serverLimitsView(supervisor.status(name), this.deps.sandbox().supported ? () => this.deps.limits() : undefined),
      tools: tools.map((tool) => toolView(tool.definition, tool.fingerprint, context)),
      grants: this.deps.grantUse?.(record) ?? [],
      logs: supervisor.log(name).slice(-300).map((line) => ({ time: new Date(line.at).toISOString(), source: line.source, text: line.text })),
      recentCalls: recent.flatMap(toAuditEntryViews),
      createdAt: record.createdAt,
    };
  }

  summary(record: ServerRecord): ServerSummary {
    const { supervisor } = this.deps;
    const status = supervisor.status(record.name);
    const state = { state: status.state, ...(status.lastError ? { lastError: status.lastError } : {}) };
    const summary = serverSummary(record, state, toolsOf(record, supervisor.tools.get(record.name)?.tools), this.deps.codePins.changeOf(record.name, record.provenance));
    const blocked = this.deps.blocked?.(record);
    if (blocked) return { ...summary, stateNote: blocked.message, blockedByOrganisation: { key: blocked.key, rule: blocked.rule, message: blocked.message } };
    const note = stateNote(record, { ...state, log: supervisor.log(record.name), sandbox: this.deps.sandbox() });
    return note ? { ...summary, stateNote: note } : summary;
  }

  /** What a tool's row needs to say how a call would be decided now. */
  toolContext(record: ServerRecord): ToolViewContext {
    const { supervisor } = this.deps;
    const data = this.deps.store.read();
    const otherServersTools = new Map<string, string[]>();
    for (const other of Object.values(data.servers)) {
      if (other.name === record.name) continue;
      otherServersTools.set(other.name, toolsOf(other, supervisor.tools.get(other.name)?.tools).map((tool) => tool.definition.name));
    }
    return {
      record,
      ownTools: toolsOf(record, supervisor.tools.get(record.name)?.tools).map((tool) => tool.definition.name),
      rules: data.rules,
      sessionGrants: this.deps.sessionGrants.list(),
      mode: data.settings.policyMode,
      sandboxAvailable: this.deps.sandbox().supported,
      otherServersTools,
      now: Date.now(),
      codeChange: this.deps.codePins.changeOf(record.name, record.provenance),
    };
  }

  /** Enables a server and starts it in its sandbox. */
  async start(name: string): Promise<ServerSummary> {
    this.deps.refuseIfRemoving(name);
    // A new attempt: why it did not start when it was added is no longer the news.
    this.updateRecord(name, ({ startProblem: _old, ...record }) => ({ ...record, enabled: true }));
    try {
      await this.deps.supervisor.start(name);
    } catch (error) {
      const words = lastWords(this.deps.supervisor.log(name));
      throw new AirlockError('unavailable', `${name} did not start: ${messageOf(error)}${words ? ` — its last output: “${words}”` : ''}`);
    }
    return this.summary(this.record(name));
  }

  /** Stops a server and keeps it from starting with Airlock. */
  async stop(name: string): Promise<ServerSummary> {
    this.updateRecord(name, (record) => ({ ...record, enabled: false }));
    await this.deps.supervisor.stop(name);
    return this.summary(this.record(name));
  }

  async restart(name: string): Promise<ServerSummary> {
    this.deps.refuseIfRemoving(name);
    this.updateRecord(name, (record) => ({ ...record, enabled: true }));
    try {
      await this.deps.supervisor.restart(name);
    } catch (error) {
      throw new AirlockError('unavailable', `${name} did not restart: ${messageOf(error)}`);
    }
    return this.summary(this.record(name));
  }

  /** Starts every enabled server (the app does this at start-up). Failures are shown on each server. */
  async startEnabled(): Promise<void> {
    await Promise.allSettled(this.records().filter((record) => record.enabled).map((record) => this.deps.supervisor.start(record.name)));
  }

  /** Restarts a server that runs (or is starting), so a changed grant takes effect. */
  async restartIfRunning(name: string): Promise<void> {
    const state = this.deps.supervisor.state(name);
    if (state === 'ready' || state === 'starting' || state === 'backoff') {
      await this.deps.supervisor.restart(name).catch((error: unknown) => this.deps.log?.(`restart of ${name} failed`, error));
    }
  }

  /** Why a server cannot take calls right now (imported, turned off, crashed, no sandbox), or undefined. */
  unavailable(name: string): Unavailable | undefined {
    const record = ownEntry(this.deps.store.read().servers, name);
    if (!record) return undefined;
    const status = this.deps.supervisor.status(name);
    return whyUnavailable(record, { state: status.state, ...(status.lastError ? { lastError: status.lastError } : {}), log: this.deps.supervisor.log(name), sandbox: this.deps.sandbox() });
  }

  /** Changes one server's record and tells the shells. */
  updateRecord(name: string, change: (record: ServerRecord) => ServerRecord): ServerRecord {
    let updated: ServerRecord | undefined;
    this.deps.store.update((data) => {
      const record = ownEntry(data.servers, name);
      if (!record) throw new AirlockError('not-found', `There is no server named ${name}.`);
      updated = change(record);
      return { ...data, servers: { ...data.servers, [name]: updated } };
    });
    this.didChange();
    return updated!;
  }

  /** Tells the shells that the list of servers changed. */
  didChange(): void {
    try {
      this.deps.emit('servers.didChange', this.list());
    } catch (error) {
      this.deps.log?.('could not emit servers.didChange', error);
    }
  }

  /** Where a server's own persistent data lives (writable only when granted). */
  serverDataDir(name: string): string {
    return join(this.deps.dataDir, 'server-data', name);
  }

  /** What the supervisor starts, read afresh at every start — after pinning grants and re-hashing a local server's code. */
  async supervised(name: string) {
    let record = ownEntry(this.deps.store.read().servers, name);
    if (!record) return undefined;
    // SECURITY: a server the organisation's policy forbids does not start (its record is kept as it is).
    this.deps.guardStart?.(record);
    // A store from before grants were pinned: pin them now, at this start.
    if (needsPins(record.profile)) record = this.updateRecord(name, (current) => ({ ...current, profile: pinGrants(current.profile, current.profile) }));
    // SECURITY: a code change since approval voids the rules made before (decide() asks);
    // the hashes are taken before the process runs, at every start, restarts included.
    await this.deps.codePins.check(name, record.provenance, 'start');
    return {
      ...(record.spec.remote ? { remote: await this.deps.remote.link(name, record) } : {}),
      spec: record.spec,
      profile: record.profile,
      context: {
        serverName: name,
        airlockDataDir: this.deps.dataDir,
        serverDataDir: this.serverDataDir(name),
        secrets: this.deps.secrets.values(name, record.profile.secrets),
      },
    };
  }

  /** Listing, reading and running servers: the same for every shell. */
  ipcHandlers(_shell: ShellIdentity): Pick<IpcHandlers, 'servers.list' | 'servers.get' | 'servers.start' | 'servers.stop' | 'servers.restart'> {
    return {
      'servers.list': () => this.list(),
      'servers.get': ({ name }) => this.detail(name),
      'servers.start': ({ name }) => this.start(name),
      'servers.stop': ({ name }) => this.stop(name),
      'servers.restart': ({ name }) => this.restart(name),
    };
  }
}

/** The detail page's view of a code change (old and new hash per file), if there is one. */
function codeChangeView(change: CodeChange | null): Pick<ServerDetail, 'codeChange'> {
  return change ? { codeChange: { files: change.files.map((file) => ({ role: file.role, path: file.path, approved: file.approved, current: file.current })) } } : {};
}
