/*
 * One file on purpose: the choke point reads top to bottom in the order a call
 * happens (STYLE.md, Models from our own code); its steps share the call's record.
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ownEntry, type Caller, type PolicyMode, type Rule, type ServerRecord } from '../../../shared/domain';
import type { ConfirmationOutcome, ConfirmationRegistry, SessionGrants } from '../approvals';
import { AuditWriteError, type AuditAnswer, type AuditDurability, type AuditLog, type CallOutcome } from '../audit';
import { AirlockError, messageOf } from '../errors';
import type { GatewayCallRequest } from '../gateway/gateway-core';
import { decide, type CodeChange, type Decision, type OrganisationFacts, type ToolCall } from '../policy/decide';
import { reviewState } from '../policy/review';
import type { CallObserver } from '../claims/claims-room';
import { claimsFactsOf } from '../claims/claim-state';
import type { IndexedTool } from '../servers/tool-index';
import { ToolCallError } from '../servers/tool-call-error';
import { deepFreeze } from '../deep-freeze';
import { similarNames } from '../similar-names';
import { nobodyToAskMessage, waysForwardFor, type WayForward } from './ways-forward';

/** A call as any caller asks for it: the console, the CLI, a gateway client. */
export interface CallRequest extends GatewayCallRequest {
  /** How long a person has to answer, when a confirmation is needed. */
  confirmationTimeoutMs?: number;
}

/** How a call ended, for the caller. */
export interface CallResult {
  callId: string;
  outcome: CallOutcome;
  result?: CallToolResult;
  /** For anything but `ok`/`tool-error`: what happened, in words, and what to do. */
  message?: string;
  /** The call needed a person's confirmation and no shell could ask one (the CLI exits 4). */
  nobodyToAsk?: boolean;
  /**
   * What a person can do to let calls like this one through without a
   * confirmation, when nobody could be asked: open the app, a rule, trust
   * (`nobodyToAsk` only). Commands a person can run as they are shown.
   */
  waysForward?: WayForward[];
  decision: Decision;
  /** How a confirmation was answered, when one was asked (who, how, whether the arguments were edited). */
  answer?: AuditAnswer;
  /** The arguments sent (or that would have been): a person's edited ones when they edited them. */
  arguments: Record<string, unknown>;
  durationMs: number;
}

/** How many times one call asks a person when the tool keeps changing under the question. */
const MAX_ASKS = 3;

/** Said first in a question asked again because the tool changed under the first one. */
export const CHANGED_WHILE_ASKED = 'The tool changed while you were being asked, so that question was withdrawn; this is its new definition.';

/** One decision (and the person's answer, if asked) for a call. */
interface Round {
  decision: Decision;
  /** The arguments to send: the caller's, or the ones the person edited. */
  args: Record<string, unknown>;
  final: 'allow' | 'deny';
  answer?: AuditAnswer;
  rule?: Rule;
  denialMessage?: string;
  /** Refused because no shell could ask a person (not because anyone said no). */
  nobodyToAsk?: boolean;
  waysForward?: WayForward[];
}

/** What the pipeline needs from the rest of the core (narrow, so tests can pass the real parts). */
export interface CallPipelineDeps {
  /**
   * The persisted state, read once per call (another Airlock process may
   * have changed a rule or a grant since the last one). `strictDurability`:
   * every decision is flushed to disk before its call is sent.
   */
  state(): { servers: Readonly<Record<string, ServerRecord>>; rules: readonly Rule[]; settings: { policyMode: PolicyMode; strictDurability?: boolean } };
  /** The tool's current definition from the live listing. */
  lookupTool(server: string, tool: string): IndexedTool | undefined;
  /**
   * Every value the person gave a server (redaction/server-secrets.ts), for
   * the audit log to hide in this call's entry; `record` is the server as
   * this call read it (no second read of the store). Throws when they cannot
   * be read: the log then withholds the arguments (fail closed).
   */
  secretValues?(server: string, record: ServerRecord): readonly string[];
  /** Makes sure the server is running and listed (starts it if enabled). */
  ensureReady(server: string): Promise<void>;
  /**
   * Resolves true once the server's listing is current (no tools/list_changed
   * it sent is still unread), false when it keeps changing past a bound.
   */
  toolsSettled(server: string): Promise<boolean>;
  callServer(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; onProgress?: CallRequest['onProgress'] },
  ): Promise<CallToolResult>;
  /** Saves a rule an "always" answer made; `answeredIn` is the shell the person answered in (window, terminal, …), for the audit log's change entry. */
  saveRule(rule: Rule, answeredIn?: string): void;
  sessionGrants: SessionGrants;
  confirmations: ConfirmationRegistry;
  audit: AuditLog;
  sandboxAvailable(): boolean;
  /**
   * Re-checks a local server's code and returns its change since it was
   * approved (null: none, or not a local server).
   */
  codeChange(server: string, record: ServerRecord): Promise<CodeChange | null>;
  /**
   * True when some shell can show this call's confirmation right now: the
   * window (it sees every confirmation), or the terminal of the shell the
   * call came through (`origin`), which sees only its own calls'.
   */
  canAsk(origin: string | undefined): boolean;
  now(): number;
  /** Told after each audit append (the Activity page refreshes). */
  onDidAppend?(seq: number): void;
  /** Told when an outcome written after the call returned could not be recorded (the caller already had its result). */
  onAuditError?(message: string): void;
  /** Why a server cannot take calls now (turned off, imported, crashed, no sandbox), in words; undefined if nothing is known. */
  whyUnavailable?(server: string): string | undefined;
  /** The names of the tools a running server lists now (undefined when it is not running): for "did you mean …?". */
  toolNames?(server: string): readonly string[] | undefined;
  /**
   * What the organisation's managed policy says for this server's calls, and
   * the policy's revision (it grows at every change of the policy in force,
   * so a remembered decision is never reused across one). Absent: no policy.
   */
  organisation?: { facts(record: ServerRecord): OrganisationFacts; revision(): number };
  /**
   * Told which call is running while it runs (claims/): what its server does
   * meanwhile is set against the tool's claims when it returns (off the
   * caller's path; the next call to the server waits for it). Absent:
   * nothing is observed.
   */
  observer?: CallObserver;
}

/**
 * The one choke point every tool call passes: the policy decides, a person
 * confirms what needs confirming, the decision is written to the audit log,
 * and only then does the server see the call; the outcome is written after.
 *
 * Durability: the decision is written to the OS (`write(2)` returned)
 * before the call is sent, which survives any crash of Airlock; it is
 * flushed to disk within the audit log's window — or before the call when a
 * person answered a confirmation (their seconds dwarf an fsync) or strict
 * durability is on. An outcome is written once the turn that returned the
 * result is over, off the caller's path; in strict mode it is flushed before
 * the result returns.
 *
 * SECURITY: invariant 1 — nothing is sent unless `decide` said allow or a
 * person approved this exact call (single-use token bound to the arguments
 * sent), and the audit log holds that decision first. Invariant 4 — a call
 * whose tool is not stated idempotent on a trusted server is never retried.
 */
export class CallPipeline {
  /** The last decision per server and tool, with exactly what it was decided on (see `decideNow`). */
  private readonly decided = new Map<string, RememberedDecision>();
  /** The rules the remembered decisions were made with: a new list means a new store snapshot, and they all go. */
  private decidedWith: readonly Rule[] | undefined;

  constructor(private readonly deps: CallPipelineDeps) {}

  async call(request: CallRequest): Promise<CallResult> {
    const started = this.deps.now();
    const callId = randomUUID();
    // What the last calls to this server did is set against their claims first (the state is read after):
    // a tool whose claims one of them withdraws is decided without them.
    const comparing = this.deps.observer?.pending(request.server);
    if (comparing) await comparing;
    const state = this.deps.state();
    const record = ownEntry(state.servers, request.server);
    if (!record) throw new AirlockError('not-found', `There is no server named ${request.server}.`);
    let startFailed = false;
    if (record.enabled) {
      try {
        await this.deps.ensureReady(request.server);
      } catch {
        // The listing is what the policy judges; without it the tool is unknown (not sent below, with the reason).
        startFailed = true;
      }
    }
    const codeChange = await this.deps.codeChange(request.server, record);
    const call: ToolCall = { server: request.server, tool: request.tool, arguments: request.arguments, caller: request.caller };
    const round = await this.decideAndAsk(request, call, record, state, codeChange, startFailed);
    const { decision, args, answer, final, rule } = round;
    let denialMessage = round.denialMessage;
    if (final === 'deny' && !denialMessage && decision.decidedBy.kind === 'unknown-tool') denialMessage = this.unknownToolMessage(request.server, request.tool);
    // A person answered (approve or deny, in a window or on a terminal): their seconds dwarf an fsync.
    const personAnswered = answer?.by !== undefined && answer.how !== 'own-call';
    if (final === 'deny' && !denialMessage && decision.decidedBy.kind === 'organisation') denialMessage = decision.reasons.join(' ');
    if (final === 'deny' && !denialMessage && (decision.decidedBy.kind === 'blocked' || decision.decidedBy.kind === 'unknown-tool')) {
      // The server's state, not the policy, is the reason: say which state, and what to do.
      denialMessage = this.deps.whyUnavailable?.(request.server);
    }
    if (final === 'deny' && !denialMessage) denialMessage = `Airlock denied this call: ${decision.reasons.join(' ')}`;

    const strict = state.settings.strictDurability === true;
    const durability: AuditDurability = strict || personAnswered ? 'flushed' : 'written';
    // What its server does while it runs is set against what the tool claims (its own annotations, as decided on).
    // Watched from here — what was queued before is read first — so nothing comes between the decision's write and the send.
    const decided = final === 'allow' ? this.deps.lookupTool(request.server, request.tool) : undefined;
    const watch =
      decided && decided.fingerprint === decision.fingerprint
        ? this.deps.observer?.begin({ callId, server: request.server, tool: request.tool, annotations: decided.definition.annotations, fingerprint: decided.fingerprint, secrets: record.profile.secrets })
        : undefined;
    if (watch) await watch.ready;
    let entry;
    try {
      // SECURITY: invariant 1 — the call goes out only after this resolves: written (or flushed, as chosen above).
      entry = await this.deps.audit.appendDecision(
        {
          callId,
          caller: request.caller,
          server: request.server,
          tool: request.tool,
          fingerprint: decision.fingerprint,
          arguments: args,
          verdict: decision.verdict,
          final,
          reasons: decision.reasons,
          decidedBy: decision.decidedBy.kind,
          rule: rule ?? null,
          answer: answer ?? null,
          secretValues: this.secretValuesFor(request.server, record),
          ...(record.spec.remote ? { remote: record.spec.remote.url } : {}),
        },
        { durability },
      );
    } catch (error) {
      if (watch) this.deps.observer!.drop(watch);
      // Fail closed: without its decision on record, the call is not sent.
      const why = error instanceof AuditWriteError ? error.message : `Could not write the audit log: ${messageOf(error)}`;
      throw new AirlockError('unavailable', `Airlock did not send this call, because it could not record the decision first. ${why}`);
    }
    this.deps.onDidAppend?.(entry.seq);

    const outcomeFacts = { answer, sent: args, strict };
    if (final === 'deny' && decision.decidedBy.kind === 'server-not-running') {
      // Nobody refused it: the server was not there to take it (it crashed, or could not start).
      return this.finish({ callId, outcome: 'not-running', message: denialMessage, decision, started, request, detail: 'server-not-running', ...outcomeFacts });
    }
    if (final === 'deny') {
      const denied = await this.finish({ callId, outcome: 'denied', message: denialMessage, decision, started, request, ...outcomeFacts });
      return round.nobodyToAsk ? { ...denied, nobodyToAsk: true, ...(round.waysForward ? { waysForward: round.waysForward } : {}) } : denied;
    }

    // SECURITY: the allow or approval was for the definition decided on; if the server changed
    // the tool while the decision was being written (a list_changed read since), it is not sent.
    const settled = await this.deps.toolsSettled(request.server);
    if (!settled || this.deps.lookupTool(request.server, request.tool)?.fingerprint !== decision.fingerprint) {
      if (watch) this.deps.observer!.drop(watch);
      const message = `${request.tool} changed just before Airlock sent the call, so it was not sent. Call it again to review its new definition.`;
      return this.finish({ callId, outcome: 'denied', message, decision, started, request, detail: 'definition-changed', ...outcomeFacts });
    }

    const attempts = { retried: false };
    try {
      const result = await this.sendWithRetry(request, args, decision, attempts);
      // Compared with the tool's claims off the caller's path (like the outcome, written after this turn).
      if (watch) void this.deps.observer!.finish(watch);
      const outcome: CallOutcome = result.isError ? 'tool-error' : 'ok';
      return this.finish({ callId, outcome, result, decision, started, request, ...outcomeFacts });
    } catch (error) {
      if (watch) void this.deps.observer!.finish(watch);
      if (error instanceof ToolCallError && !error.outcomeUnknown) {
        return this.finish({ callId, outcome: 'tool-error', message: `${error.message}`, decision, started, request, detail: error.kind, ...outcomeFacts });
      }
      const retry = attempts.retried ? 'Airlock retried it once, after restarting the server; that failed too.' : 'Airlock did not retry it.';
      const message =
        error instanceof ToolCallError
          ? `Outcome unknown — the server may have acted. ${error.message} ${retry}`
          : `Outcome unknown — the server may have acted. ${messageOf(error)}${attempts.retried ? ` ${retry}` : ''}`;
      return this.finish({ callId, outcome: 'unknown', message, decision, started, request, detail: error instanceof ToolCallError ? error.kind : 'error', ...outcomeFacts });
    }
  }

  /**
   * Decides the call on the listing as it is now and, when the policy asks,
   * asks a person. A confirmation the tool changed under (cancelled by the
   * registry, or approved for a definition that is no longer current) is
   * asked again with the new definition, at most `MAX_ASKS` times in all.
   */
  private async decideAndAsk(
    request: CallRequest,
    call: ToolCall,
    record: ServerRecord,
    state: ReturnType<CallPipelineDeps['state']>,
    codeChange: CodeChange | null,
    startFailed = false,
  ): Promise<Round> {
    for (let asked = 0; ; ) {
      // A tools/list_changed the server already sent is read before deciding.
      const settled = await this.deps.toolsSettled(request.server);
      const indexed = this.deps.lookupTool(request.server, request.tool);
      let decision = this.decideNow(call, record, state, indexed, codeChange);
      if (startFailed && decision.decidedBy.kind === 'unknown-tool') {
        // The server is enabled but did not come up (it crashed, or cannot start): not the policy's
        // refusal, and recorded as what it is, with the reason a person can act on.
        const why = this.deps.whyUnavailable?.(request.server) ?? `${request.server} is not running.`;
        return { decision: { ...decision, reasons: [why], decidedBy: { kind: 'server-not-running' } }, args: request.arguments, final: 'deny', denialMessage: why };
      }
      if (asked > 0) decision = { ...decision, reasons: [CHANGED_WHILE_ASKED, ...decision.reasons] };
      const round: Round = {
        decision,
        args: request.arguments,
        final: decision.verdict === 'allow' ? 'allow' : 'deny',
        ...(decision.decidedBy.kind === 'rule' ? { rule: decision.decidedBy.rule } : {}),
      };
      if (!settled) return { ...round, final: 'deny', denialMessage: `${request.server} keeps changing its tools, so Airlock did not decide on ${request.tool}. Try again later.` };
      if (decision.verdict !== 'ask' || !indexed) return round;
      const own = ownCallConsent(request.caller, decision, state.settings.policyMode);
      if (own) {
        // The person's own call (the window's console; `airlock call` when nothing more is needed) is their consent.
        return { ...round, final: 'allow', answer: { how: 'own-call', by: own } };
      }
      if (!this.deps.canAsk(request.origin)) {
        const waysForward = waysForwardFor(request.server, request.tool, decision, record, state.settings.policyMode);
        return {
          ...round,
          answer: { how: 'no-approver' },
          nobodyToAsk: true,
          waysForward,
          denialMessage:
            request.caller.kind === 'cli'
              ? [
                  `This call needs your confirmation (${cliConfirmationReason(decision, state.settings.policyMode)}), and there is no terminal to ask on. Run \`airlock call\` in a terminal, or open the Airlock app and answer there.`,
                  ...waysForward.filter((way) => way.command).map((way) => `Or ${way.words}: ${way.command}`),
                ].join('\n')
              : nobodyToAskMessage(request.server, request.tool, decision, waysForward),
        };
      }
      const opened = this.deps.confirmations.open({
        call,
        decision,
        definition: indexed.definition,
        profile: record.profile,
        ...(record.spec.remote ? { remote: { url: record.spec.remote.url } } : {}),
        serverTrusted: record.trusted,
        timeoutMs: request.confirmationTimeoutMs,
        ...(request.origin !== undefined ? { origin: request.origin } : {}),
      });
      const onAbort = () => this.deps.confirmations.cancel(opened.request.id, 'the caller cancelled the call');
      request.signal?.addEventListener('abort', onAbort, { once: true });
      const outcome = await opened.outcome;
      request.signal?.removeEventListener('abort', onAbort);
      // The definition now, as the server last listed it (a list_changed already sent is read first).
      const current = (await this.deps.toolsSettled(request.server)) ? this.deps.lookupTool(request.server, request.tool)?.fingerprint : undefined;
      const resolved = this.resolveOutcome(outcome, request, current);
      if (resolved.changed) {
        // SECURITY: the person answered about a definition that is gone; that answer (and any rule
        // it made) is for the old one. Ask again with the new definition, a bounded number of times.
        asked += 1;
        if (asked < MAX_ASKS) continue;
        return { ...round, answer: resolved.answer, denialMessage: `${request.tool} kept changing while you were being asked, so Airlock did not send the call.` };
      }
      if (resolved.rule) this.deps.saveRule(resolved.rule, resolved.answer.by);
      return {
        ...round,
        ...(resolved.rule ? { rule: resolved.rule } : {}),
        answer: resolved.answer,
        ...(resolved.approvedArgs ? { args: resolved.approvedArgs, final: 'allow' as const } : { denialMessage: resolved.message }),
      };
    }
  }

  /**
   * `decide()` on the facts as they are now. The same facts give the same
   * decision (it is pure, and without session grants it does not read the
   * clock), so the last decision for this tool is reused when every fact is
   * the very same: the same server record and rules (the store hands out one
   * frozen snapshot until the file changes), the same listed definition, the
   * same mode and sandbox, no code change and no session grant. Anything
   * else decides afresh. The reused decision is frozen: no caller can change
   * what the next call is decided with.
   */
  private decideNow(call: ToolCall, record: ServerRecord, state: ReturnType<CallPipelineDeps['state']>, indexed: IndexedTool | undefined, codeChange: CodeChange | null): Decision {
    // The rules are a fact of every decision, and the store makes a new rule list whenever its file
    // changes: then every remembered decision is let go — a removed server's among them — so the map
    // holds at most the tools called since the last change, never old snapshots.
    if (this.decidedWith !== state.rules) {
      this.decided.clear();
      this.decidedWith = state.rules;
    }
    const sandboxAvailable = this.deps.sandboxAvailable() || record.profile.unsandboxed !== undefined;
    const reusable = codeChange === null && this.deps.sessionGrants.empty;
    const key = `${call.server}\u0000${call.tool}`;
    const last = reusable ? this.decided.get(key) : undefined;
    const revision = this.deps.organisation?.revision() ?? 0;
    if (last && last.record === record && last.mode === state.settings.policyMode && last.indexed === indexed && last.sandboxAvailable === sandboxAvailable && last.revision === revision) {
      return last.decision;
    }
    const organisation = this.deps.organisation?.facts(record);
    const decision = decide(
      call,
      {
        tool: indexed ? { definition: indexed.definition, fingerprint: indexed.fingerprint } : undefined,
        server: {
          trusted: record.trusted,
          blocked: !record.enabled,
          profile: record.profile,
          sandboxAvailable,
          codeChange,
          ...(record.spec.remote ? { remote: { url: record.spec.remote.url } } : {}),
        },
        rules: state.rules,
        sessionGrants: this.deps.sessionGrants.list(),
        mode: state.settings.policyMode,
        approved: approvalOf(record, call.tool, indexed?.fingerprint),
        ...(organisation ? { organisation } : {}),
        // What the tool did against its claims (a fact of the record: a new snapshot decides afresh).
        claims: claimsFactsOf(record, call.tool),
      },
      this.deps.now(),
    );
    if (!reusable) {
      this.decided.delete(key);
      return decision;
    }
    const frozen = deepFreeze(decision);
    this.decided.set(key, { record, mode: state.settings.policyMode, indexed, sandboxAvailable, revision, decision: frozen });
    return frozen;
  }

  /**
   * Why a tool is unknown, in words a person can act on: the server's state
   * when that is the reason, else the names it does offer that come closest
   * to the one asked for ("did you mean read_graph?").
   */
  private unknownToolMessage(server: string, tool: string): string | undefined {
    const why = this.deps.whyUnavailable?.(server);
    if (why) return why;
    const names = this.deps.toolNames?.(server);
    if (!names) return undefined;
    const close = similarNames(tool, names);
    const shown = JSON.stringify(tool.length > 80 ? `${tool.slice(0, 80)}…` : tool);
    if (close.length) return `${server} does not offer a tool named ${shown}. Did you mean ${close.join(' or ')}? (\`airlock show ${server}\` lists its tools.)`;
    return `${server} does not offer a tool named ${shown}. It offers ${names.length} tool(s): \`airlock show ${server}\` lists them.`;
  }

  /** How many decisions are remembered for reuse (the memory bound's test reads it). */
  rememberedDecisions(): number {
    return this.decided.size;
  }

  /**
   * Sends the call; retries once only for a stated-idempotent tool of a
   * trusted server, after a reconnect (`attempts.retried` says whether it did).
   */
  private async sendWithRetry(request: CallRequest, args: Record<string, unknown>, decision: Decision, attempts: { retried: boolean }): Promise<CallToolResult> {
    const send = () => this.deps.callServer(request.server, request.tool, args, { signal: request.signal, onProgress: request.onProgress });
    try {
      return await send();
    } catch (error) {
      // SECURITY: invariant 4 — only decide() may allow a retry, and only once.
      if (decision.retry !== 'once-after-reconnect' || !(error instanceof ToolCallError) || error.kind !== 'disconnected') throw error;
      await this.deps.ensureReady(request.server);
      attempts.retried = true;
      return send();
    }
  }

  private resolveOutcome(
    outcome: ConfirmationOutcome,
    request: CallRequest,
    currentFingerprint: string | undefined,
  ): { approvedArgs?: Record<string, unknown>; answer: AuditAnswer; rule?: Rule; message?: string; changed?: boolean } {
    if (outcome.kind === 'cancelled' && outcome.cause === 'definition-changed') {
      return { answer: { how: 'cancelled', confirmationId: outcome.id }, changed: true };
    }
    if (outcome.kind === 'approved') {
      // SECURITY: invariant 1 — the token must match exactly what will be sent, to the tool as the
      // person saw it (a tool no longer listed matches no definition: '' is never a fingerprint).
      const consumed = this.deps.confirmations.consume(outcome.token, request.server, request.tool, outcome.arguments, currentFingerprint ?? '');
      if (!consumed.ok && consumed.reason === 'definition-changed') {
        return { answer: { how: 'refused-token', confirmationId: outcome.id }, changed: true };
      }
      if (!consumed.ok) {
        return { answer: { how: 'refused-token', confirmationId: outcome.id }, message: `Airlock refused the approval: ${consumed.message}` };
      }
      return {
        approvedArgs: outcome.arguments,
        answer: { how: outcome.choice, by: outcome.answeredBy.shell, edited: outcome.edited, confirmationId: outcome.id },
        rule: outcome.rule,
      };
    }
    if (outcome.kind === 'denied') {
      return {
        answer: { how: outcome.choice, by: outcome.answeredBy.shell, confirmationId: outcome.id },
        rule: outcome.rule,
        message: 'A person denied this call in Airlock.',
      };
    }
    if (outcome.kind === 'expired') {
      return { answer: { how: 'expired', confirmationId: outcome.id }, message: 'Nobody answered the confirmation in time, so Airlock denied the call.' };
    }
    return { answer: { how: 'cancelled', confirmationId: outcome.id }, message: `The confirmation was cancelled (${outcome.reason}); the call was not sent.` };
  }

  /** The server's secret values for its decision's entry; null when they cannot be read (the log withholds the arguments). */
  private secretValuesFor(server: string, record: ServerRecord): readonly string[] | null {
    try {
      return this.deps.secretValues?.(server, record) ?? [];
    } catch {
      // SECURITY: invariant 5 — fail closed: the entry says the arguments were withheld, none is written in clear.
      return null;
    }
  }

  private async finish(input: {
    callId: string;
    outcome: CallOutcome;
    result?: CallToolResult;
    message?: string;
    decision: Decision;
    started: number;
    request: CallRequest;
    detail?: string;
    strict: boolean;
    answer: AuditAnswer | undefined;
    sent: Record<string, unknown>;
  }): Promise<CallResult> {
    const durationMs = this.deps.now() - input.started;
    let message = input.message;
    const outcome = {
      callId: input.callId,
      server: input.request.server,
      tool: input.request.tool,
      outcome: input.outcome,
      durationMs,
      ...(input.detail || input.message ? { detail: input.detail ?? input.message } : {}),
    };
    const couldNotRecord = (error: unknown) => `Airlock could not record how this call ended: ${messageOf(error)}`;
    if (input.strict) {
      // Strict durability: the outcome is on disk before the caller hears it.
      try {
        const entry = await this.deps.audit.appendOutcome(outcome, { durability: 'flushed' });
        this.deps.onDidAppend?.(entry.seq);
      } catch (error) {
        // The call already happened: its result still reaches the caller. The decision is on record;
        // a later Airlock process records this outcome as unknown if it never is.
        message = `${message ? `${message} ` : ''}${couldNotRecord(error)}`;
      }
    } else {
      // The outcome is a record of what already happened: written once this turn is over, off the
      // caller's path (a reader in this process still sees it first). A failure is told to the
      // person; the decision is on record, and a later Airlock process records this outcome as
      // unknown if it never is.
      this.deps.audit.appendOutcome(outcome, { afterThisTurn: true }).then(
        (entry) => this.deps.onDidAppend?.(entry.seq),
        (error: unknown) => this.deps.onAuditError?.(couldNotRecord(error)),
      );
    }
    return {
      callId: input.callId,
      outcome: input.outcome,
      result: input.result,
      message,
      decision: input.decision,
      ...(input.answer ? { answer: input.answer } : {}),
      arguments: input.sent,
      durationMs,
    };
  }
}

/** A decision and the very facts it was made on (compared by identity; the rules by `decidedWith`). */
interface RememberedDecision {
  record: ServerRecord;
  mode: PolicyMode;
  indexed: IndexedTool | undefined;
  sandboxAvailable: boolean;
  /** The organisation policy's revision it was made under. */
  revision: number;
  decision: Decision;
}

/** The person's approval for this tool name (changed or not), read by own entry; undefined: the tool is new. */
function approvalOf(record: ServerRecord, tool: string, fingerprint: string | undefined) {
  const review = reviewState(record.approvedTools, tool, fingerprint ?? '');
  return review.kind === 'new' ? undefined : review.approved;
}

/**
 * When a person's own call is their consent (SECURITY: invariant 1 — the
 * caller's kind is assigned by the owner from the connection, never claimed
 * by it):
 * - `user` (Airlock's own window): the click in its console is the consent;
 * - `cli` (`airlock call`): only for a tool that is not destructive, in the
 *   default mode, whose definition did not change since it was approved.
 *   Strict mode, a destructive tool or a changed definition ask on the
 *   terminal the command runs in (or in the window): any local process — an
 *   agent's shell tool — can run `airlock call`, so the command line alone
 *   is not proof that the person wants this call.
 * Everything else asks.
 */
export function ownCallConsent(caller: Caller, decision: Decision, mode: PolicyMode): 'console' | 'command-line' | undefined {
  if (caller.kind === 'user') return 'console';
  if (caller.kind !== 'cli') return undefined;
  return cliConfirmationReason(decision, mode) === undefined ? 'command-line' : undefined;
}


/** Why a `cli` call must be confirmed, in words; undefined when the command line is consent enough. */
function cliConfirmationReason(decision: Decision, mode: PolicyMode): string | undefined {
  if (mode === 'strict') return 'strict mode is on';
  if (decision.flags.claimsWithdrawn) return 'the tool did something its claims say it does not';
  if (decision.confirmationKind === 'destructive') return 'the tool may delete or overwrite things';
  if (decision.flags.changedSinceApproval || decision.flags.voidedRules.length > 0 || decision.changes) return 'the tool changed since you approved it';
  if (decision.decidedBy.kind === 'new-tool') return 'the tool was added after you reviewed this server';
  if (decision.decidedBy.kind === 'code-changed') return "the server's code changed since you approved it";
  return undefined;
}
