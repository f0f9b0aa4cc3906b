/**
 * How the host wires the gateway room: the supervisor's tools and state, the
 * server requests a connected app may answer, the catalog, the call pipeline
 * as the one way an app's call reaches a tool, the organisation's refusal of
 * the HTTP gateway, and the claims room (what apps are told of a tool's
 * annotations changes when its claims are withdrawn). The rooms it reads are
 * bound late (`rooms()`).
 */
import type { CallsRoom } from '../calls/calls-room';
import type { CatalogRoom } from '../catalog/catalog-room';
import type { ClaimsRoom } from '../claims/claims-room';
import type { ManagedPolicyRoom } from '../managed-policy/managed-policy-room';
import { GatewayRoom, type GatewayRoomDeps } from './gateway-room';

/** What the room is wired to. */
export type GatewayWiring = Omit<GatewayRoomDeps, 'supervisor' | 'serverRequests' | 'catalog' | 'callTool' | 'refuseHttp' | 'onDidChangeClaims'>;

/** The rooms it reads. */
export interface GatewayRooms {
  readonly supervisor: GatewayRoomDeps['supervisor'];
  readonly serverRequests: GatewayRoomDeps['serverRequests'];
  readonly catalog: Pick<CatalogRoom, 'gateway'>;
  readonly calls: Pick<CallsRoom, 'call'>;
  readonly organisation: Pick<ManagedPolicyRoom, 'refuse'>;
  readonly claims: Pick<ClaimsRoom, 'onDidChange'>;
}

export function composeGateway(wiring: GatewayWiring, rooms: () => GatewayRooms): GatewayRoom {
  return new GatewayRoom({
    ...wiring,
    supervisor: rooms().supervisor,
    serverRequests: rooms().serverRequests,
    catalog: rooms().catalog.gateway(),
    callTool: (request) => rooms().calls.call(request),
    refuseHttp: () => rooms().organisation.refuse('httpGateway', 'start the HTTP gateway'),
    onDidChangeClaims: (listener) => rooms().claims.onDidChange(listener),
  });
}
