/**
 * Builds the views the renderer and the CLI show from the core's state. The
 * shells hold no policy: every reading, preview and warning comes from here.
 */
import type { PolicyMode, Rule, ServerRecord, ServerState, ToolDefinition } from '../../../shared/domain';
import type { ConfirmationView, DefinitionDiffView, PolicyPreview, ServerSummary, ToolReadingView, ToolView } from '../../../shared/views';
import type { ConfirmationRequest } from '../approvals';
import { describeClaims, readTool } from '../policy/annotations';
import { summariseSandbox } from '../policy/containment';
import { decide, type SessionGrant } from '../policy/decide';
import type { DefinitionDiff } from '../policy/diff';
import { diffToolDefinitions } from '../policy/diff';
import type { IndexedTool } from '../servers/tool-index';
import { toolWarnings } from '../tools/tool-warnings';

/** How gateway clients see a tool: `server__tool`. */
export function namespacedToolName(server: string, tool: string): string {
  return `${server}__${tool}`;
}

export function readingView(definition: ToolDefinition): ToolReadingView {
  const reading = readTool(definition.annotations);
  return {
    class: reading.toolClass,
    openWorld: reading.openWorld,
    idempotent: reading.idempotent,
    contradictory: reading.contradictory,
    claims: describeClaims(definition.annotations),
  };
}

export function diffView(diff: DefinitionDiff): DefinitionDiffView {
  return {
    changes: diff.changes.map((change) => ({
      field: change.label,
      ...(change.before !== undefined ? { before: change.before } : {}),
      ...(change.after !== undefined ? { after: change.after } : {}),
      parts: change.parts,
    })),
    loosenings: diff.loosening.map((loosening) => loosening.message),
  };
}

const PREVIEW_LABEL = { allow: 'Runs without asking', ask: 'Asks', deny: 'Blocked' } as const;

export interface ToolViewContext {
  record: ServerRecord;
  rules: readonly Rule[];
  sessionGrants: readonly SessionGrant[];
  mode: PolicyMode;
  sandboxAvailable: boolean;
  /** Other servers' tool names, for collisions and cross-references. */
  otherServersTools: ReadonlyMap<string, readonly string[]>;
  now: number;
}

/** One tool with its claims, Airlock's reading, the effective decision and warnings. */
export function toolView(definition: ToolDefinition, fingerprint: string, context: ToolViewContext): ToolView {
  const { record } = context;
  const decision = decide(
    { server: record.name, tool: definition.name, arguments: {}, caller: { kind: 'agent', name: 'an AI app' } },
    {
      tool: { definition, fingerprint },
      server: { trusted: record.trusted, blocked: false, profile: record.profile, sandboxAvailable: context.sandboxAvailable || record.profile.unsandboxed !== undefined },
      rules: context.rules,
      sessionGrants: context.sessionGrants,
      mode: context.mode,
      approved: record.approvedTools[definition.name],
    },
    context.now,
  );
  const preview: PolicyPreview = {
    verdict: decision.verdict,
    label: decision.verdict === 'ask' && decision.confirmationKind === 'destructive' ? 'Always asks' : PREVIEW_LABEL[decision.verdict],
    reasons: decision.reasons,
  };
  const rule = context.rules.find((candidate) => candidate.server === record.name && candidate.tool === definition.name && candidate.fingerprint === fingerprint);
  const approved = record.approvedTools[definition.name];
  let pendingChange: ToolView['pendingChange'];
  if (approved && approved.fingerprint !== fingerprint) {
    const diff = diffToolDefinitions(approved.definition, definition);
    pendingChange = { diff: diffView(diff), suspicious: diff.suspicious };
  }
  return {
    name: definition.name,
    namespacedName: namespacedToolName(record.name, definition.name),
    ...(definition.title !== undefined ? { title: definition.title } : definition.annotations?.title !== undefined ? { title: definition.annotations.title } : {}),
    ...(definition.description !== undefined ? { description: definition.description } : {}),
    inputSchema: definition.inputSchema,
    ...(definition.annotations ? { claimed: definition.annotations } : {}),
    reading: readingView(definition),
    preview,
    fingerprint,
    ...(rule ? { rule: { effect: rule.effect, createdAt: rule.createdAt } } : {}),
    ...(approved && approved.fingerprint === fingerprint ? { approvedAt: approved.approvedAt } : {}),
    ...(pendingChange ? { pendingChange } : {}),
    isNew: !approved,
    warnings: toolWarnings(definition, {
      server: record.name,
      otherServersTools: context.otherServersTools,
      hasNetwork: record.profile.network.allowedDomains.length > 0,
    }),
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
        : `local command ${p.executable}`;
  return record.importedFrom ? `${base}, imported from ${APP_LABEL[record.importedFrom.app]}` : base;
}

const APP_LABEL = { claude: 'Claude Desktop', vscode: 'VS Code', cursor: 'Cursor', file: 'a config file' } as const;

export function serverSummary(
  record: ServerRecord,
  status: { state: ServerState; lastError?: string },
  tools: readonly { definition: ToolDefinition; fingerprint: string }[],
): ServerSummary {
  const sandbox = summariseSandbox(record.profile);
  const pendingChanges = tools.filter((tool) => {
    const approved = record.approvedTools[tool.definition.name];
    return approved !== undefined && approved.fingerprint !== tool.fingerprint;
  }).length;
  return {
    name: record.name,
    state: status.state,
    enabled: record.enabled,
    trusted: record.trusted,
    sandboxed: record.profile.unsandboxed === undefined,
    network: sandbox.networkDomains.length > 0,
    summary: sandbox.line,
    source: sourceLabel(record),
    toolCount: tools.length,
    pendingChanges,
    ...(status.lastError ? { lastError: status.lastError } : {}),
  };
}

/** A confirmation as the dialog shows it, with Airlock's own headline. */
export function confirmationView(request: ConfirmationRequest, profileLine: string): ConfirmationView {
  const callerLabel = request.caller.kind === 'user' ? 'You' : request.caller.name;
  const reading = readingView({ name: request.tool, inputSchema: request.inputSchema as Record<string, unknown>, ...(request.claimedAnnotations ? { annotations: request.claimedAnnotations } : {}) });
  return {
    id: request.id,
    headline: headline(callerLabel, request.server, request.tool, reading.class, request.arguments),
    caller: request.caller,
    callerLabel,
    server: request.server,
    serverTrusted: request.serverTrusted,
    serverSandboxed: !request.sandbox.unsandboxed,
    sandboxSummary: profileLine,
    tool: request.tool,
    ...(request.title !== undefined ? { toolTitle: request.title } : {}),
    ...(request.description !== undefined ? { toolDescription: request.description } : {}),
    inputSchema: { ...request.inputSchema },
    arguments: { ...request.arguments },
    ...(request.claimedAnnotations ? { claimed: { ...request.claimedAnnotations } } : {}),
    reading,
    reasons: [...request.reasons],
    destructive: request.confirmationKind === 'destructive',
    ...(request.changes && !request.changes.identical ? { changes: diffView(request.changes) } : {}),
    deadline: request.deadline,
    createdAt: request.openedAt,
  };
}

/**
 * "Claude Desktop wants filesystem to run write_file on ~/notes.md — it may
 * delete or overwrite things." Built from Airlock's reading and the
 * arguments, never from the server's description (UX.md 1).
 */
function headline(caller: string, server: string, tool: string, toolClass: ToolView['reading']['class'], args: Readonly<Record<string, unknown>>): string {
  const target = firstTarget(args);
  const consequence =
    toolClass === 'destructive' ? 'it may delete or overwrite things' : toolClass === 'changes-things' ? 'it may change things' : 'it says it only reads';
  const who = caller === 'You' ? 'You are about' : `${caller} wants`;
  const verb = caller === 'You' ? `to run ${server} › ${tool}` : `to run ${server} › ${tool}`;
  return `${who} ${verb}${target ? ` on ${target}` : ''} — ${consequence}.`;
}

/** The object of a call, when an argument clearly names one (a path, a URL, a name). */
function firstTarget(args: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of ['path', 'file', 'filePath', 'filename', 'source', 'destination', 'url', 'uri', 'name', 'id']) {
    const value = args[key];
    if (typeof value === 'string' && value.length > 0) return value.length > 120 ? `${value.slice(0, 117)}…` : value;
  }
  return undefined;
}

