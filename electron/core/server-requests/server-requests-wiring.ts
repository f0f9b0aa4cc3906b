/**
 * How the host wires the room for servers' requests: the organisation's lock
 * on sampling without review, which shell of this process can be asked, the
 * secrets to hide in the records, the model that answers (the shell's, or the
 * person's default model, read when asked), and a steady clock. The rooms it
 * reads are bound late (`rooms()`).
 *
 * SECURITY: invariant 1 in reverse — a server's question is routed to this
 * process's own shell, when it can ask; only it (and the window) may answer.
 */
import type { ManagedPolicyRoom } from '../managed-policy/managed-policy-room';
import { serverSecretValues, type ServerSecretsDeps } from '../redaction/server-secrets';
import type { SamplingModel } from './sampling-model';
import { ServerRequestsRoom, type ServerRequestsRoomDeps } from './server-requests-room';

/** What the room is wired to. */
export type ServerRequestsWiring = Omit<ServerRequestsRoomDeps, 'refuseSamplingWithoutReview' | 'askers' | 'recordChange' | 'secretValues' | 'samplingModel' | 'now'> & {
  changes: { record: ServerRequestsRoomDeps['recordChange'] };
  secretsOf: ServerSecretsDeps;
  /** This process's own shell, when it can ask a person now (its origin); undefined when it cannot. */
  askingShell(): string | undefined;
  /** The shell's own model, if it passes one; else the person's default model (read when asked). */
  samplingModel?: SamplingModel | undefined;
};

/** The rooms it reads. */
export interface ServerRequestsRooms {
  readonly organisation: Pick<ManagedPolicyRoom, 'refuse'>;
  /** The person's default model (Settings › Models). */
  readonly samplingModel: SamplingModel;
}

export function composeServerRequests(wiring: ServerRequestsWiring, rooms: () => ServerRequestsRooms): ServerRequestsRoom {
  const { changes, secretsOf } = wiring;
  return new ServerRequestsRoom({
    ...wiring,
    refuseSamplingWithoutReview: (server) => rooms().organisation.refuse('samplingWithoutReview', `let ${server}'s sampling requests run without review`, server),
    askers: () => {
      const origin = wiring.askingShell();
      return origin === undefined ? [] : [origin];
    },
    recordChange: (input) => changes.record(input),
    secretValues: (server) => serverSecretValues(secretsOf, server),
    samplingModel: wiring.samplingModel ?? {
      available: () => rooms().samplingModel.available?.() ?? true,
      createMessage: (params, callOptions) => rooms().samplingModel.createMessage(params, callOptions),
    },
    // Steady, not the wall clock: it times requests and the per-minute caps.
    now: () => performance.now(),
  });
}
