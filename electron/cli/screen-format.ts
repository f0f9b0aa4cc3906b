/** A server's screens (MCP Apps) as `airlock show` and `airlock screens` print them: the server's words inert, Airlock's reading beside them. */
import { SCREEN_DOMAIN_KINDS, SCREEN_DOMAIN_WORDS, SCREEN_PERMISSION_WORDS } from '../../shared/screens';
import type { ScreenView } from '../../shared/views';
import { inert } from './format';

const STATE_WORDS: Record<ScreenView['state'], string> = {
  approved: 'approved',
  new: 'NEW — not shown until you approve it',
  changed: 'CHANGED since you approved it — not shown until you approve it again',
  unreadable: 'could not be read',
  'not-read': 'as approved (the server is not running, so not read now)',
};

/** The screens of a server, as `airlock show` and `airlock screens` print them (server text inert). */
export function formatScreens(screens: readonly ScreenView[]): string {
  if (screens.length === 0) return 'Screens: none (no tool names one).';
  const lines = [`Screens (${screens.length}) — pages the server wrote, shown in Airlock’s window on an origin of their own:`];
  for (const screen of screens) {
    lines.push(`  ${inert(screen.uri)}  for ${screen.tools.map((tool) => inert(tool)).join(', ')}`);
    lines.push(`      ${STATE_WORDS[screen.state]}${screen.problem ? `: ${inert(screen.problem)}` : ''}`);
    if (screen.htmlSha256) lines.push(`      page sha256 ${screen.htmlSha256}${screen.size !== undefined ? `, ${screen.size} bytes` : ''}`);
    for (const change of screen.changes) lines.push(`      changed: ${change}`);
    let asks = false;
    for (const kind of SCREEN_DOMAIN_KINDS) {
      for (const origin of screen.declared[kind]) {
        asks = true;
        lines.push(`      asks to ${SCREEN_DOMAIN_WORDS[kind]} ${origin}: ${screen.allowed[kind].includes(origin) ? 'allowed' : 'refused'}`);
      }
    }
    for (const permission of screen.permissions.asked) {
      asks = true;
      lines.push(`      asks for ${SCREEN_PERMISSION_WORDS[permission]}: ${screen.permissions.granted.includes(permission) ? 'allowed' : 'refused'}`);
    }
    if (!asks && screen.state !== 'unreadable') lines.push('      asks for no addresses and no permissions (no network)');
    for (const note of screen.notes) lines.push(`      note: ${inert(note)}`);
  }
  return lines.join('\n');
}

