/**
 * Servers' screens (MCP Apps) on the command line: which tools have one,
 * what each asks to load from, connect to or frame (the server's claims)
 * beside what the person allowed, whether it is the screen they approved;
 * approving a new or changed one, and allowing or refusing what it asks
 * for. A screen's page is printed only inert (`airlock read NAME ui://…`);
 * screens run only in Airlock's window.
 */
import type { Command } from 'commander';
import { parseScreenDomain, SCREEN_DOMAIN_KINDS, SCREEN_DOMAIN_WORDS, SCREEN_PERMISSION_WORDS, SCREEN_PERMISSIONS, type ScreenDomainKind, type ScreenPermission } from '../../../shared/screens';
import type { ScreenView } from '../../../shared/views';
import { inert } from '../format';
import { CliExit, EXIT } from '../output';
import { confirmOrExit, warmDetail, type CliContext } from './servers';

const STATE_WORDS: Record<ScreenView['state'], string> = {
  approved: 'approved',
  new: 'NEW — not shown until you approve it',
  changed: 'CHANGED since you approved it — not shown until you approve it again',
  unreadable: 'could not be read',
  'not-read': 'as approved (the server is not running, so not read now)',
};

/** The `--for` names of each kind of address. */
const KIND_OPTIONS: Record<string, ScreenDomainKind> = { connect: 'connect', resource: 'resource', frame: 'frame', 'base-uri': 'baseUri' };

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

interface ScreensOptions {
  approve?: string;
  allow?: string[];
  refuse?: string[];
  for?: string;
}

export function registerScreenCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const out = (value: unknown, text: () => string) => io.out(context.json() ? JSON.stringify(value, null, 2) : text());
  const collect = (value: string, previous: string[] = []) => [...previous, value];

  program
    .command('screens')
    .description("list a server's screens (MCP Apps) and what each asks for; approve one, or allow or refuse an address or permission it asks for")
    .argument('<name>')
    .option('--approve <uri>', 'approve the screen as it reads now (a new one, or one that changed)')
    .option('--allow <address-or-permission>', 'allow an address its screens ask for (https://host[:port]) or a permission (camera, microphone, geolocation, clipboardWrite); repeatable', collect)
    .option('--refuse <address-or-permission>', 'refuse one again; repeatable', collect)
    .option('--for <kind>', 'what --allow/--refuse addresses are for: connect (default), resource, frame or base-uri', 'connect')
    .action(async (name: string, options: ScreensOptions) => {
      await warmDetail(context, name);
      const api = await context.api();
      let view = await api.invoke('screens.list', { server: name });
      if (options.approve) {
        const screen = view.screens.find((candidate) => candidate.uri === options.approve);
        if (!screen) throw new CliExit(EXIT.failure, `${name}'s tools name no screen ${options.approve}.`);
        if (!screen.fingerprint) throw new CliExit(EXIT.failure, `Airlock could not read ${options.approve} from ${name} now${screen.problem ? `: ${screen.problem}` : ''}; start the server and try again.`);
        await confirmOrExit(io, `Approve ${name}'s screen ${inert(screen.uri)} as it reads now (page sha256 ${screen.htmlSha256?.slice(0, 12)}…)?`, context.yes());
        view = await api.invoke('screens.approve', { server: name, uri: screen.uri, fingerprint: screen.fingerprint });
      }
      if (options.allow?.length || options.refuse?.length) {
        const kind = KIND_OPTIONS[options.for ?? 'connect'];
        if (!kind) throw new CliExit(EXIT.usage, `--for is one of ${Object.keys(KIND_OPTIONS).join(', ')}.`);
        const current = { allowed: structuredClone(view.allowed), permissions: [...view.permissions] };
        for (const [list, allow] of [
          [options.allow ?? [], true],
          [options.refuse ?? [], false],
        ] as const) {
          for (const item of list) {
            if ((SCREEN_PERMISSIONS as readonly string[]).includes(item)) {
              const permission = item as ScreenPermission;
              current.permissions = allow ? [...new Set([...current.permissions, permission])] : current.permissions.filter((p) => p !== permission);
              continue;
            }
            const parsed = parseScreenDomain(item);
            if (!parsed.ok) throw new CliExit(EXIT.usage, `${parsed.reason}.`);
            current.allowed[kind] = allow ? [...new Set([...current.allowed[kind], parsed.origin])] : current.allowed[kind].filter((origin) => origin !== parsed.origin);
          }
        }
        view = await api.invoke('screens.setAllowed', { server: name, allowed: current.allowed, permissions: current.permissions });
      }
      out(view, () => formatScreens(view.screens));
    });
}
