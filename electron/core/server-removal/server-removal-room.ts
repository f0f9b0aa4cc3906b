/**
 * The server-removal room: removing one server, for the host to compose —
 * stopped, its questions withdrawn, a remote server's sign-in revoked at the
 * service that issued it (bounded; see RemoteRoom.revokeForRemoval), then its
 * record, rules, grants, code pins, secrets, installed files and data deleted,
 * and the removal recorded in the audit log with what the service answered.
 *
 * While a removal waits on the sign-in service, the server is neither started
 * nor signed in again (`refuseIfRemoving`): tokens minted then would be
 * deleted here without being revoked there.
 */
import { rm } from 'node:fs/promises';
import { installDirOf, type ServerRecord } from '../../../shared/domain';
import type { IpcHandlers, SignOutOutcome } from '../../../shared/ipc';
import { signOutWords } from '../../../shared/plain';
import type { SessionGrants } from '../approvals';
import type { ChangeActor } from '../audit';
import type { ChangeRecorder } from '../audit/change-record';
import type { CodePins } from '../code-pins';
import { changeActorOf, type ShellIdentity } from '../ipc/shell-identity';
import { AirlockError, messageOf } from '../errors';
import type { RemoteRoom } from '../remote/remote-room';
import type { SecretStore } from '../secrets/secret-store';
import type { AirlockStore } from '../store/store';

export interface ServerRemovalRoomDeps {
  store: Pick<AirlockStore, 'read' | 'update'>;
  /** A server's record; throws `not-found` when there is none. */
  record(server: string): ServerRecord;
  stopServer(server: string): Promise<void>;
  /** Withdraws what is waiting on the server: its confirmations and its requests to the person. */
  withdrawQuestions(server: string): void;
  /** Forgets the server in the catalog the gateway and the chat read. */
  forgetCatalog(server: string): void;
  remote: Pick<RemoteRoom, 'revokeForRemoval' | 'forget'>;
  sessionGrants: Pick<SessionGrants, 'revoke'>;
  codePins: Pick<CodePins, 'forget'>;
  secrets: Pick<SecretStore, 'deleteAll'>;
  changes: Pick<ChangeRecorder, 'record' | 'once'>;
  /** Airlock's data folder: only folders inside it are deleted. */
  dataDir: string;
  /** The server's own data folder. */
  serverDataDir(server: string): string;
  /** Tells the shells the servers changed. */
  didChange(): void;
}

export class ServerRemovalRoom {
  /** Servers being removed (their sign-in being revoked). */
  readonly #removing = new Set<string>();

  constructor(private readonly deps: ServerRemovalRoomDeps) {}

  /** Throws when the server is being removed: nothing starts it or signs it in meanwhile. */
  refuseIfRemoving(server: string): void {
    if (this.#removing.has(server)) throw new AirlockError('conflict', `${server} is being removed.`);
  }

  /**
   * Stops a server and deletes it: its record, installed files, data, secrets,
   * rules and grants. A remote server's sign-in is revoked at its authorization
   * server first where it offers that; the answer is returned and recorded.
   */
  async remove(server: string, by: ChangeActor): Promise<{ signIn?: SignOutOutcome }> {
    const record = this.deps.record(server);
    this.refuseIfRemoving(server);
    this.#removing.add(server);
    try {
      return await this.#remove(server, record, by);
    } finally {
      this.#removing.delete(server);
    }
  }

  /** Removing a server, recorded as the calling shell's; it answers once the removal's entry is written. */
  ipcHandlers(shell: ShellIdentity): Pick<IpcHandlers, 'servers.remove'> {
    const by = changeActorOf(shell);
    return { 'servers.remove': ({ name }) => this.deps.changes.once(this.remove(name, by)) };
  }

  async #remove(server: string, record: ServerRecord, by: ChangeActor): Promise<{ signIn?: SignOutOutcome }> {
    const deps = this.deps;
    const rules = deps.store.read().rules.filter((rule) => rule.server === server).length;
    await deps.stopServer(server);
    deps.withdrawQuestions(server);
    const signIn = await deps.remote.revokeForRemoval(server, record).catch((error: unknown): SignOutOutcome => ({ revoked: 'failed', detail: messageOf(error) }));
    deps.forgetCatalog(server);
    deps.store.update((data) => {
      const servers = { ...data.servers };
      delete servers[server];
      return { ...data, servers, rules: data.rules.filter((rule) => rule.server !== server) };
    });
    deps.sessionGrants.revoke(server);
    deps.codePins.forget(server);
    deps.secrets.deleteAll(server);
    // A remote server's sign-in goes with it (SECURITY.md rule 10).
    await deps.remote.forget(server);
    for (const dir of [installDirOf(record.provenance), deps.serverDataDir(server)]) {
      if (dir && dir.startsWith(deps.dataDir)) await rm(dir, { recursive: true, force: true });
    }
    const removed = `removed with its grants, secrets and data${rules ? `, and ${rules} rule${rules === 1 ? '' : 's'}` : ''}`;
    deps.changes.record({ change: 'server-removed', by, server, changes: signIn ? [removed, signOutWords(signIn)] : [removed] });
    deps.didChange();
    return signIn ? { signIn } : {};
  }
}
