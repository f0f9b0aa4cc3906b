/**
 * The parts most rooms take from the host, under the names their Deps use:
 * each room takes only what it declares. The rooms these parts read (the
 * organisation's policy, the supervisor, the servers, …) are bound late, so
 * a room built early may read one built after it.
 */
import type { ServerRecord } from '../../shared/domain';
import type { EmitEvent } from '../../shared/ipc';
import type { AppRoom } from './app/app-room';
import type { SessionGrants } from './approvals';
import type { AuditLog } from './audit';
import type { ChangeRecorder } from './audit/change-record';
import type { CodePins } from './code-pins';
import type { ManagedPolicyRoom } from './managed-policy/managed-policy-room';
import type { SecretStore } from './secrets/secret-store';
import type { ServerControlRoom } from './server-control/server-control-room';
import type { ServerRemovalRoom } from './server-removal/server-removal-room';
import type { Supervisor } from './servers/supervisor';
import type { AirlockStore } from './store/store';

/** What the parts are made of, known when the host starts building. */
export interface PartsBase {
  dataDir: string;
  homeDir?: string;
  store: AirlockStore;
  secrets: SecretStore;
  audit: AuditLog;
  changes: ChangeRecorder;
  sessionGrants: SessionGrants;
  emit: EmitEvent;
  log: (message: string, error?: unknown) => void;
}

/** The rooms the parts read, once they are built. */
export interface PartsRooms {
  readonly organisation: ManagedPolicyRoom;
  readonly supervisor: Supervisor;
  readonly servers: ServerControlRoom;
  readonly app: AppRoom;
  readonly removal: ServerRemovalRoom;
  readonly codePins: CodePins;
}

export function hostParts(base: PartsBase, rooms: () => PartsRooms) {
  const emitServers = () => rooms().servers.didChange();
  const startServer = (name: string) => rooms().supervisor.start(name);
  return {
    ...base,
    // What calls and servers' requests are decided on: the store as the organisation's policy reads it.
    state: () => rooms().organisation.decidedState(base.store.read()),
    ensureReady: async (server: string) => void (rooms().supervisor.state(server) !== 'ready' && (await startServer(server))),
    note: (server: string, text: string) => rooms().supervisor.note(server, text),
    serverDataDir: (server: string) => rooms().servers.serverDataDir(server),
    records: () => rooms().servers.records(),
    record: (name: string) => rooms().servers.record(name),
    updateRecord: (name: string, change: (record: ServerRecord) => ServerRecord) => rooms().servers.updateRecord(name, change),
    lookupTool: (server: string, tool: string) => rooms().supervisor.tools.lookup(server, tool),
    startServer,
    stopServer: (name: string) => rooms().supervisor.stop(name),
    didChange: emitServers,
    emitServers,
    settings: () => rooms().app.settings(),
    refuseIfRemoving: (name: string) => rooms().removal.refuseIfRemoving(name),
    codeChangeOf: (server: string, provenance: ServerRecord['provenance']) => rooms().codePins.changeOf(server, provenance),
    detail: (server: string) => rooms().servers.detail(server),
    summary: (server: ServerRecord) => rooms().servers.summary(server),
  };
}

/** The parts, as the rooms' Deps take them. */
export type HostParts = ReturnType<typeof hostParts>;
