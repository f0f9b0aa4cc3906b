/*
 * One file on purpose: a confirmation's life — minted, shown, answered once,
 * consumed right before its call — is the invariant it guards (invariant 1), kept
 * in one place; tokens, grants, argument checks, rendering and the deadline are
 * files of their own.
 */
import { randomBytes } from 'node:crypto';
import type { Caller, Rule, SandboxProfile, ToolAnnotations, ToolDefinition, ToolFingerprint } from '../../../shared/domain';
import type { ToolReading } from '../policy/annotations';
import { summariseSandbox, type SandboxSummary } from '../policy/containment';
import { REASONS, type Decision, type SessionGrant, type ToolCall } from '../policy/decide';
import type { DefinitionDiff } from '../policy/diff';
import { canonicalJson } from '../tools/canonical-json';
import { ApprovalTokens, type ConsumeResult } from './approval-tokens';
import { checkAgainstSchema, isJsonValue, MAX_VALIDATION_STEPS, type SchemaProblem } from './argument-schema';
import { systemClock, type Clock } from './clock';
import { Deadline } from './deadline';
import type { SessionGrants } from './session-grants';
import { deepFreeze } from '../deep-freeze';

/** The answers a person can give. */
export const CONFIRMATION_CHOICES = ['allow-once', 'allow-session', 'allow-always', 'deny', 'deny-always'] as const;
/** One of `CONFIRMATION_CHOICES`. */
export type ConfirmationChoice = (typeof CONFIRMATION_CHOICES)[number];

/** Which shell the answer came from, and (optionally) more detail for the log. */
export interface Answerer {
  shell: 'window' | 'terminal' | 'gateway' | 'console' | 'test';
  detail?: string;
}

/** A person's answer to a confirmation. */
export interface ConfirmationAnswer {
  choice: ConfirmationChoice;
  /** Arguments the person edited; checked against the tool's input schema. */
  editedArguments?: Record<string, unknown>;
  /** The second, explicit confirmation "always allow" needs for a destructive tool. */
  confirmDestructiveAlways?: boolean;
  answeredBy: Answerer;
}

/**
 * A pending confirmation, minted in the core. Everything a shell needs to
 * show it; server-provided text (`title`, `description`, tool and argument
 * values) must be shown as inert text.
 */
export interface ConfirmationRequest {
  /** Random, unguessable; the only handle a shell has to answer. */
  id: string;
  server: string;
  tool: string;
  /** Server text: the tool's title and description as it sent them. */
  title?: string;
  description?: string;
  /** The arguments as the caller sent them (frozen copy). */
  arguments: Readonly<Record<string, unknown>>;
  inputSchema: Readonly<Record<string, unknown>>;
  /** Airlock's reasons (from `decide()`), never server text. */
  reasons: readonly string[];
  /** The annotations as the server claims them. */
  claimedAnnotations: Readonly<ToolAnnotations> | null;
  reading: ToolReading;
  sandbox: SandboxSummary;
  serverTrusted: boolean;
  caller: Caller;
  fingerprint: ToolFingerprint;
  confirmationKind: 'normal' | 'destructive';
  alwaysNeedsSecondConfirmation: boolean;
  /** Set when the organisation's policy forbids "always allow" here (a destructive tool): the sentence that says so. */
  alwaysForbidden?: string;
  /** What changed since a voided rule or the approved definition. */
  changes: DefinitionDiff | null;
  openedAt: number;
  /** Epoch ms; no answer by then is a deny. */
  deadline: number;
  /**
   * The shell the call came through (a terminal of the owner or of one of
   * its client processes). Its confirmation is routed there and to the
   * window, nowhere else; absent: the window only.
   */
  origin?: string;
}

/** How a confirmation ended. Only `approved` lets a call through. */
export type ConfirmationOutcome =
  | {
      kind: 'approved';
      id: string;
      choice: 'allow-once' | 'allow-session' | 'allow-always';
      /** The arguments to send — the edited ones if edited. */
      arguments: Record<string, unknown>;
      edited: boolean;
      /** Single-use token bound to (server, tool, these arguments). */
      token: string;
      answeredBy: Answerer;
      answeredAt: number;
      /** For allow-always: the rule to persist. */
      rule?: Rule;
      /** For allow-session: the grant (already added to the session grants store, if any). */
      grant?: SessionGrant;
    }
  | {
      kind: 'denied';
      id: string;
      choice: 'deny' | 'deny-always';
      answeredBy: Answerer;
      answeredAt: number;
      /** For deny-always: the rule to persist. */
      rule?: Rule;
    }
  | { kind: 'expired'; id: string; at: number }
  | {
      kind: 'cancelled';
      id: string;
      at: number;
      reason: string;
      /** `definition-changed`: the tool changed while the person was being asked (the caller may ask again). */
      cause?: 'definition-changed';
    };

/** Why an answer was refused. */
export type AnswerRefusal =
  | 'unknown-id'
  | 'locked-by-organisation'
  | 'already-answered'
  | 'expired'
  | 'invalid-answer'
  | 'invalid-arguments'
  | 'needs-second-confirmation';

/**
 * The result of `answer()` (without the approval token, which only the
 * opener's outcome promise carries). A refused answer leaves the request as
 * it was (unless it expired).
 */
export type AnswerResult =
  | { ok: true; outcome: ObservedOutcome }
  | { ok: false; reason: AnswerRefusal; message: string; problems?: SchemaProblem[] };

/** What `open()` needs: the call, the decision that said ask, and what to show. */
export interface OpenConfirmation {
  call: ToolCall;
  decision: Decision;
  definition: ToolDefinition;
  profile: SandboxProfile;
  /** Set for a remote server (reached by URL): the confirmation says where it runs instead of its sandbox. */
  remote?: { url: string } | undefined;
  serverTrusted: boolean;
  /** Absolute deadline (epoch ms), e.g. the caller's. Capped by `maxTimeoutMs`. */
  deadline?: number;
  /** Relative timeout when no deadline is given. */
  timeoutMs?: number;
  /** The shell the call came through (see `ConfirmationRequest.origin`). */
  origin?: string;
}

/** A request just opened and the promise of its outcome (never rejects). */
export interface OpenedConfirmation {
  request: ConfirmationRequest;
  outcome: Promise<ConfirmationOutcome>;
}

/** Construction options; all optional. */
export interface ConfirmationRegistryOptions {
  clock?: Clock;
  /** Default time to answer (ms). */
  defaultTimeoutMs?: number;
  /** Upper bound on any deadline (ms from opening). */
  maxTimeoutMs?: number;
  /** How long after approval the token is accepted (ms). */
  tokenTtlMs?: number;
  /** Where allow-session answers are stored. */
  sessionGrants?: SessionGrants;
  /** Session grant lifetime (ms); absent: until Airlock stops. */
  sessionGrantTtlMs?: number;
  /** Most requests pending at once; more are cancelled at once (an agent flooding prompts). */
  maxPending?: number;
}

interface Pending {
  request: ConfirmationRequest;
  resolve: (o: ConfirmationOutcome) => void;
  /** Enforced on the steady clock; `request.deadline` is the wall-clock time shown. */
  deadline: Deadline;
}

type Listener<T extends unknown[]> = (...args: T) => void;

const RECENT_LIMIT = 1000;

/**
 * Pending call confirmations: minted here (ids, deadlines, tokens), shown
 * by every shell through `onDidOpen`/`onDidClose`, answered by the first
 * valid `answer()`. No answer by the deadline is a deny.
 *
 * SECURITY: invariant 1 and hostile behaviour 10 — a shell can only answer
 * an id this registry issued, once, before its deadline; the approval it
 * gets is a single-use token bound to the exact call (edited arguments
 * included), checked by `consume()` right before the call is sent.
 */
export class ConfirmationRegistry {
  readonly #clock: Clock;
  readonly #defaultTimeoutMs: number;
  readonly #maxTimeoutMs: number;
  readonly #sessionGrants: SessionGrants | undefined;
  readonly #sessionGrantTtlMs: number | undefined;
  readonly #maxPending: number;
  readonly #tokens: ApprovalTokens;
  readonly #pending = new Map<string, Pending>();
  readonly #recent = new Map<string, ConfirmationOutcome>();
  readonly #openListeners = new Set<Listener<[ConfirmationRequest]>>();
  readonly #closeListeners = new Set<Listener<[ConfirmationRequest, ObservedOutcome]>>();

  /** See `ConfirmationRegistryOptions` for the defaults. */
  constructor(options: ConfirmationRegistryOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000;
    this.#maxTimeoutMs = options.maxTimeoutMs ?? 15 * 60_000;
    this.#sessionGrants = options.sessionGrants;
    this.#sessionGrantTtlMs = options.sessionGrantTtlMs;
    this.#maxPending = options.maxPending ?? 50;
    this.#tokens = new ApprovalTokens(this.#clock, options.tokenTtlMs ?? 30_000);
  }

  /**
   * Gives the person more time while they are engaged with a request (UX 6:
   * the countdown pauses while they read or edit). The deadline becomes
   * `now + byMs`, but never earlier than it was and never later than the
   * maximum from opening. Returns the deadline, or undefined when the id is
   * not pending.
   */
  extend(id: unknown, byMs: number): number | undefined {
    if (typeof id !== 'string') return undefined;
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    const extended = pending.deadline.extend(byMs);
    if (extended === undefined) return undefined;
    if (extended !== 'unchanged') pending.request = deepFreeze({ ...pending.request, deadline: extended.shown });
    return pending.request.deadline;
  }

  /**
   * Opens a confirmation for a call `decide()` answered with ask. Throws
   * only on a programming error (a decision that is not ask).
   */
  open(input: OpenConfirmation): OpenedConfirmation {
    const { call, decision, definition } = input;
    if (decision.verdict !== 'ask' || decision.reading === null || decision.fingerprint === null) {
      throw new Error('A confirmation can only be opened for an ask decision.');
    }
    const raw = call.arguments as unknown;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || !isJsonValue(raw)) {
      throw new Error('A confirmation needs the call’s arguments as a JSON object.');
    }
    const now = this.#clock.now();
    // A caller's deadline is a wall-clock time: what is left of it now is what counts from here on.
    const wanted = input.deadline !== undefined ? input.deadline - now : (input.timeoutMs ?? this.#defaultTimeoutMs);
    const timeout = Math.min(Number.isFinite(wanted) ? Math.max(0, wanted) : 0, this.#maxTimeoutMs);
    const deadline = now + timeout;
    const args = cloneJson(call.arguments);
    const request: ConfirmationRequest = deepFreeze({
      id: randomBytes(18).toString('base64url'),
      server: call.server,
      tool: call.tool,
      ...(typeof definition.title === 'string' ? { title: definition.title } : {}),
      ...(typeof definition.description === 'string' ? { description: definition.description } : {}),
      arguments: args,
      inputSchema: cloneJson(definition.inputSchema ?? {}),
      reasons: [...decision.reasons],
      claimedAnnotations: definition.annotations ? cloneJson(definition.annotations) : null,
      reading: cloneJson(decision.reading),
      sandbox: summariseSandbox(input.profile, input.remote),
      serverTrusted: input.serverTrusted === true,
      caller: cloneJson(call.caller),
      fingerprint: decision.fingerprint,
      confirmationKind: decision.confirmationKind,
      alwaysNeedsSecondConfirmation: decision.alwaysNeedsSecondConfirmation,
      ...(decision.flags.alwaysForbiddenByOrganisation ? { alwaysForbidden: REASONS.organisationAlwaysChoice } : {}),
      changes: decision.changes ? cloneJson(decision.changes) : null,
      openedAt: now,
      deadline,
      ...(typeof input.origin === 'string' ? { origin: input.origin } : {}),
    });
    let resolve!: (o: ConfirmationOutcome) => void;
    const outcome = new Promise<ConfirmationOutcome>((r) => (resolve = r));
    const pending: Pending = { request, resolve, deadline: new Deadline(this.#clock, timeout, this.#maxTimeoutMs, () => this.#expire(request.id)) };
    this.#pending.set(request.id, pending);
    this.#emit(this.#openListeners, request);

    if (this.#pending.size > this.#maxPending) {
      this.#close(request.id, { kind: 'cancelled', id: request.id, at: now, reason: 'Too many confirmations are waiting.' });
    } else if (timeout <= 0) {
      this.#close(request.id, { kind: 'expired', id: request.id, at: now });
    } else {
      pending.deadline.start(timeout);
    }
    return { request, outcome };
  }

  /**
   * Answers a pending confirmation. The first valid answer wins; an unknown
   * id, a second answer, or an answer at or after the deadline is refused.
   * Invalid edited arguments and a missing second confirmation for "always"
   * on a destructive tool are refused without closing the request.
   */
  answer(id: unknown, answer: ConfirmationAnswer): AnswerResult {
    if (typeof id !== 'string') return refuse('unknown-id', 'Airlock did not ask this.');
    const pending = this.#pending.get(id);
    if (!pending) {
      const past = this.#recent.get(id);
      if (!past) return refuse('unknown-id', 'Airlock did not ask this.');
      if (past.kind === 'expired') return refuse('expired', 'The time to answer has passed; the call was denied.');
      return refuse('already-answered', 'This was already answered.');
    }
    const now = this.#clock.now();
    // SECURITY: hostile behaviour 10 — a late answer is refused even when the timer has not fired yet;
    // late by the steady clock (issue 16.3), so a wall clock set forward does not refuse an answer in time.
    if (pending.deadline.passed) {
      this.#expire(id);
      return refuse('expired', 'The time to answer has passed; the call was denied.');
    }
    if (!answer || typeof answer !== 'object' || !(CONFIRMATION_CHOICES as readonly string[]).includes(answer.choice)) {
      return refuse('invalid-answer', 'That is not an answer Airlock offers.');
    }
    const by = sanitiseAnswerer(answer.answeredBy);
    if (!by) return refuse('invalid-answer', 'The answer does not say where it came from.');
    const { request } = pending;

    if (answer.choice === 'deny' || answer.choice === 'deny-always') {
      const outcome: ConfirmationOutcome = {
        kind: 'denied',
        id,
        choice: answer.choice,
        answeredBy: by,
        answeredAt: now,
        ...(answer.choice === 'deny-always' ? { rule: this.#rule(request, 'deny', now) } : {}),
      };
      this.#close(id, outcome);
      return { ok: true, outcome: withoutToken(outcome) };
    }

    // SECURITY: the organisation's policy forbids "always" for this tool: the answer is refused (the question stays open), never turned into another.
    if (answer.choice === 'allow-always' && request.alwaysForbidden) return refuse('locked-by-organisation', request.alwaysForbidden);
    if (answer.choice === 'allow-always' && request.alwaysNeedsSecondConfirmation && answer.confirmDestructiveAlways !== true) {
      return refuse(
        'needs-second-confirmation',
        'Always allowing a destructive tool needs a second, explicit confirmation.',
      );
    }

    let args: Record<string, unknown> = cloneJson(request.arguments);
    let edited = false;
    if (answer.editedArguments !== undefined) {
      const e = answer.editedArguments;
      if (e === null || typeof e !== 'object' || Array.isArray(e) || !isJsonValue(e)) {
        return refuse('invalid-arguments', 'The edited arguments must be a JSON object.');
      }
      // SECURITY: the schema is the server's — the check has a cost limit (argument-schema.ts).
      const checked = checkAgainstSchema(request.inputSchema, e);
      if (checked.tooCostly) {
        return {
          ok: false,
          reason: 'invalid-arguments',
          message: `Airlock cannot check edited arguments against this tool’s schema: it is too complex to check within Airlock’s limit of ${MAX_VALIDATION_STEPS.toLocaleString('en')} steps (a server-written schema can take forever to check). The request is still open: allow the arguments as they were sent, or deny.`,
          problems: checked.problems,
        };
      }
      if (checked.problems.length > 0) {
        return { ok: false, reason: 'invalid-arguments', message: 'The edited arguments do not fit the tool’s schema.', problems: checked.problems };
      }
      const copy = cloneJson(e);
      edited = canonicalJson(copy) !== canonicalJson(args);
      args = copy;
    }

    // SECURITY: the approval is for the definition the person saw; consume() refuses it for another.
    const token = this.#tokens.issue(request.server, request.tool, args, id, request.fingerprint);
    const outcome: ConfirmationOutcome = {
      kind: 'approved',
      id,
      choice: answer.choice,
      arguments: args,
      edited,
      token,
      answeredBy: by,
      answeredAt: now,
    };
    if (answer.choice === 'allow-always') outcome.rule = this.#rule(request, 'allow', now);
    if (answer.choice === 'allow-session') {
      const grant: SessionGrant = {
        server: request.server,
        tool: request.tool,
        fingerprint: request.fingerprint,
        grantedAt: now,
        ...(this.#sessionGrantTtlMs !== undefined ? { expiresAt: now + this.#sessionGrantTtlMs } : {}),
      };
      this.#sessionGrants?.add(grant);
      outcome.grant = grant;
    }
    this.#close(id, outcome);
    // SECURITY: the answering shell learns it was accepted, not the token.
    return { ok: true, outcome: withoutToken(outcome) };
  }

  /**
   * Checks and burns an approval token right before the call is sent:
   * accepted once, only for exactly the approved server, tool and arguments,
   * and — given the tool's `fingerprint` now — only if it is still the
   * definition the person saw.
   */
  consume(token: unknown, server: string, tool: string, args: unknown, fingerprint?: string): ConsumeResult {
    return this.#tokens.consume(token, server, tool, args, fingerprint);
  }

  /** The requests still waiting, oldest first. */
  pending(): ConfirmationRequest[] {
    return [...this.#pending.values()].map((p) => p.request);
  }

  /** One pending request, if it is still waiting. */
  get(id: string): ConfirmationRequest | undefined {
    return this.#pending.get(id)?.request;
  }

  /** Denies everything pending (e.g. at shutdown) with a reason. */
  cancelAll(reason: string): void {
    const at = this.#clock.now();
    for (const id of [...this.#pending.keys()]) this.#close(id, { kind: 'cancelled', id, at, reason });
  }

  /**
   * A server's tools changed: cancels its pending requests whose tool is no
   * longer defined as the person is being shown (`current` gives a tool's
   * fingerprint now; undefined: the server no longer offers it). Their
   * callers learn the cause and may ask again with the new definition.
   * Returns the ids cancelled.
   *
   * SECURITY: an approval binds to the definition shown — a change while a
   * confirmation is open cancels it (issue 9, item 8).
   */
  cancelChanged(server: string, current: (tool: string) => string | undefined): string[] {
    const at = this.#clock.now();
    const cancelled: string[] = [];
    for (const [id, pending] of [...this.#pending]) {
      const { request } = pending;
      if (request.server !== server || current(request.tool) === request.fingerprint) continue;
      this.#close(id, {
        kind: 'cancelled',
        id,
        at,
        reason: 'the tool changed while you were being asked; Airlock asks again with its new definition',
        cause: 'definition-changed',
      });
      cancelled.push(id);
    }
    return cancelled;
  }

  /** Cancels every pending request about `server` (it was removed). */
  cancelServer(server: string, reason: string): void {
    for (const request of this.pending()) if (request.server === server) this.cancel(request.id, reason);
  }

  /** Cancels one pending request (e.g. its caller went away). Returns false if it was not pending. */
  cancel(id: string, reason: string): boolean {
    if (!this.#pending.has(id)) return false;
    this.#close(id, { kind: 'cancelled', id, at: this.#clock.now(), reason });
    return true;
  }

  /** Called when a request opens; returns an unsubscribe function. */
  onDidOpen(listener: (request: ConfirmationRequest) => void): () => void {
    this.#openListeners.add(listener);
    return () => this.#openListeners.delete(listener);
  }

  /**
   * Called when a request is answered, expires or is cancelled (without the
   * approval token); returns an unsubscribe function.
   */
  onDidClose(listener: (request: ConfirmationRequest, outcome: ObservedOutcome) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  #rule(request: ConfirmationRequest, effect: 'allow' | 'deny', now: number): Rule {
    return { server: request.server, tool: request.tool, fingerprint: request.fingerprint, effect, createdAt: new Date(now).toISOString() };
  }

  #expire(id: string): void {
    if (this.#pending.has(id)) this.#close(id, { kind: 'expired', id, at: this.#clock.now() });
  }

  #close(id: string, outcome: ConfirmationOutcome): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    pending.deadline.stop();
    this.#recent.set(id, outcome);
    if (this.#recent.size > RECENT_LIMIT) this.#recent.delete(this.#recent.keys().next().value as string);
    pending.resolve(outcome);
    // SECURITY: invariant 1 — observers (every shell) learn how it ended, never the token:
    // only the caller that opened the request holds the approval.
    this.#emit(this.#closeListeners, pending.request, withoutToken(outcome));
  }

  #emit<T extends unknown[]>(listeners: Set<Listener<T>>, ...args: T): void {
    for (const l of listeners) {
      try {
        l(...args);
      } catch {
        // A broken shell must not break the others, nor the registry.
      }
    }
  }
}

/** An outcome as observers see it: an approval without its token. */
export type ObservedOutcome = Exclude<ConfirmationOutcome, { kind: 'approved' }> | Omit<Extract<ConfirmationOutcome, { kind: 'approved' }>, 'token'>;

function withoutToken(outcome: ConfirmationOutcome): ObservedOutcome {
  if (outcome.kind !== 'approved') return outcome;
  const { token: _token, ...rest } = outcome;
  return rest;
}

function refuse(reason: AnswerRefusal, message: string): AnswerResult {
  return { ok: false, reason, message };
}

function sanitiseAnswerer(a: unknown): Answerer | undefined {
  if (!a || typeof a !== 'object') return undefined;
  const shell = (a as Answerer).shell;
  if (!['window', 'terminal', 'gateway', 'console', 'test'].includes(shell)) return undefined;
  const detail = (a as Answerer).detail;
  return typeof detail === 'string' ? { shell, detail: detail.slice(0, 200) } : { shell };
}

function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

