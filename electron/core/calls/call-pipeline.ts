import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PolicyMode, Rule, ServerRecord } from '../../../shared/domain';
import type { ConfirmationOutcome, ConfirmationRegistry, SessionGrants } from '../approvals';
import type { AuditAnswer, AuditLog, CallOutcome } from '../audit';
import { AirlockError } from '../errors';
import type { GatewayCallRequest } from '../gateway/gateway-core';
import { decide, type Decision, type ToolCall } from '../policy/decide';
import type { IndexedTool } from '../servers/tool-index';
import { ToolCallError } from '../servers/tool-call-error';

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
  decision: Decision;
  /** How a confirmation was answered, when one was asked (who, how, whether the arguments were edited). */
  answer?: AuditAnswer;
  /** The arguments sent (or that would have been): a person's edited ones when they edited them. */
  arguments: Record<string, unknown>;
  durationMs: number;
}

/** What the pipeline needs from the rest of the core (narrow, so tests can pass the real parts). */
export interface CallPipelineDeps {
  /**
   * The persisted state, read once per call (another Airlock process may
   * have changed a rule or a grant since the last one).
   */
  state(): { servers: Readonly<Record<string, ServerRecord>>; rules: readonly Rule[]; settings: { policyMode: PolicyMode } };
  /** The tool's current definition from the live listing. */
  lookupTool(server: string, tool: string): IndexedTool | undefined;
  /** Makes sure the server is running and listed (starts it if enabled). */
  ensureReady(server: string): Promise<void>;
  callServer(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; onProgress?: CallRequest['onProgress'] },
  ): Promise<CallToolResult>;
  saveRule(rule: Rule): void;
  sessionGrants: SessionGrants;
  confirmations: ConfirmationRegistry;
  audit: AuditLog;
  sandboxAvailable(): boolean;
  /** True when some shell can show a confirmation right now (a window, a terminal). */
  canAsk(): boolean;
  now(): number;
  /** Told after each audit append (the Activity page refreshes). */
  onDidAppend?(seq: number): void;
}

/**
 * The one choke point every tool call passes: the policy decides, a person
 * confirms what needs confirming, the decision is written to the audit log,
 * and only then does the server see the call; the outcome is written after.
 *
 * SECURITY: invariant 1 — nothing is sent unless `decide` said allow or a
 * person approved this exact call (single-use token bound to the arguments
 * sent), and the audit log holds that decision first. Invariant 4 — a call
 * whose tool is not stated idempotent on a trusted server is never retried.
 */
export class CallPipeline {
  constructor(private readonly deps: CallPipelineDeps) {}

  async call(request: CallRequest): Promise<CallResult> {
    const started = this.deps.now();
    const callId = randomUUID();
    const state = this.deps.state();
    const record = state.servers[request.server];
    if (!record) throw new AirlockError('not-found', `There is no server named ${request.server}.`);
    if (record.enabled) {
      try {
        await this.deps.ensureReady(request.server);
      } catch (error) {
        // The listing is what the policy judges; without it the tool is unknown (deny below).
        void error;
      }
    }
    const indexed = this.deps.lookupTool(request.server, request.tool);
    const call: ToolCall = { server: request.server, tool: request.tool, arguments: request.arguments, caller: request.caller };
    const rules = state.rules;
    const decision = decide(
      call,
      {
        tool: indexed ? { definition: indexed.definition, fingerprint: indexed.fingerprint } : undefined,
        server: {
          trusted: record.trusted,
          blocked: !record.enabled,
          profile: record.profile,
          sandboxAvailable: this.deps.sandboxAvailable() || record.profile.unsandboxed !== undefined,
        },
        rules,
        sessionGrants: this.deps.sessionGrants.list(),
        mode: state.settings.policyMode,
        approved: record.approvedTools[request.tool],
      },
      this.deps.now(),
    );

    let args = request.arguments;
    let answer: AuditAnswer | undefined;
    let final: 'allow' | 'deny' = decision.verdict === 'allow' ? 'allow' : 'deny';
    let rule: Rule | undefined = decision.decidedBy.kind === 'rule' ? decision.decidedBy.rule : undefined;
    let denialMessage: string | undefined;

    if (decision.verdict === 'ask' && indexed) {
      if (request.caller.kind === 'user') {
        // The person's own call in Airlock's console is itself their consent.
        final = 'allow';
        answer = { how: 'console', by: 'console' };
      } else if (!this.deps.canAsk()) {
        denialMessage = `This call needs a person's confirmation, and no Airlock window or terminal is available to ask. Open the Airlock app (or run the command in a terminal) and try again.`;
        answer = { how: 'no-approver' };
      } else {
        const opened = this.deps.confirmations.open({
          call,
          decision,
          definition: indexed.definition,
          profile: record.profile,
          serverTrusted: record.trusted,
          timeoutMs: request.confirmationTimeoutMs,
        });
        const onAbort = () => this.deps.confirmations.cancel(opened.request.id, 'the caller cancelled the call');
        request.signal?.addEventListener('abort', onAbort, { once: true });
        const outcome = await opened.outcome;
        request.signal?.removeEventListener('abort', onAbort);
        const resolved = this.resolveOutcome(outcome, request);
        answer = resolved.answer;
        if (resolved.rule) {
          this.deps.saveRule(resolved.rule);
          rule = resolved.rule;
        }
        if (resolved.approvedArgs) {
          args = resolved.approvedArgs;
          final = 'allow';
        } else {
          denialMessage = resolved.message;
        }
      }
    }
    if (final === 'deny' && !denialMessage) denialMessage = `Airlock denied this call: ${decision.reasons.join(' ')}`;

    const entry = await this.deps.audit.appendDecision({
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
    });
    this.deps.onDidAppend?.(entry.seq);

    const asked = { answer, sent: args };
    if (final === 'deny') {
      return this.finish({ callId, outcome: 'denied', message: denialMessage, decision, started, request, ...asked });
    }

    try {
      const result = await this.sendWithRetry(request, args, decision);
      const outcome: CallOutcome = result.isError ? 'tool-error' : 'ok';
      return this.finish({ callId, outcome, result, decision, started, request, ...asked });
    } catch (error) {
      if (error instanceof ToolCallError && !error.outcomeUnknown) {
        return this.finish({ callId, outcome: 'tool-error', message: `${error.message}`, decision, started, request, detail: error.kind, ...asked });
      }
      const message =
        error instanceof ToolCallError
          ? `Outcome unknown — the server may have acted. ${error.message} Airlock did not retry it.`
          : `Outcome unknown — the server may have acted. ${error instanceof Error ? error.message : String(error)}`;
      return this.finish({ callId, outcome: 'unknown', message, decision, started, request, detail: error instanceof ToolCallError ? error.kind : 'error', ...asked });
    }
  }

  /** Sends the call; retries once only for a stated-idempotent tool of a trusted server, after a reconnect. */
  private async sendWithRetry(request: CallRequest, args: Record<string, unknown>, decision: Decision): Promise<CallToolResult> {
    const send = () => this.deps.callServer(request.server, request.tool, args, { signal: request.signal, onProgress: request.onProgress });
    try {
      return await send();
    } catch (error) {
      // SECURITY: invariant 4 — only decide() may allow a retry, and only once.
      if (decision.retry !== 'once-after-reconnect' || !(error instanceof ToolCallError) || error.kind !== 'disconnected') throw error;
      await this.deps.ensureReady(request.server);
      return send();
    }
  }

  private resolveOutcome(
    outcome: ConfirmationOutcome,
    request: CallRequest,
  ): { approvedArgs?: Record<string, unknown>; answer: AuditAnswer; rule?: Rule; message?: string } {
    if (outcome.kind === 'approved') {
      // SECURITY: invariant 1 — the token must match exactly what will be sent.
      const consumed = this.deps.confirmations.consume(outcome.token, request.server, request.tool, outcome.arguments);
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

  private async finish(input: {
    callId: string;
    outcome: CallOutcome;
    result?: CallToolResult;
    message?: string;
    decision: Decision;
    started: number;
    request: CallRequest;
    detail?: string;
    answer: AuditAnswer | undefined;
    sent: Record<string, unknown>;
  }): Promise<CallResult> {
    const durationMs = this.deps.now() - input.started;
    const entry = await this.deps.audit.appendOutcome({
      callId: input.callId,
      server: input.request.server,
      tool: input.request.tool,
      outcome: input.outcome,
      durationMs,
      ...(input.detail || input.message ? { detail: input.detail ?? input.message } : {}),
    });
    this.deps.onDidAppend?.(entry.seq);
    return {
      callId: input.callId,
      outcome: input.outcome,
      result: input.result,
      message: input.message,
      decision: input.decision,
      ...(input.answer ? { answer: input.answer } : {}),
      arguments: input.sent,
      durationMs,
    };
  }
}
