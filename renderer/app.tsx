import { useEffect, useState } from 'react';
import { useQuery } from './api';
import { ActivityScreen } from './screens/activity';
import { ServersScreen } from './screens/servers';
import { SettingsScreen } from './screens/settings';

const SCREENS = [
  { id: 'servers', label: 'Servers' },
  { id: 'activity', label: 'Activity' },
  { id: 'settings', label: 'Settings' },
] as const;
type ScreenId = (typeof SCREENS)[number]['id'];

function screenFromHash(hash: string): ScreenId {
  const id = hash.replace(/^#\/?/, '');
  return SCREENS.some((screen) => screen.id === id) ? (id as ScreenId) : 'servers';
}

/** The app frame: navigation on the left, the current screen on the right. */
export function App() {
  const [screen, setScreen] = useState<ScreenId>(() => screenFromHash(window.location.hash));
  const [info] = useQuery('app.info', {});
  const [sandbox] = useQuery('sandbox.status', {}, 'sandbox.didChange');

  useEffect(() => {
    const onHash = () => setScreen(screenFromHash(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  return (
    <div className="frame">
      <nav className="sidebar" aria-label="Airlock">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">◇</span>
          <span>Airlock</span>
        </div>
        <ul>
          {SCREENS.map((item) => (
            <li key={item.id}>
              <a href={`#/${item.id}`} aria-current={screen === item.id ? 'page' : undefined}>
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
      <main className="content">
        {info.status === 'ok' &&
          info.value.notices.map((notice, index) => (
            <div key={index} role="alert" className={`notice notice-${notice.level}`}>
              {notice.message}
            </div>
          ))}
        {screen === 'servers' && <ServersScreen />}
        {screen === 'activity' && <ActivityScreen />}
        {screen === 'settings' && <SettingsScreen />}
      </main>
    </div>
  );
}
