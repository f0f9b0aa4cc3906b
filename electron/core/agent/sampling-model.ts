/**
 * Answers an MCP sampling request (`sampling/createMessage`) with the
 * person's default model. This is only the model half: deciding whether a
 * server may sample at all, showing the person the prompt and getting their
 * approval (SECURITY.md rule 8, invariant 1) is the server-requests room's
 * job, which calls this after the approval.
 *
 * Text and images go to the model; the server's system prompt, temperature,
 * token limit and stop sequences are passed on. Sampling with tools, and
 * messages carrying tool calls, are refused with a clear error: this
 * adapter's answer is a single content block.
 */
import type { ModelMessage } from 'ai';
import type { CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ModelRef } from '../../../shared/chat';
import { AirlockError } from '../errors';
import type { SamplingModel } from '../server-requests/sampling-model';
import type { ModelClient } from './model-client';

export type { SamplingModel };

/** Where the sampling model gets its client: the default model of the moment. */
export interface SamplingModelDeps {
  defaultModel(): ModelRef | undefined;
  clientFor(ref: ModelRef): ModelClient;
}

/** Largest `maxTokens` passed on (a server cannot ask for an unbounded answer). */
export const MAX_SAMPLING_TOKENS = 16_384;

export function createSamplingModel(deps: SamplingModelDeps): SamplingModel {
  return {
    available: () => deps.defaultModel() !== undefined,
    async createMessage(params, options) {
      const ref = deps.defaultModel();
      if (!ref) throw new AirlockError('unavailable', 'No default model is chosen in Settings › Models, so Airlock cannot answer sampling requests.');
      if (params.tools?.length || params.toolChoice) throw new AirlockError('invalid-request', 'Sampling with tools is not supported by Airlock.');
      const client = deps.clientFor(ref);
      const messages = params.messages.map(toModelMessage);
      const result = await client.generate({
        ...(params.systemPrompt ? { system: params.systemPrompt } : {}),
        messages,
        maxTokens: Math.max(1, Math.min(params.maxTokens, MAX_SAMPLING_TOKENS)),
        ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
        ...(params.stopSequences?.length ? { stopSequences: params.stopSequences } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return {
        role: 'assistant',
        content: { type: 'text', text: result.text },
        model: ref.model,
        stopReason: stopReasonOf(result.finishReason),
      };
    },
  };
}

type SamplingMessage = CreateMessageRequest['params']['messages'][number];

function toModelMessage(message: SamplingMessage): ModelMessage {
  const blocks = Array.isArray(message.content) ? message.content : [message.content];
  const parts = blocks.map((block) => {
    switch (block.type) {
      case 'text':
        return { type: 'text' as const, text: block.text };
      case 'image':
        return { type: 'image' as const, image: block.data, mediaType: block.mimeType };
      case 'audio':
        return { type: 'file' as const, data: block.data, mediaType: block.mimeType };
      default:
        throw new AirlockError('invalid-request', `Sampling messages with ${block.type} content are not supported by Airlock.`);
    }
  });
  if (message.role === 'assistant') {
    const text = parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    return { role: 'assistant', content: text };
  }
  return { role: 'user', content: parts };
}

function stopReasonOf(finishReason: string): string {
  switch (finishReason) {
    case 'stop':
      return 'endTurn';
    case 'length':
      return 'maxTokens';
    default:
      return finishReason;
  }
}
