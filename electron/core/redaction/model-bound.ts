/**
 * What a model is sent of what a server wrote — a tool's result, a resource
 * or prompt attached in the chat, a screen's message — with every value the person gave that
 * server hidden (`[redacted]`); nothing else changes. When the values cannot
 * be read, what the server wrote is withheld from the model, and the model
 * is told so.
 *
 * SECURITY: invariant 5 and SECURITY.md rule 10 — a credential the person
 * gave a server is never sent to a model provider, nor kept in a saved
 * conversation, because the server echoed it.
 */
import type { ChatContextSources } from '../agent/agent-service';
import { hideMarkedSecrets, WITHHELD } from '../audit/redact';
import type { CallResult } from '../calls/call-pipeline';
import { serverSecretValues, type ServerSecretsDeps } from './server-secrets';

/** A call's result as the model may see it. */
export function modelBoundResult(deps: ServerSecretsDeps, server: string, result: CallResult): CallResult {
  let values: readonly string[];
  try {
    values = serverSecretValues(deps, server);
  } catch {
    // Fail closed: the model learns that there was a result, not what it said.
    return { ...result, result: { content: [{ type: 'text', text: WITHHELD }], isError: true }, ...(result.message ? { message: WITHHELD } : {}) };
  }
  if (values.length === 0) return result;
  return { ...result, ...(result.result ? { result: hideMarkedSecrets(result.result, values) } : {}), ...(result.message ? { message: hideMarkedSecrets(result.message, values) } : {}) };
}

/** The chat's prompts and resources as the model may see them. */
export function modelBoundContext(deps: ServerSecretsDeps, sources: ChatContextSources): ChatContextSources {
  const text = (server: string, value: string): string => modelBoundText(deps, server, value);
  return {
    ...sources,
    getPrompt: async (server, name, args) => {
      const prompt = await sources.getPrompt(server, name, args);
      return { ...prompt, text: text(server, prompt.text) };
    },
    readResource: async (server, uri) => {
      const resource = await sources.readResource(server, uri);
      return { ...resource, text: text(server, resource.text) };
    },
  };
}

/**
 * A text a server's code wrote for the model (a screen's message or
 * context, a prompt or resource attached in the chat) with every value the
 * person gave that server hidden; withheld when they cannot be read.
 */
export function modelBoundText(deps: ServerSecretsDeps, server: string, text: string): string {
  let values: readonly string[];
  try {
    values = serverSecretValues(deps, server);
  } catch {
    // Fail closed: the conversation and the model learn that the server wrote something, not what.
    return WITHHELD;
  }
  return hideMarkedSecrets(text, values);
}
