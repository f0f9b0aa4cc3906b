/**
 * What a person is asked about a request from a server, and what counts as
 * an answer to each question. Everything the server wrote (messages, system
 * prompt, the form's message and labels, the URL) is kept as the server's
 * data: the shells show it as inert, quoted text.
 */
import type { CreateMessageRequest, CreateMessageResult, ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ServerRequestSettings } from '../../../shared/domain';
import type { Acceptance } from './request-queue';
import { checkFormAnswer, type UrlReading } from './elicitation-form';
import { mcpTypes } from '../mcp-types';

type SamplingParams = CreateMessageRequest['params'];

/** Fields every question has. */
interface QuestionBase {
  /** Joins the question with its audit entries. */
  requestId: string;
  server: string;
  /** The app whose call to this server was running when it asked (a label: data), if any. */
  during?: string;
  /** Airlock's reasons, never the server's text. */
  reasons: string[];
}

/** A server wants a model to write something: approve, edit or deny before any model sees it. */
export interface SamplingRequestQuestion extends QuestionBase {
  kind: 'sampling-request';
  /** Who would answer: the app's model, or Airlock's own. */
  answerer: 'client' | 'model';
  answererLabel: string;
  params: SamplingParams;
  /** The person's caps for this server (an edit may not exceed them). */
  limits: { maxTokens: number; allowContext: boolean };
}

/** The model answered: approve, edit or refuse before the server sees the answer. */
export interface SamplingResponseQuestion extends QuestionBase {
  kind: 'sampling-response';
  answererLabel: string;
  /** What the model was given (after any edit). */
  params: SamplingParams;
  result: CreateMessageResult;
}

/** A server asks the person to fill in a form. */
export interface ElicitationFormQuestion extends QuestionBase {
  kind: 'elicitation-form';
  message: string;
  requestedSchema: ElicitRequestFormParams['requestedSchema'];
  /** Fields that look like they ask for a secret (the spec forbids that in a form). */
  secretFields: string[];
}

/** A server asks the person to open a web page. */
export interface ElicitationUrlQuestion extends QuestionBase {
  kind: 'elicitation-url';
  message: string;
  url: UrlReading;
  elicitationId: string;
  /** The person clicked "open" (the system browser was asked to show it). */
  opened: boolean;
}

export type ServerQuestion = SamplingRequestQuestion | SamplingResponseQuestion | ElicitationFormQuestion | ElicitationUrlQuestion;

/** The answers to a sampling request (the same words as a tool confirmation). */
export const SAMPLING_CHOICES = ['allow-once', 'allow-session', 'allow-always', 'deny', 'deny-always'] as const;
export type SamplingChoice = (typeof SAMPLING_CHOICES)[number];

/** A checked answer to a sampling request. */
export interface SamplingRequestAnswer {
  choice: SamplingChoice;
  params: SamplingParams;
  edited: boolean;
}

/** A checked answer to the model's answer. */
export interface SamplingResponseAnswer {
  choice: 'approve' | 'refuse';
  result: CreateMessageResult;
  edited: boolean;
}

/** A checked answer to an elicitation. */
export interface ElicitationAnswer {
  result: ElicitResult;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Checks an answer to a sampling request; an edit must still be a valid request within the person's caps. */
export function acceptSamplingRequest(question: SamplingRequestQuestion): (raw: unknown) => Acceptance<SamplingRequestAnswer> {
  return (raw) => {
    if (!isObject(raw) || !(SAMPLING_CHOICES as readonly string[]).includes(raw.choice as string)) return { ok: false, message: 'That is not an answer Airlock offers.' };
    const choice = raw.choice as SamplingChoice;
    if (raw.params === undefined || choice === 'deny' || choice === 'deny-always') return { ok: true, answer: { choice, params: question.params, edited: false } };
    const parsed = mcpTypes().CreateMessageRequestParamsSchema.safeParse(raw.params);
    if (!parsed.success) return { ok: false, message: `The edited request is not a valid sampling request: ${parsed.error.issues[0]?.message ?? 'invalid'}.` };
    const params = parsed.data;
    if (params.tools || params.toolChoice || params.task) return { ok: false, message: 'The edited request may not add tools or tasks.' };
    if (params.maxTokens > question.limits.maxTokens || params.maxTokens < 1) return { ok: false, message: `maxTokens must be between 1 and ${question.limits.maxTokens}.` };
    if ((params.includeContext ?? 'none') !== 'none' && !question.limits.allowContext) return { ok: false, message: 'This server may not ask for context; set includeContext to none.' };
    return { ok: true, answer: { choice, params, edited: JSON.stringify(params) !== JSON.stringify(question.params) } };
  };
}

/** Checks an answer to the model's answer; an edit must be a valid sampling result. */
export function acceptSamplingResponse(question: SamplingResponseQuestion): (raw: unknown) => Acceptance<SamplingResponseAnswer> {
  return (raw) => {
    if (!isObject(raw) || (raw.choice !== 'approve' && raw.choice !== 'refuse')) return { ok: false, message: 'Approve or refuse the answer.' };
    if (raw.choice === 'refuse' || raw.result === undefined) return { ok: true, answer: { choice: raw.choice, result: question.result, edited: false } };
    const parsed = mcpTypes().CreateMessageResultSchema.safeParse(raw.result);
    if (!parsed.success) return { ok: false, message: `The edited answer is not a valid sampling result: ${parsed.error.issues[0]?.message ?? 'invalid'}.` };
    return { ok: true, answer: { choice: 'approve', result: parsed.data, edited: JSON.stringify(parsed.data) !== JSON.stringify(question.result) } };
  };
}

/** Checks an answer to a form: accept with values that fit it, decline, or cancel. */
export function acceptElicitationForm(question: ElicitationFormQuestion): (raw: unknown) => Acceptance<ElicitationAnswer> {
  return (raw) => {
    if (!isObject(raw) || !['accept', 'decline', 'cancel'].includes(raw.action as string)) return { ok: false, message: 'Accept, decline or cancel.' };
    if (raw.action !== 'accept') return { ok: true, answer: { result: { action: raw.action as 'decline' | 'cancel' } } };
    const content = raw.content ?? {};
    const problems = checkFormAnswer(question.requestedSchema, content);
    if (problems.length > 0) return { ok: false, message: `The answer does not fit the form: ${problems.map((p) => `${p.field || 'answer'} ${p.message}`).join('; ')}.` };
    return { ok: true, answer: { result: { action: 'accept', content: content as NonNullable<ElicitResult['content']> } } };
  };
}

/** Checks an answer to a URL question: accept (the person went there), decline or cancel. */
export function acceptElicitationUrl(): (raw: unknown) => Acceptance<ElicitationAnswer> {
  return (raw) => {
    if (!isObject(raw) || !['accept', 'decline', 'cancel'].includes(raw.action as string)) return { ok: false, message: 'Accept, decline or cancel.' };
    return { ok: true, answer: { result: { action: raw.action as 'accept' | 'decline' | 'cancel' } } };
  };
}

/** The settings after a person chose "always" or "never" in a sampling question. */
export function settingsAfter(choice: SamplingChoice, settings: ServerRequestSettings): ServerRequestSettings | undefined {
  if (choice === 'allow-always') return { ...settings, sampling: { ...settings.sampling, rule: 'always' } };
  if (choice === 'deny-always') return { ...settings, sampling: { ...settings.sampling, rule: 'never' } };
  return undefined;
}
