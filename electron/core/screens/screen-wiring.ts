/**
 * How the host wires the screens room: a running server's tools as listed
 * now, its resources through the catalog (size-capped), the call pipeline as
 * the one way a screen's call reaches a tool, the audit log for its requests,
 * the chat a screen may speak into as its server, and a steady clock. The
 * rooms it reads are bound late (`rooms()`).
 */
import type { AgentService } from '../agent';
import type { CallsRoom } from '../calls/calls-room';
import type { CatalogRoom } from '../catalog/catalog-room';
import type { Supervisor } from '../servers/supervisor';
import { modelBoundText } from '../redaction/model-bound';
import type { ServerSecretsDeps } from '../redaction/server-secrets';
import { ScreenRoom, type ScreenRoomDeps } from './screen-room';

/** What the room is wired to. */
export type ScreenWiring = Omit<ScreenRoomDeps, 'tools' | 'readResource' | 'callTool' | 'recordRequest' | 'chat' | 'now'> & {
  audit: { appendServerRequest: ScreenRoomDeps['recordRequest'] };
  /** Whose secrets to take out of what a screen says into the chat. */
  secretsOf: ServerSecretsDeps;
};

/** The rooms it reads. */
export interface ScreenRooms {
  readonly supervisor: Pick<Supervisor, 'state' | 'tools'>;
  readonly catalog: Pick<CatalogRoom, 'catalog'>;
  readonly calls: Pick<CallsRoom, 'call'>;
  readonly agent: Pick<AgentService, 'fromScreen'>;
}

export function composeScreens(wiring: ScreenWiring, rooms: () => ScreenRooms): ScreenRoom {
  const supervisor = () => rooms().supervisor;
  return new ScreenRoom({
    ...wiring,
    tools: (server) => (supervisor().state(server) === 'ready' ? supervisor().tools.get(server)?.tools : undefined),
    readResource: (server, uri) => rooms().catalog.catalog.readResource(server, uri),
    callTool: (request) => rooms().calls.call(request),
    recordRequest: (input) => wiring.audit.appendServerRequest(input),
    // SECURITY: invariant 5 — a screen's words reach the conversation and the model with the person's secrets for its server taken out.
    chat: { fromScreen: (conversation, server, text, kind) => rooms().agent.fromScreen(conversation, server, modelBoundText(wiring.secretsOf, server, text), kind) },
    now: () => performance.now(),
  });
}
