/**
 * What the chat and Settings › Models show: providers, conversations, their
 * messages and tool cards, and the events a running turn streams. Every shape
 * is a zod schema so the IPC contract validates it; conversations are stored
 * on disk in these same shapes. The core computes every label, decision and
 * warning here — the renderer shows them. No Node, Electron or DOM imports.
 */
import { z } from 'zod';

/** Which wire format a provider speaks. */
export const ProviderKindSchema = z.enum(['anthropic', 'openai', 'openai-compatible']);
export type ProviderKind = z.infer<typeof ProviderKindSchema>;

/** A provider's id: chosen by Airlock from its label, stable, safe in file names and caller labels. */
export const ProviderIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,47}$/, 'use lowercase letters, digits and dashes');

/** A model, by provider id and the provider's model name. */
export const ModelRefSchema = z.object({ provider: ProviderIdSchema, model: z.string().min(1).max(200) });
export type ModelRef = z.infer<typeof ModelRefSchema>;

/** A provider as Settings › Models shows it. The key is never sent back, only whether one is set. */
export const ProviderViewSchema = z.object({
  id: ProviderIdSchema,
  kind: ProviderKindSchema,
  /** "Anthropic", "OpenAI", "Ollama on this computer" — the person's name for it. */
  label: z.string(),
  /** The endpoint (required for OpenAI-compatible ones; optional for the others). */
  baseUrl: z.string().optional(),
  hasKey: z.boolean(),
  /** Models the provider listed at the last test (or typed by the person). */
  models: z.array(z.string()),
  /** The last connection test, in words. */
  lastTest: z.object({ ok: z.boolean(), message: z.string(), at: z.string() }).optional(),
});
export type ProviderView = z.infer<typeof ProviderViewSchema>;

/** Settings › Models. */
export const ModelsViewSchema = z.object({
  providers: z.array(ProviderViewSchema),
  defaultModel: ModelRefSchema.optional(),
  /** How many tool-using steps a turn may take before the model must ask the person to continue. */
  stepLimit: z.number().int(),
  /** The price table's date (prices change; costs are estimates). */
  pricesCheckedOn: z.string(),
  /** Problems reading the models file (it was kept aside; nothing was lost). */
  notices: z.array(z.string()),
});
export type ModelsView = z.infer<typeof ModelsViewSchema>;

/** What a connection test found. */
export const ProviderTestViewSchema = z.object({ ok: z.boolean(), message: z.string(), models: z.array(z.string()) });
export type ProviderTestView = z.infer<typeof ProviderTestViewSchema>;

/** Token use, and the cost when the model's price is known. */
export const UsageViewSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** US dollars, estimated from the price table; absent when the price is not known. */
  costUsd: z.number().nonnegative().optional(),
});
export type UsageView = z.infer<typeof UsageViewSchema>;

/** A poisoning signal found in a tool result (never a verdict by itself). */
export const ResultWarningSchema = z.object({
  kind: z.enum(['addresses-model', 'mentions-tool', 'hidden-characters', 'secret-path']),
  message: z.string(),
});
export type ResultWarning = z.infer<typeof ResultWarningSchema>;

/** One tool call of the model, as an inline card: what it asked, what Airlock decided and why, what came back. */
export const ToolCardSchema = z.object({
  /** The provider's tool-call id. */
  id: z.string(),
  /** The tool's name as the model saw it (`server__tool`). */
  modelName: z.string(),
  server: z.string(),
  tool: z.string(),
  /** The arguments as the model asked for them. */
  arguments: z.record(z.string(), z.unknown()),
  /** The arguments sent, when a person edited them before allowing. */
  sentArguments: z.record(z.string(), z.unknown()).optional(),
  /** requested → running (or waiting for a person) → done. */
  state: z.enum(['requested', 'running', 'waiting', 'done']),
  /**
   * True while the model is still writing this call (a tool with a screen):
   * `arguments` is what it wrote so far, read leniently — shown as that and
   * given only to the tool's screen, never sent. Never saved.
   */
  inputStreaming: z.boolean().optional(),
  /** Airlock's decision, in words. */
  decision: z
    .object({
      verdict: z.enum(['allow', 'ask', 'deny']),
      allowed: z.boolean(),
      /** "Ran without asking", "You allowed it", "You denied it", "Airlock denied it". */
      label: z.string(),
      reasons: z.array(z.string()),
    })
    .optional(),
  outcome: z.enum(['ok', 'tool-error', 'denied', 'unknown', 'not-sent']).optional(),
  /** The result's text content (server text: shown inert), capped. */
  result: z.object({ text: z.string(), truncated: z.boolean(), isError: z.boolean() }).optional(),
  /** Airlock's own message about the call (why it was denied or not sent, outcome unknown). */
  message: z.string().optional(),
  /** Set when the content comes from an untrusted server or an open-world tool: "content from <server>". */
  contentFrom: z.string().optional(),
  warnings: z.array(ResultWarningSchema),
  durationMs: z.number().optional(),
  /** The tool's screen (MCP Apps), shown in the card, and the result's structured content it is given (capped). */
  screen: z.object({ uri: z.string(), structuredContent: z.unknown().optional() }).optional(),
});
export type ToolCard = z.infer<typeof ToolCardSchema>;

/** A piece of an assistant message: text the model wrote, or a tool call. */
export const MessagePartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('tool'), card: ToolCardSchema }),
]);
export type MessagePart = z.infer<typeof MessagePartSchema>;

/** Why a model step failed, in plain words. */
export const ChatProblemSchema = z.object({
  kind: z.enum(['auth', 'rate-limit', 'overloaded', 'server', 'network', 'broken-stream', 'no-tools', 'not-found', 'bad-request', 'no-model', 'other']),
  message: z.string(),
  /** For a rate limit: how long the provider asked to wait. */
  retryAfterSeconds: z.number().optional(),
});
export type ChatProblem = z.infer<typeof ChatProblemSchema>;

/** One message of a conversation. An assistant message is one model step: its text and the tool calls it made. */
export const ChatMessageSchema = z.discriminatedUnion('role', [
  z.object({ id: z.string(), role: z.literal('user'), at: z.string(), text: z.string() }),
  /**
   * What a server's screen (MCP Apps) put into the conversation: a message
   * (the model answers it) or context (the model sees it at its next turn).
   * The server's words — never the person's: shown and given to the model
   * as such, and it answers nothing Airlock asks.
   */
  z.object({
    id: z.string(),
    role: z.literal('screen'),
    at: z.string(),
    server: z.string(),
    kind: z.enum(['message', 'context']),
    text: z.string(),
    /** What Airlock found in the text, as in a tool's result (it addresses the model, names other tools, …). */
    warnings: z.array(ResultWarningSchema).optional(),
  }),
  z.object({
    id: z.string(),
    role: z.literal('assistant'),
    at: z.string(),
    model: ModelRefSchema,
    parts: z.array(MessagePartSchema),
    /** streaming while it arrives; incomplete when the stream broke (what arrived is kept); stopped by the person; error with nothing usable. */
    status: z.enum(['streaming', 'complete', 'incomplete', 'stopped', 'error']),
    error: ChatProblemSchema.optional(),
    usage: UsageViewSchema.optional(),
    /** Airlock's note under the message (e.g. the step limit was reached). */
    notice: z.string().optional(),
  }),
]);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

/** Which servers and tools the model may see in a conversation. `servers: null` means every enabled server. */
export const ToolSelectionSchema = z.object({
  servers: z.array(z.string().max(48)).max(500).nullable(),
  /** `server/tool` names hidden from the model. */
  hiddenTools: z.array(z.string().max(400)).max(5000),
});
export type ToolSelection = z.infer<typeof ToolSelectionSchema>;

/** A conversation in the list. */
export const ConversationSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  model: ModelRefSchema.optional(),
  messageCount: z.number().int(),
  /** For a search: where the text matched. */
  snippet: z.string().optional(),
  running: z.boolean(),
});
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;

/** A whole conversation. */
export const ConversationViewSchema = z.object({
  id: z.string(),
  title: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The model this conversation uses (absent: the default model). */
  model: ModelRefSchema.optional(),
  tools: ToolSelectionSchema,
  messages: z.array(ChatMessageSchema),
  usage: UsageViewSchema,
  running: z.boolean(),
  /** Lines of the file that could not be read (kept in the file; the rest loaded). */
  problems: z.array(z.string()),
});
export type ConversationView = z.infer<typeof ConversationViewSchema>;

/** The servers and tools a conversation may offer the model, and which are on. */
export const ChatToolsViewSchema = z.object({
  servers: z.array(
    z.object({
      name: z.string(),
      enabled: z.boolean(),
      selected: z.boolean(),
      tools: z.array(z.object({ name: z.string(), selected: z.boolean(), readOnly: z.boolean() })),
    }),
  ),
});
export type ChatToolsView = z.infer<typeof ChatToolsViewSchema>;

/** What a running turn is doing right now (for the line under the conversation). */
export const TurnStatusSchema = z.object({
  kind: z.enum(['thinking', 'tool', 'retrying', 'idle']),
  message: z.string().optional(),
  /** Epoch ms: when a wait (a rate limit, a retry) ends. */
  until: z.number().optional(),
});
export type TurnStatus = z.infer<typeof TurnStatusSchema>;

/** One thing that happened in a conversation while a turn runs. */
export const ChatEventSchema = z.discriminatedUnion('type', [
  /** A message was added or changed (a tool card moved on, the message finished). */
  z.object({ type: z.literal('message'), message: ChatMessageSchema }),
  /** Text streamed into an assistant message (appended to its last text part). */
  z.object({ type: z.literal('delta'), messageId: z.string(), text: z.string() }),
  z.object({ type: z.literal('status'), status: TurnStatusSchema }),
  /** A turn started or ended, and how it ended. */
  z.object({ type: z.literal('turn'), running: z.boolean(), outcome: z.enum(['done', 'stopped', 'error', 'step-limit']).optional() }),
]);
export type ChatEvent = z.infer<typeof ChatEventSchema>;

/** The payload of `chat.didUpdate`. */
export const ChatUpdateSchema = z.object({ conversationId: z.string(), event: ChatEventSchema });
export type ChatUpdate = z.infer<typeof ChatUpdateSchema>;

/** Prompts (`/` commands) and resources (`@`) the conversation's enabled servers offer (server-written text). */
export const ChatCommandsViewSchema = z.object({
  available: z.boolean(),
  prompts: z.array(
    z.object({
      server: z.string(),
      name: z.string(),
      description: z.string().optional(),
      arguments: z.array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean() })).optional(),
    }),
  ),
  resources: z.array(z.object({ server: z.string(), uri: z.string(), name: z.string().optional() })),
});
export type ChatCommandsView = z.infer<typeof ChatCommandsViewSchema>;
