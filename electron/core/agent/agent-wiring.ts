/**
 * How the host wires the built-in chat: the servers and tools it may offer,
 * the call pipeline as its one way to a tool, the events it tells the shells,
 * the prompts and resources of the catalog — and, on the way to the model,
 * the person's secrets taken out of whatever a server wrote. Also the
 * sampling model that answers servers' requests with the person's default
 * model. The rooms it reads are bound late (`rooms()`).
 *
 * SECURITY: the agent reaches tools only through the calls room, and holds no
 * way to answer a confirmation; invariant 5 — what the model is sent of a
 * server's words has the person's secrets for it taken out.
 */
import type { ServerRecord } from '../../../shared/domain';
import type { EmitEvent } from '../../../shared/ipc';
import type { CallsRoom } from '../calls/calls-room';
import type { CatalogRoom } from '../catalog/catalog-room';
import { chatContextSources } from '../catalog/chat-context';
import { modelBoundContext, modelBoundResult } from '../redaction/model-bound';
import type { ServerSecretsDeps } from '../redaction/server-secrets';
import type { Supervisor } from '../servers/supervisor';
import { AgentService, type AgentServiceDeps } from './agent-service';
import { offeredTools } from './offered-tools';
import { createSamplingModel, type SamplingModel } from './sampling-model';

/** What the chat is wired to. */
export interface AgentWiring {
  dataDir: string;
  secrets: AgentServiceDeps['secrets'];
  records(): ServerRecord[];
  /** Where the secrets the person gave each server are found, to take them out of what the model reads. */
  secretsOf: ServerSecretsDeps;
  emit: EmitEvent;
  confirmationTimeoutMs?: number | undefined;
}

/** The rooms the chat reads. */
export interface AgentRooms {
  readonly supervisor: Pick<Supervisor, 'state' | 'start' | 'tools'>;
  readonly calls: Pick<CallsRoom, 'call'>;
  readonly catalog: Pick<CatalogRoom, 'gateway'>;
}

/** The chat, and the sampling model that answers with its default model. */
export function composeAgent(wiring: AgentWiring, rooms: () => AgentRooms): { agent: AgentService; samplingModel: SamplingModel } {
  const { secretsOf, emit } = wiring;
  const agent = new AgentService({
    dataDir: wiring.dataDir,
    secrets: wiring.secrets,
    servers: () => wiring.records().map((server) => ({ name: server.name, enabled: server.enabled })),
    tools: (servers) => offeredTools(wiring.records(), rooms().supervisor, servers),
    callTool: async (request) => modelBoundResult(secretsOf, request.server, await rooms().calls.call(request)),
    emit: {
      conversations: () => emit('chat.didChange', {}),
      models: () => emit('models.didChange', {}),
      update: (update) => emit('chat.didUpdate', update),
    },
    ...(wiring.confirmationTimeoutMs ? { confirmationTimeoutMs: wiring.confirmationTimeoutMs } : {}),
    context: modelBoundContext(secretsOf, chatContextSources(rooms().catalog.gateway())),
  });
  const samplingModel = createSamplingModel({ defaultModel: () => agent.models.defaultModel(), clientFor: (ref) => agent.clientFor(ref) });
  return { agent, samplingModel };
}
