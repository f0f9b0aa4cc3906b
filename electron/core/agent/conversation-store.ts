/**
 * Conversations on disk: one append-only JSON Lines file per conversation in
 * `conversations/` of the data folder (mode 0600, folder 0700). Every change
 * is one line appended — a message when it is complete, a tool card when its
 * call ends, a new title or settings — so a process killed mid-stream loses at
 * most the message that was still arriving, and the file still loads: a line
 * cut off by the kill, or any line that does not parse, is skipped and
 * reported, never rewritten. Nothing here runs a model or a tool.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  ChatMessageSchema,
  ModelRefSchema,
  ToolCardSchema,
  ToolSelectionSchema,
  type ChatMessage,
  type ConversationSummary,
  type ModelRef,
  type ToolCard,
  type ToolSelection,
} from '../../../shared/chat';
import { AirlockError } from '../errors';

/** The folder inside the data folder. */
export const CONVERSATIONS_DIR = 'conversations';

/** What a conversation is called until the person (or its first message) names it. */
export const UNTITLED = 'New conversation';

/** A conversation id: what Airlock minted (a UUID). Anything else never reaches the file system. */
export const ConversationIdSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

const RecordSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('conversation'), v: z.literal(1), id: z.string(), createdAt: z.string(), title: z.string(), model: ModelRefSchema.optional(), tools: ToolSelectionSchema }),
  z.object({ t: z.literal('title'), at: z.string(), title: z.string() }),
  z.object({ t: z.literal('settings'), at: z.string(), model: ModelRefSchema.nullable().optional(), tools: ToolSelectionSchema.optional() }),
  z.object({ t: z.literal('message'), message: ChatMessageSchema }),
  z.object({ t: z.literal('card'), at: z.string(), messageId: z.string(), card: ToolCardSchema }),
]);
type ConversationRecord = z.infer<typeof RecordSchema>;

/** A conversation as loaded from its file. */
export interface StoredConversation {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  model?: ModelRef;
  tools: ToolSelection;
  messages: ChatMessage[];
  /** Lines that could not be read (they stay in the file). */
  problems: string[];
}

/** The default: every enabled server, every tool. */
export const ALL_TOOLS: ToolSelection = { servers: null, hiddenTools: [] };

/** What a card left unfinished by a stopped process says: the call may have run. */
export const INTERRUPTED_CALL = 'Airlock stopped while this call was running, so its outcome is unknown — the server may have acted. The audit log has what was decided.';

interface Cached {
  conversation: StoredConversation;
  size: number;
  mtimeMs: number;
  /** The file does not end with a newline (a line was cut off): the next append starts a new line first. */
  cutOff: boolean;
}

export class ConversationStore {
  private readonly dir: string;
  private readonly cache = new Map<string, Cached>();

  constructor(dataDir: string) {
    this.dir = join(dataDir, CONVERSATIONS_DIR);
  }

  /** Creates an empty conversation. */
  create(options: { model?: ModelRef; tools?: ToolSelection; now: string }): StoredConversation {
    const id = randomUUID();
    const header: ConversationRecord = { t: 'conversation', v: 1, id, createdAt: options.now, title: UNTITLED, ...(options.model ? { model: options.model } : {}), tools: options.tools ?? ALL_TOOLS };
    this.append(id, header);
    return this.get(id);
  }

  /** Every conversation, most recent first. A file that cannot be read at all is left out (and left alone). */
  list(): StoredConversation[] {
    if (!existsSync(this.dir)) return [];
    const ids = readdirSync(this.dir)
      .filter((file) => file.endsWith('.jsonl'))
      .map((file) => file.slice(0, -'.jsonl'.length))
      .filter((id) => ConversationIdSchema.safeParse(id).success);
    const out: StoredConversation[] = [];
    for (const id of ids) {
      try {
        out.push(this.get(id));
      } catch {
        // Unreadable (permissions, vanished): not listed; nothing is changed.
      }
    }
    return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }

  /** One conversation. */
  get(id: string): StoredConversation {
    const path = this.pathOf(id);
    let stat;
    try {
      stat = statSync(path);
    } catch {
      throw new AirlockError('not-found', 'There is no such conversation (it may have been deleted).');
    }
    const cached = this.cache.get(id);
    if (cached && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs) return cached.conversation;
    const text = readFileSync(path, 'utf8');
    const conversation = fold(id, text);
    this.cache.set(id, { conversation, size: stat.size, mtimeMs: stat.mtimeMs, cutOff: text.length > 0 && !text.endsWith('\n') });
    return conversation;
  }

  exists(id: string): boolean {
    return ConversationIdSchema.safeParse(id).success && existsSync(this.pathOf(id));
  }

  /** Appends a complete message (or the final state of one already stored). */
  appendMessage(id: string, message: ChatMessage): void {
    this.append(id, { t: 'message', message });
  }

  /** Records a tool card's final state. */
  appendCard(id: string, messageId: string, card: ToolCard, now: string): void {
    this.append(id, { t: 'card', at: now, messageId, card });
  }

  rename(id: string, title: string, now: string): void {
    this.append(id, { t: 'title', at: now, title });
  }

  setSettings(id: string, settings: { model?: ModelRef | null; tools?: ToolSelection }, now: string): void {
    this.append(id, { t: 'settings', at: now, ...settings });
  }

  remove(id: string): void {
    this.cache.delete(id);
    rmSync(this.pathOf(id), { force: true });
  }

  private pathOf(id: string): string {
    // SECURITY: the id comes from IPC; only Airlock-minted UUIDs become a path.
    if (!ConversationIdSchema.safeParse(id).success) throw new AirlockError('not-found', 'There is no such conversation.');
    return join(this.dir, `${id}.jsonl`);
  }

  private append(id: string, record: ConversationRecord): void {
    const path = this.pathOf(id);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    if (record.t !== 'conversation' && !existsSync(path)) throw new AirlockError('not-found', 'There is no such conversation (it may have been deleted).');
    const cached = this.cache.get(id);
    const cutOff = cached ? cached.cutOff : endsWithoutNewline(path);
    try {
      appendFileSync(path, `${cutOff ? '\n' : ''}${JSON.stringify(record)}\n`, { mode: 0o600 });
    } catch (error) {
      throw new AirlockError('unavailable', `Airlock could not save the conversation (${(error as Error).message}). What was saved before is still there.`);
    }
    this.cache.delete(id);
  }
}

/** Replays a conversation's records. Bad lines are skipped and named; cards left running mean the process stopped mid-call. */
function fold(id: string, text: string): StoredConversation {
  const lines = text.split('\n');
  const problems: string[] = [];
  const conversation: StoredConversation = { id, title: UNTITLED, createdAt: '', updatedAt: '', tools: ALL_TOOLS, messages: [], problems };
  let sawHeader = false;
  const touch = (at: string) => {
    if (at > conversation.updatedAt) conversation.updatedAt = at;
  };
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let record: ConversationRecord;
    try {
      record = RecordSchema.parse(JSON.parse(line));
    } catch {
      const last = index === lines.length - 1;
      problems.push(last ? `The last line of the file was cut off (Airlock stopped while writing it); it was skipped.` : `Line ${index + 1} of the file could not be read; it was skipped.`);
      continue;
    }
    switch (record.t) {
      case 'conversation':
        sawHeader = true;
        conversation.title = record.title;
        conversation.createdAt = record.createdAt;
        if (record.model) conversation.model = record.model;
        conversation.tools = record.tools;
        touch(record.createdAt);
        break;
      case 'title':
        conversation.title = record.title;
        touch(record.at);
        break;
      case 'settings':
        if (record.model === null) delete conversation.model;
        else if (record.model) conversation.model = record.model;
        if (record.tools) conversation.tools = record.tools;
        touch(record.at);
        break;
      case 'message': {
        const at = conversation.messages.findIndex((message) => message.id === record.message.id);
        if (at >= 0) conversation.messages[at] = record.message;
        else conversation.messages.push(record.message);
        touch(record.message.at);
        break;
      }
      case 'card': {
        const message = conversation.messages.find((candidate) => candidate.id === record.messageId);
        if (message?.role === 'assistant') {
          message.parts = message.parts.map((part) => (part.type === 'tool' && part.card.id === record.card.id ? { type: 'tool', card: record.card } : part));
        }
        touch(record.at);
        break;
      }
    }
  }
  if (!sawHeader) problems.unshift('The start of the file could not be read; the conversation is shown without its title.');
  if (!conversation.createdAt) conversation.createdAt = conversation.messages[0]?.at ?? new Date(0).toISOString();
  if (!conversation.updatedAt) conversation.updatedAt = conversation.createdAt;
  conversation.messages = conversation.messages.map(settleInterrupted);
  return conversation;
}

/** A message saved while it was still streaming, or with calls still running, was interrupted by a stopped process. */
function settleInterrupted(message: ChatMessage): ChatMessage {
  if (message.role !== 'assistant') return message;
  const parts = message.parts.map((part) =>
    part.type === 'tool' && part.card.state !== 'done' ? { type: 'tool' as const, card: { ...part.card, state: 'done' as const, outcome: 'unknown' as const, message: INTERRUPTED_CALL } } : part,
  );
  return { ...message, parts, ...(message.status === 'streaming' ? { status: 'incomplete' as const } : {}) };
}

function endsWithoutNewline(path: string): boolean {
  let fd: number | undefined;
  try {
    const size = statSync(path).size;
    if (size === 0) return false;
    fd = openSync(path, 'r');
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A summary for the list; with a query, only conversations whose title or text match, with where. */
export function summarise(conversation: StoredConversation, running: boolean, query?: string): ConversationSummary | undefined {
  const base: ConversationSummary = {
    id: conversation.id,
    title: conversation.title,
    createdAt: conversation.createdAt,
    updatedAt: conversation.updatedAt,
    ...(conversation.model ? { model: conversation.model } : {}),
    messageCount: conversation.messages.length,
    running,
  };
  const needle = query?.trim().toLowerCase();
  if (!needle) return base;
  if (conversation.title.toLowerCase().includes(needle)) return base;
  for (const message of conversation.messages) {
    for (const text of textsOf(message)) {
      const at = text.toLowerCase().indexOf(needle);
      if (at >= 0) return { ...base, snippet: snippetAround(text, at, needle.length) };
    }
  }
  return undefined;
}

/** The searchable text of a message: what the person and the model wrote. */
function textsOf(message: ChatMessage): string[] {
  if (message.role === 'user' || message.role === 'screen') return [message.text];
  return message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : []));
}

function snippetAround(text: string, at: number, length: number): string {
  const start = Math.max(0, at - 40);
  const end = Math.min(text.length, at + length + 60);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}
