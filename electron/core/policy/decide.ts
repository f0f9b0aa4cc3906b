/**
 * The policy as one pure function, `decide()`, and its table (ARCHITECTURE.md,
 * Policy in one table). One file on purpose: the table reads top to bottom, each
 * row beside the reason it gives; annotations, containment, diffs and review are
 * files of their own.
 */
import type {
  ApprovedTool,
  Caller,
  PolicyMode,
  Rule,
  SandboxProfile,
  ToolDefinition,
  ToolFingerprint,
  Verdict,
} from '../../../shared/domain';
import { readTool, type ToolReading } from './annotations';
import { isContained } from './containment';
import { diffToolDefinitions, type DefinitionDiff, type Loosening } from './diff';

/** A tool call as a caller asks for it. */
export interface ToolCall {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  caller: Caller;
}

/**
 * "Allow for this session": bound, like a rule, to the fingerprint of the
 * definition the person saw. Lives only in memory (see `SessionGrants`).
 */
export interface SessionGrant {
  server: string;
  tool: string;
  fingerprint: ToolFingerprint;
  /** Epoch milliseconds. */
  grantedAt: number;
  /** Epoch milliseconds; absent: until Airlock stops. */
  expiresAt?: number;
}

/** One file of a local server's code: the hash pinned when the person approved it, and the hash at its last start. */
export interface CodeFile {
  role: 'executable' | 'script';
  path: string;
  /** sha256 the person approved (at install, or when they last approved its code). */
  approved: string;
  /** sha256 found at the server's last start; null when the file could not be read. */
  current: string | null;
}

/** The server's code differs from what the person approved (at least one file). */
export interface CodeChange {
  files: CodeFile[];
}

/** What Airlock knows about the server, none of it from the server itself. */
export interface ServerFacts {
  /** The user chose to trust this server's annotations. */
  trusted: boolean;
  /** The user blocked the server (or Airlock quarantined it). */
  blocked?: boolean;
  profile: SandboxProfile;
  /** The OS sandbox runs on this machine and wraps this server. */
  sandboxAvailable: boolean;
  /**
   * Its executable or script changed since the person approved it (found at
   * its last start); absent or null: unchanged, or not a local server.
   */
  codeChange?: CodeChange | null | undefined;
  /**
   * Set when the server runs elsewhere and is reached by URL (its spec says
   * so, in Airlock's own store). A remote server is never contained — no
   * sandbox is around it — and its tools are read as open-world whatever they
   * claim; its read-only claims reduce prompts only when the person trusts it.
   * Anything but undefined or null counts as remote (fails closed).
   */
  remote?: { url: string } | null | undefined;
}

/** Everything `decide()` looks at besides the call. */
export interface PolicyFacts {
  /** The tool's current definition and its fingerprint; absent: the server does not offer it. */
  tool?: { definition: ToolDefinition; fingerprint: ToolFingerprint } | undefined;
  server: ServerFacts;
  /** The user's rules (any server/tool; only matching ones count). */
  rules: readonly Rule[];
  /** Session grants (any server/tool; only matching, unexpired ones count). */
  sessionGrants: readonly SessionGrant[];
  mode: PolicyMode;
  /**
   * The definition the person approved for this tool name (`ServerRecord.approvedTools`),
   * read by own entry. Absent: the tool is not in the approved set — it is *new*
   * (added after install, or never reviewed) and its first call asks, whatever the
   * server's trust or containment. Absence fails closed: a caller that forgets to
   * pass it gets a question, never a silent allow.
   */
  approved?: ApprovedTool | undefined;
  /** Earlier definitions Airlock kept, to show what changed since a voided rule. */
  earlierDefinitions?: readonly ApprovedTool[] | undefined;
  /**
   * What the organisation's managed policy says for this server (read and
   * worked out in electron/core/managed-policy/, passed in as facts; absent:
   * no policy). It only ever makes a call stricter.
   */
  organisation?: OrganisationFacts | undefined;
  /**
   * The tool did something its claims say it does not (claims/, from what
   * Airlock observed during its calls), and its claims may not be used:
   * worked out elsewhere and passed in, like the annotations. Absent: its
   * claims count as usual.
   */
  claims?: ClaimsFacts | undefined;
}

/**
 * A tool whose behaviour contradicted its claims: they are not used — it is
 * read as a tool that says nothing about itself, so trust and containment
 * spare it no prompt — and "always allow" rules and session permissions
 * made before the contradiction (on the strength of those claims) do not
 * count. Only ever stricter: nothing here makes a call ask less.
 */
export interface ClaimsFacts {
  /** `withdrawn`: until the person reviews what it did; `distrusted`: the person chose not to trust its claims. */
  state: 'withdrawn' | 'distrusted';
  /** Epoch ms of the contradiction that withdrew them. */
  since: number;
  /** What it did, in Airlock's words (the latest one or two). */
  evidence: readonly string[];
}

/** The managed policy's answers for one call's server (see managed-policy/policy-rules.ts). */
export interface OrganisationFacts {
  /** The server may not run: every call is denied with this message. */
  blocked?: { key: string; message: string } | undefined;
  /** `allowTrust: false`: the person's trust in the server does not count. */
  trustForbidden?: boolean | undefined;
  /** `allowAlwaysForDestructive: false`: an "always allow" rule for a destructive tool does not count, and none can be made. */
  alwaysForDestructiveForbidden?: boolean | undefined;
  /** `mode: "strict"`: strict mode whatever the person chose. */
  strict?: boolean | undefined;
}

/** A rule or grant that no longer counts because the tool's definition changed. */
export interface VoidedRule {
  source: 'rule' | 'session-grant';
  effect: 'allow' | 'deny';
  /** The fingerprint it was made for. */
  fingerprint: ToolFingerprint;
  /** ISO time (rules) or epoch ms as ISO (grants). */
  createdAt: string;
}

/** Things the shells should show or record besides the verdict. */
export interface DecisionFlags {
  /** Read-only and explicitly destructive: counted as destructive. */
  contradictory: boolean;
  /** Rules and grants made for an older definition (invariant 3). */
  voidedRules: VoidedRule[];
  /** The definition differs from the one the user approved. */
  changedSinceApproval: { approvedFingerprint: ToolFingerprint } | null;
  /** The tool is not in the set the person approved: it appeared after install (or was never reviewed). */
  unreviewed: boolean;
  /** The server's code changed since the person approved it: every rule and grant made before is void. */
  codeChanged: CodeChange | null;
  /** Annotation loosening found in the change (suspicious after approval). */
  suspiciousLoosening: Loosening[];
  /** Claims or defaults to an open world while its sandbox gives it no network. */
  openWorldWithoutNetwork: boolean;
  /** The server runs (or would run) without a working sandbox (never set for a remote server: see `remote`). */
  unsandboxed: boolean;
  /** The server runs on another computer, reached by URL: no sandbox, never contained, open-world. */
  remote: boolean;
  /** Its profile is contained and the sandbox can run. */
  contained: boolean;
  /** A standing allow (rule or grant) exists but strict mode asks anyway. */
  allowOverriddenByStrictMode: boolean;
  /** The organisation's policy forbids "always allow" for this (destructive) tool: a person can allow it once or for the session, never always. */
  alwaysForbiddenByOrganisation?: boolean;
  /** Its behaviour contradicted its claims: they are not used (see `ClaimsFacts`). */
  claimsWithdrawn?: boolean;
  /** "Always allow" rules or session permissions made before the contradiction that no longer count. */
  suspendedAllows?: number;
}

/** What made the verdict, for the audit log and "revoke the rule that allowed this". */
export type DecidedBy =
  | { kind: 'policy-error' }
  | { kind: 'unknown-tool' }
  /** Not the policy's: the server is enabled but not running (it crashed, or could not start), so nothing could take the call. Set by the call pipeline. */
  | { kind: 'server-not-running' }
  | { kind: 'blocked' }
  | { kind: 'organisation' }
  | { kind: 'rule'; rule: Rule }
  | { kind: 'session-grant'; grant: SessionGrant }
  | { kind: 'definition-changed' }
  | { kind: 'new-tool' }
  | { kind: 'code-changed' }
  | { kind: 'strict-mode' }
  | { kind: 'claims-contradicted' }
  | { kind: 'trusted-read-only' }
  | { kind: 'contained-read-only' }
  | { kind: 'destructive' }
  | { kind: 'trusted-changes-things' }
  | { kind: 'untrusted' };

/** The policy's answer for one call. */
export interface Decision {
  verdict: Verdict;
  /** Plain words written by Airlock; never the server's text. */
  reasons: string[];
  /** Airlock's reading of the tool; null when the tool is unknown or on a policy error. */
  reading: ToolReading | null;
  fingerprint: ToolFingerprint | null;
  flags: DecisionFlags;
  /** 'once-after-reconnect' only for a stated-idempotent tool of a trusted server (invariant 4). */
  retry: 'never' | 'once-after-reconnect';
  /** 'destructive' asks for the stronger dialog (UX.md 5, 8). */
  confirmationKind: 'normal' | 'destructive';
  /** An "always allow" answer must be confirmed a second time (destructive tools). */
  alwaysNeedsSecondConfirmation: boolean;
  decidedBy: DecidedBy;
  /** What changed since the approved definition or a voided rule, when Airlock has the old one. */
  changes: DefinitionDiff | null;
}

/** Reason texts, kept in one place so shells and tests can refer to them. */
export const REASONS = {
  policyError: 'Airlock could not evaluate its policy for this call (policy error), so it refuses it.',
  unknownTool: 'The server does not offer this tool now (unknown tool).',
  nameMismatch: 'The tool definition Airlock holds is for a different tool (policy error).',
  blocked: 'This server is turned off.',
  denyRule: 'You made a rule to deny this tool.',
  allowRule: 'You made a rule to always allow this tool, for exactly this definition.',
  sessionGrant: 'You allowed this tool for this session.',
  voided: 'The tool changed since you made a rule for it, so that rule no longer counts.',
  voidedGrant: 'The tool changed since you allowed it for this session, so that permission no longer counts.',
  changedSinceApproval: 'The tool changed since you approved it; review what changed.',
  codeChanged:
    'The server’s code changed since you approved it, so every rule and permission you made before no longer counts and Airlock asks before each call. Review the change on the server’s page and approve the new code to pin it.',
  unreviewed:
    'This tool is new: it was not among the tools you reviewed when you added the server (added after install), so Airlock asks before it runs, whatever the server’s trust or sandbox. Approve it on the server’s page to add it to what you reviewed.',
  suspicious: 'Suspicious: the change makes the tool claim to need less caution than before.',
  strict: 'Strict mode asks before every call.',
  strictOverridesAllow: 'You allowed this tool before, but strict mode asks anyway.',
  trustedReadOnly: 'You trust this server, and it says this tool only reads.',
  containedReadOnly:
    'It says this tool only reads, and its sandbox makes that safe whatever it claims: no network, no secrets, and nothing it writes outlives it. The sandbox, not the claim, makes this safe.',
  destructive: 'This tool may delete or overwrite things (destructive).',
  destructiveUnstated: 'It does not say whether it is destructive, so Airlock treats it as destructive.',
  contradictory: 'It says it is read-only and destructive at once; Airlock treats it as destructive.',
  changesThings: 'This tool may change things.',
  untrusted: 'You have not marked this server as trusted, so its claims about the tool do not reduce prompts.',
  untrustedReadOnlyClaim: 'It says this tool only reads; that is a claim Airlock does not rely on for an untrusted server.',
  openWorld: 'It may reach outside your machine.',
  openWorldUnstated: 'It does not say whether it reaches outside your machine, so Airlock assumes it may reach outside your machine.',
  noNetworkClaimed: 'It claims it reaches the internet, but has no network access.',
  noNetworkDefault: 'It has no network access, so it cannot reach the internet.',
  unsandboxed: 'This server runs without a sandbox: it can do anything you can.',
  remote:
    'This server runs on another computer, reached over the network: no sandbox is around it, so Airlock reads every one of its tools as reaching outside your machine, whatever it claims, and only decides what reaches it.',
  remoteUntrustedReadOnlyClaim:
    'It says this tool only reads; for a remote server that you have not marked as trusted, Airlock does not rely on it (only trust makes a remote server’s read-only tools run without asking).',
  noRetry: 'If the call times out, Airlock will not retry it: the server may have acted.',
  organisationTrust: "Your organisation's policy does not let trust reduce prompts (allowTrust: false), so this server counts as untrusted.",
  organisationAlways:
    "Your organisation's policy does not allow “always” for a tool that may delete or overwrite things (allowAlwaysForDestructive: false), so your rule for it does not count and this call asks.",
  organisationAlwaysChoice: "Your organisation's policy does not allow “always allow” for a tool that may delete or overwrite things (allowAlwaysForDestructive: false): allow it once or for this session.",
  organisationStrict: "Your organisation's policy sets strict mode (mode: strict): every call asks.",
  claimsWithdrawn:
    'During an earlier call this tool did something its claims say it does not, so Airlock no longer uses its claims: it treats it as a tool that says nothing about itself, whatever the server’s trust or sandbox, until you review what it did on the server’s page.',
  claimsDistrusted: 'You chose not to trust this tool’s claims after it did something they say it does not: Airlock treats it as a tool that says nothing about itself.',
  claimsSuspendedAllow:
    'You allowed this tool (always, or for this session) before it contradicted its claims, so that permission does not count until you review what it did.',
} as const;

const NO_FLAGS = (): DecisionFlags => ({
  contradictory: false,
  voidedRules: [],
  changedSinceApproval: null,
  unreviewed: false,
  codeChanged: null,
  suspiciousLoosening: [],
  openWorldWithoutNetwork: false,
  unsandboxed: false,
  remote: false,
  contained: false,
  allowOverriddenByStrictMode: false,
});

function failClosed(reason: string, decidedBy: DecidedBy, extra?: Partial<Decision>): Decision {
  return {
    verdict: 'deny',
    reasons: [reason],
    reading: null,
    fingerprint: null,
    flags: NO_FLAGS(),
    retry: 'never',
    confirmationKind: 'normal',
    alwaysNeedsSecondConfirmation: false,
    decidedBy,
    changes: null,
    ...extra,
  };
}

/**
 * The call policy: allow, ask or deny one tool call, with reasons a person
 * can read and what must follow. Pure: no I/O, no clock (`now` is epoch
 * milliseconds, used only for grant expiry), no awaits; it never throws —
 * any internal error is a deny ("policy error").
 *
 * Order (first match wins), the table of ARCHITECTURE.md:
 * 1. unknown tool → deny; blocked server → deny;
 * 2. a deny rule for the current fingerprint → deny;
 * 2b. the server's code changed since it was approved (re-hashed at each
 *    start) → ask, whatever rules or grants say (they were made for the old code);
 * 3. an allow rule for the current fingerprint, or an unexpired session
 *    grant for it → allow (strict mode: ask, see below);
 * 4. a rule or grant for an older fingerprint, or a definition that differs
 *    from the approved one → ask, with what changed;
 * 5. a tool not in the approved set (new: added after install) → ask;
 * 6. strict mode → ask;
 * 6b. the tool's behaviour contradicted its claims (`facts.claims`) → ask:
 *    its claims are read as absent from the start (so neither trust nor
 *    containment relaxes it), and allow rules and session grants made
 *    before the contradiction do not count at step 3;
 * 7. trusted + explicit read-only → allow;
 * 8. contained (profile and a working sandbox) + read-only claim → allow,
 *    even untrusted — never for a remote server (`server.remote`): nothing
 *    contains it, so only trust lets its read-only claims reduce prompts;
 * 9. everything else → ask (destructive with the stronger dialog).
 *
 * Strict mode asks for everything, including calls a standing allow rule or
 * session grant would allow; only denials (unknown tool, blocked, deny rule,
 * policy error) still deny. Rules are not deleted, only not used to skip the
 * prompt while strict mode is on.
 *
 * SECURITY: invariant 1 (only allow or a person's approval lets a call
 * through), invariant 2 (an untrusted server's annotations never reduce
 * prompts — the only relaxation for an untrusted server is containment,
 * which the sandbox enforces), invariant 3 (rules bind to fingerprints),
 * what the person never saw does not run unasked (row 5: trust and
 * containment relax only tools the person reviewed), invariant 4 (retry only idempotent tools of trusted servers). Fails closed.
 */
export function decide(call: ToolCall, facts: PolicyFacts, now: number): Decision {
  try {
    return decideUnsafe(call, facts, now);
  } catch {
    return failClosed(REASONS.policyError, { kind: 'policy-error' });
  }
}

function decideUnsafe(call: ToolCall, facts: PolicyFacts, now: number): Decision {
  if (typeof call !== 'object' || call === null || typeof facts !== 'object' || facts === null) {
    return failClosed(REASONS.policyError, { kind: 'policy-error' });
  }
  if (typeof call.server !== 'string' || typeof call.tool !== 'string' || typeof now !== 'number' || Number.isNaN(now)) {
    return failClosed(REASONS.policyError, { kind: 'policy-error' });
  }
  const server = facts.server;
  if (typeof server !== 'object' || server === null) return failClosed(REASONS.policyError, { kind: 'policy-error' });
  if (!Array.isArray(facts.rules) || !Array.isArray(facts.sessionGrants)) {
    return failClosed(REASONS.policyError, { kind: 'policy-error' });
  }
  if (facts.mode !== 'default' && facts.mode !== 'strict') return failClosed(REASONS.policyError, { kind: 'policy-error' });

  // Blocked first: a blocked server is refused whatever it offers.
  if (server.blocked === true) return failClosed(REASONS.blocked, { kind: 'blocked' });
  // SECURITY: the organisation's policy only ever makes a call stricter; anything but a plain object fails closed.
  const organisation = facts.organisation;
  if (organisation !== undefined && (typeof organisation !== 'object' || organisation === null)) return failClosed(REASONS.policyError, { kind: 'policy-error' });
  if (organisation?.blocked) return failClosed(String(organisation.blocked.message), { kind: 'organisation' });

  const tool = facts.tool;
  if (!tool || typeof tool !== 'object' || !tool.definition || typeof tool.fingerprint !== 'string' || tool.fingerprint.length === 0) {
    return failClosed(REASONS.unknownTool, { kind: 'unknown-tool' });
  }
  if (tool.definition.name !== call.tool) return failClosed(REASONS.nameMismatch, { kind: 'policy-error' });

  const fingerprint = tool.fingerprint;
  // SECURITY: invariant 2 — a remote server has no sandbox around it: it is never
  // contained, and every tool of it may reach outside the machine, whatever it claims.
  const remote = server.remote !== undefined && server.remote !== null;
  // SECURITY: behaviour only ever withdraws trust — a tool that contradicted its claims is read as
  // one that claims nothing (anything but absent counts: fails closed).
  const claims = facts.claims === undefined || facts.claims === null ? undefined : facts.claims;
  const claimed = readTool(claims ? undefined : tool.definition.annotations);
  const reading = remote ? { ...claimed, openWorld: true } : claimed;
  const trustForbidden = organisation?.trustForbidden === true;
  const trusted = server.trusted === true && !trustForbidden;
  const sandboxWorks = !remote && server.sandboxAvailable === true && server.profile?.unsandboxed === undefined;
  // SECURITY: invariant 2 — containment needs both an exact profile check and
  // a sandbox that actually runs; without the sandbox the profile is a wish.
  const contained = sandboxWorks && isContained(server.profile);
  const organisationStrict = organisation?.strict === true && facts.mode !== 'strict';
  const strict = facts.mode === 'strict' || organisationStrict;
  const destructive = reading.toolClass === 'destructive';
  const alwaysForbidden = destructive && organisation?.alwaysForDestructiveForbidden === true;
  const hasNetwork = remote || !sandboxWorks ? true : (server.profile.network?.allowedDomains?.length ?? 1) > 0;

  const flags: DecisionFlags = {
    ...NO_FLAGS(),
    ...(claims ? { claimsWithdrawn: true } : {}),
    contradictory: reading.contradictory,
    unsandboxed: !remote && !sandboxWorks,
    remote,
    contained,
    openWorldWithoutNetwork: reading.openWorld && !hasNetwork,
    ...(alwaysForbidden ? { alwaysForbiddenByOrganisation: true } : {}),
  };

  const mine = (r: { server: string; tool: string }) => r.server === call.server && r.tool === call.tool;
  const rules = facts.rules.filter(mine);
  const grants = facts.sessionGrants.filter(
    (g) => mine(g) && (typeof g.expiresAt !== 'number' || g.expiresAt > now),
  );

  // Invariant 3: only rules and grants for exactly this definition count.
  let currentRules = rules.filter((r) => r.fingerprint === fingerprint);
  let currentGrants = grants.filter((g) => g.fingerprint === fingerprint);
  if (claims) {
    // An allow made before the contradiction was made on the strength of the claims: it asks again (a deny still denies).
    const since = typeof claims.since === 'number' && !Number.isNaN(claims.since) ? claims.since : Number.POSITIVE_INFINITY;
    const before = (iso: string) => {
      const made = Date.parse(iso);
      return Number.isNaN(made) || made < since;
    };
    const keptRules = currentRules.filter((r) => r.effect === 'deny' || !before(r.createdAt));
    const keptGrants = currentGrants.filter((g) => typeof g.grantedAt === 'number' && g.grantedAt >= since);
    const suspended = currentRules.length - keptRules.length + currentGrants.length - keptGrants.length;
    if (suspended > 0) flags.suspendedAllows = suspended;
    currentRules = keptRules;
    currentGrants = keptGrants;
  }
  for (const r of rules) {
    if (r.fingerprint !== fingerprint) {
      flags.voidedRules.push({ source: 'rule', effect: r.effect, fingerprint: r.fingerprint, createdAt: r.createdAt });
    }
  }
  for (const g of grants) {
    if (g.fingerprint !== fingerprint) {
      flags.voidedRules.push({
        source: 'session-grant',
        effect: 'allow',
        fingerprint: g.fingerprint,
        createdAt: safeIso(g.grantedAt),
      });
    }
  }
  const approved = facts.approved;
  // SECURITY: what the person never saw does not run unasked — anything but a well-formed
  // approval (absent, or not an object with a fingerprint) counts as not reviewed.
  if (!approved || typeof approved !== 'object' || typeof approved.fingerprint !== 'string') flags.unreviewed = true;
  else if (approved.fingerprint !== fingerprint) flags.changedSinceApproval = { approvedFingerprint: approved.fingerprint };

  // What changed: against the definition a voided rule was made for, else the approved one.
  let changes: DefinitionDiff | null = null;
  const older = findOlderDefinition(flags, facts);
  if (older) {
    changes = diffToolDefinitions(older, tool.definition);
    flags.suspiciousLoosening = changes.loosening;
  }

  const retry: Decision['retry'] = trusted && reading.idempotent && !reading.contradictory ? 'once-after-reconnect' : 'never';
  const base = {
    reading,
    fingerprint,
    flags,
    retry,
    confirmationKind: destructive ? ('destructive' as const) : ('normal' as const),
    alwaysNeedsSecondConfirmation: destructive,
    changes,
  };
  const organisationReasons = [...(organisationStrict ? [REASONS.organisationStrict] : []), ...(trustForbidden && server.trusted === true ? [REASONS.organisationTrust] : [])];
  // What the tool did against its claims comes first, where any question about it is asked.
  const claimsReasons = claims
    ? [
        claims.state === 'distrusted' ? REASONS.claimsDistrusted : REASONS.claimsWithdrawn,
        ...(Array.isArray(claims.evidence) ? claims.evidence.slice(0, 2).map((line) => String(line).slice(0, 600)) : []),
        ...(flags.suspendedAllows ? [REASONS.claimsSuspendedAllow] : []),
      ]
    : [];
  const describe = (): string[] => [...claimsReasons, ...organisationReasons, ...describeTool(reading, flags, trusted, sandboxWorks || remote, retry)];

  // Deny rule for this exact definition: deny, in every mode.
  const denyRule = currentRules.find((r) => r.effect === 'deny');
  if (denyRule) {
    return { ...base, verdict: 'deny', reasons: [REASONS.denyRule], retry: 'never', decidedBy: { kind: 'rule', rule: denyRule } };
  }

  // The server's code changed since the person approved it: nothing made for the old code counts.
  const code = server.codeChange;
  if (code !== undefined && code !== null) {
    // SECURITY: a code change that cannot be read is still a change (fails closed).
    flags.codeChanged = { files: Array.isArray(code.files) ? code.files.map((file) => ({ ...file })) : [] };
    return {
      ...base,
      verdict: 'ask',
      reasons: [REASONS.codeChanged, ...flags.codeChanged.files.filter((file) => file.current !== file.approved).map(describeCodeFile), ...(strict ? [REASONS.strict] : []), ...describe()],
      decidedBy: { kind: 'code-changed' },
    };
  }

  // The user's own standing allow for this exact definition (not for a destructive tool when the organisation forbids "always").
  const allowRule = alwaysForbidden ? undefined : currentRules.find((r) => r.effect === 'allow');
  if (alwaysForbidden && currentRules.some((r) => r.effect === 'allow') && !currentGrants[0]) {
    return { ...base, verdict: 'ask', reasons: [REASONS.organisationAlways, ...(strict ? [REASONS.strict] : []), ...describe()], decidedBy: { kind: 'organisation' } };
  }
  const grant = currentGrants[0];
  if (allowRule || grant) {
    if (strict) {
      flags.allowOverriddenByStrictMode = true;
      return {
        ...base,
        verdict: 'ask',
        reasons: [REASONS.strict, REASONS.strictOverridesAllow, ...describe()],
        decidedBy: { kind: 'strict-mode' },
      };
    }
    return {
      ...base,
      verdict: 'allow',
      reasons: [allowRule ? REASONS.allowRule : REASONS.sessionGrant, ...describe()],
      decidedBy: allowRule ? { kind: 'rule', rule: allowRule } : { kind: 'session-grant', grant: grant! },
    };
  }

  // A changed definition: ask, showing what changed (hostile behaviour 2).
  if (flags.voidedRules.length > 0 || flags.changedSinceApproval) {
    const reasons: string[] = [];
    if (flags.voidedRules.some((v) => v.source === 'rule')) reasons.push(REASONS.voided);
    if (flags.voidedRules.some((v) => v.source === 'session-grant')) reasons.push(REASONS.voidedGrant);
    if (flags.changedSinceApproval) reasons.push(REASONS.changedSinceApproval);
    if (flags.unreviewed) reasons.push(REASONS.unreviewed);
    if (flags.suspiciousLoosening.length > 0) reasons.push(REASONS.suspicious);
    if (strict) reasons.push(REASONS.strict);
    return { ...base, verdict: 'ask', reasons: [...reasons, ...describe()], decidedBy: { kind: 'definition-changed' } };
  }

  // A tool the person never reviewed: its first call asks, whatever the server's trust or
  // containment (the install probe's reading covered only what it listed then).
  if (flags.unreviewed) {
    return { ...base, verdict: 'ask', reasons: [REASONS.unreviewed, ...(strict ? [REASONS.strict] : []), ...describe()], decidedBy: { kind: 'new-tool' } };
  }

  if (strict) {
    return { ...base, verdict: 'ask', reasons: [REASONS.strict, ...describe()], decidedBy: { kind: 'strict-mode' } };
  }

  // Its claims are not used: read as claiming nothing (destructive, open-world), it asks — and says why.
  if (claims) {
    return { ...base, verdict: 'ask', reasons: describe(), decidedBy: { kind: 'claims-contradicted' } };
  }

  if (reading.toolClass === 'read-only') {
    if (trusted) {
      return { ...base, verdict: 'allow', reasons: [REASONS.trustedReadOnly, ...describe()], decidedBy: { kind: 'trusted-read-only' } };
    }
    if (contained) {
      return {
        ...base,
        verdict: 'allow',
        reasons: [REASONS.containedReadOnly, ...describe()],
        decidedBy: { kind: 'contained-read-only' },
      };
    }
  }

  if (destructive) {
    return { ...base, verdict: 'ask', reasons: describe(), decidedBy: { kind: 'destructive' } };
  }
  if (trusted) {
    return { ...base, verdict: 'ask', reasons: describe(), decidedBy: { kind: 'trusted-changes-things' } };
  }
  return { ...base, verdict: 'ask', reasons: describe(), decidedBy: { kind: 'untrusted' } };
}

// Reasons about the tool itself, all in Airlock's words.
function describeTool(
  reading: ToolReading,
  flags: DecisionFlags,
  trusted: boolean,
  sandboxWorks: boolean,
  retry: Decision['retry'],
): string[] {
  const out: string[] = [];
  if (flags.remote) out.push(REASONS.remote);
  else if (!sandboxWorks) out.push(REASONS.unsandboxed);
  if (!trusted) {
    out.push(REASONS.untrusted);
    if (reading.toolClass === 'read-only') out.push(flags.remote ? REASONS.remoteUntrustedReadOnlyClaim : REASONS.untrustedReadOnlyClaim);
  }
  if (reading.contradictory) out.push(REASONS.contradictory);
  else if (reading.toolClass === 'destructive') {
    out.push(reading.stated.destructiveHint ? REASONS.destructive : REASONS.destructiveUnstated);
  } else if (reading.toolClass === 'changes-things') out.push(REASONS.changesThings);
  // A remote server's open world is said once, by REASONS.remote.
  if (reading.openWorld && !flags.remote) {
    out.push(reading.stated.openWorldHint ? REASONS.openWorld : REASONS.openWorldUnstated);
    if (flags.openWorldWithoutNetwork) {
      out.push(reading.stated.openWorldHint ? REASONS.noNetworkClaimed : REASONS.noNetworkDefault);
    }
  }
  if (retry === 'never' && reading.toolClass !== 'read-only') out.push(REASONS.noRetry);
  return out;
}

/** "Its script /path: sha256 0123456789ab… → fedcba987654…", in Airlock's words. */
function describeCodeFile(file: CodeFile): string {
  const short = (hash: unknown) => (typeof hash === 'string' ? `${hash.slice(0, 12)}…` : '?');
  const now = file.current === null ? 'cannot be read now' : `sha256 ${short(file.approved)} → ${short(file.current)}`;
  return `Its ${file.role === 'script' ? 'script' : 'program'} ${String(file.path)}: ${now}.`;
}

function findOlderDefinition(flags: DecisionFlags, facts: PolicyFacts): ToolDefinition | undefined {
  const known: ApprovedTool[] = [];
  if (Array.isArray(facts.earlierDefinitions)) known.push(...facts.earlierDefinitions);
  if (facts.approved) known.push(facts.approved);
  for (const v of flags.voidedRules) {
    const hit = known.find((k) => k.fingerprint === v.fingerprint);
    if (hit) return hit.definition;
  }
  if (flags.changedSinceApproval && facts.approved) return facts.approved.definition;
  return undefined;
}

function safeIso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}
