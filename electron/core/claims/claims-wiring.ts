/**
 * How the host wires the claims room: the servers' records as the server
 * control room keeps them, the audit log its contradictions are written to,
 * and the Activity page told of each append (or of one that failed). The
 * rooms it reads are bound late (`rooms()`).
 */
import type { AuditRoom } from '../audit/audit-room';
import type { ServerControlRoom } from '../server-control/server-control-room';
import { ClaimsRoom, type ClaimsRoomDeps } from './claims-room';

/** What the room is wired to. */
export type ClaimsWiring = Omit<ClaimsRoomDeps, 'records' | 'onDidAppend' | 'onAuditError'>;

/** The rooms it reads. */
export interface ClaimsRooms {
  readonly servers: Pick<ServerControlRoom, 'records'>;
  readonly activity: Pick<AuditRoom, 'appendNotices' | 'notRecorded'>;
}

export function composeClaims(wiring: ClaimsWiring, rooms: () => ClaimsRooms): ClaimsRoom {
  return new ClaimsRoom({
    ...wiring,
    records: () => rooms().servers.records(),
    onDidAppend: rooms().activity.appendNotices,
    onAuditError: (message) => rooms().activity.notRecorded(message),
  });
}
