import type { PolicyMode, SandboxProfile, ServerRequestSettings, Verdict } from '../../../shared/domain';

/**
 * The policy for requests a server sends *back* to Airlock — sampling (it
 * asks a model), elicitation (it asks the person), roots (it asks which
 * folders it may work in). The mirror of `decide()` for tool calls: pure,
 * table-tested, never throws (an internal error is a deny).
 *
 * SECURITY: invariant 1 in reverse — this runs, and its answer is written to
 * the audit log, before any sampling request reaches a model, any
 * elicitation reaches a person's answer, or any roots answer leaves.
 * SECURITY.md rules 7 and 8: sampling is never automatic unless the person
 * made a rule for it; an elicitation is never answered by Airlock itself.
 */

/** What a sampling request asks for, as far as the policy cares. */
export interface SamplingAsk {
  kind: 'sampling';
  /** `includeContext`; absent means `none`. */
  includeContext: 'none' | 'thisServer' | 'allServers';
  maxTokens: number;
  /** The request offers the model tools (`tools`/`toolChoice`): Airlock did not declare that. */
  usesTools: boolean;
  /** The request asks to run as a task: Airlock did not declare that. */
  taskAugmented: boolean;
  /**
   * The person's secrets for this server in the request: `carried` (Airlock
   * takes them out before any model sees it — said on the question), or
   * `unreadable` (they could not be read, so they cannot be taken out:
   * refused). Absent: none.
   */
  secrets?: 'none' | 'carried' | 'unreadable';
}

/** What an elicitation asks for, as far as the policy cares. */
export interface ElicitationAsk {
  kind: 'elicitation';
  mode: 'form' | 'url';
  /** Form fields that look like they ask for a secret (password, token, API key…). */
  secretFields: readonly string[];
  /** URL mode: why the URL may not be offered at all (not https, a private address…), if so. */
  urlProblem?: string;
  /** URL mode: the host is an internationalised (Punycode) name — shown with a warning. */
  punycode?: boolean;
  taskAugmented: boolean;
}

/** A roots request (`roots/list`). */
export interface RootsAsk {
  kind: 'roots';
}

/** One request from a server. */
export type ServerRequestAsk = SamplingAsk | ElicitationAsk | RootsAsk;

/** Everything the policy looks at besides the request; none of it from the server. */
export interface ServerRequestFacts {
  /** The server is known to Airlock. */
  known: boolean;
  /** The person disabled the server. */
  blocked: boolean;
  settings: ServerRequestSettings;
  /** The person allowed this server's sampling for this session. */
  sessionGrant: boolean;
  /** Requests of this kind from this server in the last minute, before this one. */
  recentCount: number;
  /** Who could answer a sampling request: the gateway's client, Airlock's own model, or nobody. */
  sampler: 'client' | 'model' | 'none';
  /** A gateway client that can show this elicitation (it declared the mode) is waiting on this server. */
  relay: boolean;
  /** A person can be asked right now (a window, a terminal). */
  canAsk: boolean;
  mode: PolicyMode;
}

/** What made the verdict, for the audit log. */
export type ServerRequestDecidedBy =
  | 'policy-error'
  | 'unknown-server'
  | 'blocked'
  | 'unsupported'
  | 'secrets-unreadable'
  | 'rule'
  | 'context'
  | 'token-cap'
  | 'rate-cap'
  | 'no-model'
  | 'unsafe-url'
  | 'no-approver'
  | 'strict-mode'
  | 'session-grant'
  | 'relay'
  | 'ask'
  | 'grants';

/** The policy's answer for one request from a server. */
export interface ServerRequestDecision {
  verdict: Verdict;
  /** Plain words written by Airlock, never the server's. */
  reasons: string[];
  decidedBy: ServerRequestDecidedBy;
  /** Elicitation: where the question goes when it is not denied. */
  route?: 'airlock' | 'client';
  /** Sampling: the model's answer is shown to the person before it goes back. */
  reviewResponse: boolean;
  /** Things to show beside the question (flags never relax anything). */
  flags: { secretFields: string[]; punycode: boolean; contextRequested: boolean };
}

/** Reason texts, in one place for the shells and tests. */
export const SERVER_REQUEST_REASONS = {
  policyError: 'Airlock could not evaluate its policy for this request (policy error), so it refuses it.',
  unknownServer: 'Airlock does not know this server.',
  blocked: 'You blocked this server.',
  tools: 'It asks the model to use tools; Airlock does not offer tool use to servers through sampling.',
  task: 'It asks to run as a background task; Airlock does not offer that.',
  samplingNever: 'You chose never to let this server use a model.',
  samplingAlways: 'You chose to let this server use a model without asking, within its limits.',
  samplingSession: 'You let this server use a model for this session.',
  samplingAsk: 'A server asking a model to write something is shown to you first, and so is the answer.',
  secretsUnreadable: 'Airlock could not read the secrets you gave this server, so it could not take them out of the request; it refuses it.',
  carriesSecret: 'It contains a value you gave this server as a secret. Airlock takes it out ([redacted]) before any model sees the request.',
  context: 'It asks for context from your conversations or other servers (includeContext), which you have not allowed for this server.',
  tokenCap: (asked: number, cap: number) => `It asks for up to ${asked} tokens, more than the ${cap} you allow this server.`,
  rateCap: (count: number, cap: number, what: string) => `It sent ${count} ${what} in the last minute; you allow ${cap}.`,
  noModel: 'No model can answer: the app using Airlock did not offer one, and Airlock has no model of its own set up.',
  noApprover: 'This needs a person, and no Airlock window or terminal is available to ask.',
  strict: 'Strict mode asks before every request.',
  strictOverridesRule: 'You allowed this before, but strict mode asks anyway.',
  elicitationNever: 'You chose to decline this server’s questions without asking.',
  elicitationAsk: 'The server asks you a question; only you can answer it.',
  elicitationRelay: 'You chose to let the app you are using show this server’s questions; you answer them there.',
  secretFields: (fields: readonly string[]) =>
    `It asks for something that looks secret (${fields.slice(0, 5).join(', ')}); servers must not ask for secrets in a form.`,
  unsafeUrl: (problem: string) => `Airlock will not offer this link: ${problem}.`,
  punycode: 'The web address uses an internationalised name (Punycode) that can look like another site.',
  roots: 'Roots are the folders you granted this server, never more.',
} as const;

const NO_FLAGS = () => ({ secretFields: [] as string[], punycode: false, contextRequested: false });

function deny(reason: string, decidedBy: ServerRequestDecidedBy, flags = NO_FLAGS()): ServerRequestDecision {
  return { verdict: 'deny', reasons: [reason], decidedBy, reviewResponse: false, flags };
}

/**
 * Decides one request from a server. Order (first match wins):
 *
 * sampling: unknown/blocked → deny; tools or task → deny; rule `never` →
 * deny; context not allowed → deny; over the token cap → deny; over the rate
 * cap → deny; nobody to answer → deny; strict mode → ask; rule `always` or a
 * session grant → allow (no review); otherwise ask (request, then answer);
 * an ask with nobody to ask → deny.
 *
 * elicitation: unknown/blocked → deny; task → deny; `never` → deny; unsafe
 * URL → deny; over the rate cap → deny; relay chosen and possible → allow
 * (the person answers in their app); a person can be asked → ask; else deny.
 *
 * roots: unknown/blocked → deny; otherwise allow (the answer is the grants).
 */
export function decideServerRequest(ask: ServerRequestAsk, facts: ServerRequestFacts): ServerRequestDecision {
  try {
    return decideUnsafe(ask, facts);
  } catch {
    return deny(SERVER_REQUEST_REASONS.policyError, 'policy-error');
  }
}

function decideUnsafe(ask: ServerRequestAsk, facts: ServerRequestFacts): ServerRequestDecision {
  if (!ask || typeof ask !== 'object' || !facts || typeof facts !== 'object') return deny(SERVER_REQUEST_REASONS.policyError, 'policy-error');
  if (facts.known !== true) return deny(SERVER_REQUEST_REASONS.unknownServer, 'unknown-server');
  if (facts.blocked !== false) return deny(SERVER_REQUEST_REASONS.blocked, 'blocked');
  if (facts.mode !== 'default' && facts.mode !== 'strict') return deny(SERVER_REQUEST_REASONS.policyError, 'policy-error');
  const recent = Number.isFinite(facts.recentCount) ? facts.recentCount : Number.POSITIVE_INFINITY;
  switch (ask.kind) {
    case 'sampling':
      return decideSampling(ask, facts, recent);
    case 'elicitation':
      return decideElicitation(ask, facts, recent);
    case 'roots':
      return { verdict: 'allow', reasons: [SERVER_REQUEST_REASONS.roots], decidedBy: 'grants', reviewResponse: false, flags: NO_FLAGS() };
    default:
      return deny(SERVER_REQUEST_REASONS.policyError, 'policy-error');
  }
}

function decideSampling(ask: SamplingAsk, facts: ServerRequestFacts, recent: number): ServerRequestDecision {
  const settings = facts.settings.sampling;
  const contextRequested = ask.includeContext !== 'none';
  const flags = { ...NO_FLAGS(), contextRequested };
  if (ask.usesTools) return deny(SERVER_REQUEST_REASONS.tools, 'unsupported', flags);
  if (ask.taskAugmented) return deny(SERVER_REQUEST_REASONS.task, 'unsupported', flags);
  // SECURITY: invariant 5 — fail closed: without the person's secrets, they cannot be kept from the model.
  if (ask.secrets === 'unreadable') return deny(SERVER_REQUEST_REASONS.secretsUnreadable, 'secrets-unreadable', flags);
  if (settings.rule === 'never') return deny(SERVER_REQUEST_REASONS.samplingNever, 'rule', flags);
  // SECURITY: includeContext would hand the server what other servers and the person said.
  if (contextRequested && settings.allowContext !== true) return deny(SERVER_REQUEST_REASONS.context, 'context', flags);
  if (!(Number.isInteger(ask.maxTokens) && ask.maxTokens > 0 && ask.maxTokens <= settings.maxTokens)) {
    return deny(SERVER_REQUEST_REASONS.tokenCap(ask.maxTokens, settings.maxTokens), 'token-cap', flags);
  }
  if (recent >= settings.perMinute) return deny(SERVER_REQUEST_REASONS.rateCap(recent, settings.perMinute, 'sampling requests'), 'rate-cap', flags);
  if (facts.sampler !== 'client' && facts.sampler !== 'model') return deny(SERVER_REQUEST_REASONS.noModel, 'no-model', flags);
  const standing = settings.rule === 'always' || facts.sessionGrant === true;
  if (facts.mode === 'strict') {
    if (facts.canAsk !== true) return deny(SERVER_REQUEST_REASONS.noApprover, 'no-approver', flags);
    return {
      verdict: 'ask',
      reasons: [
        SERVER_REQUEST_REASONS.strict,
        ...(standing ? [SERVER_REQUEST_REASONS.strictOverridesRule] : []),
        ...(ask.secrets === 'carried' ? [SERVER_REQUEST_REASONS.carriesSecret] : []),
      ],
      decidedBy: 'strict-mode',
      reviewResponse: true,
      flags,
    };
  }
  if (settings.rule === 'always') return { verdict: 'allow', reasons: [SERVER_REQUEST_REASONS.samplingAlways], decidedBy: 'rule', reviewResponse: false, flags };
  if (facts.sessionGrant === true) {
    return { verdict: 'allow', reasons: [SERVER_REQUEST_REASONS.samplingSession], decidedBy: 'session-grant', reviewResponse: false, flags };
  }
  if (facts.canAsk !== true) return deny(SERVER_REQUEST_REASONS.noApprover, 'no-approver', flags);
  return {
    verdict: 'ask',
    reasons: ask.secrets === 'carried' ? [SERVER_REQUEST_REASONS.samplingAsk, SERVER_REQUEST_REASONS.carriesSecret] : [SERVER_REQUEST_REASONS.samplingAsk],
    decidedBy: 'ask',
    reviewResponse: true,
    flags,
  };
}

function decideElicitation(ask: ElicitationAsk, facts: ServerRequestFacts, recent: number): ServerRequestDecision {
  const settings = facts.settings.elicitation;
  const secretFields = Array.isArray(ask.secretFields) ? ask.secretFields.map(String) : [];
  const flags = { ...NO_FLAGS(), secretFields, punycode: ask.punycode === true };
  const extra = [
    ...(secretFields.length > 0 ? [SERVER_REQUEST_REASONS.secretFields(secretFields)] : []),
    ...(flags.punycode ? [SERVER_REQUEST_REASONS.punycode] : []),
  ];
  if (ask.taskAugmented) return deny(SERVER_REQUEST_REASONS.task, 'unsupported', flags);
  if (settings.answer === 'never') return deny(SERVER_REQUEST_REASONS.elicitationNever, 'rule', flags);
  if (ask.mode !== 'form' && ask.mode !== 'url') return deny(SERVER_REQUEST_REASONS.policyError, 'policy-error', flags);
  if (ask.mode === 'url' && ask.urlProblem !== undefined) return deny(SERVER_REQUEST_REASONS.unsafeUrl(ask.urlProblem), 'unsafe-url', flags);
  if (recent >= settings.perMinute) return deny(SERVER_REQUEST_REASONS.rateCap(recent, settings.perMinute, 'questions'), 'rate-cap', flags);
  if (settings.answer === 'client' && facts.relay === true) {
    return { verdict: 'allow', reasons: [SERVER_REQUEST_REASONS.elicitationRelay, ...extra], decidedBy: 'relay', route: 'client', reviewResponse: false, flags };
  }
  if (facts.canAsk !== true) return deny(SERVER_REQUEST_REASONS.noApprover, 'no-approver', flags);
  return { verdict: 'ask', reasons: [SERVER_REQUEST_REASONS.elicitationAsk, ...extra], decidedBy: 'ask', route: 'airlock', reviewResponse: false, flags };
}

/** A root as MCP sends it. */
export interface RootEntry {
  uri: string;
  name: string;
}

/**
 * The roots a server is told: exactly the folders its profile grants (read
 * and write), as `file://` URIs, each once. Nothing else — not Airlock's
 * folders, not the temporary folder, not the home folder.
 * SECURITY: "roots never wider than grants" (issue 12).
 */
export function rootsFromGrants(profile: Pick<SandboxProfile, 'filesystem'>): RootEntry[] {
  const read = Array.isArray(profile?.filesystem?.read) ? profile.filesystem.read : [];
  const write = Array.isArray(profile?.filesystem?.write) ? profile.filesystem.write : [];
  const out: RootEntry[] = [];
  const seen = new Set<string>();
  for (const [path, access] of [...write.map((p) => [p, 'read and write'] as const), ...read.map((p) => [p, 'read only'] as const)]) {
    if (typeof path !== 'string' || !path.startsWith('/') || seen.has(path)) continue;
    seen.add(path);
    const base = path.split('/').filter(Boolean).pop() ?? '/';
    out.push({ uri: fileUri(path), name: `${base} (${access})` });
  }
  return out;
}

function fileUri(path: string): string {
  return `file://${path.split('/').map((segment) => encodeURIComponent(segment)).join('/')}`;
}
