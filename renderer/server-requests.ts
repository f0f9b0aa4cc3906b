/**
 * The pure half of the dialogs for servers' requests: reading MCP content
 * blocks, building an edited sampling request or model answer from what the
 * person typed, building a form's answer from the fields the person filled
 * (never from the server's defaults), and splitting a URL around its host.
 * The core checks every answer again; this only helps a person give one.
 */
import type { ServerRequestView } from '../shared/views';

/** A form field as the core describes it (MCP's restricted schema). */
export type FormField = Extract<ServerRequestView, { kind: 'elicitation-form' }>['fields'][number];

/** What the person has put in one field: text (strings, numbers, a choice), a yes/no, or a set of choices. */
export type FieldInput = { kind: 'text'; text: string } | { kind: 'boolean'; value: boolean } | { kind: 'choices'; values: string[] };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** One short line naming a question, for announcements ("files asks you a question"). */
export function describeRequest(view: ServerRequestView): string {
  switch (view.kind) {
    case 'sampling-request':
      return `${view.server} wants a model to write a reply`;
    case 'sampling-response':
      return `the model’s answer to ${view.server}, before it goes back`;
    case 'elicitation-form':
      return `${view.server} asks you a question`;
    case 'elicitation-url':
      return `${view.server} asks you to open a web page on ${view.host}`;
  }
}

// ── The record of an answer ─────────────────────────────────────────────────

const HOW_WORDS: Record<string, string> = {
  'allow-once': 'allowed once',
  'allow-session': 'allowed for this session',
  'allow-always': 'always allowed',
  deny: 'denied',
  'deny-always': 'always denied',
  approve: 'answer sent',
  refuse: 'answer refused',
  accept: 'answered',
  decline: 'declined',
  cancel: 'cancelled',
  expired: 'nobody answered in time',
  cancelled: 'withdrawn',
};
const BY_WORDS: Record<string, string> = { window: 'in the window', terminal: 'on a terminal', client: 'in the app', test: 'by a test' };

/** "allow-once (window), edited" → "allowed once in the window, edited"; anything else as the core wrote it. */
export function answerWords(answeredBy: string): string {
  const match = /^([a-z-]+)(?: \(([a-z]+)\))?(, edited)?$/.exec(answeredBy);
  if (!match || !Object.hasOwn(HOW_WORDS, match[1]!)) return answeredBy;
  const by = match[2] && Object.hasOwn(BY_WORDS, match[2]) ? ` ${BY_WORDS[match[2]]}` : match[2] ? ` (${match[2]})` : '';
  return `${HOW_WORDS[match[1]!]}${by}${match[3] ? ', edited' : ''}`;
}

// ── Content blocks ──────────────────────────────────────────────────────────

/** Content as MCP has it in a message: one block or a list of them. */
export function blocksOf(content: unknown): unknown[] {
  return Array.isArray(content) ? content : [content];
}

/** The text of each text block of a message's content, in order (edits are made to these). */
export function textsOf(content: unknown): string[] {
  return blocksOf(content).flatMap((block) => (isObject(block) && block.type === 'text' && typeof block.text === 'string' ? [block.text] : []));
}

/** The content with its text blocks' texts replaced, in order; every other block kept as it was. */
export function withTexts(content: unknown, texts: readonly string[]): unknown {
  let next = 0;
  const replace = (block: unknown) => {
    if (!(isObject(block) && block.type === 'text' && typeof block.text === 'string')) return block;
    const text = texts[next++];
    return text === undefined ? block : { ...block, text };
  };
  return Array.isArray(content) ? content.map(replace) : replace(content);
}

/** The size in bytes of base64 data (for "an image, 12 KiB — not shown"). */
export function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** "12 KiB", "1.2 MiB", "15 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(bytes >= 10 * 1024 ? 0 : 1)} KiB`;
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

// ── Sampling ────────────────────────────────────────────────────────────────

/** What the person may change in a sampling request: the system prompt, each text block of each message, the reply's length. */
export interface SamplingEdits {
  systemPrompt?: string;
  /** Per message, the texts of its text blocks. */
  texts: string[][];
  maxTokens: string;
}

/** The edits as they start: exactly what the server sent. */
export function samplingEditsOf(params: Record<string, unknown>): SamplingEdits {
  const messages = Array.isArray(params.messages) ? params.messages : [];
  return {
    ...(typeof params.systemPrompt === 'string' ? { systemPrompt: params.systemPrompt } : {}),
    texts: messages.map((message) => textsOf(isObject(message) ? message.content : undefined)),
    maxTokens: String(params.maxTokens ?? ''),
  };
}

/** The request to send, from the server's request and the person's edits; a message for the first problem. */
export function editedSamplingParams(params: Record<string, unknown>, edits: SamplingEdits, maxTokensCap: number): { value?: Record<string, unknown>; error?: string } {
  const maxTokens = Number(edits.maxTokens.trim());
  if (!/^\d+$/.test(edits.maxTokens.trim()) || !Number.isSafeInteger(maxTokens) || maxTokens < 1) return { error: 'The longest reply must be a whole number of tokens, at least 1.' };
  if (maxTokens > maxTokensCap) return { error: `The longest reply may be at most ${maxTokensCap} tokens (your limit for this server).` };
  const messages = Array.isArray(params.messages) ? params.messages : [];
  return {
    value: {
      ...params,
      ...(edits.systemPrompt !== undefined ? { systemPrompt: edits.systemPrompt } : {}),
      messages: messages.map((message, i) => (isObject(message) ? { ...message, content: withTexts(message.content, edits.texts[i] ?? []) } : message)),
      maxTokens,
    },
  };
}

/** The model's answer with its text blocks replaced by the person's edits. */
export function editedSamplingResult(result: Record<string, unknown>, texts: readonly string[]): Record<string, unknown> {
  return { ...result, content: withTexts(result.content, texts) };
}

// ── Elicitation forms ───────────────────────────────────────────────────────

/** The server's default as an input, for "Use the suggestion" (only on the person's click). */
export function inputFromDefault(field: FormField): FieldInput | undefined {
  const value = field.default;
  if (value === undefined) return undefined;
  if (field.type === 'boolean') return typeof value === 'boolean' ? { kind: 'boolean', value } : undefined;
  if (field.type === 'choices') return Array.isArray(value) ? { kind: 'choices', values: value.filter((v): v is string => typeof v === 'string') } : undefined;
  if (typeof value === 'string' || typeof value === 'number') return { kind: 'text', text: String(value) };
  return undefined;
}

/** How the server's default reads: the options' titles for choices. */
export function defaultText(field: FormField): string | undefined {
  const value = field.default;
  if (value === undefined) return undefined;
  const title = (v: unknown) => field.options?.find((option) => option.value === v)?.title ?? String(v);
  if (Array.isArray(value)) return value.map(title).join(', ');
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string' || typeof value === 'number') return title(value);
  return undefined;
}

/** Checks one field: its value to send, that it is left out, or what is wrong. An untouched field has no input. */
function fieldProblem(field: FormField, input: FieldInput | undefined): { value?: unknown; problem?: string; absent?: true } {
  const label = field.title ?? field.key;
  if (field.type === 'boolean') {
    if (input?.kind === 'boolean') return { value: input.value };
    return field.required ? { problem: `Answer “${label}” with yes or no.` } : { absent: true };
  }
  if (field.type === 'choices') {
    const values = input?.kind === 'choices' ? input.values : [];
    if (values.length === 0) return field.required ? { problem: `Choose at least one for “${label}”.` } : { absent: true };
    if (field.minItems !== undefined && values.length < field.minItems) return { problem: `Choose at least ${field.minItems} for “${label}”.` };
    if (field.maxItems !== undefined && values.length > field.maxItems) return { problem: `Choose at most ${field.maxItems} for “${label}”.` };
    if (values.some((v) => !field.options?.some((o) => o.value === v))) return { problem: `Choose “${label}” from its options.` };
    return { value: [...values] };
  }
  const text = input?.kind === 'text' ? input.text : '';
  if (text === '') return field.required ? { problem: `“${label}” is required.` } : { absent: true };
  if (field.type === 'choice') {
    return field.options?.some((o) => o.value === text) ? { value: text } : { problem: `Choose “${label}” from its options.` };
  }
  if (field.type === 'number' || field.type === 'integer') {
    const n = Number(text.trim());
    if (text.trim() === '' || !Number.isFinite(n)) return { problem: `“${label}” must be a number.` };
    if (field.type === 'integer' && !Number.isInteger(n)) return { problem: `“${label}” must be a whole number.` };
    if (field.minimum !== undefined && n < field.minimum) return { problem: `“${label}” must be at least ${field.minimum}.` };
    if (field.maximum !== undefined && n > field.maximum) return { problem: `“${label}” must be at most ${field.maximum}.` };
    return { value: n };
  }
  if (field.minLength !== undefined && text.length < field.minLength) return { problem: `“${label}” must be at least ${field.minLength} characters.` };
  if (field.maxLength !== undefined && text.length > field.maxLength) return { problem: `“${label}” must be at most ${field.maxLength} characters.` };
  if (field.format === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) return { problem: `“${label}” must be an email address.` };
  if (field.format === 'uri' && !URL.canParse(text)) return { problem: `“${label}” must be a web address.` };
  if (field.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(text)) return { problem: `“${label}” must be a date (YYYY-MM-DD).` };
  if (field.format === 'date-time' && Number.isNaN(Date.parse(text))) return { problem: `“${label}” must be a date and time.` };
  return { value: text };
}

/**
 * The answer to send: exactly the fields the person filled, each of its type;
 * fields left empty are left out (a default the person did not take is never
 * sent). `problems` by field key, in the form's order.
 */
export function formAnswer(fields: readonly FormField[], inputs: ReadonlyMap<string, FieldInput>): { content: Record<string, unknown>; problems: Map<string, string> } {
  // Field names are the server's: a null-prototype object keeps `__proto__` and friends as plain entries.
  const content = Object.create(null) as Record<string, unknown>;
  const problems = new Map<string, string>();
  for (const field of fields) {
    const checked = fieldProblem(field, inputs.get(field.key));
    if (checked.problem) problems.set(field.key, checked.problem);
    else if (!checked.absent) content[field.key] = checked.value;
  }
  return { content, problems };
}

// ── URLs ────────────────────────────────────────────────────────────────────

/** A URL split around its host, so the host can be highlighted; `host` is empty when it cannot be found. */
export function splitUrl(url: string, asciiHost: string): { before: string; host: string; after: string } {
  const scheme = url.indexOf('//');
  const at = asciiHost && scheme >= 0 ? url.indexOf(asciiHost, scheme + 2) : -1;
  // The host comes right after the scheme's `//` (the core refuses addresses with a user name in them).
  if (at !== scheme + 2) return { before: url, host: '', after: '' };
  return { before: url.slice(0, at), host: asciiHost, after: url.slice(at + asciiHost.length) };
}
