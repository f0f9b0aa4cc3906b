/** The views of questions about servers' requests, and of their audit entries (headlines in Airlock's words). */
import type { ServerRequestEntryView, ServerRequestView } from '../../../shared/views';
import type { ServerRequestAuditRecord } from '../audit/server-request-entries';
import { enumOptions, secretLookingFields } from './elicitation-form';
import type { ServerQuestion } from './questions';
import type { QueuedQuestion } from './request-queue';

type FieldView = Extract<ServerRequestView, { kind: 'elicitation-form' }>['fields'][number];

/** A waiting question as the shells show it. */
export function toServerRequestView(entry: QueuedQuestion<ServerQuestion>): ServerRequestView {
  const q = entry.question;
  const base = {
    id: entry.id,
    server: q.server,
    ...(q.during !== undefined ? { during: q.during } : {}),
    reasons: [...q.reasons],
    deadline: entry.deadline,
    createdAt: entry.openedAt,
  };
  switch (q.kind) {
    case 'sampling-request': {
      const p = q.params;
      return {
        ...base,
        kind: 'sampling-request',
        headline: `${q.server} wants ${q.answererLabel} to write a reply${q.during ? `, while ${q.during} runs one of its tools` : ''}. Nothing is sent until you allow it.`,
        answerer: q.answerer,
        answererLabel: q.answererLabel,
        messages: p.messages.map((m) => ({ role: m.role, content: structuredClone(m.content) })),
        ...(p.systemPrompt !== undefined ? { systemPrompt: p.systemPrompt } : {}),
        includeContext: p.includeContext ?? 'none',
        maxTokens: p.maxTokens,
        ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
        ...(p.stopSequences !== undefined ? { stopSequences: [...p.stopSequences] } : {}),
        ...(p.modelPreferences !== undefined ? { modelPreferences: structuredClone(p.modelPreferences) } : {}),
        params: structuredClone(p),
        limits: { ...q.limits },
      };
    }
    case 'sampling-response':
      return {
        ...base,
        kind: 'sampling-response',
        headline: `${q.answererLabel} answered ${q.server}. Check the answer before it goes back to the server.`,
        answererLabel: q.answererLabel,
        messages: q.params.messages.map((m) => ({ role: m.role, content: structuredClone(m.content) })),
        result: structuredClone(q.result),
      };
    case 'elicitation-form': {
      const required = new Set(q.requestedSchema.required ?? []);
      // The flag reads the message too (as well as what the pipeline found in the fields).
      const secret = new Set([...q.secretFields, ...secretLookingFields(q.requestedSchema, q.message)]);
      const fields: FieldView[] = Object.entries(q.requestedSchema.properties ?? {}).map(([key, raw]) => {
        const field = raw as Record<string, unknown>;
        const options = enumOptions(field);
        const type: FieldView['type'] = options ? (field.type === 'array' ? 'choices' : 'choice') : ((['string', 'number', 'integer', 'boolean'].includes(field.type as string) ? field.type : 'string') as FieldView['type']);
        const num = (name: string) => (typeof field[name] === 'number' ? { [name]: field[name] } : {});
        return {
          key,
          type,
          ...(typeof field.title === 'string' ? { title: field.title } : {}),
          ...(typeof field.description === 'string' ? { description: field.description } : {}),
          required: required.has(key),
          ...(field.default !== undefined ? { default: structuredClone(field.default) } : {}),
          ...(typeof field.format === 'string' ? { format: field.format } : {}),
          ...num('minimum'),
          ...num('maximum'),
          ...num('minLength'),
          ...num('maxLength'),
          ...num('minItems'),
          ...num('maxItems'),
          ...(options ? { options } : {}),
          secretLooking: secret.has(key),
        };
      });
      return {
        ...base,
        kind: 'elicitation-form',
        headline: `${q.server} asks you${q.during ? ` (while ${q.during} runs one of its tools)` : ''}. Answer only if you want to; you can decline.`,
        message: q.message,
        fields,
        requestedSchema: structuredClone(q.requestedSchema),
      };
    }
    case 'elicitation-url':
      return {
        ...base,
        kind: 'elicitation-url',
        headline: `${q.server} asks you to open a web page on ${q.url.host}. Nothing opens unless you click.`,
        message: q.message,
        url: q.url.href,
        host: q.url.host,
        asciiHost: q.url.asciiHost,
        punycode: q.url.punycode,
        opened: q.opened,
      };
  }
}

/** "allow-once (window), edited": how a person (or nobody) answered, as the log has it. */
function answerText(answer: { how: string; by?: string; edited?: boolean }): string {
  return `${answer.how}${answer.by ? ` (${answer.by})` : ''}${answer.edited ? ', edited' : ''}`;
}

/** A request from a server as the Activity page shows it. */
export function toServerRequestEntryView(record: ServerRequestAuditRecord): ServerRequestEntryView {
  const { decision, outcome } = record;
  const verdict =
    decision.final === 'deny'
      ? `denied${decision.verdict === 'ask' ? ' after asking' : ''}`
      : decision.route === 'client'
        ? `relayed to ${decision.answerer ?? 'the app'}`
        : decision.verdict === 'ask'
          ? decision.kind === 'sampling'
            ? 'allowed after asking'
            : 'asked in Airlock'
          : 'allowed';
  const answer = outcome?.answer ?? decision.answer;
  return {
    seq: decision.seq,
    time: decision.time,
    requestId: decision.callId,
    server: decision.server,
    kind: decision.kind,
    ...(decision.kind === 'screen' ? { method: decision.tool } : {}),
    decision: verdict,
    reasons: [...(decision.reasons ?? [])],
    ...(answer ? { answeredBy: answerText(answer) } : {}),
    ...(outcome?.answer && decision.answer ? { requestAnsweredBy: answerText(decision.answer) } : {}),
    ...(outcome?.outcome ? { outcome: outcome.outcome } : decision.kind === 'roots' ? { outcome: decision.final === 'allow' ? 'answered' : 'refused' } : {}),
    ...(outcome?.detail ? { detail: outcome.detail } : {}),
    ...(outcome?.durationMs !== undefined ? { durationMs: outcome.durationMs } : {}),
    ...(decision.request !== undefined ? { request: decision.request } : {}),
    ...((outcome?.response ?? decision.response) !== undefined ? { response: outcome?.response ?? decision.response } : {}),
  };
}
