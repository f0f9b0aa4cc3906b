import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useQuery } from './api';
import { ClaimsNotice } from './components/claims-notice';
import { DialogQueue } from './components/dialog-queue';
import { NetworkPrompt } from './components/network-prompt';
import { parseRoute, type Route } from './route';
import { ActivityScreen } from './screens/activity';
import { FindServersScreen } from './screens/find-servers';
import { InstallScreen } from './screens/install';
import { ServerDetailScreen } from './screens/server-detail';
import { ServersScreen } from './screens/servers';
import { SettingsScreen } from './screens/settings';

// The chat (and its Markdown renderer) loads when first opened, not with every window.
const ChatScreen = lazy(() => import('./screens/chat').then((module) => ({ default: module.ChatScreen })));

const SCREENS = [
  { id: 'servers', label: 'Servers' },
  { id: 'find', label: 'Find servers' },
  { id: 'chat', label: 'Chat' },
  { id: 'activity', label: 'Activity' },
  { id: 'settings', label: 'Settings' },
] as const;

function navOf(route: Route): (typeof SCREENS)[number]['id'] {
  if (route.screen === 'activity' || route.screen === 'settings' || route.screen === 'chat' || route.screen === 'find') return route.screen;
  if (route.screen === 'install' && route.registry) return 'find';
  return 'servers';
}

/** The app frame: navigation on the left, the current screen on the right, and the dialog queue (confirmations and servers' questions) over everything. */
export function App() {
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.hash));
  const [info] = useQuery('app.info', {});
  const [sandbox] = useQuery('sandbox.status', {}, 'sandbox.didChange');
  const main = useRef<HTMLElement>(null);

  useEffect(() => {
    const onHash = () => {
      setRoute(parseRoute(window.location.hash));
      // Move focus to the new screen so keyboard and screen-reader users land on it.
      requestAnimationFrame(() => main.current?.querySelector<HTMLElement>('h1')?.focus({ preventScroll: false }));
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const current = navOf(route);
  return (
    <div className="frame">
      <a className="skip-link" href="#main" onClick={(e) => { e.preventDefault(); main.current?.querySelector<HTMLElement>('h1')?.focus(); }}>
        Skip to content
      </a>
      <nav className="sidebar" aria-label="Airlock">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">◇</span>
          <span>Airlock</span>
        </div>
        <ul>
          {SCREENS.map((item) => (
            <li key={item.id}>
              <a href={`#/${item.id}`} aria-current={current === item.id ? 'page' : undefined}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
        <div className="sidebar-foot">
          {sandbox.status === 'ok' && (
            <span className={`badge ${sandbox.value.supported ? 'badge-ok' : 'badge-danger'}`} data-testid="sandbox-badge">
              {sandbox.value.supported ? 'Sandbox ready' : 'Sandbox unavailable'}
            </span>
          )}
          {info.status === 'ok' && <span className="muted">v{info.value.version}</span>}
        </div>
      </nav>
      <main className="content" id="main" ref={main}>
        {info.status === 'ok' &&
          info.value.notices.map((notice, index) => (
            <div key={index} role="alert" className={`notice notice-${notice.level}`}>
              {notice.message}
            </div>
          ))}
        <ClaimsNotice />
        <NetworkPrompt />
        {route.screen === 'servers' && <ServersScreen />}
        {route.screen === 'server' && <ServerDetailScreen key={`${route.name}/${route.tab ?? ''}`} name={route.name} tab={route.tab} />}
        {route.screen === 'find' && <FindServersScreen />}
        {route.screen === 'install' && (
          <InstallScreen
            key={`${route.example ?? ''}|${route.update ?? ''}|${route.registry ? JSON.stringify(route.registry) : ''}`}
            example={route.example}
            update={route.update}
            registry={route.registry}
          />
        )}
        {route.screen === 'chat' && (
          <Suspense fallback={<p className="muted">Loading…</p>}>
            <ChatScreen id={route.id} />
          </Suspense>
        )}
        {route.screen === 'activity' && <ActivityScreen />}
        {route.screen === 'settings' && <SettingsScreen />}
      </main>
      <DialogQueue />
    </div>
  );
}
