/**
 * Provider I/O behind one interface: a `ModelClient` streams one model step
 * (text and tool calls, then usage) or answers one request whole (sampling).
 * The implementation is the Vercel AI SDK — `@ai-sdk/anthropic` for the
 * Messages API, `@ai-sdk/openai` (Chat Completions) for OpenAI, and
 * `@ai-sdk/openai-compatible` for any endpoint that speaks OpenAI's format
 * (Ollama, LM Studio, llama.cpp, vLLM, OpenRouter). The library's own
 * retries are off: the agent loop retries itself, so it can show the wait.
 *
 * SECURITY: the key is passed explicitly on every client, so a provider
 * library never falls back to a key in the environment the person did not
 * give Airlock.
 */
import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import type { ModelRef, ProviderKind } from '../../../shared/chat';

// The provider libraries are loaded when a model is first asked, not when Airlock starts: most
// commands never talk to a model, and loading them costs more than the rest of a command.
type Ai = typeof import('ai');

// The SDK prints warnings (e.g. an unknown model's token limit) to the console, which would garble the CLI's output.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** A provider as the agent uses it (the key comes from the secret store). */
export interface ProviderConfig {
  id: string;
  kind: ProviderKind;
  label: string;
  baseUrl?: string;
}

/** A tool as the model is offered it. */
export interface ModelToolSpec {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** One model step to stream. */
export interface ModelStepRequest {
  system: string;
  messages: ModelMessage[];
  tools: readonly ModelToolSpec[];
  /** `none` forbids tool calls (after the step limit). */
  toolChoice: 'auto' | 'none';
  signal: AbortSignal;
}

/** What a streamed step yields, in order. It ends after `finish`, `error` or `aborted`. */
export type ModelStepEvent =
  | { type: 'text'; text: string }
  /** A piece of a tool call's arguments (JSON text) as the model writes them; the whole call follows as `tool-call`. */
  | { type: 'tool-input-delta'; id: string; name: string; delta: string }
  | { type: 'tool-call'; id: string; name: string; input: unknown; invalid?: string }
  | { type: 'finish'; usage: { inputTokens: number; outputTokens: number }; finishReason: string }
  | { type: 'error'; error: unknown }
  | { type: 'aborted' };

/** One whole answer (no streaming), for sampling requests. */
export interface ModelGenerateRequest {
  system?: string;
  messages: ModelMessage[];
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
  signal?: AbortSignal;
}

export interface ModelGenerateResult {
  text: string;
  finishReason: string;
  usage: { inputTokens: number; outputTokens: number };
}

/** A model of a provider, ready to ask. */
export interface ModelClient {
  readonly ref: ModelRef;
  readonly kind: ProviderKind;
  /** The person's name for the provider. */
  readonly providerLabel: string;
  step(request: ModelStepRequest): AsyncIterable<ModelStepEvent>;
  generate(request: ModelGenerateRequest): Promise<ModelGenerateResult>;
}

/** Where each kind's API is when the person gives no address. */
export const DEFAULT_BASE_URLS: Record<Exclude<ProviderKind, 'openai-compatible'>, string> = {
  anthropic: 'https://api.anthropic.com/v1',
  openai: 'https://api.openai.com/v1',
};

/** Anthropic requires a maximum; the SDK's guess for a model it does not know is far too high for older models. */
const ANTHROPIC_MAX_OUTPUT_TOKENS = 8192;

/** The AI SDK's model object for a provider and model. */
async function languageModel(config: ProviderConfig, apiKey: string | undefined, model: string): Promise<LanguageModel> {
  switch (config.kind) {
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey: apiKey ?? '', ...(config.baseUrl ? { baseURL: config.baseUrl } : {}) })(model);
    }
    case 'openai': {
      // Chat Completions: the format every OpenAI-compatible server also speaks.
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI({ apiKey: apiKey ?? '', ...(config.baseUrl ? { baseURL: config.baseUrl } : {}) }).chat(model);
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({ name: config.id, baseURL: config.baseUrl ?? '', ...(apiKey ? { apiKey } : {}), includeUsage: true }).chatModel(model);
    }
  }
}

/** Builds the client for one model of a provider (its library is loaded at its first request). */
export function createModelClient(config: ProviderConfig, apiKey: string | undefined, model: string): ModelClient {
  let loaded: Promise<{ ai: Ai; language: LanguageModel }> | undefined;
  const load = () => (loaded ??= Promise.all([import('ai'), languageModel(config, apiKey, model)]).then(([ai, language]) => ({ ai, language })));
  const limits = config.kind === 'anthropic' ? { maxOutputTokens: ANTHROPIC_MAX_OUTPUT_TOKENS } : {};
  return {
    ref: { provider: config.id, model },
    kind: config.kind,
    providerLabel: config.label,
    async *step(request) {
      let result: ReturnType<Ai['streamText']>;
      try {
        const { ai, language } = await load();
        const tools = toToolSet(ai, request.tools);
        result = ai.streamText({
        model: language,
        system: request.system,
        messages: request.messages,
        ...(tools ? { tools, toolChoice: request.toolChoice } : {}),
        maxRetries: 0,
        abortSignal: request.signal,
        ...limits,
        // Errors arrive as stream parts (handled below); the SDK would also print them.
        onError: () => {},
        });
      } catch (error) {
        yield { type: 'error', error };
        return;
      }
      // The calls being written: their tools' names, by call id.
      const writing = new Map<string, string>();
      try {
        for await (const part of result.fullStream) {
          switch (part.type) {
            case 'text-delta':
              if (part.text) yield { type: 'text', text: part.text };
              break;
            case 'tool-input-start':
              if (!part.providerExecuted) writing.set(part.id, part.toolName);
              break;
            case 'tool-input-delta': {
              const name = writing.get(part.id);
              if (name !== undefined && part.delta) yield { type: 'tool-input-delta', id: part.id, name, delta: part.delta };
              break;
            }
            case 'tool-call': {
              const invalid = (part as { invalid?: boolean; error?: unknown }).invalid ? describeInvalid((part as { error?: unknown }).error) : undefined;
              yield { type: 'tool-call', id: part.toolCallId, name: part.toolName, input: part.input, ...(invalid ? { invalid } : {}) };
              break;
            }
            case 'finish':
              yield {
                type: 'finish',
                usage: { inputTokens: part.totalUsage.inputTokens ?? 0, outputTokens: part.totalUsage.outputTokens ?? 0 },
                finishReason: part.finishReason,
              };
              return;
            case 'error':
              yield request.signal.aborted ? { type: 'aborted' } : { type: 'error', error: part.error };
              return;
            case 'abort':
              yield { type: 'aborted' };
              return;
            default:
              break;
          }
        }
      } catch (error) {
        yield request.signal.aborted ? { type: 'aborted' } : { type: 'error', error };
      }
    },
    async generate(request) {
      const { ai, language } = await load();
      const result = await ai.generateText({
        model: language,
        ...(request.system ? { system: request.system } : {}),
        messages: request.messages,
        maxOutputTokens: request.maxTokens,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.stopSequences?.length ? { stopSequences: request.stopSequences } : {}),
        maxRetries: 2,
        ...(request.signal ? { abortSignal: request.signal } : {}),
      });
      return {
        text: result.text,
        finishReason: result.finishReason,
        usage: { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 },
      };
    },
  };
}

/**
 * What a tool call's arguments say so far, from the JSON text the model has
 * written of them (unfinished strings and objects closed leniently, as the
 * providers' own libraries read them); undefined until it reads as an object.
 */
export async function readPartialArguments(text: string): Promise<Record<string, unknown> | undefined> {
  const { parsePartialJson } = await import('ai');
  const { value } = await parsePartialJson(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** The tools as the AI SDK takes them: schemas passed through as JSON Schema, no `execute` (the loop runs calls itself). */
function toToolSet(ai: Ai, specs: readonly ModelToolSpec[]): ToolSet | undefined {
  if (specs.length === 0) return undefined;
  const set: ToolSet = {};
  for (const spec of specs) {
    set[spec.name] = ai.tool({ ...(spec.description ? { description: spec.description } : {}), inputSchema: ai.jsonSchema(spec.inputSchema as Parameters<Ai['jsonSchema']>[0]) });
  }
  return set;
}

function describeInvalid(error: unknown): string {
  return error instanceof Error ? error.message : 'the model sent a call Airlock could not read';
}

/** How long listing models may take. */
const LIST_TIMEOUT_MS = 15_000;
/** At most this many pages of Anthropic's model list. */
const MAX_PAGES = 5;

/** Why listing models did not work. */
export class ListModelsError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * The provider's model names, from its `GET /models` listing (Anthropic's
 * and OpenAI's format; most compatible servers offer the latter). The SDK
 * has no listing call, so this is the one request Airlock makes itself.
 */
export async function listModels(config: ProviderConfig, apiKey: string | undefined, signal?: AbortSignal): Promise<string[]> {
  const base = (config.baseUrl ?? (config.kind === 'openai-compatible' ? '' : DEFAULT_BASE_URLS[config.kind])).replace(/\/+$/, '');
  if (!base) throw new ListModelsError('This provider has no address.');
  const headers: Record<string, string> =
    config.kind === 'anthropic' ? { 'x-api-key': apiKey ?? '', 'anthropic-version': '2023-06-01' } : apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const timeout = AbortSignal.timeout(LIST_TIMEOUT_MS);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const names: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const url = `${base}/models${config.kind === 'anthropic' ? `?limit=1000${after ? `&after_id=${encodeURIComponent(after)}` : ''}` : ''}`;
    let response: Response;
    try {
      response = await fetch(url, { headers, signal: combined });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ListModelsError(`Airlock could not reach ${base} (${cause?.code ?? cause?.message ?? (error as Error).message}).`);
    }
    const text = await response.text();
    if (!response.ok) throw new ListModelsError(describeListFailure(response.status, text), response.status);
    let body: { data?: Array<{ id?: unknown }>; has_more?: unknown; last_id?: unknown; models?: Array<{ name?: unknown }> };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new ListModelsError(`${base}/models did not answer with JSON.`);
    }
    for (const entry of body.data ?? []) if (typeof entry.id === 'string') names.push(entry.id);
    if (config.kind !== 'anthropic' || body.has_more !== true || typeof body.last_id !== 'string') break;
    after = body.last_id;
  }
  return [...new Set(names)].sort();
}

function describeListFailure(status: number, body: string): string {
  let said = '';
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string };
    said = typeof parsed.error === 'string' ? parsed.error : typeof parsed.error?.message === 'string' ? parsed.error.message : '';
  } catch {
    said = '';
  }
  const detail = said ? `: ${said.slice(0, 300)}` : '';
  if (status === 401 || status === 403) return `The key was refused (${status}${detail}).`;
  if (status === 404) return 'Connected, but this endpoint does not list its models: type the model’s name.';
  return `The provider answered ${status}${detail}.`;
}
