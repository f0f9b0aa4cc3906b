/** The built-in agent: provider adapters, the agent loop, conversations, and the sampling adapter. */
export { AgentService, SYSTEM_PROMPT, type AgentServiceDeps, type ChatContextSources } from './agent-service';
export { runTurn, type TurnOutcome } from './agent-loop';
export { ConversationStore } from './conversation-store';
export { createModelClient, listModels, type ModelClient, type ProviderConfig } from './model-client';
export { ModelsStore } from './models-store';
export type { AgentTool } from './model-tools';
export { createSamplingModel, type SamplingModel } from './sampling-model';
