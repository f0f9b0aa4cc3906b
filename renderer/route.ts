/** Hash routes: `#/servers`, `#/servers/NAME[/SECTION]`, `#/install`, `#/chat`, `#/chat/ID`, `#/activity`, `#/settings`. */
export type Route =
  | { screen: 'servers' }
  | { screen: 'server'; name: string; tab?: string }
  | { screen: 'install'; example?: string; update?: string }
  | { screen: 'chat'; id?: string }
  | { screen: 'activity' }
  | { screen: 'settings' };

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
      return { screen: 'install', ...(example ? { example } : {}), ...(update ? { update } : {}) };
    }
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

export function chatHref(id: string): string {
  return `#/chat/${encodeURIComponent(id)}`;
}

export function go(href: string): void {
  window.location.hash = href.replace(/^#/, '');
}
