/**
 * How a running turn's events change a conversation's messages, for both
 * sides (the core keeps the live turn, the chat window draws it), so they
 * agree. Kept apart from the schemas in `chat.ts` so code that only applies
 * events does not load the schema library: the chat window opens without it.
 */
import type { AssistantMessage, ChatEvent, ChatMessage } from './chat';

/** Applies a `delta` or `message` event to a message list (both sides use it, so they agree). */
export function applyChatEvent(messages: readonly ChatMessage[], event: ChatEvent): ChatMessage[] {
  if (event.type === 'message') {
    const at = messages.findIndex((message) => message.id === event.message.id);
    if (at < 0) return [...messages, event.message];
    const next = [...messages];
    next[at] = event.message;
    return next;
  }
  if (event.type === 'delta') {
    return messages.map((message) => (message.id === event.messageId && message.role === 'assistant' ? appendText(message, event.text) : message));
  }
  return [...messages];
}

/** An assistant message with `text` appended to its last text part (a new part after a tool call). */
export function appendText(message: AssistantMessage, text: string): AssistantMessage {
  const parts = [...message.parts];
  const last = parts.at(-1);
  if (last?.type === 'text') parts[parts.length - 1] = { type: 'text', text: last.text + text };
  else parts.push({ type: 'text', text });
  return { ...message, parts };
}
