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
  for (const tool of report.tools) lines.push(formatTool(tool, c));
  if (report.prompts.length) lines.push(`Prompts: ${report.prompts.map((p) => inert(p.name)).join(', ')}`);
  if (report.resources.length) lines.push(`Resources: ${report.resources.length}`);
  for (const warning of report.warnings) lines.push(`${c.warn('Note:')} ${inert(warning)}`);
  return lines.join('\n');
}

export function formatTool(tool: ToolView, c: Palette = PLAIN): string {
  const label = tool.preview.verdict === 'allow' ? c.ok(tool.preview.label) : tool.preview.verdict === 'deny' ? c.danger(tool.preview.label) : c.warn(tool.preview.label);
  const lines = [`  ${c.heading(inert(tool.name))} — ${label}; Airlock reads it as ${tool.reading.class}${tool.reading.openWorld ? ', may reach outside your machine' : ''}`];
  // SECURITY: the description is the server's, on rows of its own: every row behind the gutter.
  if (tool.description) lines.push(...quoteBlock(tool.description, { indent: '      ', maxChars: 300, maxRows: 6 }));
  lines.push(c.dim(`      claims: ${inert(tool.reading.claims.join('; '))}`));
  if (tool.rule) lines.push(`      rule: ${tool.rule.effect} (since ${tool.rule.createdAt})`);
  if (tool.isNew) lines.push(c.warn('      NEW — added after install, not reviewed: its first call asks, whatever the trust or sandbox. Review it here, then `airlock approve SERVER TOOL`.'));
  if (tool.pendingChange) lines.push(c.warn(`      CHANGED since approval${tool.pendingChange.suspicious ? ' (SUSPICIOUS: it now claims to need less caution)' : ''}: ${inert(tool.pendingChange.diff.changes.map((change) => change.field).join(', '))}`));
  for (const warning of tool.warnings) lines.push(`      ${c.warn('warning:')} ${inert(warning.message)}`);
  return lines.join('\n');
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
  lines.push(c.heading(`Tools (${detail.tools.length}):`));
  for (const tool of detail.tools) lines.push(formatTool(tool, c));
  return lines.join('\n');
}

function signatureWords(state: 'none' | 'present-unverified' | 'verified'): string {
  return state === 'verified' ? 'verified' : state === 'present-unverified' ? 'present but NOT verified' : 'none (unsigned)';
}

/** A word as a shell reads it back (quoted when it must be), inert: for the commands Airlock prints for a person to run. */
export function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${inert(arg).replace(/'/g, "'\\''")}'`;
}
