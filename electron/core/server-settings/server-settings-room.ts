/**
 * The server-settings room: what a person decides about one server, for
 * the host to compose — whether it is trusted, its sandbox grants, its
 * plain settings (environment), the consent to run it without a sandbox,
 * its secrets, and approvals of its changed tools and code. Each change is
 * saved first, then recorded in the audit log as a change entry; a running
 * server restarts under what changed.
 */
import { ownEntry, type Provenance, type SandboxProfile, type ServerRecord } from '../../../shared/domain';
import type { IpcHandlers } from '../../../shared/ipc';
import type { ServerDetail, ServerSummary } from '../../../shared/views';
import { changeActorOf, type ShellIdentity } from '../ipc/shell-identity';
import type { SessionGrants } from '../approvals';
import type { ChangeActor } from '../audit';
import { profileChanges, type ChangeRecorder } from '../audit/change-record';
import { AirlockError } from '../errors';
import { envNameProblem, pathProblem, writeTrustedProblem } from '../install/checks';
import type { OrganisationGuard } from '../managed-policy/managed-policy-room';
import type { CodeChange } from '../policy/decide';
import { pinGrants } from '../sandbox/grant-pins';
import type { SecretStore } from '../secrets/secret-store';
import type { IndexedTool } from '../servers/tool-index';
import type { AirlockStore } from '../store/store';

export interface ServerSettingsRoomDeps {
  store: Pick<AirlockStore, 'read' | 'update'>;
  /** A server's record; throws `not-found` when there is none. */
  record(server: string): ServerRecord;
  /** Saves a change to one server's record (throws `not-found`) and tells the window; returns the record saved. */
  updateRecord(server: string, change: (record: ServerRecord) => ServerRecord): ServerRecord;
  /** Restarts a server that is running (or starting), so it runs under its record as saved. */
  restartIfRunning(server: string): Promise<void>;
  /** The server's detail page and its line on the Servers page, as they are now. */
  detail(server: string): Promise<ServerDetail>;
  summary(record: ServerRecord): ServerSummary;
  /** Tells a running server its roots changed (its folders); rejects for one that is not running. */
  sendRootsListChanged(server: string): Promise<void>;
  /** The live listing of a running server's tools. */
  lookupTool(server: string, tool: string): IndexedTool | undefined;
  /** A local server's code change since it was approved, as of its last start; null when none. */
  codeChangeOf(server: string, provenance: Provenance): CodeChange | null;
  secrets: Pick<SecretStore, 'set' | 'delete'>;
  changes: Pick<ChangeRecorder, 'record' | 'once'>;
  sessionGrants: Pick<SessionGrants, 'revoke'>;
  /** Told after a change that no record update announced. */
  didChange(): void;
  /** The organisation's policy: refuses what it locks (trust, running unsandboxed, grants outside its bounds), naming the key. */
  organisation?: OrganisationGuard;
}

export class ServerSettingsRoom {
  constructor(private readonly deps: ServerSettingsRoomDeps) {}

  setTrust(name: string, trusted: boolean, by: ChangeActor = 'window'): ServerSummary {
    const was = this.deps.record(name).trusted;
    if (trusted) this.deps.organisation?.refuse('trust', `trust ${name}`, name);
    const record = this.deps.updateRecord(name, (current) => ({ ...current, trusted }));
    if (was !== trusted) this.deps.changes.record({ change: 'trust', by, server: name, changes: [`trusted: ${trusted ? 'on' : 'off'} (was ${was ? 'on' : 'off'})`] });
    return this.deps.summary(record);
  }

  /** Replaces a server's grants; a running server restarts under the new profile. */
  async updateProfile(name: string, profile: Omit<SandboxProfile, 'unsandboxed'>, by: ChangeActor = 'window'): Promise<ServerDetail> {
    const current = this.deps.record(name);
    const previous = current.profile;
    this.deps.organisation?.refuseProfile(current, { ...profile, ...(previous.unsandboxed ? { unsandboxed: previous.unsandboxed } : {}) }, `change ${name}'s grants`);
    const before = previous.filesystem;
    // A trusted-files exception lifts protection inside a write grant; outside one it would mean nothing (or come back with a later grant).
    const stray = (profile.filesystem.writeTrusted ?? []).map((path) => writeTrustedProblem(path, profile.filesystem.write)).filter((problem) => problem !== undefined);
    if (stray.length) throw new AirlockError('invalid-request', stray.join(' '));
    // A path typed that does not exist (or a file given to write) is refused before it is saved, in words:
    // only new grants are checked, so one whose folder has gone can still be taken away with the others.
    const added = (kind: 'read' | 'write') => profile.filesystem[kind].filter((path) => !before[kind].includes(path)).map((path) => pathProblem(kind, path));
    const missing = [...added('write'), ...added('read')].filter((problem) => problem !== undefined);
    if (missing.length) throw new AirlockError('invalid-request', `${missing.join(' ')} Nothing was changed.`);
    const record = this.deps.updateRecord(name, (current) => ({
      ...current,
      // Grants are pinned where they resolve now; unchanged ones keep their pins.
      profile: pinGrants({ ...profile, ...(current.profile.unsandboxed ? { unsandboxed: current.profile.unsandboxed } : {}) }, current.profile),
    }));
    const changed = profileChanges(previous, record.profile);
    if (changed.length) this.deps.changes.record({ change: 'grants', by, server: name, changes: changed });
    // Its roots are its folders: say they changed (the restart below then gives it the new ones).
    if (JSON.stringify([before.read, before.write]) !== JSON.stringify([profile.filesystem.read, profile.filesystem.write])) {
      await this.deps.sendRootsListChanged(name).catch(() => undefined); // A server that is not running is told its roots at its next start.
    }
    await this.deps.restartIfRunning(record.name);
    return this.deps.detail(name);
  }

  /** Replaces a server's plain settings (environment variables); a running server restarts with them. */
  async setEnv(name: string, env: Record<string, string>): Promise<ServerDetail> {
    for (const key of Object.keys(env)) {
      const problem = envNameProblem(key);
      // Names the source already set (e.g. an imported PATH) may stay; new ones must be plain settings.
      if (problem && this.deps.record(name).spec.env[key] !== env[key]) throw new AirlockError('invalid-request', problem);
    }
    const record = this.deps.updateRecord(name, (current) => ({ ...current, spec: { ...current.spec, env: { ...env } } }));
    await this.deps.restartIfRunning(record.name);
    return this.deps.detail(name);
  }

  /** Records (or withdraws) the explicit consent to run one server without a sandbox. */
  async setUnsandboxed(name: string, consent: boolean, by: ChangeActor = 'window'): Promise<ServerDetail> {
    const was = this.deps.record(name).profile.unsandboxed !== undefined;
    if (consent) this.deps.organisation?.refuse('unsandboxed', `let ${name} run without a sandbox`, name);
    this.deps.updateRecord(name, (record) => {
      const { unsandboxed: _previous, ...rest } = record.profile;
      return { ...record, profile: consent ? { ...rest, unsandboxed: { consentedAt: new Date().toISOString() } } : rest };
    });
    if (was !== consent) this.deps.changes.record({ change: 'unsandboxed', by, server: name, changes: [consent ? 'may run without a sandbox (consent given)' : 'runs only in a sandbox (consent withdrawn)'] });
    await this.deps.restartIfRunning(name);
    return this.deps.detail(name);
  }

  async setSecret(name: string, key: string, value: string, by: ChangeActor = 'window'): Promise<ServerDetail> {
    const granted = this.deps.record(name).profile.secrets.includes(key);
    this.deps.secrets.set(name, key, value);
    // The name only: a secret's value never reaches the audit log.
    this.deps.changes.record({ change: 'grants', by, server: name, changes: [granted ? `secret value replaced: ${key}` : `secret added: ${key}`] });
    this.deps.updateRecord(name, (record) =>
      record.profile.secrets.includes(key) ? record : { ...record, profile: { ...record.profile, secrets: [...record.profile.secrets, key] } },
    );
    await this.deps.restartIfRunning(name);
    return this.deps.detail(name);
  }

  async clearSecret(name: string, key: string, by: ChangeActor = 'window'): Promise<ServerDetail> {
    const granted = this.deps.record(name).profile.secrets.includes(key);
    this.deps.secrets.delete(name, key);
    if (granted) this.deps.changes.record({ change: 'grants', by, server: name, changes: [`secret removed: ${key}`] });
    this.deps.updateRecord(name, (record) => ({ ...record, profile: { ...record.profile, secrets: record.profile.secrets.filter((secret) => secret !== key) } }));
    await this.deps.restartIfRunning(name);
    return this.deps.detail(name);
  }

  /**
   * Approves a changed (or new) tool definition — the one the person saw,
   * named by its fingerprint. A different current definition is refused.
   */
  async approveChange(name: string, tool: string, fingerprint: string, by: ChangeActor = 'window'): Promise<ServerDetail> {
    const current = this.deps.lookupTool(name, tool);
    if (!current) throw new AirlockError('not-found', `${name} does not offer a tool named ${tool} right now.`);
    if (current.fingerprint !== fingerprint) {
      throw new AirlockError('conflict', `The tool ${tool} changed again since you looked at it; review the new change.`);
    }
    this.deps.updateRecord(name, (record) => ({
      ...record,
      approvedTools: { ...record.approvedTools, [tool]: { fingerprint, definition: current.definition, approvedAt: new Date().toISOString() } },
    }));
    this.deps.changes.record({ change: 'tool-approved', by, server: name, tool, changes: [`tool approved: ${tool} (definition ${fingerprint.slice(0, 12)})`] });
    return this.deps.detail(name);
  }

  /**
   * Approves a local server's changed code — the hashes the person saw, file
   * by file — and pins it. The "always allow" rules and session permissions
   * made for the old code are removed: they were made for code that no
   * longer runs ("always deny" rules stay: they only ever ask less of the
   * new code). Refused when the code changed again since (or the hashes do
   * not match).
   */
  async approveCode(name: string, files: ReadonlyArray<{ path: string; sha256: string }>, by: ChangeActor = 'window'): Promise<ServerDetail> {
    const record = this.deps.record(name);
    const change = this.deps.codeChangeOf(name, record.provenance);
    if (!change) throw new AirlockError('conflict', `${name}'s code has not changed since you approved it (as of its last start); there is nothing to approve.`);
    const unreadable = change.files.find((file) => file.current === null);
    if (unreadable) throw new AirlockError('unavailable', `${unreadable.path} cannot be read, so there is no new code to approve. Restore it, or remove the server.`);
    const seen = new Map(files.map((file) => [file.path, file.sha256]));
    if (change.files.length !== seen.size || change.files.some((file) => seen.get(file.path) !== file.current)) {
      throw new AirlockError('conflict', `${name}'s code changed again since you looked at it; review the new hashes.`);
    }
    const voided = this.deps.store.read().rules.filter((rule) => rule.server === name && rule.effect === 'allow');
    this.deps.store.update((data) => {
      const current = ownEntry(data.servers, name);
      if (!current || current.provenance.kind !== 'local') throw new AirlockError('not-found', `There is no local server named ${name}.`);
      const pinned = Object.fromEntries(change.files.map((file) => [file.role, file.current!]));
      const provenance = {
        ...current.provenance,
        executableSha256: pinned.executable ?? current.provenance.executableSha256,
        ...(current.provenance.script ? { script: { ...current.provenance.script, sha256: pinned.script ?? current.provenance.script.sha256 } } : {}),
      };
      return {
        ...data,
        servers: { ...data.servers, [name]: { ...current, provenance } },
        rules: data.rules.filter((rule) => !(rule.server === name && rule.effect === 'allow')),
      };
    });
    this.deps.sessionGrants.revoke(name);
    this.deps.changes.record({
      change: 'code-approved',
      by,
      server: name,
      changes: [...change.files.filter((file) => file.current !== file.approved).map((file) => `code approved: ${file.path} (sha256 ${file.current!.slice(0, 12)}, was ${file.approved.slice(0, 12)})`), ...voided.map((rule) => `rule removed: always allow ${rule.tool}`)],
    });
    this.deps.didChange();
    return this.deps.detail(name);
  }

  /** One server's settings channels; each change is recorded as the calling shell's (the window, or the command line). */
  ipcHandlers(
    shell: ShellIdentity,
  ): Pick<IpcHandlers, 'servers.setTrust' | 'servers.updateProfile' | 'servers.setEnv' | 'servers.setUnsandboxed' | 'servers.setSecret' | 'servers.clearSecret' | 'servers.approveChange' | 'servers.approveCode'> {
    const by = changeActorOf(shell);
    const { changes } = this.deps;
    return {
      'servers.setTrust': ({ name, trusted }) => changes.once(this.setTrust(name, trusted, by)),
      'servers.updateProfile': ({ name, profile }) => changes.once(this.updateProfile(name, profile, by)),
      'servers.setEnv': ({ name, env }) => this.setEnv(name, env),
      'servers.setUnsandboxed': ({ name, consent }) => changes.once(this.setUnsandboxed(name, consent, by)),
      'servers.setSecret': ({ name, key, value }) => changes.once(this.setSecret(name, key, value, by)),
      'servers.clearSecret': ({ name, key }) => changes.once(this.clearSecret(name, key, by)),
      'servers.approveChange': ({ name, tool, fingerprint }) => changes.once(this.approveChange(name, tool, fingerprint, by)),
      'servers.approveCode': ({ name, files }) => changes.once(this.approveCode(name, files, by)),
    };
  }
}
