/**
 * Turns whatever a provider library threw into a problem a person can act
 * on — a refused key, a rate limit and how long to wait, an overloaded
 * service, a stream that broke halfway, a model without tool support — and
 * says whether trying again could help. Pure: the loop decides what to do.
 */
import type { APICallError } from 'ai';
import type { ChatProblem } from '../../../shared/chat';
import { messageOf } from '../errors';

/** A classified provider failure. */
export interface ProviderProblem extends ChatProblem {
  /** Trying the same request again may succeed (and nothing of this answer has been shown yet). */
  retryable: boolean;
  /** How long the provider asked us to wait, when it said. */
  retryAfterMs?: number;
  status?: number;
}

/** Longest provider message kept (it is the provider's text, shown inert). */
const MAX_PROVIDER_MESSAGE = 500;

export interface ProblemContext {
  /** The person's name for the provider ("Anthropic"). */
  provider: string;
  model: string;
  /** Text or tool calls of this answer already arrived. */
  streamed: boolean;
  /** Now, for an HTTP-date `retry-after`. */
  now: number;
}

/**
 * The AI SDK's `APICallError.isInstance`, without loading the SDK (it is
 * loaded only when a model is asked): its errors carry a marker symbol.
 */
function isApiCallError(error: unknown): error is APICallError {
  const marker = Symbol.for('vercel.ai.error.AI_APICallError');
  return error !== null && typeof error === 'object' && (error as Record<symbol, unknown>)[marker] === true;
}

/** Classifies an error from a model request. */
export function classifyProviderError(error: unknown, context: ProblemContext): ProviderProblem {
  const { provider, model, streamed } = context;
  if (isApiCallError(error)) {
    const status = error.statusCode;
    const said = providerMessage(error);
    if (streamed && (status === undefined || status === 200)) {
      return {
        kind: 'broken-stream',
        message: `The connection to ${provider} broke in the middle of the answer (${causeOf(error)}). What arrived is kept and marked incomplete.`,
        retryable: false,
      };
    }
    if (status === 401 || status === 403) {
      return {
        kind: 'auth',
        message: `${provider} refused the key (${status}${said ? `: ${said}` : ''}). Check the key in Settings › Models.`,
        retryable: false,
        status,
      };
    }
    if (status === 429) {
      const retryAfterMs = retryAfter(error.responseHeaders, context.now);
      return {
        kind: 'rate-limit',
        message: `${provider} is limiting requests (429)${retryAfterMs !== undefined ? `; it asked to wait ${describeWait(retryAfterMs)}` : ''}.`,
        retryable: !streamed,
        ...(retryAfterMs !== undefined ? { retryAfterMs, retryAfterSeconds: Math.ceil(retryAfterMs / 1000) } : {}),
        status,
      };
    }
    if (status !== undefined && (status === 400 || status === 404 || status === 422) && /tool/i.test(said) && /(support|unsupported|not available|does not)/i.test(said)) {
      return {
        kind: 'no-tools',
        message: `${model} does not support tools, so it cannot use your servers (${provider} said: ${said}). Choose a model that does, or turn off the servers for this conversation.`,
        retryable: false,
        status,
      };
    }
    if (status === 404) {
      return { kind: 'not-found', message: `${provider} does not know ${model}, or the address is wrong (404${said ? `: ${said}` : ''}).`, retryable: false, status };
    }
    if (status === 529 || status === 503) {
      return { kind: 'overloaded', message: `${provider} is overloaded right now (${status}).`, retryable: !streamed, status };
    }
    if (status !== undefined && status >= 500) {
      return { kind: 'server', message: `${provider} had an internal error (${status}${said ? `: ${said}` : ''}).`, retryable: !streamed, status };
    }
    if (status !== undefined && status >= 400) {
      return { kind: 'bad-request', message: `${provider} refused the request (${status}${said ? `: ${said}` : ''}).`, retryable: false, status };
    }
    return { kind: 'network', message: `Airlock could not reach ${provider} (${causeOf(error)}).`, retryable: !streamed };
  }
  const message = messageOf(error);
  if (streamed) {
    return { kind: 'broken-stream', message: `The answer from ${provider} stopped halfway (${cap(message)}). What arrived is kept and marked incomplete.`, retryable: false };
  }
  return { kind: 'other', message: `The request to ${provider} failed: ${cap(message)}`, retryable: false };
}

/**
 * The wait a `retry-after-ms` or `retry-after` header asks for (seconds or an
 * HTTP date), in milliseconds; undefined when absent or unreadable.
 */
export function retryAfter(headers: Record<string, string> | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  const ms = Number(lower['retry-after-ms']);
  if (lower['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = lower['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** "3 s", "2 min 5 s". */
export function describeWait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest ? `${minutes} min ${rest} s` : `${minutes} min`;
}

/** The provider's own error message from the response body, when it sent one. */
function providerMessage(error: APICallError): string {
  const data = error.data as { error?: { message?: unknown } } | undefined;
  const fromData = typeof data?.error?.message === 'string' ? data.error.message : undefined;
  if (fromData) return cap(fromData);
  if (error.responseBody) {
    try {
      const body = JSON.parse(error.responseBody) as { error?: { message?: unknown } | string; message?: unknown };
      const message = typeof body.error === 'string' ? body.error : typeof body.error?.message === 'string' ? body.error.message : typeof body.message === 'string' ? body.message : undefined;
      if (message) return cap(message);
    } catch {
      return cap(error.responseBody);
    }
  }
  return cap(error.message);
}

function causeOf(error: APICallError): string {
  const cause = error.cause as { message?: string; code?: string; cause?: { code?: string; message?: string } } | undefined;
  return cap(cause?.cause?.code ?? cause?.code ?? cause?.cause?.message ?? cause?.message ?? error.message);
}

function cap(text: string): string {
  return text.length > MAX_PROVIDER_MESSAGE ? `${text.slice(0, MAX_PROVIDER_MESSAGE - 1)}…` : text;
}
