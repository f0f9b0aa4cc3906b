/**
 * The chat's `/` commands and `@` attachments, read through the catalog: the
 * prompts and resources of the conversation's enabled servers. It holds no
 * checks of its own — the catalog's apply (a prompt changed since approval is
 * withheld from the list and refused by `getPrompt`; reads are size-capped;
 * disabled servers are not reached). Binary contents reach the model as a
 * one-line summary, never as bytes.
 */
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChatContextSources } from '../agent/agent-service';
import type { GatewayCatalog } from '../gateway/gateway-core';

/** The chat's context sources over the catalog as the gateway sees it (enabled servers only). */
export function chatContextSources(catalog: GatewayCatalog): ChatContextSources {
  /** The selected enabled servers, started and listed; one that cannot start is left out. */
  const ready = async (servers: readonly string[] | null): Promise<string[]> => {
    const names = await catalog.servers(servers ?? undefined);
    const described = await Promise.allSettled(names.map((server) => catalog.describe(server)));
    return names.filter((_, index) => described[index]?.status === 'fulfilled');
  };
  return {
    listPrompts: async (servers) =>
      (await catalog.prompts(await ready(servers))).map(({ server, prompt }) => ({
        server,
        name: prompt.name,
        ...(typeof prompt.description === 'string' ? { description: prompt.description } : {}),
        ...(prompt.arguments?.length
          ? { arguments: prompt.arguments.map((arg) => ({ name: arg.name, ...(typeof arg.description === 'string' ? { description: arg.description } : {}), required: arg.required === true })) }
          : {}),
      })),
    listResources: async (servers) =>
      (await catalog.resources(await ready(servers))).map(({ server, resource }) => ({ server, uri: resource.uri, ...(typeof resource.name === 'string' ? { name: resource.name } : {}) })),
    getPrompt: async (server, name, args) => ({ text: promptText(await catalog.getPrompt(server, name, args)) }),
    readResource: async (server, uri) => {
      const result = await catalog.readResource(server, uri);
      const first = result.contents[0];
      return { text: resourceText(uri, result), ...(typeof first?.mimeType === 'string' ? { mimeType: first.mimeType } : {}) };
    },
  };
}

/** A prompt's messages as the text of one message (other roles and non-text parts labelled). */
export function promptText(result: GetPromptResult): string {
  return result.messages
    .map((message) => {
      const content = message.content as { type: string; text?: unknown; mimeType?: unknown; data?: unknown; uri?: unknown; resource?: Record<string, unknown> };
      const body =
        content.type === 'text' && typeof content.text === 'string'
          ? content.text
          : content.type === 'resource' && content.resource
            ? contentText(content.resource)
            : content.type === 'resource_link'
              ? `[Link from the server: ${String(content.uri)}]`
              : binarySummary(content.type, content.mimeType, content.data);
      return message.role === 'user' ? body : `[${message.role}] ${body}`;
    })
    .join('\n\n');
}

/** A read resource as text: text parts as written, binary parts summarised. */
export function resourceText(uri: string, result: ReadResourceResult): string {
  return result.contents.map((item) => (item.uri && item.uri !== uri ? `[${item.uri}]\n` : '') + contentText(item as Record<string, unknown>)).join('\n\n');
}

function contentText(item: Record<string, unknown>): string {
  if (typeof item.text === 'string') return item.text;
  return binarySummary('binary content', item.mimeType, item.blob);
}

function binarySummary(kind: string, mimeType: unknown, base64: unknown): string {
  const bytes = typeof base64 === 'string' ? Math.max(0, Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0)) : 0;
  return `[${kind === 'image' || kind === 'audio' ? kind : 'Binary content'} from the server: ${typeof mimeType === 'string' ? mimeType : 'unknown type'}, ${bytes.toLocaleString('en')} bytes — not attached]`;
}
