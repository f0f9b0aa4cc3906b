/**
 * A server's screens (MCP Apps) as `airlock show`, `airlock screens` and the
 * inspection at `add`/`update` print them: the server's words inert,
 * Airlock's reading beside them; and what `--allow-screen` allows of what
 * they ask for.
 */
import {
  noScreenDomains,
  parseScreenDomain,
  SCREEN_DOMAIN_KINDS,
  SCREEN_DOMAIN_WORDS,
  SCREEN_PERMISSION_WORDS,
  SCREEN_PERMISSIONS,
  type ScreenDomains,
  type ScreenPermission,
} from '../../shared/screens';
import type { ScreenView } from '../../shared/views';
import { inert } from './format';
import { CliExit, EXIT } from './output';

const STATE_WORDS: Record<ScreenView['state'], string> = {
  approved: 'approved',
  new: 'NEW — not shown until you approve it',
  changed: 'CHANGED since you approved it — not shown until you approve it again',
  unreadable: 'could not be read',
  'not-read': 'as approved (the server is not running, so not read now)',
};

/** How a screen read at the inspection stands: saving the server approves it as it reads now. */
const INSPECTED_WORDS: Partial<Record<ScreenView['state'], string>> = {
  new: 'read now; saving the server approves it as it is',
  changed: 'read now; saving the server approves it as it is',
  approved: 'read now; saving the server approves it as it is',
};

/**
 * The screens of a server, as `airlock show` and `airlock screens` print
 * them (server text inert); `inspected`: as read at the inspection of
 * `add` or `update`, which approves them when the server is saved.
 */
export function formatScreens(screens: readonly ScreenView[], options: { inspected?: { server: string } } = {}): string {
  if (screens.length === 0) return 'Screens: none (no tool names one).';
  const lines = [`Screens (${screens.length}) — pages the server wrote, shown in Airlock’s window on an origin of their own:`];
  let refused = false;
  for (const screen of screens) {
    const state = (options.inspected && INSPECTED_WORDS[screen.state]) || STATE_WORDS[screen.state];
    lines.push(`  ${inert(screen.uri)}  for ${screen.tools.map((tool) => inert(tool)).join(', ')}`);
    lines.push(`      ${state}${screen.problem ? `: ${inert(screen.problem)}` : ''}`);
    if (screen.htmlSha256) lines.push(`      page sha256 ${screen.htmlSha256}${screen.size !== undefined ? `, ${screen.size} bytes` : ''}`);
    for (const change of screen.changes) lines.push(`      changed: ${change}`);
    let asks = false;
    for (const kind of SCREEN_DOMAIN_KINDS) {
      for (const origin of screen.declared[kind]) {
        asks = true;
        const allowed = screen.allowed[kind].includes(origin);
        refused ||= !allowed;
        lines.push(`      asks to ${SCREEN_DOMAIN_WORDS[kind]} ${origin}: ${allowed ? 'allowed' : 'refused'}`);
      }
    }
    for (const permission of screen.permissions.asked) {
      asks = true;
      const granted = screen.permissions.granted.includes(permission);
      refused ||= !granted;
      lines.push(`      asks for ${SCREEN_PERMISSION_WORDS[permission]}: ${granted ? 'allowed' : 'refused'}`);
    }
    if (!asks && screen.state !== 'unreadable') lines.push('      asks for no addresses and no permissions (no network)');
    for (const note of screen.notes) lines.push(`      note: ${inert(note)}`);
  }
  if (options.inspected && refused) {
    lines.push(`  What is refused stays refused: allow it with --allow-screen ADDRESS-OR-PERMISSION on this command, or later with \`airlock screens ${options.inspected.server} --allow …\`.`);
  }
  return lines.join('\n');
}

/** What a server's screens may use: addresses by kind, and device permissions. */
export interface ScreenChoice {
  allowed: ScreenDomains;
  permissions: ScreenPermission[];
}

/**
 * What `--allow-screen` allows, on top of what the inspected screens'
 * views already show allowed (an update's carried-over grants): each item
 * is a permission name, or an exact address allowed for every use the
 * screens ask it for. An item no screen asks for is a usage error that
 * lists what they do ask for — a typo must not pass as allowed.
 */
export function chooseScreenAsks(screens: readonly ScreenView[], items: readonly string[], server: string): ScreenChoice {
  const choice: ScreenChoice = { allowed: noScreenDomains(), permissions: [] };
  for (const kind of SCREEN_DOMAIN_KINDS) choice.allowed[kind] = [...new Set(screens.flatMap((screen) => screen.allowed[kind]))];
  choice.permissions = [...new Set(screens.flatMap((screen) => screen.permissions.granted))];
  const asked = (kind: (typeof SCREEN_DOMAIN_KINDS)[number], origin: string) => screens.some((screen) => screen.declared[kind].includes(origin));
  for (const item of items) {
    if ((SCREEN_PERMISSIONS as readonly string[]).includes(item)) {
      const permission = item as ScreenPermission;
      if (!screens.some((screen) => screen.permissions.asked.includes(permission))) throw new CliExit(EXIT.usage, `No screen of ${server} asks for ${SCREEN_PERMISSION_WORDS[permission]}. ${askedSummary(screens)} Nothing was saved.`);
      choice.permissions.push(permission);
      continue;
    }
    const parsed = parseScreenDomain(item);
    if (!parsed.ok) throw new CliExit(EXIT.usage, `--allow-screen: ${parsed.reason}. Nothing was saved.`);
    const kinds = SCREEN_DOMAIN_KINDS.filter((kind) => asked(kind, parsed.origin));
    if (kinds.length === 0) throw new CliExit(EXIT.usage, `No screen of ${server} asks for ${parsed.origin}. ${askedSummary(screens)} Nothing was saved.`);
    for (const kind of kinds) choice.allowed[kind].push(parsed.origin);
  }
  for (const kind of SCREEN_DOMAIN_KINDS) choice.allowed[kind] = [...new Set(choice.allowed[kind])].sort();
  choice.permissions = [...new Set(choice.permissions)].sort();
  return choice;
}

/** The screens' views as they will be saved with `choice` (what the inspection prints). */
export function withScreenChoice(screens: readonly ScreenView[], choice: ScreenChoice | undefined): ScreenView[] {
  if (!choice) return [...screens];
  return screens.map((screen) => {
    const allowed = noScreenDomains();
    for (const kind of SCREEN_DOMAIN_KINDS) allowed[kind] = screen.declared[kind].filter((origin) => choice.allowed[kind].includes(origin));
    return { ...screen, allowed, permissions: { ...screen.permissions, granted: screen.permissions.asked.filter((permission) => choice.permissions.includes(permission)) } };
  });
}

function askedSummary(screens: readonly ScreenView[]): string {
  const asks = [
    ...new Set([
      ...SCREEN_DOMAIN_KINDS.flatMap((kind) => screens.flatMap((screen) => screen.declared[kind])),
      ...screens.flatMap((screen) => screen.permissions.asked),
    ]),
  ];
  return asks.length ? `Its screens ask for: ${asks.map((ask) => inert(ask)).join(', ')}.` : 'Its screens ask for nothing.';
}

