/** Hash routes: `#/servers`, `#/servers/NAME[/SECTION]`, `#/install[?registry=NAME&version=V&option=N | ?provided=NAME]`, `#/find`, `#/chat`, `#/chat/ID`, `#/activity`, `#/settings`. */
export type Route =
  | { screen: 'servers' }
  | { screen: 'server'; name: string; tab?: string }
  | { screen: 'install'; example?: string; update?: string; registry?: RegistryPick; provided?: string }
  | { screen: 'find' }
  | { screen: 'chat'; id?: string }
  | { screen: 'activity' }
  | { screen: 'settings' };

/** A listing picked on Find servers: its name, version and install choice. */
export interface RegistryPick {
  name: string;
  version?: string;
  option?: number;
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const parts = path.split('/').filter(Boolean).map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  const params = new URLSearchParams(query);
  switch (parts[0]) {
    case 'servers':
      return parts[1] ? { screen: 'server', name: parts[1], ...(parts[2] ? { tab: parts[2] } : {}) } : { screen: 'servers' };
    case 'install': {
      const example = params.get('example');
      const update = params.get('update');
      const name = params.get('registry');
      const version = params.get('version');
      const option = Number.parseInt(params.get('option') ?? '', 10);
      const registry: RegistryPick | undefined = name ? { name, ...(version ? { version } : {}), ...(Number.isInteger(option) && option >= 0 ? { option } : {}) } : undefined;
      const provided = params.get('provided');
      return { screen: 'install', ...(example ? { example } : {}), ...(update ? { update } : {}), ...(registry ? { registry } : {}), ...(provided ? { provided } : {}) };
    }
    case 'find':
      return { screen: 'find' };
    case 'chat':
      return parts[1] ? { screen: 'chat', id: parts[1] } : { screen: 'chat' };
    case 'activity':
      return { screen: 'activity' };
    case 'settings':
      return { screen: 'settings' };
    default:
      return { screen: 'servers' };
  }
}

export function serverHref(name: string, tab?: string): string {
  return `#/servers/${encodeURIComponent(name)}${tab ? `/${encodeURIComponent(tab)}` : ''}`;
}

/** A server's Screens section (MCP Apps: its tools' screens, what they ask for). */
export function screenSectionHref(name: string): string {
  return serverHref(name, 'screens');
}

export function registryInstallHref(pick: RegistryPick): string {
  const params = new URLSearchParams({ registry: pick.name });
  if (pick.version) params.set('version', pick.version);
  if (pick.option !== undefined) params.set('option', String(pick.option));
  return `#/install?${params.toString()}`;
}

/** The install flow for a server the organisation's policy provides (by its name there). */
export function providedInstallHref(name: string): string {
  return `#/install?${new URLSearchParams({ provided: name }).toString()}`;
}

export function chatHref(id: string): string {
  return `#/chat/${encodeURIComponent(id)}`;
}

export function go(href: string): void {
  window.location.hash = href.replace(/^#/, '');
}

/** A note for the next screen (shown once): what happened on a page that is gone, such as a removed server's. */
export interface CarriedNotice {
  tone: 'ok' | 'warning';
  text: string;
}

let carried: CarriedNotice | undefined;

/** Goes to `hash`, where `notice` is shown once. */
export function goWithNotice(hash: string, notice: CarriedNotice): void {
  carried = notice;
  go(hash);
}

/** The notice carried to this screen (read without taking it: a render may run twice). */
export function carriedNotice(): CarriedNotice | undefined {
  return carried;
}

/** Forgets the carried notice once a screen has shown it, so that it shows once. */
export function forgetNotice(notice: CarriedNotice): void {
  if (carried === notice) carried = undefined;
}
