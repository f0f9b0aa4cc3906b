/**
 * `airlock show NAME --sandbox-plan`: the exact plan of a server's launch
 * in words a person checks line by line — the mechanism, each guarantee
 * (enforced / weaker / not enforced, and why), the file rules, the network
 * endpoint and hosts, the limits, and the launch itself (for macOS the
 * whole Seatbelt profile, for Windows the srt-win argv). Paths and names
 * come from the person's own grants and settings; they are shown inert
 * (control characters made visible) like everything else the CLI prints.
 */
import { guaranteesFor } from '../../shared/plain';
import type { GuaranteeView, SandboxGuaranteesView, SandboxPlanView } from '../../shared/sandbox-views';
import { inertText as inert } from '../core/inert';
import { CliExit, EXIT } from './output';
import type { Palette } from './terminal';

const PLATFORM_NAME: Record<string, string> = { linux: 'Linux', darwin: 'macOS', win32: 'Windows' };

/** One guarantee as a line: its state marked, then how. */
export function formatGuarantee(row: GuaranteeView, c: Palette): string {
  const mark = row.state === 'enforced' ? c.ok('enforced') : row.state === 'weaker' ? c.warn('weaker') : c.danger('not enforced');
  return `  ${row.label.padEnd(32)} ${mark} — ${row.how}`;
}

const quoteWord = (word: string) => (/^[A-Za-z0-9_@%+=:,./\\-]+$/.test(word) ? word : `'${word.replace(/'/g, `'"'"'`)}'`);

/** The plan, all of it. */
export function formatSandboxPlan(plan: SandboxPlanView, c: Palette): string {
  const platform = PLATFORM_NAME[plan.platform] ?? plan.platform;
  const lines = [`Sandbox plan for ${inert(plan.server)} on ${platform}: ${plan.backend}`];
  if (plan.foreign) lines.push(c.warn(`  Computed on this computer for ${platform}: the paths are this computer's; on ${platform} they are that machine's.`));
  if (plan.platform !== 'linux') lines.push(c.warn(`  Not yet verified on a real ${platform} machine by Airlock's own tests.`));
  lines.push('', 'Guarantees:', ...plan.guarantees.map((row) => formatGuarantee(row, c)));
  const list = (title: string, paths: readonly string[]) => {
    lines.push('', `${title}:`);
    if (paths.length === 0) lines.push('  (none)');
    for (const path of paths) lines.push(`  ${inert(path)}`);
  };
  list('Reads denied', plan.files.readDenied);
  list('Reads allowed inside those (credential paths beneath them stay denied)', plan.files.readAllowed);
  list('Writes allowed (nothing else is writable)', plan.files.writeAllowed);
  list('Writes denied inside those', plan.files.writeDenied);
  lines.push('', 'Network:');
  lines.push(plan.network.endpoint ? `  its traffic goes to ${plan.network.endpoint}` : '  none: it has no path to any network');
  lines.push(`  allowed hosts: ${plan.network.allowedHosts.length ? plan.network.allowedHosts.map(inert).join(', ') : '(none)'}`);
  lines.push(`  other hosts: ${plan.network.questions ? 'asked of you, naming the server' : 'refused without asking'}`);
  lines.push('', 'Limits:');
  for (const limit of plan.limits) lines.push(`  ${limit.kind.padEnd(12)} ${String(limit.value).padEnd(12)} ${limit.applied ? 'set' : c.warn('not set here')}`);
  if (plan.notes.length) {
    lines.push('', `Where ${platform} is weaker than Linux:`);
    for (const note of plan.notes) lines.push(`  - ${note}`);
  }
  lines.push('', 'Launch (no shell in front of it; secrets and the proxy credential shown as placeholders):');
  if (plan.atStart?.length) {
    lines.push('  Made only when it starts (shown as «…» or XXXXXX below):');
    for (const part of plan.atStart) lines.push(`  - ${part}`);
  }
  const args = plan.profileText !== undefined ? plan.launch.args.map((arg) => (arg === plan.profileText ? '<the profile below>' : arg)) : plan.launch.args;
  lines.push(`  ${[plan.launch.command, ...args].map((word) => inert(quoteWord(word))).join(' ')}`);
  lines.push('  environment:');
  for (const [name, value] of Object.entries(plan.launch.env)) lines.push(`    ${inert(name)}=${inert(value)}`);
  if (plan.profileText !== undefined) {
    lines.push('', 'Seatbelt profile (passed with sandbox-exec -p):', ...plan.profileText.trimEnd().split('\n').map((line) => `  ${inert(line)}`));
  }
  return lines.join('\n');
}

/** This computer's guarantees, for `doctor`. */
export function formatGuarantees(view: SandboxGuaranteesView, c: Palette): string {
  if (view.guarantees.length === 0) return '';
  const platform = PLATFORM_NAME[view.platform] ?? view.platform;
  const lines = [`What the sandbox guarantees on ${platform} (${view.mechanism ?? 'no mechanism'}):`, ...view.guarantees.map((row) => formatGuarantee(row, c))];
  if (view.unverified) lines.push(c.warn(`  Not yet verified on a real ${platform} machine by Airlock's own tests.`));
  return lines.join('\n');
}

/**
 * For the disclosure: where this computer's sandbox holds less than
 * Linux's, the rows that matter to this server with these grants (the
 * person decides knowing it); empty when none does.
 */
export function formatPlatformWeaker(rows: readonly GuaranteeView[], profile: { filesystem: { write: readonly string[] } }, c: Palette): string {
  const apply = guaranteesFor(rows, profile);
  if (apply.length === 0) return '';
  return [c.warn('On this computer the sandbox holds less than on Linux. For this server:'), ...apply.map((row) => formatGuarantee(row, c))].join('\n');
}

/** The platform `--platform` names, or a usage error that lists the three. */
export function planPlatform(value: string): 'linux' | 'darwin' | 'win32' {
  const words: Record<string, 'linux' | 'darwin' | 'win32'> = { linux: 'linux', darwin: 'darwin', macos: 'darwin', win32: 'win32', windows: 'win32' };
  const key = value.toLowerCase();
  const platform = Object.hasOwn(words, key) ? words[key] : undefined;
  if (!platform) throw new CliExit(EXIT.usage, `Say which platform's plan: linux, darwin or win32 (not “${value}”).`);
  return platform;
}
