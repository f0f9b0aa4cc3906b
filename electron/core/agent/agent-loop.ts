/**
 * One turn of the built-in agent: stream the model's step, run the tool
 * calls it asked for — one at a time, each through Airlock's call pipeline
 * — hand the results back, and go on until the model answers without a tool
 * call, the person stops it, or the step limit makes the model ask the
 * person whether to continue.
 *
 * SECURITY: the loop has no way around the choke point — its only way to a
 * tool is `callTool`, the host's pipeline, as the caller `{ kind: 'agent' }`;
 * it holds nothing that can answer a confirmation. A denial ends the step:
 * the calls after it in that step are not sent, the model is told the
 * person denied it, and a call to the same tool again in the same turn is
 * refused here, before it reaches the pipeline — enforced by the loop, not
 * hoped for from the model. Tool results reach the model framed as data.
 */
import type { Caller } from '../../../shared/domain';
import type { AssistantMessage, ChatMessage, ToolCard, TurnStatus } from '../../../shared/chat';
import { appendText } from '../../../shared/chat-events';
import { toolScreen } from '../../../shared/screens';
import type { CallRequest, CallResult } from '../calls/call-pipeline';
import { toModelMessages } from './history';
import { readPartialArguments, type ModelClient, type ModelStepEvent } from './model-client';
import { buildToolset, type AgentTool } from './model-tools';
import { withCost } from './pricing';
import { classifyProviderError, describeWait, type ProviderProblem } from './provider-errors';
import { marksContent, resultWarnings } from './result-safety';
import { messageOf } from '../errors';

/** How a turn ended. */
export type TurnOutcome = 'done' | 'stopped' | 'error' | 'step-limit';

/** What one turn needs from the service around it. */
export interface TurnDeps {
  /** The host's call pipeline: the only way to a tool. */
  callTool(request: CallRequest): Promise<CallResult>;
  now(): number;
  newId(): string;
  /** A message started or changed (the service shows it live). */
  onMessage(message: AssistantMessage): void;
  onDelta(messageId: string, text: string): void;
  onStatus(status: TurnStatus): void;
  /** Saves a message as it now stands (once its stream ended). */
  save(message: AssistantMessage): void;
  /** Saves a tool card once its call ended. */
  saveCard(messageId: string, card: ToolCard): void;
  /** Waits, unless the signal aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export interface TurnInput {
  client: ModelClient;
  /** The conversation so far, ending with the person's message. */
  history: readonly ChatMessage[];
  /** The tools this conversation lets the model see. */
  tools: readonly AgentTool[];
  /** Every tool name the servers offer (to notice a result steering the model towards one). */
  knownToolNames: readonly string[];
  system: string;
  /** Tool-using steps before the model must ask the person to continue. */
  stepLimit: number;
  signal: AbortSignal;
  confirmationTimeoutMs?: number;
}

/** Past this many characters of a call's arguments, they are no longer read while the model writes them (its screen waits for the whole call). */
export const MAX_PARTIAL_ARGUMENTS_CHARS = 32 * 1024;

/** Longest result text kept and handed to the model. */
export const MAX_RESULT_CHARS = 100_000;
/** Rate limits: this many retries, and never a wait longer than this (the person is told to try later instead). */
export const MAX_RATE_LIMIT_RETRIES = 3;
export const MAX_RATE_LIMIT_WAIT_MS = 60_000;
/** Overloaded and 5xx answers: this many retries, waiting 1 s, then 2 s. */
export const MAX_SERVER_RETRIES = 2;
const SERVER_BACKOFF_MS = 1000;

/** Runs one turn. Never throws for a provider or tool failure: they end up in the messages. */
export async function runTurn(input: TurnInput, deps: TurnDeps): Promise<TurnOutcome> {
  const { client, signal } = input;
  const toolset = buildToolset(input.tools, { servers: null, hiddenTools: [] });
  const caller: Caller = { kind: 'agent', provider: client.providerLabel.slice(0, 100) || client.ref.provider, model: client.ref.model.slice(0, 200) };
  const messages = toModelMessages(input.history);
  /** `server/tool` denied in this turn: not sent again until the person's next message. */
  const deniedThisTurn = new Set<string>();
  let toolSteps = 0;

  for (;;) {
    const final = toolSteps >= input.stepLimit;
    let message: AssistantMessage = { id: deps.newId(), role: 'assistant', at: new Date(deps.now()).toISOString(), model: client.ref, parts: [], status: 'streaming' };
    deps.onMessage(message);
    const system = final
      ? `${input.system}\n\nYou have used all ${input.stepLimit} tool steps Airlock allows in one turn. Do not call tools now. Tell the person what you did so far and ask whether they want you to continue.`
      : input.system;

    // ── Stream one step (retrying only while nothing of it has been shown) ──
    let calls: Array<Extract<ModelStepEvent, { type: 'tool-call' }>> = [];
    /** Calls of this step shown while the model writes them (a tool with a screen): their text so far, and what it last read as. */
    const writing = new Map<string, { text: string; last: string }>();
    let usage: { inputTokens: number; outputTokens: number } | undefined;
    let problem: ProviderProblem | undefined;
    let aborted = false;
    let rateLimitRetries = 0;
    let serverRetries = 0;
    for (;;) {
      calls = [];
      usage = undefined;
      problem = undefined;
      let streamed = false;
      deps.onStatus({ kind: 'thinking' });
      for await (const event of client.step({ system, messages, tools: toolset.specs, toolChoice: final ? 'none' : 'auto', signal })) {
        if (event.type === 'text') {
          streamed = true;
          message = appendText(message, event.text);
          deps.onDelta(message.id, event.text);
        } else if (event.type === 'tool-input-delta') {
          // A call to a tool with a screen is shown as it is written, so its screen can show it too (MCP Apps' partial input).
          const tool = toolset.byName.get(event.name);
          if (final || !tool || !toolScreen(tool.definition)) continue;
          streamed = true;
          const call = writing.get(event.id) ?? { text: '', last: '' };
          writing.set(event.id, call);
          if (call.text.length + event.delta.length > MAX_PARTIAL_ARGUMENTS_CHARS) continue;
          call.text += event.delta;
          const partial = await readPartialArguments(call.text);
          const seen = partial && JSON.stringify(partial);
          if (!partial || seen === call.last) continue;
          call.last = seen!;
          message = { ...message, parts: placeCards(message, [writingCard(event.id, event.name, tool, partial)]) };
          deps.onMessage(message);
        } else if (event.type === 'tool-call') {
          streamed = true;
          calls.push(event);
        } else if (event.type === 'finish') {
          usage = event.usage;
        } else if (event.type === 'error') {
          problem = classifyProviderError(event.error, { provider: client.providerLabel, model: client.ref.model, streamed, now: deps.now() });
        } else {
          aborted = true;
        }
      }
      if (aborted || signal.aborted) {
        aborted = true;
        break;
      }
      if (!problem || !problem.retryable || streamed) break;
      const wait = retryWait(problem, { rateLimitRetries, serverRetries });
      if (wait === undefined) {
        if (problem.kind === 'rate-limit' && problem.retryAfterMs !== undefined && problem.retryAfterMs > MAX_RATE_LIMIT_WAIT_MS) {
          problem = { ...problem, message: `${problem.message} That is longer than Airlock waits on its own: send your message again after that.` };
        }
        break;
      }
      if (problem.kind === 'rate-limit') rateLimitRetries += 1;
      else serverRetries += 1;
      deps.onStatus({ kind: 'retrying', message: `${problem.message} Trying again in ${describeWait(wait)}…`, until: deps.now() + wait });
      await deps.sleep(wait, signal);
      if (signal.aborted) {
        aborted = true;
        break;
      }
    }

    if (usage) message = { ...message, usage: withCost(client.kind, client.ref.model, usage) };
    if (aborted) {
      // Tool calls of a step the person stopped are never run (one still being written says so, to its screen too).
      return end(deps, { ...message, parts: unfinishedCards(message, 'the person stopped the turn before this call was sent.'), status: 'stopped' }, 'stopped');
    }
    if (problem) {
      const { retryable: _r, retryAfterMs: _w, status: _s, ...shown } = problem;
      message = { ...message, parts: unfinishedCards(message, 'the model’s answer broke off before this call was complete.') };
      return end(deps, { ...message, status: message.parts.length > 0 ? 'incomplete' : 'error', error: shown }, 'error');
    }
    if (calls.length === 0) {
      message = { ...message, parts: unfinishedCards(message, 'the model did not finish writing this call.') };
      return end(deps, { ...message, status: 'complete', ...(final ? { notice: stepLimitNotice(input.stepLimit) } : {}) }, final ? 'step-limit' : 'done');
    }

    // ── Run the calls, one at a time, through the pipeline ──
    const cards: ToolCard[] = calls.map((call) => requestedCard(call, toolset.byName.get(call.name)));
    // Each call takes the place of its card shown while it was written; one never finished is settled.
    message = { ...message, status: 'complete', parts: unfinishedCards({ ...message, parts: placeCards(message, cards) }, 'the model did not finish writing this call.') };
    if (final) {
      // The model was told not to call tools; it did anyway. Nothing is sent.
      for (const card of cards) settle(card, 'not-sent', `the step limit for this turn (${input.stepLimit}) was reached.`);
      return end(deps, { ...message, parts: withCards(message, cards), notice: stepLimitNotice(input.stepLimit) }, 'step-limit');
    }
    deps.save(message);
    deps.onMessage(message);
    let stepEnded = false;
    for (const card of cards) {
      const tool = toolset.byName.get(card.modelName);
      const key = `${card.server}/${card.tool}`;
      if (card.state === 'done') {
        // Already settled: an unknown tool or unreadable arguments.
      } else if (signal.aborted) {
        settle(card, 'not-sent', 'the person stopped the turn before this call was sent.');
      } else if (stepEnded) {
        settle(card, 'not-sent', 'the person denied an earlier call in this step, which ends the step.');
      } else if (deniedThisTurn.has(key)) {
        // SECURITY: a denial is not retried in the same turn — refused here, without asking the person again.
        settle(card, 'not-sent', `${card.server} › ${card.tool} was denied earlier in this turn; Airlock does not send it again until the person's next message.`);
      } else if (tool) {
        card.state = 'running';
        message = { ...message, parts: withCards(message, cards) };
        deps.onMessage(message);
        deps.onStatus({ kind: 'tool', message: `${card.server} › ${card.tool}` });
        const result = await callThroughPipeline(deps, { server: card.server, tool: card.tool, arguments: card.arguments, caller, signal, ...(input.confirmationTimeoutMs ? { confirmationTimeoutMs: input.confirmationTimeoutMs } : {}) });
        fillFromResult(card, result, tool, input.knownToolNames);
        if (card.outcome === 'denied') {
          deniedThisTurn.add(key);
          stepEnded = true;
        }
      }
      message = { ...message, parts: withCards(message, cards) };
      deps.onMessage(message);
      deps.saveCard(message.id, card);
    }
    if (signal.aborted) {
      deps.onStatus({ kind: 'idle' });
      return 'stopped';
    }
    messages.push(...toModelMessages([message]));
    toolSteps += 1;
  }
}

/** Saves the last message of a turn and reports how the turn ended. */
function end(deps: TurnDeps, message: AssistantMessage, outcome: TurnOutcome): TurnOutcome {
  deps.save(message);
  deps.onMessage(message);
  deps.onStatus({ kind: 'idle' });
  return outcome;
}

function stepLimitNotice(limit: number): string {
  return `The model used the ${limit} tool steps a turn may take. Reply (for example “continue”) to let it go on.`;
}

/** How long to wait before trying a failed step again, or undefined to stop trying. */
export function retryWait(problem: ProviderProblem, tries: { rateLimitRetries: number; serverRetries: number }): number | undefined {
  if (problem.kind === 'rate-limit') {
    if (tries.rateLimitRetries >= MAX_RATE_LIMIT_RETRIES) return undefined;
    const wait = problem.retryAfterMs ?? SERVER_BACKOFF_MS * 2 ** (tries.rateLimitRetries + 1);
    return wait > MAX_RATE_LIMIT_WAIT_MS ? undefined : wait;
  }
  if (tries.serverRetries >= MAX_SERVER_RETRIES) return undefined;
  return SERVER_BACKOFF_MS * 2 ** tries.serverRetries;
}

/** A card for a call the model asked for; a call Airlock cannot send is settled at once, with why. */
function requestedCard(call: Extract<ModelStepEvent, { type: 'tool-call' }>, tool: AgentTool | undefined): ToolCard {
  const args = call.input !== null && typeof call.input === 'object' && !Array.isArray(call.input) ? (call.input as Record<string, unknown>) : {};
  const screen = tool ? toolScreen(tool.definition) : undefined;
  const card: ToolCard = { id: call.id, modelName: call.name, server: tool?.server ?? '', tool: tool?.definition.name ?? call.name, arguments: args, state: 'requested', warnings: [], ...(screen ? { screen: { uri: screen.uri } } : {}) };
  if (!tool) return settle(card, 'not-sent', `the model asked for a tool this conversation does not offer (“${call.name.slice(0, 100)}”).`);
  if (call.invalid) return settle(card, 'not-sent', `the model's arguments could not be read (${call.invalid.slice(0, 300)}).`);
  if (args !== call.input) return settle(card, 'not-sent', 'the model sent arguments that are not a JSON object.');
  return card;
}

/** A card for a call the model is still writing: what it wrote so far, for the card and the tool's screen (never sent). */
function writingCard(id: string, modelName: string, tool: AgentTool, partial: Record<string, unknown>): ToolCard {
  const screen = toolScreen(tool.definition);
  return { id, modelName, server: tool.server, tool: tool.definition.name, arguments: partial, state: 'requested', inputStreaming: true, warnings: [], ...(screen ? { screen: { uri: screen.uri } } : {}) };
}

/** The message's parts with each of `cards` in place of the card of the same call, or after the rest when there is none. */
function placeCards(message: AssistantMessage, cards: readonly ToolCard[]): AssistantMessage['parts'] {
  const byId = new Map(cards.map((card) => [card.id, card]));
  const parts = message.parts.map((part) => {
    const card = part.type === 'tool' ? byId.get(part.card.id) : undefined;
    if (!card) return part;
    byId.delete(card.id);
    return { type: 'tool' as const, card };
  });
  return [...parts, ...[...byId.values()].map((card) => ({ type: 'tool' as const, card }))];
}

/** The message's parts with every call still being written settled as not sent, saying why. */
function unfinishedCards(message: AssistantMessage, why: string): AssistantMessage['parts'] {
  return message.parts.map((part) => {
    if (part.type !== 'tool' || !part.card.inputStreaming) return part;
    const { inputStreaming: _writing, ...card } = part.card;
    return { type: 'tool' as const, card: settle(card, 'not-sent', why) };
  });
}

function settle(card: ToolCard, outcome: 'not-sent', message: string): ToolCard {
  card.state = 'done';
  card.outcome = outcome;
  card.message = `Not sent: ${message}`;
  return card;
}

function withCards(message: AssistantMessage, cards: readonly ToolCard[]): AssistantMessage['parts'] {
  return message.parts.map((part) => {
    if (part.type !== 'tool') return part;
    const card = cards.find((candidate) => candidate.id === part.card.id);
    return card ? { type: 'tool' as const, card: { ...card, warnings: [...card.warnings] } } : part;
  });
}

async function callThroughPipeline(deps: TurnDeps, request: CallRequest): Promise<CallResult | { thrown: string }> {
  try {
    return await deps.callTool(request);
  } catch (error) {
    // The pipeline refuses before deciding (e.g. the server was removed meanwhile): nothing was sent.
    return { thrown: messageOf(error) };
  }
}

/** Fills a card from the pipeline's result: the decision in words, the outcome, the result's text and its signals. */
function fillFromResult(card: ToolCard, result: CallResult | { thrown: string }, tool: AgentTool, knownToolNames: readonly string[]): void {
  card.state = 'done';
  if ('thrown' in result) {
    card.outcome = 'not-sent';
    card.message = `Not sent: ${result.thrown}`;
    return;
  }
  const { decision, answer } = result;
  const how = answer?.how;
  const personAllowed = how === 'allow-once' || how === 'allow-session' || how === 'allow-always';
  const label =
    decision.verdict === 'allow'
      ? 'Ran without asking'
      : decision.verdict === 'deny'
        ? 'Airlock denied it'
        : personAllowed
          ? `You allowed it${how === 'allow-session' ? ' for this session' : how === 'allow-always' ? ' always' : ''}${answer?.edited ? ', with edited arguments' : ''}`
          : how === 'deny' || how === 'deny-always'
            ? 'You denied it'
            : how === 'expired'
              ? 'Nobody answered in time, so it was denied'
              : how === 'cancelled'
                ? 'Cancelled before anyone answered'
                : how === 'no-approver'
                  ? 'Denied: nobody could be asked'
                  : 'Denied';
  card.decision = { verdict: decision.verdict, allowed: result.outcome !== 'denied' && result.outcome !== 'not-running', label, reasons: [...decision.reasons] };
  // A server that was not running never got the call: for the model and the chat, it was not sent.
  card.outcome = result.outcome === 'not-running' ? 'not-sent' : result.outcome;
  if (result.message) card.message = result.message;
  if (answer?.edited) card.sentArguments = result.arguments;
  card.durationMs = Math.round(result.durationMs);
  if (result.result && (result.outcome === 'ok' || result.outcome === 'tool-error')) {
    const full = resultText(result.result);
    const truncated = full.length > MAX_RESULT_CHARS;
    const text = truncated ? full.slice(0, MAX_RESULT_CHARS) : full;
    card.result = { text, truncated, isError: result.outcome === 'tool-error' };
    const others = knownToolNames.filter((name) => name !== tool.definition.name && name !== card.modelName);
    card.warnings = resultWarnings(text, { otherTools: others });
    if (marksContent({ trusted: tool.serverTrusted }, { openWorld: tool.openWorld })) card.contentFrom = tool.server;
    // Its screen gets the structured result too (never the model: it reads the text above), within a cap.
    if (card.screen && result.result.structuredContent !== undefined && JSON.stringify(result.result.structuredContent).length <= MAX_SCREEN_STRUCTURED_CHARS) {
      card.screen = { ...card.screen, structuredContent: result.result.structuredContent };
    }
  }
}

/** Most characters of a result's structured content a card keeps for its screen. */
const MAX_SCREEN_STRUCTURED_CHARS = 64 * 1024;

/** A tool result as text: its text items, a note for everything else, or its structured content. */
export function resultText(result: NonNullable<CallResult['result']>): string {
  const pieces: string[] = [];
  for (const item of (result.content ?? []) as Array<Record<string, unknown>>) {
    switch (item.type) {
      case 'text':
        pieces.push(String(item.text ?? ''));
        break;
      case 'image':
      case 'audio':
        pieces.push(`[${String(item.type)} (${String(item.mimeType ?? 'unknown type')}) — not shown to the model]`);
        break;
      case 'resource_link':
        pieces.push(`[link to a resource: ${String(item.uri ?? '')}]`);
        break;
      case 'resource': {
        const resource = item.resource as { text?: unknown; uri?: unknown } | undefined;
        pieces.push(typeof resource?.text === 'string' ? resource.text : `[resource: ${String(resource?.uri ?? '')}]`);
        break;
      }
      default:
        pieces.push(`[${String(item.type)} content]`);
    }
  }
  if (pieces.length === 0 && result.structuredContent !== undefined) pieces.push(JSON.stringify(result.structuredContent));
  return pieces.join('\n');
}
