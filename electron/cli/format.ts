/** Plain-text renderings of core views for the terminal. Server text is printed with control characters made visible. */
import type { Disclosure, ProbeReport, ServerDetail, ServerSummary, ToolView } from '../../shared/views';
import { inertText } from '../core/servers/log-ring';

/** Server text for the terminal: control and bidi characters made visible, so it cannot rewrite the screen. */
export const inert = inertText;

export function formatSummaryLine(server: ServerSummary): string {
  const badges = [
    server.state,
    server.enabled ? 'enabled' : 'disabled',
    server.trusted ? 'trusted' : 'untrusted',
    server.sandboxed ? 'sandboxed' : 'NOT SANDBOXED',
    server.network ? 'network' : 'no network',
    ...(server.pendingChanges ? [`${server.pendingChanges} pending change(s)`] : []),
    ...(server.newTools ? [`${server.newTools} new tool(s) to review`] : []),
    ...(server.codeChanged ? ['CODE CHANGED since approved'] : []),
  ];
  return `${server.name.padEnd(20)} ${badges.join(' · ')}\n${' '.repeat(21)}${server.summary}`;
}

export function formatDisclosure(disclosure: Disclosure): string {
  const p = disclosure.provenance;
  const lines = [`Source: ${disclosure.sourceLabel}`];
  if (p.kind === 'npm') {
    lines.push(`  package ${p.name}@${p.version}`, `  integrity ${p.integrity}`);
    if (p.publishedAt) lines.push(`  published ${p.publishedAt}`);
    if (p.maintainers?.length) lines.push(`  maintainers ${p.maintainers.join(', ')}`);
  } else if (p.kind === 'mcpb') {
    lines.push(`  bundle ${p.name}@${p.version}${p.author ? ` by ${p.author}` : ''}`, `  signature: ${signatureWords(p.signature)}`, `  sha256 ${p.bundleSha256}`);
  } else {
    lines.push(`  executable ${p.executable}`, `  sha256 ${p.executableSha256}`);
    if (p.script) lines.push(`  script ${p.script.path}`, `  sha256 ${p.script.sha256}`);
  }
  if (disclosure.importedFrom) lines.push(`  imported from ${disclosure.importedFrom.path} (“${inert(disclosure.importedFrom.entry)}”)`);
  lines.push('', 'It will run exactly this (it runs code on your computer):', `  ${disclosure.argv.map(quoteArg).join(' ')}`);
  if (disclosure.cwd) lines.push(`  in ${disclosure.cwd}`);
  for (const risk of disclosure.risks) {
    const arg = disclosure.argv[risk.arg] ?? '';
    lines.push(`  ${risk.severity === 'danger' ? '!!' : ' !'} “${inert(arg.slice(risk.start, risk.end))}”: ${risk.reason}`);
  }
  if (disclosure.envNames.length) lines.push(`Environment variables: ${disclosure.envNames.join(', ')}`);
  if (disclosure.secrets.length) lines.push(`Secrets it asks for: ${disclosure.secrets.map((s) => `${s.name}${s.required ? '' : ' (optional)'}`).join(', ')}`);
  if (disclosure.userConfig.length) lines.push(`Settings it needs: ${disclosure.userConfig.map((f) => `${f.key}${f.required ? '' : ' (optional)'}`).join(', ')}`);
  if (disclosure.suggestedPaths.length) lines.push(`Paths its command line names (not granted unless you grant them): ${disclosure.suggestedPaths.map((s) => `${s.path} (${s.access})`).join(', ')}`);
  for (const warning of disclosure.warnings) lines.push(`Note: ${inert(warning)}`);
  return lines.join('\n');
}

export function formatProbe(report: ProbeReport): string {
  const lines = [`The server says it is ${inert(report.serverInfo.name)} ${inert(report.serverInfo.version)}.`];
  if (report.instructions) lines.push(`Its instructions: ${inert(report.instructions)}`);
  lines.push(`Tools (${report.tools.length}):`);
  for (const tool of report.tools) lines.push(formatTool(tool));
  if (report.prompts.length) lines.push(`Prompts: ${report.prompts.map((p) => inert(p.name)).join(', ')}`);
  if (report.resources.length) lines.push(`Resources: ${report.resources.length}`);
  for (const warning of report.warnings) lines.push(`Note: ${warning}`);
  return lines.join('\n');
}

export function formatTool(tool: ToolView): string {
  const lines = [`  ${inert(tool.name)} — ${tool.preview.label}; Airlock reads it as ${tool.reading.class}${tool.reading.openWorld ? ', may reach outside your machine' : ''}`];
  if (tool.description) lines.push(`      ${inert(tool.description.length > 300 ? `${tool.description.slice(0, 300)}…` : tool.description)}`);
  lines.push(`      claims: ${tool.reading.claims.join('; ')}`);
  if (tool.rule) lines.push(`      rule: ${tool.rule.effect} (since ${tool.rule.createdAt})`);
  if (tool.isNew) lines.push('      NEW — added after install, not reviewed: its first call asks, whatever the trust or sandbox. Review it here, then `airlock approve SERVER TOOL`.');
  if (tool.pendingChange) lines.push(`      CHANGED since approval${tool.pendingChange.suspicious ? ' (SUSPICIOUS: it now claims to need less caution)' : ''}: ${tool.pendingChange.diff.changes.map((c) => c.field).join(', ')}`);
  for (const warning of tool.warnings) lines.push(`      warning: ${warning.message}`);
  return lines.join('\n');
}

export function formatDetail(detail: ServerDetail): string {
  const lines = [formatSummaryLine(detail), `Source: ${detail.source}`, `Command: ${[detail.spec.command, ...detail.spec.args].map(quoteArg).join(' ')}`];
  const f = detail.profile.filesystem;
  lines.push(
    'Permissions (enforced by the sandbox):',
    `  read:    ${f.read.length ? f.read.join(', ') : '(only what everyone may read; secrets hidden)'}`,
    `  write:   ${[...f.write, ...(f.persistentData ? ['its own data folder'] : [])].join(', ') || 'nowhere that lasts (a temporary folder)'}`,
    `  network: ${detail.profile.network.allowedDomains.join(', ') || 'none'}`,
    `  secrets: ${detail.profile.secrets.join(', ') || 'none'}${detail.secretsSet.length ? ` (set: ${detail.secretsSet.join(', ')})` : ''}`,
  );
  if (detail.profile.unsandboxed) lines.push(`  !! runs WITHOUT a sandbox (you consented on ${detail.profile.unsandboxed.consentedAt})`);
  if (detail.codeChange) {
    lines.push('!! Its code changed since you approved it. Every call asks; "always allow" rules made before do not count.');
    for (const file of detail.codeChange.files) {
      if (file.current === file.approved) continue;
      lines.push(`  ${file.role} ${file.path}`, `    approved sha256 ${file.approved}`, `    now      ${file.current === null ? '(cannot be read)' : `sha256 ${file.current}`}`);
    }
    lines.push(`  Review the change, then pin the new code: airlock approve ${detail.name} --code`);
  }
  lines.push(`Tools (${detail.tools.length}):`);
  for (const tool of detail.tools) lines.push(formatTool(tool));
  return lines.join('\n');
}

function signatureWords(state: 'none' | 'present-unverified' | 'verified'): string {
  return state === 'verified' ? 'verified' : state === 'present-unverified' ? 'present but NOT verified' : 'none (unsigned)';
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${inert(arg).replace(/'/g, "'\\''")}'`;
}
