import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useQuery } from './api';
import { ClaimsNotice } from './components/claims-notice';
import { DialogQueue } from './components/dialog-queue';
import { NetworkPrompt } from './components/network-prompt';
import { parseRoute, type Route } from './route';
import { ServerDetailScreen } from './screens/server-detail';
import { ServersScreen } from './screens/servers';

// The servers and a server's page come with the window; the chat (and its Markdown renderer) and the
// screens a person opens now and then load when first opened, so every window starts on less.
const ChatScreen = lazy(() => import('./screens/chat').then((module) => ({ default: module.ChatScreen })));
const FindServersScreen = lazy(() => import('./screens/find-servers').then((module) => ({ default: module.FindServersScreen })));
const InstallScreen = lazy(() => import('./screens/install').then((module) => ({ default: module.InstallScreen })));
const ActivityScreen = lazy(() => import('./screens/activity').then((module) => ({ default: module.ActivityScreen })));
const SettingsScreen = lazy(() => import('./screens/settings').then((module) => ({ default: module.SettingsScreen })));

/** Shown for the moment a screen takes to load: quiet, in the screen's place. */
function ScreenLoading() {
  return (
    <p className="muted screen-loading" role="status">
      Loading…
    </p>
  );
}

/** Moves the focus to the screen's heading, once it is there (a screen loaded on demand shows it a moment later). */
function focusHeading(main: HTMLElement | null): void {
  if (!main) return;
  const heading = main.querySelector<HTMLElement>('h1');
  if (heading) {
    heading.focus({ preventScroll: false });
    return;
  }
  const observer = new MutationObserver(() => {
    const shown = main.querySelector<HTMLElement>('h1');
    if (!shown) return;
    observer.disconnect();
    shown.focus({ preventScroll: false });
  });
  observer.observe(main, { childList: true, subtree: true });
  // A screen that never shows a heading (an error) stops the watch.
  window.setTimeout(() => observer.disconnect(), 10_000);
}

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
      requestAnimationFrame(() => focusHeading(main.current));
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
        <Suspense fallback={<ScreenLoading />}>
          {route.screen === 'servers' && <ServersScreen />}
          {route.screen === 'server' && <ServerDetailScreen key={`${route.name}/${route.tab ?? ''}`} name={route.name} tab={route.tab} />}
          {route.screen === 'find' && <FindServersScreen />}
          {route.screen === 'install' && (
            <InstallScreen
              key={`${route.example ?? ''}|${route.update ?? ''}|${route.registry ? JSON.stringify(route.registry) : ''}|${route.provided ?? ''}`}
              example={route.example}
              update={route.update}
              registry={route.registry}
              provided={route.provided}
            />
          )}
          {route.screen === 'chat' && <ChatScreen id={route.id} />}
          {route.screen === 'activity' && <ActivityScreen />}
          {route.screen === 'settings' && <SettingsScreen />}
        </Suspense>
      </main>
      <DialogQueue />
    </div>
  );
}
