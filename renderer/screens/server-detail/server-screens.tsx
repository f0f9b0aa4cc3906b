/**
 * A server's Screens section (MCP Apps): the pages its tools show, each with
 * what it asks for — addresses to load from, connect to or frame, device
 * permissions — as the server's claims beside what the person allows (each
 * refused until allowed, like a network domain), and whether it is the page
 * they approved. A new or changed screen shows what changed and does not
 * render until approved here.
 */
import { useEffect, useState } from 'react';
import { SCREEN_DOMAIN_KINDS, SCREEN_DOMAIN_WORDS, SCREEN_PERMISSION_WORDS, type ScreenDomains, type ScreenPermission } from '../../../shared/plain';
import type { ScreenView, ServerScreensView } from '../../../shared/views';
import { invoke, useAction, useQuery } from '../../api';
import { Badge } from '../../components/badges';
import { FieldError } from '../../components/field-error';
import { InertText } from '../../components/inert-text';

const STATE: Record<ScreenView['state'], { tone: 'ok' | 'warn' | 'danger' | 'neutral'; label: string }> = {
  approved: { tone: 'ok', label: 'Approved' },
  new: { tone: 'warn', label: 'New — not shown until you approve it' },
  changed: { tone: 'danger', label: 'Changed since you approved it — not shown until you approve it again' },
  unreadable: { tone: 'danger', label: 'Could not be read' },
  'not-read': { tone: 'neutral', label: 'As approved (not read now: the server is not running)' },
};

export function ServerScreens({ server }: { server: string }) {
  const [query, reload, set] = useQuery('screens.list', { server });
  if (query.status === 'loading') return <p className="muted">Reading its screens…</p>;
  if (query.status === 'error') {
    return (
      <p role="alert" className="notice notice-error">
        <InertText text={query.message} />
      </p>
    );
  }
  return <ScreensList view={query.value} onChange={set} reload={reload} />;
}

function ScreensList({ view, onChange, reload }: { view: ServerScreensView; onChange: (view: ServerScreensView) => void; reload: () => void }) {
  const action = useAction();
  const [allowed, setAllowed] = useState<ScreenDomains>(view.allowed);
  const [permissions, setPermissions] = useState<ScreenPermission[]>(view.permissions);
  useEffect(() => {
    setAllowed(view.allowed);
    setPermissions(view.permissions);
  }, [view]);
  const dirty = JSON.stringify([allowed, permissions]) !== JSON.stringify([view.allowed, view.permissions]);
  const toggle = (kind: keyof ScreenDomains, origin: string, on: boolean) =>
    setAllowed({ ...allowed, [kind]: on ? [...new Set([...allowed[kind], origin])].sort() : allowed[kind].filter((item) => item !== origin) });
  const togglePermission = (permission: ScreenPermission, on: boolean) => setPermissions(on ? [...new Set([...permissions, permission])].sort() : permissions.filter((item) => item !== permission));
  const save = async () => {
    const next = await action.run(() => invoke('screens.setAllowed', { server: view.server, allowed, permissions }));
    if (next) onChange(next);
  };
  const approve = async (screen: ScreenView) => {
    if (!screen.fingerprint) return;
    const next = await action.run(() => invoke('screens.approve', { server: view.server, uri: screen.uri, fingerprint: screen.fingerprint! }));
    if (next) onChange(next);
    else reload();
  };
  if (view.screens.length === 0) return <p className="muted">None of its tools has a screen.</p>;
  return (
    <div className="server-screens" data-testid="server-screens">
      <p className="muted small">
        A screen is a page the server wrote, shown with its tool’s result in the console and the chat — on an origin of its own, in a sandbox, with no access to Airlock. What it asks to load from or connect to is the server’s claim: it gets only what you allow here, and a screen whose page or requests change is not shown again until you approve it.
      </p>
      {view.screens.map((screen) => (
        <section key={screen.uri} className="panel screen-entry" aria-label={`Screen ${screen.uri}`} data-testid="screen-entry" data-state={screen.state}>
          <h3>
            <code>
              <InertText text={screen.uri} />
            </code>{' '}
            <Badge tone={STATE[screen.state].tone} testId="screen-state">
              {STATE[screen.state].label}
            </Badge>
          </h3>
          <p className="small">
            Shown for{' '}
            {screen.tools.map((tool, index) => (
              <span key={tool}>
                {index > 0 ? ', ' : ''}
                <code>
                  <InertText text={tool} />
                </code>
              </span>
            ))}
            {screen.htmlSha256 && (
              <span className="muted">
                {' '}
                · page sha256 <code>{screen.htmlSha256.slice(0, 16)}…</code>
                {screen.size !== undefined ? `, ${screen.size.toLocaleString('en')} bytes` : ''}
              </span>
            )}
          </p>
          {screen.problem && (
            <p className="notice notice-error small">
              <InertText text={screen.problem} />
            </p>
          )}
          {screen.changes.length > 0 && (
            <ul className="screen-changes" data-testid="screen-changes">
              {screen.changes.map((change) => (
                <li key={change}>{change}</li>
              ))}
            </ul>
          )}
          <Asks screen={screen} allowed={allowed} permissions={permissions} onToggle={toggle} onTogglePermission={togglePermission} />
          {screen.notes.map((note) => (
            <p key={note} className="small muted">
              <InertText text={note} />
            </p>
          ))}
          {(screen.state === 'new' || screen.state === 'changed') && screen.fingerprint && (
            <button type="button" className="primary" disabled={action.busy} onClick={() => void approve(screen)} data-testid="screen-approve">
              Approve this screen
            </button>
          )}
        </section>
      ))}
      <FieldError message={action.error} />
      <button type="button" disabled={!dirty || action.busy} onClick={() => void save()} data-testid="screens-save">
        Save what its screens may use
      </button>
    </div>
  );
}

/** What one screen asks for, each address and permission with its allow box (the server's claims; unticked: refused). */
export function Asks({
  screen,
  allowed,
  permissions,
  onToggle,
  onTogglePermission,
}: {
  screen: ScreenView;
  allowed: ScreenDomains;
  permissions: ScreenPermission[];
  onToggle: (kind: keyof ScreenDomains, origin: string, on: boolean) => void;
  onTogglePermission: (permission: ScreenPermission, on: boolean) => void;
}) {
  const rows = SCREEN_DOMAIN_KINDS.flatMap((kind) => screen.declared[kind].map((origin) => ({ kind, origin })));
  if (rows.length === 0 && screen.permissions.asked.length === 0) {
    return <p className="small" data-testid="screen-asks-nothing">It asks for no addresses and no permissions: it cannot reach the network.</p>;
  }
  return (
    <ul className="screen-asks" aria-label="What it asks for (the server’s claims)">
      {rows.map(({ kind, origin }) => (
        <li key={`${kind} ${origin}`}>
          <label className="check">
            <input type="checkbox" checked={allowed[kind].includes(origin)} onChange={(event) => onToggle(kind, origin, event.target.checked)} data-testid="screen-domain" />{' '}
            It asks to {SCREEN_DOMAIN_WORDS[kind]} <code>{origin}</code> — {allowed[kind].includes(origin) ? 'allowed' : 'refused'}
          </label>
        </li>
      ))}
      {screen.permissions.asked.map((permission) => (
        <li key={permission}>
          <label className="check">
            <input type="checkbox" checked={permissions.includes(permission)} onChange={(event) => onTogglePermission(permission, event.target.checked)} data-testid="screen-permission" /> It asks for {SCREEN_PERMISSION_WORDS[permission]} — {permissions.includes(permission) ? 'allowed' : 'refused'}
          </label>
        </li>
      ))}
    </ul>
  );
}
