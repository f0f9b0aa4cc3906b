import { createHash, randomUUID } from 'node:crypto';
import type { CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, ListRootsResult } from '@modelcontextprotocol/sdk/types.js';
import { defaultServerRequestSettings, type PolicyMode, type ServerRecord, type ServerRequestSettings } from '../../../shared/domain';
import type { ServerRequestAuditInput } from '../audit/server-request-entries';
import { hideMarkedSecrets, redactString } from '../audit/redact';
import { decideServerRequest, rootsFromGrants, type ServerRequestDecision } from '../policy/decide-server-request';
import type { DownstreamPeers } from './downstream-peers';
import { readElicitationUrl, secretLookingFields, checkFormAnswer, withResolvedName, type ElicitationForm, type ResolveHost } from './elicitation-form';
import {
  acceptElicitationForm,
  acceptElicitationUrl,
  acceptSamplingRequest,
  acceptSamplingResponse,
  settingsAfter,
  type ServerQuestion,
} from './questions';
import type { QueueAnswerer, QueueOutcome, RequestQueue } from './request-queue';
import { RateWindow } from './rate-window';
import type { SamplingModel } from './sampling-model';
import { messageOf } from '../errors';
import { internalError, invalidParams, invalidRequest, userRejected } from '../mcp-errors';
import { loadMcpTypes } from '../mcp-types';

type SamplingParams = CreateMessageRequest['params'];
type ElicitParams = ElicitRequest['params'];

/** Roots requests a server may make in a minute (more are refused, and only the first refusal is logged). */
export const ROOTS_PER_MINUTE = 60;

/** What the pipeline needs from the rest of the core (narrow, so tests pass the real parts). */
export interface ServerRequestPipelineDeps {
  /** The persisted state, read once per request. */
  state(): { servers: Readonly<Record<string, ServerRecord>>; settings: { policyMode: PolicyMode } };
  /** Apps connected through the gateway that may answer (see DownstreamPeers). */
  peers: DownstreamPeers;
  /** Airlock's own model, when the shell has one. */
  samplingModel?: SamplingModel;
  /** Where questions wait for a person (every shell shows them). */
  queue: RequestQueue<ServerQuestion>;
  audit: { appendServerRequest(input: ServerRequestAuditInput): Promise<{ seq: number }> };
  /**
   * The shells that can show a question right now, by origin (`window`, or
   * the owner's own terminal, `local`); empty when nobody can be asked. A
   * question is routed to these, and only they may answer it.
   */
  askers(): readonly string[];
  /**
   * Every value the person gave a server (its secrets, header keys, sign-in
   * tokens): taken out of a sampling request before any model sees it.
   * Throws when they cannot be read: the request is then refused.
   */
  secretValues?(server: string): readonly string[];
  /** The addresses a host name resolves to (elicitation-form.ts `withResolvedName`); the system's resolver when absent. */
  resolveHost?: ResolveHost;
  /** Saves a person's "always"/"never" for a server, answered in `by` (recorded as a change). */
  saveSettings(server: string, settings: ServerRequestSettings, by: QueueAnswerer): void;
  /**
   * A steady clock in ms (performance.now), never the wall clock: it times
   * requests and the per-minute caps, which a clock set back would otherwise
   * reset (a flood let through again).
   */
  now(): number;
  /** How long a person has to answer (ms). */
  questionTimeoutMs?: number;
  /** Told after each audit append (the Activity page refreshes). */
  onDidAppend?(seq: number): void;
  /** A note for the server's own log (refusals past a rate cap, which are not all written to the audit log). */
  note?(server: string, text: string): void;
}

/**
 * The one path every request *from* a server takes — sampling, elicitation,
 * roots: the policy decides, a person answers what needs a person, the
 * decision is written to the audit log, and only then does a model see the
 * request, a person's answer go back, or a folder list leave; the outcome is
 * written after.
 *
 * SECURITY: invariant 1 in reverse — no sampling request reaches a model, no
 * elicitation reaches a person's answer, no roots answer leaves, without a
 * decision on record first (an audit write that fails refuses the request).
 * SECURITY.md rules 7 and 8 — sampling is never automatic unless the person
 * made it so; the model's answer is shown before it goes back; an
 * elicitation is never answered by Airlock itself.
 */
export class ServerRequestPipeline {
  readonly #rate = new RateWindow();
  readonly #sessionSampling = new Set<string>();

  constructor(private readonly deps: ServerRequestPipelineDeps) {}

  /** A server asks for a model to write something (`sampling/createMessage`). */
  async sample(server: string, params: SamplingParams, options: { signal?: AbortSignal } = {}): Promise<CreateMessageResult> {
    // Its answers are checked, and its refusals made, with the SDK's types (and the questions' with them).
    const { CreateMessageResultSchema } = await loadMcpTypes();
    const requestId = randomUUID();
    const started = this.deps.now();
    const { record, settings, mode } = this.#facts(server);
    const peer = this.deps.peers.samplerFor(server);
    const model = this.deps.samplingModel?.available?.() === false ? undefined : this.deps.samplingModel;
    const sampler = peer ? 'client' : model ? 'model' : 'none';
    const answererLabel = peer ? `${peer.label}'s model` : 'Airlock’s own model';
    const recent = this.#counted(server, 'sampling');
    // SECURITY: invariant 5 — a secret the person gave this server, put into its request, never reaches a model.
    let secrets: readonly string[] | undefined;
    try {
      secrets = this.deps.secretValues?.(server) ?? [];
    } catch {
      // Unreadable: the policy refuses (decideServerRequest, 'secrets-unreadable').
      secrets = undefined;
    }
    const carriesSecret = secrets !== undefined && secrets.length > 0 && JSON.stringify(hideMarkedSecrets(params, secrets)) !== JSON.stringify(params);
    const decision = decideServerRequest(
      {
        kind: 'sampling',
        includeContext: params.includeContext ?? 'none',
        maxTokens: params.maxTokens,
        usesTools: params.tools !== undefined || params.toolChoice !== undefined,
        taskAugmented: params.task !== undefined,
        secrets: secrets === undefined ? 'unreadable' : carriesSecret ? 'carried' : 'none',
      },
      {
        known: record !== undefined,
        blocked: record ? !record.enabled : true,
        settings,
        sessionGrant: this.#sessionSampling.has(server),
        recentCount: recent,
        sampler,
        relay: false,
        canAsk: this.deps.askers().length > 0,
        mode,
      },
    );
    if (decision.decidedBy === 'unsupported') {
      await this.#logRefusal(requestId, server, 'sampling', decision, samplingSummary(params), started);
      throw invalidParams(`Airlock refused this sampling request: ${decision.reasons.join(' ')}`);
    }
    if (decision.verdict === 'deny') {
      await this.#logRefusal(requestId, server, 'sampling', decision, samplingSummary(params), started, undefined, recent);
      throw userRejected(`Airlock refused this sampling request: ${decision.reasons.join(' ')}`);
    }

    let sent = params;
    let answer: ServerRequestAuditInput['answer'] = null;
    let final: 'allow' | 'deny' = decision.verdict === 'allow' ? 'allow' : 'deny';
    let denial = `Airlock refused this sampling request: ${decision.reasons.join(' ')}`;
    if (decision.verdict === 'ask') {
      const question: ServerQuestion = {
        kind: 'sampling-request',
        requestId,
        server,
        ...this.#during(server),
        reasons: decision.reasons,
        answerer: sampler === 'client' ? 'client' : 'model',
        answererLabel,
        params: structuredClone(params),
        limits: { maxTokens: settings.sampling.maxTokens, allowContext: settings.sampling.allowContext },
      };
      const opened = this.deps.queue.open(question, acceptSamplingRequest(question), this.#questionOptions(options.signal));
      const outcome = await opened.outcome;
      answer = answerOf(outcome, (a) => ({ how: a.choice, edited: a.edited }));
      if (outcome.kind === 'answered') {
        const after = settingsAfter(outcome.answer.choice, settings);
        if (after) this.deps.saveSettings(server, after, outcome.by);
        if (outcome.answer.choice === 'allow-session') this.#sessionSampling.add(server);
        if (outcome.answer.choice.startsWith('allow')) {
          final = 'allow';
          sent = outcome.answer.params;
        } else denial = 'A person denied this sampling request in Airlock.';
      } else denial = outcome.kind === 'expired' ? 'Nobody answered in time, so Airlock refused the sampling request.' : `The sampling request was withdrawn (${outcome.reason}).`;
    }

    // SECURITY: invariant 1 in reverse — on record before any model sees it.
    await this.#append({
      requestId,
      server,
      kind: 'sampling',
      stage: 'decision',
      verdict: decision.verdict,
      final,
      reasons: decision.reasons,
      decidedBy: decision.decidedBy,
      route: sampler,
      answerer: answererLabel,
      answer,
      request: samplingSummary(sent),
    });
    if (final === 'deny') {
      await this.#outcome(requestId, server, 'sampling', 'refused', started, undefined, denial);
      throw userRejected(denial);
    }

    // What the model sees: the request as allowed, with the person's secrets for this server taken out.
    sent = hideMarkedSecrets(sent, secrets ?? []);
    let result: CreateMessageResult;
    try {
      const raw = peer ? await peer.createMessage(server, sent, { signal: options.signal }) : await model!.createMessage(sent, { signal: options.signal });
      const checked = CreateMessageResultSchema.safeParse(raw);
      if (!checked.success) throw new Error(`the model's answer is not a valid sampling result (${checked.error.issues[0]?.message ?? 'invalid'})`);
      result = checked.data;
    } catch (error) {
      const message = `${answererLabel} could not answer: ${messageOf(error)}`;
      await this.#outcome(requestId, server, 'sampling', 'failed', started, undefined, message);
      throw internalError(message);
    }

    let review: ServerRequestAuditInput['answer'] = null;
    if (decision.reviewResponse) {
      const question: ServerQuestion = { kind: 'sampling-response', requestId, server, ...this.#during(server), reasons: ['The model answered. Nothing goes back to the server until you approve it.'], answererLabel, params: structuredClone(sent), result: structuredClone(result) };
      const opened = this.deps.queue.open(question, acceptSamplingResponse(question), this.#questionOptions(options.signal));
      const outcome = await opened.outcome;
      review = answerOf(outcome, (a) => ({ how: a.choice, edited: a.edited }));
      if (outcome.kind !== 'answered' || outcome.answer.choice === 'refuse') {
        const why = outcome.kind === 'answered' ? 'A person refused the model’s answer in Airlock.' : outcome.kind === 'expired' ? 'Nobody approved the model’s answer in time.' : `The request was withdrawn (${outcome.reason}).`;
        await this.#outcome(requestId, server, 'sampling', 'refused', started, review, why, resultSummary(result));
        throw userRejected(`Airlock did not return the model's answer: ${why}`);
      }
      result = outcome.answer.result;
    }
    await this.#outcome(requestId, server, 'sampling', 'answered', started, review, undefined, resultSummary(result));
    return result;
  }

  /** A server asks the person something (`elicitation/create`, form or URL mode). */
  async elicit(server: string, params: ElicitParams, options: { signal?: AbortSignal } = {}): Promise<ElicitResult> {
    const { ElicitResultSchema } = await loadMcpTypes();
    const requestId = randomUUID();
    const started = this.deps.now();
    const { record, settings, mode } = this.#facts(server);
    const form = params.mode === 'url' ? undefined : (params.requestedSchema as ElicitationForm);
    // SECURITY: a public-looking name that leads to this computer or the local network is refused like an address that does.
    const url = params.mode === 'url' ? await withResolvedName(readElicitationUrl(params.url), this.deps.resolveHost) : undefined;
    const secretFields = form ? secretLookingFields(form, params.message) : [];
    const elicitationMode = params.mode === 'url' ? 'url' : 'form';
    const peer = this.deps.peers.elicitorFor(server, elicitationMode);
    const recent = this.#counted(server, 'elicitation');
    const decision = decideServerRequest(
      { kind: 'elicitation', mode: elicitationMode, secretFields, ...(url?.problem ? { urlProblem: url.problem } : {}), punycode: url?.punycode === true, taskAugmented: params.task !== undefined },
      { known: record !== undefined, blocked: record ? !record.enabled : true, settings, sessionGrant: false, recentCount: recent, sampler: 'none', relay: peer !== undefined, canAsk: this.deps.askers().length > 0, mode },
    );
    const summary = elicitationSummary(params, secretFields);
    if (decision.decidedBy === 'unsupported') {
      await this.#logRefusal(requestId, server, 'elicitation', decision, summary, started);
      throw invalidParams(`Airlock refused this question: ${decision.reasons.join(' ')}`);
    }
    if (decision.verdict === 'deny') {
      const action = decision.decidedBy === 'no-approver' ? 'cancel' : 'decline';
      await this.#logRefusal(requestId, server, 'elicitation', decision, summary, started, action, recent);
      return { action };
    }

    // SECURITY: invariant 1 in reverse — on record before a person (here or in the app) sees it.
    await this.#append({
      requestId,
      server,
      kind: 'elicitation',
      stage: 'decision',
      verdict: decision.verdict,
      final: 'allow',
      reasons: decision.reasons,
      decidedBy: decision.decidedBy,
      route: decision.route ?? 'airlock',
      ...(peer && decision.route === 'client' ? { answerer: peer.label } : {}),
      request: summary,
    });

    let result: ElicitResult;
    let by: string | undefined;
    if (decision.route === 'client' && peer) {
      try {
        const raw = ElicitResultSchema.parse(await peer.elicit(server, params, { signal: options.signal }));
        // The app's answer is checked against the form like a person's answer here.
        if (raw.action === 'accept' && form && checkFormAnswer(form, raw.content ?? {}).length > 0) throw new Error('the answer does not fit the form');
        result = raw.action === 'accept' ? raw : { action: raw.action };
        by = 'client';
      } catch (error) {
        const message = `${peer.label} could not ask: ${messageOf(error)}`;
        await this.#outcome(requestId, server, 'elicitation', 'cancel', started, null, message);
        return { action: 'cancel' };
      }
    } else {
      const base = { requestId, server, ...this.#during(server), reasons: decision.reasons };
      const question: ServerQuestion =
        params.mode === 'url'
          ? { ...base, kind: 'elicitation-url', message: params.message, url: url!, elicitationId: params.elicitationId, opened: false }
          : { ...base, kind: 'elicitation-form', message: params.message, requestedSchema: structuredClone(params.requestedSchema), secretFields };
      const accept = question.kind === 'elicitation-form' ? acceptElicitationForm(question) : acceptElicitationUrl();
      const outcome = await this.deps.queue.open(question, accept, this.#questionOptions(options.signal)).outcome;
      result = outcome.kind === 'answered' ? outcome.answer.result : { action: 'cancel' };
      by = outcome.kind === 'answered' ? outcome.by.shell : outcome.kind;
    }
    await this.#outcome(requestId, server, 'elicitation', result.action, started, { how: result.action, ...(by ? { by } : {}) }, undefined, contentSummary(result));
    return result;
  }

  /** A server asks which folders it may work in (`roots/list`): exactly its grants. */
  async roots(server: string): Promise<ListRootsResult> {
    await loadMcpTypes();
    const requestId = randomUUID();
    const { record, settings, mode } = this.#facts(server);
    const recent = this.#counted(server, 'roots');
    if (recent >= ROOTS_PER_MINUTE) {
      if (recent === ROOTS_PER_MINUTE) this.deps.note?.(server, `more than ${ROOTS_PER_MINUTE} roots requests a minute: refusing the rest of this minute`);
      throw invalidRequest(`Airlock answers at most ${ROOTS_PER_MINUTE} roots requests a minute.`);
    }
    const decision = decideServerRequest({ kind: 'roots' }, { known: record !== undefined, blocked: record ? !record.enabled : true, settings, sessionGrant: false, recentCount: 0, sampler: 'none', relay: false, canAsk: false, mode });
    const roots = decision.verdict === 'allow' && record ? rootsFromGrants(record.profile) : [];
    // SECURITY: invariant 1 in reverse — the answer is on record before it leaves.
    await this.#append({
      requestId,
      server,
      kind: 'roots',
      stage: 'decision',
      verdict: decision.verdict,
      final: decision.verdict === 'allow' ? 'allow' : 'deny',
      reasons: decision.reasons,
      decidedBy: decision.decidedBy,
      response: roots.map((root) => root.uri),
    });
    if (decision.verdict !== 'allow') throw invalidRequest(`Airlock refused: ${decision.reasons.join(' ')}`);
    return { roots };
  }

  /** Ends this session's "allow sampling" for a server (revoke), or for every server. */
  revokeSession(server?: string): void {
    if (server === undefined) this.#sessionSampling.clear();
    else this.#sessionSampling.delete(server);
  }

  /** Servers whose sampling the person allowed for this session. */
  sessionGrants(): string[] {
    return [...this.#sessionSampling];
  }

  /** Answers a question (shells call this through the host). */
  answer(id: string, answer: unknown, by: QueueAnswerer): { accepted: boolean; reason?: string } {
    const result = this.deps.queue.answer(id, answer, by);
    return result.ok ? { accepted: true } : { accepted: false, reason: result.message };
  }

  #facts(server: string) {
    const state = this.deps.state();
    const record = Object.hasOwn(state.servers, server) ? state.servers[server] : undefined;
    return { record, settings: record?.serverRequests ?? defaultServerRequestSettings(), mode: state.settings.policyMode };
  }

  /** The count before this request, then this one noted (so a flood is counted even when refused). */
  #counted(server: string, kind: string): number {
    const now = this.deps.now();
    const key = `${kind}\u0000${server}`;
    const before = this.#rate.count(key, now);
    this.#rate.note(key, now);
    return before;
  }

  #during(server: string): { during?: string } {
    const waiting = this.deps.peers.waitingOn(server)[0];
    return waiting ? { during: waiting.label } : {};
  }

  #questionOptions(signal: AbortSignal | undefined) {
    return {
      ...(this.deps.questionTimeoutMs !== undefined ? { timeoutMs: this.deps.questionTimeoutMs } : {}),
      ...(signal ? { signal } : {}),
      // SECURITY: invariant 1 in reverse — only the shells shown the question may answer it.
      routedTo: this.deps.askers(),
    };
  }

  /** A refusal decided without a person: the decision and its outcome. Past a rate cap, only the first is written. */
  async #logRefusal(requestId: string, server: string, kind: 'sampling' | 'elicitation', decision: ServerRequestDecision, request: unknown, started: number, action?: string, recent = 0): Promise<void> {
    if (decision.decidedBy === 'rate-cap') {
      const cap = this.#facts(server).settings[kind].perMinute;
      if (recent > cap) return; // the first refusal past the cap is on record; the flood is not
      this.deps.note?.(server, `more than ${cap} ${kind} requests a minute: refusing the rest of this minute`);
    }
    await this.#append({ requestId, server, kind, stage: 'decision', verdict: 'deny', final: 'deny', reasons: decision.reasons, decidedBy: decision.decidedBy, request });
    await this.#outcome(requestId, server, kind, action ?? 'refused', started, null, decision.reasons.join(' '));
  }

  async #outcome(
    requestId: string,
    server: string,
    kind: 'sampling' | 'elicitation',
    outcome: string,
    started: number,
    answer: ServerRequestAuditInput['answer'] | undefined,
    detail?: string,
    response?: unknown,
  ): Promise<void> {
    await this.#append({
      requestId,
      server,
      kind,
      stage: 'outcome',
      outcome,
      durationMs: this.deps.now() - started,
      ...(answer ? { answer } : {}),
      ...(detail ? { detail } : {}),
      ...(response !== undefined ? { response } : {}),
    });
  }

  async #append(input: ServerRequestAuditInput): Promise<void> {
    const entry = await this.deps.audit.appendServerRequest(input);
    this.deps.onDidAppend?.(entry.seq);
  }
}

/** How a question ended, for the audit log. */
function answerOf<A>(outcome: QueueOutcome<A>, describe: (answer: A) => { how: string; edited?: boolean }): ServerRequestAuditInput['answer'] {
  if (outcome.kind === 'answered') return { ...describe(outcome.answer), by: outcome.by.shell };
  return { how: outcome.kind };
}

const text = (value: string | undefined) => (value === undefined ? undefined : redactString(value.length > 4000 ? `${value.slice(0, 4000)}…` : value).value);

/** What the audit log keeps of a sampling request: roles and text (secret-looking strings hidden), limits. */
function samplingSummary(params: SamplingParams): unknown {
  return {
    messages: params.messages.slice(0, 50).map((message) => ({ role: message.role, content: contentSummary(message.content) })),
    ...(params.systemPrompt !== undefined ? { system: text(params.systemPrompt) } : {}),
    context: params.includeContext ?? 'none',
    limit: params.maxTokens,
    ...(params.modelPreferences?.hints ? { hints: params.modelPreferences.hints.map((hint) => text(hint.name ?? '')) } : {}),
  };
}

function resultSummary(result: CreateMessageResult): unknown {
  return { model: text(result.model), role: result.role, content: contentSummary(result.content), ...(result.stopReason ? { stop: result.stopReason } : {}) };
}

function contentSummary(content: unknown): unknown {
  if (Array.isArray(content)) return content.slice(0, 20).map(contentSummary);
  if (content && typeof content === 'object') {
    const item = content as { type?: unknown; text?: unknown; action?: unknown; content?: unknown };
    if (item.type === 'text' && typeof item.text === 'string') return { type: 'text', text: text(item.text) };
    if (typeof item.action === 'string') {
      // An elicitation answer: which fields were filled and a digest of the values, never the values.
      const values = item.content && typeof item.content === 'object' ? (item.content as Record<string, unknown>) : undefined;
      return { action: item.action, ...(values ? { fields: Object.keys(values), digest: createHash('sha256').update(JSON.stringify(values)).digest('hex') } : {}) };
    }
    return { type: String(item.type) };
  }
  return null;
}

function elicitationSummary(params: ElicitParams, secretFields: string[]): unknown {
  if (params.mode === 'url') return { mode: 'url', message: text(params.message), url: text(params.url), elicitationId: text(params.elicitationId) };
  return { mode: 'form', message: text(params.message), fields: Object.keys(params.requestedSchema.properties ?? {}), ...(secretFields.length ? { secretFields } : {}) };
}

