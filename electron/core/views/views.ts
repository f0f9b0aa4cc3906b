/**
 * Builds the views the renderer and the CLI show from the core's state. The
 * shells hold no policy: every reading, preview and warning comes from here.
 */
import { APP_LABELS, type PolicyMode, type Rule, type ServerRecord, type ServerState, type ToolDefinition } from '../../../shared/domain';
import type { ServerSummary, ToolReadingView, ToolView } from '../../../shared/views';
import { readTool } from '../policy/annotations';
import { summariseSandbox } from '../policy/containment';
import { decide, type CodeChange, type SessionGrant } from '../policy/decide';
import { diffToolDefinitions } from '../policy/diff';
import { reviewState } from '../policy/review';
import { toDiffView, toPolicyPreview, toReadingView } from '../policy/views';
import type { IndexedTool } from '../servers/tool-index';
import { toolWarnings } from '../tools/tool-warnings';
import { toolScreen, toolVisibility } from '../../../shared/screens';
import { claimCheckOf, claimsCheckView, claimsFactsOf, claimsToReview, usableAnnotations } from '../claims/claim-state';

/** How gateway clients see a tool: `server__tool`. */
export function namespacedToolName(server: string, tool: string): string {
  return `${server}__${tool}`;
}

/** Airlock's reading of a tool, from its (claimed) annotations. */
export function readingView(definition: ToolDefinition): ToolReadingView {
  return toReadingView(readTool(definition.annotations), definition.annotations);
}

export interface ToolViewContext {
  record: ServerRecord;
  rules: readonly Rule[];
  sessionGrants: readonly SessionGrant[];
  mode: PolicyMode;
  sandboxAvailable: boolean;
  /** Other servers' tool names, for collisions and cross-references. */
  otherServersTools: ReadonlyMap<string, readonly string[]>;
  /** This server's own tool names (its description may name them freely). */
  ownTools?: readonly string[];
  now: number;
  /** The server's code changed since it was approved (found at its last start). */
  codeChange?: CodeChange | null;
}

/** One tool with its claims, Airlock's reading, the effective decision and warnings. */
export function toolView(definition: ToolDefinition, fingerprint: string, context: ToolViewContext): ToolView {
  const { record } = context;
  const review = reviewState(record.approvedTools, definition.name, fingerprint);
  const approved = review.kind === 'new' ? undefined : review.approved;
  const decision = decide(
    { server: record.name, tool: definition.name, arguments: {}, caller: { kind: 'client', name: 'an AI app' } },
    {
      tool: { definition, fingerprint },
      server: {
        trusted: record.trusted,
        blocked: false,
        profile: record.profile,
        sandboxAvailable: context.sandboxAvailable || record.profile.unsandboxed !== undefined,
        codeChange: context.codeChange ?? null,
        ...(record.spec.remote ? { remote: { url: record.spec.remote.url } } : {}),
      },
      rules: context.rules,
      sessionGrants: context.sessionGrants,
      mode: context.mode,
      approved,
      claims: claimsFactsOf(record, definition.name),
    },
    context.now,
  );
  const check = claimCheckOf(record, definition.name);
  const preview = toPolicyPreview(decision);
  const rule = context.rules.find((candidate) => candidate.server === record.name && candidate.tool === definition.name && candidate.fingerprint === fingerprint);
  let pendingChange: ToolView['pendingChange'];
  if (review.kind === 'changed') {
    const diff = diffToolDefinitions(review.approved.definition, definition);
    pendingChange = { diff: toDiffView(diff), suspicious: diff.suspicious };
  }
  return {
    name: definition.name,
    namespacedName: namespacedToolName(record.name, definition.name),
    ...(definition.title !== undefined ? { title: definition.title } : definition.annotations?.title !== undefined ? { title: definition.annotations.title } : {}),
    ...(definition.description !== undefined ? { description: definition.description } : {}),
    inputSchema: definition.inputSchema,
    ...(definition.annotations ? { claimed: definition.annotations } : {}),
    // Airlock's reading: of what it claims, or — its claims withdrawn — of a tool that claims nothing (the claims still show as said).
    reading: toReadingView(readTool(usableAnnotations(record, definition.name, definition.annotations)), definition.annotations),
    preview,
    fingerprint,
    ...(rule ? { rule: { effect: rule.effect, createdAt: rule.createdAt } } : {}),
    ...(review.kind === 'approved' ? { approvedAt: review.approved.approvedAt } : {}),
    ...(pendingChange ? { pendingChange } : {}),
    isNew: review.kind === 'new',
    ...screenOfView(definition),
    warnings: toolWarnings(definition, {
      server: record.name,
      otherServersTools: context.otherServersTools,
      hasNetwork: record.profile.network.allowedDomains.length > 0,
      ...(context.ownTools ? { ownTools: context.ownTools } : {}),
    }),
    ...(check ? { claimsCheck: claimsCheckView(check) } : {}),
  };
}

/** The tools to show for a server: the live listing when there is one, else the approved definitions. */
export function toolsOf(record: ServerRecord, live: readonly IndexedTool[] | undefined): Array<{ definition: ToolDefinition; fingerprint: string }> {
  if (live) return live.map((tool) => ({ definition: tool.definition, fingerprint: tool.fingerprint }));
  return Object.values(record.approvedTools).map((approved) => ({ definition: approved.definition, fingerprint: approved.fingerprint }));
}

/** Where a server came from, in a few words. */
export function sourceLabel(record: Pick<ServerRecord, 'provenance' | 'importedFrom'>): string {
  const p = record.provenance;
  const base =
    p.kind === 'npm'
      ? `npm ${p.name}@${p.version}`
      : p.kind === 'mcpb'
        ? `MCPB bundle ${p.name}@${p.version} (${p.signature === 'verified' ? 'signed' : p.signature === 'present-unverified' ? 'signature not verified' : 'unsigned'})`
        : p.kind === 'pypi'
          ? `PyPI ${p.name}==${p.version}`
          : p.kind === 'remote'
            ? `remote server at ${p.url}`
            : `local command ${p.executable}`;
  const listed = p.kind !== 'local' && p.kind !== 'remote' && p.registry ? ` (listed in the MCP Registry as ${p.registry.name} ${p.registry.version})` : '';
  return record.importedFrom ? `${base}${listed}, imported from ${APP_LABELS[record.importedFrom.app]}` : `${base}${listed}`;
}

export function serverSummary(
  record: ServerRecord,
  status: { state: ServerState; lastError?: string },
  tools: readonly { definition: ToolDefinition; fingerprint: string }[],
  codeChange: CodeChange | null = null,
): ServerSummary {
  const sandbox = summariseSandbox(record.profile, record.spec.remote);
  const states = tools.map((tool) => reviewState(record.approvedTools, tool.definition.name, tool.fingerprint).kind);
  return {
    name: record.name,
    state: status.state,
    enabled: record.enabled,
    trusted: record.trusted,
    sandboxed: record.profile.unsandboxed === undefined && !record.spec.remote,
    ...(sandbox.remote ? { remote: { ...sandbox.remote } } : {}),
    network: sandbox.networkDomains.length > 0,
    summary: sandbox.line,
    source: sourceLabel(record),
    toolCount: tools.length,
    pendingChanges: states.filter((state) => state === 'changed').length,
    newTools: states.filter((state) => state === 'new').length,
    codeChanged: codeChange !== null,
    claimsToReview: claimsToReview(record),
    ...(status.lastError ? { lastError: status.lastError } : {}),
  };
}

/** The screen (MCP Apps) a tool names, and who the server says may call it (stated only when not everyone). */
function screenOfView(definition: ToolDefinition): Pick<ToolView, 'screen' | 'visibility'> {
  const screen = toolScreen(definition);
  const visibility = toolVisibility(definition._meta);
  return { ...(screen ? { screen: { uri: screen.uri } } : {}), ...(visibility.length < 2 ? { visibility } : {}) };
}
