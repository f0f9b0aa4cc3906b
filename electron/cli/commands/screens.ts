/**
 * Servers' screens (MCP Apps) on the command line: which tools have one,
 * what each asks to load from, connect to or frame (the server's claims)
 * beside what the person allowed, whether it is the screen they approved;
 * approving a new or changed one, and allowing or refusing what it asks
 * for. A screen's page is printed only inert (`airlock read NAME ui://…`);
 * screens run only in Airlock's window.
 */
import type { Command } from 'commander';
import { parseScreenDomain, SCREEN_PERMISSIONS, type ScreenDomainKind, type ScreenPermission } from '../../../shared/screens';
import { inert } from '../format';
import { CliExit, EXIT } from '../output';
import { confirmOrExit, warmDetail, type CliContext } from './servers';
import { formatScreens } from '../screen-format';

/** The `--for` names of each kind of address. */
const KIND_OPTIONS: Record<string, ScreenDomainKind> = { connect: 'connect', resource: 'resource', frame: 'frame', 'base-uri': 'baseUri' };

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
