/**
 * How the host wires installing: the flow (the registry's listings, the
 * runtimes that run servers, the sandbox that inspects them, the code hasher,
 * sign-in for remote servers, the organisation's refusals) and the room that
 * puts it on the install channels and records each commit. The rooms it reads
 * are bound late (`rooms()`).
 */
import type { ServerRecord } from '../../../shared/domain';
import type { CodeHasher } from '../code-pins';
import type { ManagedPolicyRoom } from '../managed-policy/managed-policy-room';
import { remoteSupport } from '../registry/install-plan';
import type { RegistryRoom } from '../registry/registry-room';
import type { RemoteRoom } from '../remote/remote-room';
import type { RuntimesRoom } from '../runtimes';
import type { ServerControlRoom } from '../server-control/server-control-room';
import type { Supervisor } from '../servers/supervisor';
import { lastWords } from '../views/state-notes';
import { InstallFlow, type InstallFlowDeps } from './install-flow';
import { InstallRoom, type InstallRoomDeps } from './install-room';

/** What installing is wired to. */
export interface InstallWiring
  extends Omit<InstallFlowDeps, 'registry' | 'runtimes' | 'toolContext' | 'hashFile' | 'onDidChange' | 'signInBroker' | 'organisation' | 'launcher' | 'whyNotRunning'>, Omit<InstallRoomDeps, 'flow' | 'store'> {
  codeHasher: Pick<CodeHasher, 'sha256'>;
  emitServers(): void;
}

/** The rooms it reads. */
export interface InstallRooms {
  readonly launcher: InstallFlowDeps['launcher'];
  readonly registry: Pick<RegistryRoom, 'server'>;
  readonly runtimes: Pick<RuntimesRoom, 'lookup'>;
  readonly servers: Pick<ServerControlRoom, 'toolContext'>;
  readonly remote: Pick<RemoteRoom, 'broker'>;
  readonly organisation: Pick<ManagedPolicyRoom, 'refuseServer'>;
  readonly supervisor: Pick<Supervisor, 'status' | 'log'>;
}

export function composeInstall(wiring: InstallWiring, rooms: () => InstallRooms): { flow: InstallFlow; room: InstallRoom } {
  const flow = new InstallFlow({
    ...wiring,
    launcher: rooms().launcher,
    registry: { server: (name, version) => rooms().registry.server(name, version), remote: remoteSupport },
    runtimes: () => rooms().runtimes.lookup(),
    toolContext: (server: ServerRecord) => rooms().servers.toolContext(server),
    hashFile: (path) => wiring.codeHasher.sha256(path),
    // Why a server that was just added is not running: its last error and its last words.
    whyNotRunning: (name) => {
      const { lastError } = rooms().supervisor.status(name);
      const words = lastWords(rooms().supervisor.log(name));
      return lastError ? `${lastError}${words ? ` — its last output: “${words}”` : ''}.` : undefined;
    },
    onDidChange: wiring.emitServers,
    signInBroker: () => rooms().remote.broker(),
    organisation: (server, what) => rooms().organisation.refuseServer(server, what),
  });
  return { flow, room: new InstallRoom({ ...wiring, flow }) };
}
