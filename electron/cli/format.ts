/**
 * Plain-text renderings of core views for the terminal. Server text is
 * printed inert: inside Airlock's lines on one line (`inert`), on lines of
 * its own behind the quote gutter (`quoteBlock`) — never at the start of a
 * row (see server-text.ts).
 */
import type { Disclosure, GrantProposalView, ProbeReport, ServerDetail, ServerSummary, ToolView } from '../../shared/views';
import { inline, quoteBlock } from './server-text';
import { palette, type Palette } from './terminal';

/** No colour: for pipes, --json and tests. */
const PLAIN = palette(false);

/**
 * Server text inside one of Airlock's lines: control and bidi characters
 * made visible, line breaks and tabs shown as `\n` and `\t` — so it can
 * neither rewrite the screen nor start a line of its own.
 */
export const inert = (text: string, max?: number): string => inline(text, max);

export { quoteBlock };

export function formatSummaryLine(server: ServerSummary, c: Palette = PLAIN): string {
  const state = server.state === 'ready' ? c.ok(server.state) : server.state === 'crashed' || server.state === 'quarantined' ? c.danger(server.state) : server.state;
  const badges = [
    state,
    server.enabled ? 'enabled' : 'disabled',
    server.trusted ? 'trusted' : 'untrusted',
    server.sandboxed ? 'sandboxed' : c.danger('NOT SANDBOXED'),
    server.network ? 'network' : 'no network',
    ...(server.pendingChanges ? [c.warn(`${server.pendingChanges} pending change(s)`)] : []),
    ...(server.newTools ? [c.warn(`${server.newTools} new tool(s) to review`)] : []),
    ...(server.codeChanged ? [c.danger('CODE CHANGED since approved')] : []),
    ...(server.claimsToReview ? [c.danger(`${server.claimsToReview} tool(s) did what their claims say they do not — review with \`airlock show ${server.name}\``)] : []),
  ];
  const note = server.stateNote ? `\n${' '.repeat(21)}${c.warn(inert(server.stateNote))}` : '';
  return `${c.heading(server.name.padEnd(20))} ${badges.join(' · ')}\n${' '.repeat(21)}${inert(server.summary)}${note}`;
}

/** Proposed grants, each with its reason and the flag that grants it; empty when there are none. */
export function formatProposals(proposals: readonly GrantProposalView[], c: Palette = PLAIN): string {
  if (proposals.length === 0) return '';
  const flag = (p: GrantProposalView) => `--${p.kind} ${quoteArg(p.value)}`;
  return [c.heading('It probably needs (not granted unless you grant it):'), ...proposals.map((p) => `  ${flag(p).padEnd(40)} ${c.dim(inert(p.reason))}`)].join('\n');
}

export function formatDisclosure(disclosure: Disclosure, c: Palette = PLAIN): string {
  const p = disclosure.provenance;
  const lines = [`${c.heading('Source:')} ${disclosure.sourceLabel}`];
  if (p.kind === 'npm') {
    lines.push(`  package ${inert(p.name)}@${inert(p.version)}`, `  integrity ${inert(p.integrity)}`);
    if (p.publishedAt) lines.push(`  published ${inert(p.publishedAt)}`);
    if (p.maintainers?.length) lines.push(`  maintainers ${inert(p.maintainers.join(', '))}`);
  } else if (p.kind === 'mcpb') {
    lines.push(`  bundle ${inert(p.name)}@${inert(p.version)}${p.author ? ` by ${inert(p.author)}` : ''}`, `  signature: ${signatureWords(p.signature)}`, `  sha256 ${p.bundleSha256}`);
  } else if (p.kind === 'pypi') {
    lines.push(`  package ${inert(p.name)}==${inert(p.version)} (PyPI)`, `  wheel ${inert(p.file)}`, `  sha256 ${p.sha256}`, `  lock: ${p.packageCount} package(s), every file checked against its hash (lock sha256 ${p.lockSha256})`);
    if (p.index) lines.push(`  index ${inert(p.index)}`);
    if (p.publishedAt) lines.push(`  published ${inert(p.publishedAt)}`);
  } else if (p.kind === 'remote') {
    lines.push(`  remote server ${inert(p.url)} (${p.transport})`);
  } else {
    lines.push(`  executable ${p.executable}`, `  sha256 ${p.executableSha256}`);
    if (p.script) lines.push(`  script ${p.script.path}`, `  sha256 ${p.script.sha256}`);
  }
  if (p.kind !== 'local' && p.kind !== 'remote' && p.registry) {
    const r = p.registry;
    lines.push(`  listed in the MCP Registry as ${inert(r.name)} ${inert(r.version)}${r.publishedAt ? `, published ${inert(r.publishedAt)}` : ''} (${inert(r.baseUrl)})`);
    if (r.status !== 'active') lines.push(`  ${c.danger('!!')} the registry marks this listing ${r.status.toUpperCase()}`);
  }
  if (disclosure.importedFrom) lines.push(`  imported from ${disclosure.importedFrom.path} (“${inert(disclosure.importedFrom.entry)}”)`);
  if (p.kind === 'remote') {
    // Nothing runs here: say where it runs, and what will be sent with every request.
    const headers = disclosure.secrets.map((secret) => `${secret.name}${secret.description ? ` (${secret.description})` : ''}`);
    lines.push('', c.heading('It runs elsewhere; Airlock connects to:'), `  ${c.code(inert(p.url))}`, `  secrets sent: ${headers.length ? inert(headers.join('; ')) : 'none (a sign-in, if it asks, when Airlock connects)'}`);
    for (const warning of disclosure.warnings) lines.push(`${c.warn('Note:')} ${inert(warning)}`);
    return lines.join('\n');
  }
  lines.push('', c.heading('It will run exactly this (it runs code on your computer):'), `  ${c.code(disclosure.argv.map(quoteArg).join(' '))}`);
  if (disclosure.cwd) lines.push(`  in ${inert(disclosure.cwd)}`);
  for (const risk of disclosure.risks) {
    const arg = disclosure.argv[risk.arg] ?? '';
    const mark = risk.severity === 'danger' ? c.danger('!!') : c.warn(' !');
    lines.push(`  ${mark} “${inert(arg.slice(risk.start, risk.end))}”: ${risk.reason}`);
  }
  if (disclosure.codeArguments?.length) {
    lines.push(c.danger(`  !! It runs code from outside what Airlock pinned and checked${disclosure.codeArgumentsAllowed ? ' — you allowed it (--allow-code-arguments)' : ' — refused unless you allow it (--allow-code-arguments)'}:`));
    for (const item of disclosure.codeArguments) lines.push(`  ${c.danger('!!')} “${inert(item.text)}”: ${item.reason}`);
  }
  const env = Object.entries(disclosure.env ?? {});
  if (env.length) lines.push(`Settings (environment): ${env.map(([key, value]) => `${inert(key)}=${quoteArg(value)}`).join(' ')}`);
  else if (disclosure.envNames.length) lines.push(`Environment variables: ${inert(disclosure.envNames.join(', '))}`);
  if (disclosure.secrets.length) lines.push(`Secrets it asks for: ${disclosure.secrets.map((s) => `${inert(s.name)}${s.required ? '' : ' (optional)'}`).join(', ')}`);
  if (disclosure.userConfig.length) lines.push(`Settings it needs: ${disclosure.userConfig.map((f) => `${inert(f.key)}${f.required ? '' : ' (optional)'}`).join(', ')}`);
  for (const warning of disclosure.warnings) lines.push(`${c.warn('Note:')} ${inert(warning)}`);
  return lines.join('\n');
}

/** The inspection: who the server says it is, and one short entry per tool (what happens on a call first). */
export function formatProbe(report: ProbeReport, c: Palette = PLAIN): string {
  const lines = [`The server says it is ${inert(report.serverInfo.name)} ${inert(report.serverInfo.version)}.`];
  if (report.instructions) lines.push(`Its instructions (the server's words):`, ...quoteBlock(report.instructions, { maxChars: 400, maxRows: 8 }));
  lines.push(c.heading(`Tools (${report.tools.length}):`));
  lines.push(...formatTools(report.tools, c));
  if (report.prompts.length) lines.push(`Prompts: ${report.prompts.map((p) => inert(p.name)).join(', ')}`);
  if (report.resources.length) lines.push(`Resources: ${report.resources.length}`);
  for (const warning of report.warnings) lines.push(`${c.warn('Note:')} ${inert(warning)}`);
  return lines.join('\n');
}

/** What `formatTool` shows besides the tool's headline, description and claims. */
export interface ToolFormatOptions {
  /** One line with its arguments: names, types, which are required (`airlock show NAME`). */
  arguments?: boolean;
  /** Warnings said once for several tools (`formatTools`): left out here. */
  skipWarnings?: ReadonlySet<string>;
  /** The server's name, for the commands it suggests (`airlock review-claims NAME …`). */
  server?: string;
}

export function formatTool(tool: ToolView, c: Palette = PLAIN, options: ToolFormatOptions = {}): string {
  const label = tool.preview.verdict === 'allow' ? c.ok(tool.preview.label) : tool.preview.verdict === 'deny' ? c.danger(tool.preview.label) : c.warn(tool.preview.label);
  const lines = [`  ${c.heading(inert(tool.name))} — ${label}; Airlock reads it as ${tool.reading.class}${tool.reading.openWorld ? ', may reach outside your machine' : ''}`];
  // SECURITY: the description is the server's, on rows of its own: every row behind the gutter.
  if (tool.description) lines.push(...quoteBlock(tool.description, { indent: '      ', maxChars: 300, maxRows: 6 }));
  if (options.arguments) lines.push(`      ${argumentsLine(toolArguments(tool.inputSchema))}`);
  lines.push(c.dim(`      ${claimsLine(tool.reading.claims)}`));
  if (tool.rule) lines.push(`      rule: ${tool.rule.effect} (since ${tool.rule.createdAt})`);
  if (tool.isNew) lines.push(c.warn('      NEW — added after install, not reviewed: its first call asks, whatever the trust or sandbox. Review it here, then `airlock approve SERVER TOOL`.'));
  if (tool.pendingChange) lines.push(c.warn(`      CHANGED since approval${tool.pendingChange.suspicious ? ' (SUSPICIOUS: it now claims to need less caution)' : ''}: ${inert(tool.pendingChange.diff.changes.map((change) => change.field).join(', '))}`));
  for (const warning of tool.warnings) if (!options.skipWarnings?.has(warning.message)) lines.push(`      ${c.warn('warning:')} ${inert(warning.message)}`);
  if (tool.claimsCheck) lines.push(...formatClaimsCheck(tool, c, options.server ?? 'SERVER'));
  return lines.join('\n');
}

/** What a tool did against its claims: the state, the evidence (newest first, a few), and how to review it. */
function formatClaimsCheck(tool: ToolView, c: Palette, server: string): string[] {
  const check = tool.claimsCheck!;
  const head =
    check.state === 'withdrawn'
      ? c.danger('      CLAIMS CONTRADICTED — not used until you review:')
      : check.state === 'distrusted'
        ? c.warn('      claims not trusted (your review):')
        : c.dim('      claims kept after review, contradicted:');
  const lines = [`${head} ${inert(check.summary)}`];
  for (const item of check.evidence.slice(0, 5)) lines.push(`        ${inert(item.at)} ${inert(item.words, 400)}`);
  if (check.evidence.length > 5) lines.push(c.dim(`        …and ${check.evidence.length - 5} more (airlock audit --tool ${inert(tool.name)})`));
  if (check.state === 'withdrawn') lines.push(`      Review it: airlock review-claims ${server} ${quoteArg(tool.name)} keep (trust its claims again), or … distrust (treat it as claiming nothing)`);
  return lines;
}

/** Each grant with when it was last used; those unused for 30 days suggested for removal (never removed by Airlock). */
export function formatGrantUse(detail: ServerDetail, c: Palette = PLAIN): string[] {
  if (detail.grants.length === 0) return [];
  const flag = { read: '--read', write: '--write', domain: '--domain', secret: '--secret' } as const;
  const lines = [c.heading('Grants, and when each was last used:')];
  for (const grant of detail.grants) {
    lines.push(`  ${`${grant.kind}:`.padEnd(8)} ${inert(grant.value)} — ${inert(grant.note)}`);
    if (grant.suggestRemoval) lines.push(c.warn(`           unused for 30 days or more: consider removing it (airlock revoke ${detail.name} ${flag[grant.kind]} ${quoteArg(grant.value)})`));
  }
  return lines;
}

/**
 * Every tool, then each warning that several tools share said once, with
 * the tools it is about (one cause, one warning: two copies of a server
 * share every tool name, and fourteen identical lines hide the one that
 * matters).
 */
export function formatTools(tools: readonly ToolView[], c: Palette = PLAIN, options: Omit<ToolFormatOptions, 'skipWarnings'> = {}): string[] {
  const byMessage = new Map<string, string[]>();
  for (const tool of tools) for (const warning of tool.warnings) byMessage.set(warning.message, [...(byMessage.get(warning.message) ?? []), tool.name]);
  const shared = new Map([...byMessage].filter(([, names]) => names.length > 1));
  const lines = tools.map((tool) => formatTool(tool, c, { ...options, skipWarnings: new Set(shared.keys()) }));
  for (const [message, names] of shared) {
    const listed = names.length > 6 ? `${names.slice(0, 5).map((name) => inert(name)).join(', ')} and ${names.length - 5} more` : names.map((name) => inert(name)).join(', ');
    lines.push(`  ${c.warn('warning:')} ${names.length} of these tools (${listed}): ${inert(message)}`);
  }
  return lines;
}

/**
 * The annotations as one line: the server's claims in its own terms, each
 * said once ("claims: read-only · stays on your machine"), and what it did
 * not state with what Airlock assumes instead.
 */
export function claimsLine(claims: readonly string[]): string {
  return `claims: ${claims.map((claim) => inert(claim.replace(/^The server says:\s*/, ''))).join(' · ')}`;
}

/** One argument of a tool, read from its input schema (server text: shown inert). */
export interface ToolArgument {
  name: string;
  /** "string", "number", "string[]", "object", "\"a\" | \"b\"", "any". */
  type: string;
  required: boolean;
  description?: string;
}

/** A tool's arguments from its input schema, in the order it declares them. Never throws. */
export function toolArguments(inputSchema: Readonly<Record<string, unknown>>): ToolArgument[] {
  const properties = inputSchema.properties;
  if (!properties || typeof properties !== 'object' || Array.isArray(properties)) return [];
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required.filter((name): name is string => typeof name === 'string') : []);
  return Object.entries(properties as Record<string, unknown>).map(([name, schema]) => {
    const description = schema && typeof schema === 'object' ? (schema as { description?: unknown }).description : undefined;
    return { name, type: schemaType(schema), required: required.has(name), ...(typeof description === 'string' && description ? { description } : {}) };
  });
}

/** A JSON Schema's type in a few characters, for a person choosing a value. */
function schemaType(schema: unknown, depth = 0): string {
  if (!schema || typeof schema !== 'object' || depth > 3) return 'any';
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length > 0 && s.enum.length <= 8) return s.enum.map((value) => JSON.stringify(value)).join(' | ');
  if ('const' in s) return JSON.stringify(s.const);
  const type = Array.isArray(s.type) ? s.type.filter((t) => t !== 'null').join(' | ') : s.type;
  if (type === 'array') return `${schemaType(s.items, depth + 1)}[]`;
  if (type === 'object' || (type === undefined && s.properties && typeof s.properties === 'object')) {
    // A small object's shape in line ({oldText: string, newText: string}); a larger one is just "object".
    const fields = s.properties && typeof s.properties === 'object' ? Object.entries(s.properties as Record<string, unknown>) : [];
    if (fields.length === 0 || fields.length > 4 || depth > 1) return 'object';
    return `{${fields.map(([key, value]) => `${key}: ${schemaType(value, depth + 1)}`).join(', ')}}`;
  }
  if (typeof type === 'string' && type) return type;
  const union = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined)?.filter((item) => !(item && typeof item === 'object' && (item as { type?: unknown }).type === 'null'));
  if (union?.length) return [...new Set(union.map((item) => schemaType(item, depth + 1)))].join(' | ');
  return 'any';
}

/** "arguments: path (string, required) · head (number)" — or "arguments: none". */
export function argumentsLine(args: readonly ToolArgument[]): string {
  if (args.length === 0) return 'arguments: none';
  return `arguments: ${args.map((arg) => `${inert(arg.name, 60)} (${inert(arg.type, 60)}${arg.required ? ', required' : ''})`).join(' · ')}`;
}

/**
 * One tool in full (`airlock show NAME TOOL`): what Airlock would do and why,
 * the whole description, every argument with its type and description, the
 * claims, and a call to copy with the required arguments filled in.
 */
export function formatToolInFull(server: string, tool: ToolView, c: Palette = PLAIN): string {
  const label = tool.preview.verdict === 'allow' ? c.ok(tool.preview.label) : tool.preview.verdict === 'deny' ? c.danger(tool.preview.label) : c.warn(tool.preview.label);
  const lines = [
    `${c.heading(`${server} › ${inert(tool.name)}`)}${tool.title ? ` — the server calls it “${inert(tool.title, 120)}”` : ''}`,
    `  ${label}; Airlock reads it as ${tool.reading.class}${tool.reading.openWorld ? ', may reach outside your machine' : ''}`,
    ...tool.preview.reasons.map((reason) => `    · ${inert(reason)}`),
  ];
  if (tool.description) lines.push('  Description (the server\'s words):', ...quoteBlock(tool.description, { indent: '    ' }));
  const args = toolArguments(tool.inputSchema);
  lines.push(c.heading(args.length ? `  Arguments (${args.length}):` : '  Arguments: none'));
  for (const arg of args) {
    lines.push(`    ${inert(arg.name, 80)} — ${inert(arg.type, 120)}${arg.required ? ', required' : ', optional'}`);
    if (arg.description) lines.push(...quoteBlock(arg.description, { indent: '      ' }));
  }
  lines.push(`  ${claimsLine(tool.reading.claims)}`);
  if (tool.rule) lines.push(`  rule: always ${tool.rule.effect} (since ${tool.rule.createdAt})`);
  if (tool.isNew) lines.push(c.warn(`  NEW — added after install, not reviewed: its first call asks. Approve it with \`airlock approve ${server} ${inert(tool.name)}\`.`));
  if (tool.pendingChange) lines.push(c.warn(`  CHANGED since approval: ${inert(tool.pendingChange.diff.changes.map((change) => change.field).join(', '))}`));
  for (const warning of tool.warnings) lines.push(`  ${c.warn('warning:')} ${inert(warning.message)}`);
  if (tool.claimsCheck) lines.push(...formatClaimsCheck(tool, c, server));
  const example = Object.fromEntries(args.filter((arg) => arg.required).map((arg) => [arg.name, exampleValue(arg.type)]));
  lines.push(`  Call it: airlock call ${server} ${quoteArg(tool.name)} --args ${quoteArg(JSON.stringify(example))}`);
  lines.push(`  fingerprint ${tool.fingerprint}`);
  return lines.join('\n');
}

/** A placeholder of the right kind for an example `--args`. */
function exampleValue(type: string): unknown {
  if (type.endsWith('[]')) return [];
  if (type === 'number' || type === 'integer') return 0;
  if (type === 'boolean') return false;
  if (type === 'object' || type.startsWith('{')) return {};
  if (type.startsWith('"')) return JSON.parse(type.split(' | ')[0]!) as unknown;
  return '…';
}

export function formatDetail(detail: ServerDetail, c: Palette = PLAIN): string {
  const lines = [formatSummaryLine(detail, c), `Source: ${inert(detail.source)}`, `Command: ${[detail.spec.command, ...detail.spec.args].map(quoteArg).join(' ')}`];
  const env = Object.entries(detail.spec.env);
  if (env.length) lines.push(`Settings: ${env.map(([key, value]) => `${inert(key)}=${quoteArg(value)}`).join(' ')}`);
  // The server's own error text, on rows of its own.
  if (detail.lastError && !detail.stateNote) lines.push('Last error (its own words where it gave them):', ...quoteBlock(detail.lastError, { maxChars: 2000, maxRows: 12 }));
  const f = detail.profile.filesystem;
  if (detail.provenance.kind === 'remote') {
    lines[2] = `Address: ${inert(detail.provenance.url)} (${detail.provenance.transport === 'sse' ? 'HTTP+SSE' : 'streamable HTTP'})`;
    lines.push(
      c.heading('No sandbox: it runs on another computer.') + ' Airlock decides which calls reach it and reads every tool as reaching outside your machine.',
      `  secrets sent: ${detail.profile.secrets.join(', ') || 'none'}${detail.secretsSet.length ? ` (set: ${detail.secretsSet.join(', ')})` : ''}`,
    );
  } else lines.push(
    c.heading('Permissions (enforced by the sandbox):'),
    `  read:    ${f.read.length ? `${f.read.join(', ')} (the rest of your home folder hidden)` : 'nothing of your home folder but its own files; elsewhere what any program may read'}`,
    `  write:   ${[...f.write, ...(f.persistentData ? ['its own data folder'] : [])].join(', ') || 'nowhere that lasts (a temporary folder)'}`,
    ...(f.writeTrusted?.length
      ? [c.warn(`  it may also change files other programs trust at: ${f.writeTrusted.join(', ')} — git, direnv or your editor may run what it writes there`)]
      : f.write.length
        ? [`  inside those folders, files other programs trust (.git, .envrc, .vscode …) stay protected`]
        : []),
    `  network: ${detail.profile.network.allowedDomains.join(', ') || 'none'}`,
    `  secrets: ${detail.profile.secrets.join(', ') || 'none'}${detail.secretsSet.length ? ` (set: ${detail.secretsSet.join(', ')})` : ''}`,
  );
  if (detail.profile.unsandboxed) lines.push(c.danger(`  !! runs WITHOUT a sandbox (you consented on ${detail.profile.unsandboxed.consentedAt})`));
  lines.push(c.heading('Resource limits (set inside its sandbox):'));
  if (detail.limitsNote) lines.push(`  ${detail.limitsNote}`);
  for (const limit of detail.limits) {
    lines.push(`  ${`${limit.label}:`.padEnd(23)}${limit.value}`);
    if (!limit.holds) lines.push(c.warn(`  ${' '.repeat(23)}${limit.note ?? 'does not hold here'}`));
  }
  if (detail.codeChange) {
    lines.push(c.danger('!! Its code changed since you approved it. Every call asks; "always allow" rules made before do not count.'));
    for (const file of detail.codeChange.files) {
      if (file.current === file.approved) continue;
      lines.push(`  ${file.role} ${file.path}`, `    approved sha256 ${file.approved}`, `    now      ${file.current === null ? '(cannot be read)' : `sha256 ${file.current}`}`);
    }
    lines.push(`  Review the change, then pin the new code: airlock approve ${detail.name} --code`);
  }
  lines.push(...formatGrantUse(detail, c));
  const contradicted = detail.tools.filter((tool) => tool.claimsCheck?.state === 'withdrawn');
  if (contradicted.length) lines.push(c.danger(`!! ${contradicted.map((tool) => inert(tool.name)).join(', ')}: did what ${contradicted.length === 1 ? 'its claims say it does' : 'their claims say they do'} not. Airlock asks before each call until you review (below).`));
  lines.push(c.heading(`Tools (${detail.tools.length}):`));
  lines.push(...formatTools(detail.tools, c, { arguments: true, server: detail.name }));
  if (detail.tools.length) lines.push(`One tool in full, with what each argument means: airlock show ${detail.name} TOOL`);
  return lines.join('\n');
}

function signatureWords(state: 'none' | 'present-unverified' | 'verified'): string {
  return state === 'verified' ? 'verified' : state === 'present-unverified' ? 'present but NOT verified' : 'none (unsigned)';
}

/** A word as a shell reads it back (quoted when it must be), inert: for the commands Airlock prints for a person to run. */
export function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${inert(arg).replace(/'/g, "'\\''")}'`;
}
