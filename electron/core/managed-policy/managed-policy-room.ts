/**
 * The organisation room: the managed policy an administrator deploys, read
 * from the OS's admin locations (policy-sources.ts) at start-up — before
 * any server starts — and again every few seconds while Airlock runs.
 *
 * What it guards, in one place:
 * - a server the policy forbids does not start, and one that runs when a
 *   new policy forbids it is stopped and shown "blocked by your
 *   organisation's policy" with the rule; its record is never changed or
 *   deleted, so it starts again (if it was on) when the policy relaxes;
 * - a setting the policy locks is refused with the key named (never a
 *   silent no-op), and the attempt is recorded;
 * - `decide()` gets the policy's answers as facts (`callFacts`).
 *
 * Every policy that takes effect (read, changed, unreadable, ignored) is a
 * change entry in the audit log, by the organisation.
 *
 * SECURITY: fails closed — a policy that cannot be read or parsed forbids
 * everything it could forbid, and says which file and line; it never
 * removes anything, so a policy read late at start-up (or fixed later)
 * drops nothing for good.
 */
import type { PolicyMode, SandboxProfile, ServerRecord, ServerState } from '../../../shared/domain';
import type { AppNotice, IpcHandlers } from '../../../shared/ipc';
import type { OrganisationView, ProvidedSource } from '../../../shared/views';
import type { ChangeRecorder } from '../audit/change-record';
import { AirlockError, messageOf } from '../errors';
import type { ShellIdentity } from '../ipc/shell-identity';
import { domainRefusal, lockWords, providedMatch, serverBlock, settingLock, type LockableSetting, type PolicyServer, type ServerBlock, type SettingLock } from './policy-rules';
import { policyState, problemWords, type PolicyState } from './policy-state';
import type { ManagedPolicy, OtlpTarget } from './policy-schema';
import type { PolicySource } from './policy-sources';

export interface ManagedPolicyRoomDeps {
  source: PolicySource;
  /** The person's home folder (write grants inside it, for `allowWritesOutsideHome`). */
  homeDir: string;
  records(): readonly ServerRecord[];
  /** The supervisor's state of a server. */
  serverState(name: string): ServerState;
  stopServer(name: string): Promise<void>;
  startServer(name: string): Promise<void>;
  changes: Pick<ChangeRecorder, 'record'>;
  /** Told after the policy in force changed (servers and settings to show again). */
  didChange(): void;
  log?(message: string, error?: unknown): void;
  /** How often the locations are read again (ms); 0: only by `reload()`. */
  pollMs?: number;
}

/** What the rooms that change settings need of the policy: its refusals, each naming the key. */
export type OrganisationGuard = Pick<ManagedPolicyRoom, 'refuse' | 'refuseServer' | 'refuseProfile'>;

/** Said when a locked setting was asked to change. */
export const LOCKED_CODE = 'locked-by-organisation';

export class ManagedPolicyRoom {
  #state: PolicyState;
  #fingerprint: string;
  #revision = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #reloading: Promise<void> | undefined;
  /** Servers this room stopped because the policy forbade them (started again when it relaxes). */
  readonly #stoppedByPolicy = new Set<string>();
  readonly #listeners = new Set<() => void>();

  constructor(private readonly deps: ManagedPolicyRoomDeps) {
    // Read now, synchronously: nothing starts before the policy is known.
    this.#state = this.#read();
    this.#fingerprint = fingerprintOf(this.#state);
    this.#recordState(undefined, this.#state);
    const poll = deps.pollMs ?? (process.platform === 'win32' ? 10_000 : 2_000);
    if (poll > 0) {
      this.#timer = setInterval(() => void this.reload(), poll);
      this.#timer.unref?.();
    }
  }

  /** The policy in force. */
  get state(): PolicyState {
    return this.#state;
  }

  /** Grows by one at every change of the policy in force (the call pipeline's remembered decisions key on it). */
  get revision(): number {
    return this.#revision;
  }

  /** The policy's sentences the person must see (an ignored file, an unreadable policy). */
  get notices(): AppNotice[] {
    const state = this.#state;
    const out: AppNotice[] = state.ignored.map((item) => ({ level: 'error' as const, message: `Airlock ignored ${item.location} as an organisation policy: ${item.why}. Only a file that only an administrator can change is a policy.` }));
    if (state.status === 'unreadable') {
      out.push({ level: 'error', message: `Your organisation's policy could not be read, so nothing it could forbid runs: ${state.problems.map(problemWords).join('; ')}` });
    }
    return out;
  }

  /** Runs `listener` after each change of the policy in force. */
  onDidChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Reads the locations again; when the policy in force changed, records it,
   * stops the servers it now forbids and starts again those it no longer does.
   */
  reload(): Promise<void> {
    this.#reloading ??= this.#reload().finally(() => (this.#reloading = undefined));
    return this.#reloading;
  }

  async #reload(): Promise<void> {
    const next = this.#read();
    const fingerprint = fingerprintOf(next);
    if (fingerprint === this.#fingerprint) return;
    const before = this.#state;
    this.#state = next;
    this.#fingerprint = fingerprint;
    this.#revision += 1;
    this.#recordState(before, next);
    await this.enforce();
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch (error) {
        this.deps.log?.('a managed policy listener failed', error);
      }
    }
    this.deps.didChange();
  }

  /** Stops every running server the policy forbids; starts again those it stopped and now allows (when they are on). */
  async enforce(): Promise<void> {
    const work: Array<Promise<void>> = [];
    for (const record of this.deps.records()) {
      const block = this.block(record);
      const state = this.deps.serverState(record.name);
      if (block && state !== 'stopped') {
        this.#stoppedByPolicy.add(record.name);
        this.deps.changes.record({ change: 'managed-policy', by: 'organisation', server: record.name, changes: [`server stopped: ${block.message}`] });
        work.push(this.deps.stopServer(record.name).catch((error: unknown) => this.deps.log?.(`could not stop ${record.name}`, error)));
      } else if (!block && this.#stoppedByPolicy.delete(record.name)) {
        // Only what the policy stopped (or kept from starting) starts again, and only if the person has it on.
        this.deps.changes.record({ change: 'managed-policy', by: 'organisation', server: record.name, changes: [`server may run again: the policy no longer forbids it${record.enabled ? '' : ' (it is turned off, so it stays stopped)'}`] });
        if (record.enabled && state === 'stopped') work.push(this.deps.startServer(record.name).catch((error: unknown) => this.deps.log?.(`could not start ${record.name} again`, error)));
      }
    }
    await Promise.all(work);
  }

  // ── What the policy says ───────────────────────────────────────────────

  /** Why a server may not run now, or undefined. */
  block(server: PolicyServer): ServerBlock | undefined {
    return serverBlock(this.#state, server, this.deps.homeDir);
  }

  /** The lock on a setting, or undefined. */
  lock(setting: LockableSetting): SettingLock | undefined {
    return settingLock(this.#state, setting);
  }

  /** The mode calls are decided in: strict when the policy locks it. */
  effectiveMode<M extends string>(mode: M): M | 'strict' {
    return this.lock('mode') ? 'strict' : mode;
  }

  /** Whether a person's trust in a server counts (the policy may forbid trusting any). */
  trustCounts(): boolean {
    return this.lock('trust') === undefined;
  }

  /** The facts `decide()` takes from the policy for one server (see PolicyFacts.organisation). */
  callFacts(record: ServerRecord): { blocked?: ServerBlock; trustForbidden?: true; alwaysForDestructiveForbidden?: true; strict?: true } {
    const block = this.block(record);
    return {
      ...(block ? { blocked: block } : {}),
      ...(this.lock('trust') ? { trustForbidden: true as const } : {}),
      ...(this.lock('alwaysForDestructive') ? { alwaysForDestructiveForbidden: true as const } : {}),
      ...(this.lock('mode') ? { strict: true as const } : {}),
    };
  }

  /** True when nobody may grant a server this host (outside the organisation's network bounds). */
  refusesHost(host: string): boolean {
    return domainRefusal(this.#state, host) !== undefined;
  }

  /** The registry the policy locks, if it does. */
  registryUrl(): string | undefined {
    return this.#state.status === 'active' ? this.#state.policy.registry : undefined;
  }

  /** Where the policy streams the audit log, if it says. */
  otlpTarget(): OtlpTarget | undefined {
    return this.#state.status === 'active' ? this.#state.policy.audit?.otlp : undefined;
  }

  /**
   * Why the audit log is not streamed anywhere now, or undefined. SECURITY:
   * fails closed — while the policy cannot be read, Airlock cannot know which
   * collector the organisation names, so it sends to none (not to the
   * person's own, nor the environment's) until the policy is fixed.
   */
  exportPaused(): string | undefined {
    const state = this.#state;
    if (state.status !== 'unreadable') return undefined;
    const first = state.problems[0];
    return `Paused: your organisation's policy could not be read (${first ? problemWords(first) : state.locations.join(', ')}), so the activity log is sent to no collector until it is fixed. Nothing is lost: the entries wait in the log.`;
  }

  /** The policy in force (undefined when there is none, or it could not be read). */
  policy(): ManagedPolicy | undefined {
    return this.#state.status === 'active' ? this.#state.policy : undefined;
  }

  // ── Refusals ───────────────────────────────────────────────────────────

  /**
   * Refuses a change to a locked setting (throws `locked-by-organisation`,
   * naming the key), and records the attempt. `what`: the change, in words.
   */
  refuse(setting: LockableSetting, what: string, server?: string): void {
    const lock = this.lock(setting);
    if (lock) this.#refused(lock.key, lockWords(lock), what, server);
  }

  /** Refuses a server the policy forbids (at install, inspection or start). */
  refuseServer(server: PolicyServer & { trusted?: boolean }, what: string): void {
    const block = this.block(server);
    if (block) this.#refused(block.key === 'unreadable' ? 'policy' : block.key, block.message, what, server.name, block.message);
    if (server.trusted === true) this.refuse('trust', `trust ${server.name}`, server.name);
  }

  /** Refuses grants outside the organisation's bounds (network domains, writes outside home, running unsandboxed). */
  refuseProfile(server: PolicyServer, profile: Omit<SandboxProfile, 'unsandboxed'> & { unsandboxed?: unknown }, what: string): void {
    for (const domain of profile.network.allowedDomains) {
      const refusal = domainRefusal(this.#state, domain);
      if (refusal) this.#refused(refusal.key, `set by your organisation (${refusal.key}: ${refusal.rule})`, `${what}: network ${domain}`, server.name);
    }
    const block = this.block({ ...server, profile: profile as SandboxProfile });
    if (block && (block.key === 'allowWritesOutsideHome' || block.key === 'requireSandbox' || block.key === 'allowUnsandboxed')) this.#refused(block.key, block.message, what, server.name, block.message);
  }

  /** Refuses a server's start when the policy forbids it (the supervisor's lookup calls this). */
  guardStart(record: ServerRecord): void {
    const block = this.block(record);
    if (!block) return;
    // Remembered, so it starts when the policy relaxes (a start refused at start-up drops nothing for good).
    this.#stoppedByPolicy.add(record.name);
    throw new AirlockError(LOCKED_CODE, block.message);
  }

  #refused(key: string, words: string, what: string, server?: string, message?: string): never {
    this.deps.changes.record({ change: 'managed-policy', by: 'organisation', ...(server ? { server } : {}), changes: [`refused: ${what} (${key})`] });
    throw new AirlockError(LOCKED_CODE, message ? `${message} Nothing was changed (${what}).` : `This is ${words}, so Airlock did not ${what}.`);
  }

  // ── Views and channels ─────────────────────────────────────────────────

  /**
   * The store as calls and server requests are decided on it: strict mode
   * when the organisation's policy locks it, and sampling "always" read as
   * "ask" when the policy forbids sampling without review (the records stay as saved).
   */
  decidedState<T extends { servers: Readonly<Record<string, ServerRecord>>; settings: { policyMode: PolicyMode } }>(data: T): T {
    const strict = this.lock('mode') !== undefined && data.settings.policyMode !== 'strict';
    const review = this.lock('samplingWithoutReview') !== undefined && Object.values(data.servers).some((record) => record.serverRequests?.sampling.rule === 'always');
    if (!strict && !review) return data;
    const servers = review
      ? Object.fromEntries(
          Object.entries(data.servers).map(([name, record]) => [
            name,
            record.serverRequests?.sampling.rule === 'always' ? { ...record, serverRequests: { ...record.serverRequests, sampling: { ...record.serverRequests.sampling, rule: 'ask' as const } } } : record,
          ]),
        )
      : data.servers;
    return { ...data, servers, settings: strict ? { ...data.settings, policyMode: 'strict' } : data.settings };
  }

  /** What Settings, a server's page, `airlock settings`, `doctor` and `--json` show of the policy. */
  view(): OrganisationView {
    const state = this.#state;
    const settings: LockableSetting[] = ['mode', 'trust', 'unsandboxed', 'httpGateway', 'alwaysForDestructive', 'samplingWithoutReview', 'registry', 'otlp'];
    const locks = settings.flatMap((setting) => {
      const lock = this.lock(setting);
      return lock ? [{ setting, key: lock.key, value: lock.value, location: lock.location, words: lockWords(lock) }] : [];
    });
    const policy = state.status === 'active' ? state.policy : undefined;
    const records = this.deps.records();
    return {
      status: state.status,
      locations: [...state.locations],
      ...(state.status === 'active' ? { documents: state.documents.map((doc) => ({ location: doc.location, ...(doc.sha256 ? { sha256: doc.sha256 } : {}) })) } : {}),
      ...(state.status === 'unreadable' ? { problems: state.problems.map((problem) => ({ location: problem.location, ...(problem.line !== undefined ? { line: problem.line } : {}), ...(problem.key ? { key: problem.key } : {}), message: problemWords(problem) })) } : {}),
      ignored: state.ignored.map((item) => ({ location: item.location, why: item.why })),
      locks,
      ...(policy?.network ? { network: { ...(policy.network.allowedDomains ? { allowedDomains: [...policy.network.allowedDomains] } : {}), ...(policy.network.deniedDomains ? { deniedDomains: [...policy.network.deniedDomains] } : {}) } } : {}),
      ...(policy?.allowWritesOutsideHome === false ? { writesOnlyInHome: true } : {}),
      ...(policy?.allowedServers ? { allowedServers: policy.allowedServers.map((matcher) => JSON.stringify(matcher)) } : {}),
      ...(policy?.deniedServers ? { deniedServers: policy.deniedServers.map((matcher) => JSON.stringify(matcher)) } : {}),
      providedServers: Object.entries(policy?.servers ?? {}).map(([name, provided]) => {
        const installed = policy ? records.find((record) => providedMatch(policy, record) === name) : undefined;
        return {
          name,
          source: sourceWords(provided),
          installSource: installSource(provided),
          ...(provided.description ? { description: provided.description } : {}),
          ...(installed ? { installedAs: installed.name } : {}),
          install: `airlock add ${name} --provided`,
        };
      }),
      blocked: records.flatMap((record) => {
        const block = this.block(record);
        return block ? [{ server: record.name, key: block.key, rule: block.rule, message: block.message }] : [];
      }),
    };
  }

  /** The room's channels: anyone may read what the policy says (it is the organisation's, not a secret). */
  ipcHandlers(_shell: ShellIdentity): Pick<IpcHandlers, 'organisation.get' | 'organisation.reload'> {
    return {
      'organisation.get': () => this.view(),
      'organisation.reload': async () => (await this.reload(), this.view()),
    };
  }

  dispose(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  // ── Internals ──────────────────────────────────────────────────────────

  #read(): PolicyState {
    try {
      return policyState(this.deps.source.read(), this.deps.source.locations);
    } catch (error) {
      // SECURITY: a reader that fails is an unreadable policy, never no policy.
      return { status: 'unreadable', problems: [{ location: this.deps.source.locations.join(', '), problem: `it could not be read: ${messageOf(error)}` }], locations: this.deps.source.locations, ignored: [] };
    }
  }

  // The audit record of the policy taking effect (start-up: only when there is one, or a problem).
  #recordState(before: PolicyState | undefined, after: PolicyState): void {
    if (before === undefined && after.status === 'none' && after.ignored.length === 0) return;
    const lines: string[] = [];
    if (after.status === 'none') lines.push(before === undefined ? 'no organisation policy' : 'the organisation policy was removed: nothing is locked');
    if (after.status === 'active') {
      lines.push(...after.documents.map((doc) => `policy ${before === undefined ? 'in force' : 'changed'}: ${doc.location}${doc.sha256 ? ` (sha256 ${doc.sha256.slice(0, 16)})` : ''}`));
      for (const [key, value] of Object.entries(after.policy)) if (key !== 'version') lines.push(`${key}: ${key === 'audit' ? redactHeaders(value) : JSON.stringify(value)}`.slice(0, 480));
    }
    if (after.status === 'unreadable') lines.push(...after.problems.map((problem) => `policy unreadable (nothing it could forbid runs): ${problemWords(problem)}`));
    lines.push(...after.ignored.map((item) => `ignored ${item.location}: ${item.why}`));
    this.deps.changes.record({ change: 'managed-policy', by: 'organisation', changes: lines });
    for (const notice of this.notices) this.deps.log?.(notice.message);
  }
}

function fingerprintOf(state: PolicyState): string {
  return JSON.stringify(state, (key, value: unknown) => (key === 'positionOf' ? undefined : value));
}

// Header values (a collector's API key) never reach the audit log: names only.
function redactHeaders(audit: unknown): string {
  const otlp = (audit as { otlp?: OtlpTarget } | undefined)?.otlp;
  if (!otlp) return JSON.stringify(audit);
  return JSON.stringify({ otlp: { endpoint: otlp.endpoint, protocol: otlp.protocol ?? 'http/protobuf', headers: Object.keys(otlp.headers ?? {}) } });
}

function sourceWords(provided: { npm?: string; pypi?: string; url?: string; command?: string[] }): string {
  if (provided.npm) return `npm ${provided.npm}`;
  if (provided.pypi) return `PyPI ${provided.pypi}`;
  if (provided.url) return provided.url;
  return (provided.command ?? []).join(' ');
}

// The source the install flow takes (the usual install, with its disclosure: a provided server is never installed unseen).
function installSource(provided: { npm?: string; pypi?: string; url?: string; command?: string[] }): ProvidedSource {
  if (provided.npm) return { kind: 'npm', package: provided.npm };
  if (provided.pypi) return { kind: 'pypi', package: provided.pypi };
  if (provided.url) return { kind: 'remote', url: provided.url };
  return { kind: 'local', argv: [...(provided.command ?? [])] };
}
