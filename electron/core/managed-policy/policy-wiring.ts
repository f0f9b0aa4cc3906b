/**
 * How the host wires the organisation's managed policy: where it is read
 * (the OS's admin locations by default), the supervisor's view of each
 * server, and what follows a change of the policy in force — the servers
 * shown again, the HTTP gateway stopped when the policy now locks it, the
 * audit export checked against it. The rooms it reads are bound late
 * (`rooms()`); the policy is read before any server starts.
 */
import { homedir } from 'node:os';
import type { AuditExportRoom } from '../audit-export/audit-export-room';
import type { GatewayRoom } from '../gateway/gateway-room';
import type { Supervisor } from '../servers/supervisor';
import { ManagedPolicyRoom, type ManagedPolicyRoomDeps } from './managed-policy-room';
import { defaultPolicySource, type PolicySource } from './policy-sources';

/** What the policy is wired to. */
export type PolicyWiring = Omit<ManagedPolicyRoomDeps, 'source' | 'homeDir' | 'serverState' | 'didChange' | 'log'> & {
  /** Where the policy is read (default: the OS's admin locations). */
  source?: PolicySource | undefined;
  homeDir?: string;
  emitServers(): void;
  log(message: string, error?: unknown): void;
};

/** The rooms it reads. */
export interface PolicyRooms {
  readonly supervisor: Pick<Supervisor, 'state'>;
  readonly gateway: Pick<GatewayRoom, 'stopHttp'>;
  readonly auditExport: Pick<AuditExportRoom, 'nudge'>;
}

export function composeOrganisation(wiring: PolicyWiring, rooms: () => PolicyRooms): ManagedPolicyRoom {
  const { log } = wiring;
  const organisation: ManagedPolicyRoom = new ManagedPolicyRoom({
    ...wiring,
    source: wiring.source ?? defaultPolicySource(),
    homeDir: wiring.homeDir ?? homedir(),
    log,
    serverState: (name) => rooms().supervisor.state(name),
    didChange: () => {
      wiring.emitServers();
      if (organisation.lock('httpGateway')) void rooms().gateway.stopHttp().catch((error: unknown) => log('could not stop the HTTP gateway', error));
      rooms().auditExport.nudge();
    },
  });
  return organisation;
}
