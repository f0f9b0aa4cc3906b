import { useState } from 'react';
import type { GatewayStatus } from '../../shared/views';
import { invoke, useAction, useQuery } from '../api';
import { Badge } from '../components/badges';
import { InertText } from '../components/inert-text';
import { FieldError } from '../components/field-error';
import { OrganisationLock } from '../components/organisation-lock';

/**
 * Settings › Other AI apps: the gateway that lets Claude Desktop, VS Code
 * and Cursor use Airlock's servers under Airlock's policy, and a one-click
 * connect (with a backup and undo) for each app.
 */
export function OtherAppsSection() {
  const [status, reload, setStatus] = useQuery('gateway.status', {}, 'servers.didChange');
  const action = useAction();
  const [port, setPort] = useState('8765');
  const [move, setMove] = useState<Record<string, boolean>>({});
  const [done, setDone] = useState<string | undefined>();

  if (status.status === 'loading') return <p className="muted">Reading the apps’ configs…</p>;
  if (status.status === 'error')
    return (
      <p role="alert" className="field-error">
        <InertText text={status.message} />
      </p>
    );
  const value: GatewayStatus = status.value;
  const snippet = JSON.stringify({ command: value.stdioCommand.command, args: value.stdioCommand.args }, null, 2);

  return (
    <div className="other-apps" data-testid="other-apps">
      <p>
        Other AI apps can use the servers Airlock runs — in their sandboxes, under your rules, with their confirmations asked here — instead of
        starting servers unconfined themselves. They see each tool as <code>server__tool</code>.
      </p>
      <ul className="app-list">
        {value.apps.map((app) => (
          <li key={app.app} className="panel" data-testid={`connect-${app.app}`}>
            <h3>
              {app.label} {app.connected ? <Badge tone="ok">Connected</Badge> : <Badge tone="neutral">Not connected</Badge>}
            </h3>
            {app.problem ? (
              <p className="muted">
                <InertText text={app.problem} />
              </p>
            ) : (
              <>
                <p className="muted">
                  Its config: <code>{app.configPath}</code>
                  {app.exists ? '' : ' (not there yet; Airlock creates it)'}
                </p>
                {app.otherServers.length > 0 && (
                  <p>
                    It also runs, without Airlock’s sandbox: <InertText text={app.otherServers.join(', ')} />. Import them with{' '}
                    <a href="#/install">Add a server › Import</a> to run them here instead.
                  </p>
                )}
                {app.importedIntoAirlock.length > 0 && (
                  <label className="check">
                    <input type="checkbox" checked={move[app.app] ?? false} onChange={(event) => setMove({ ...move, [app.app]: event.target.checked })} /> Also take{' '}
                    <InertText text={app.importedIntoAirlock.join(', ')} /> out of {app.label}’s config (already in Airlock)
                  </label>
                )}
                <div className="actions">
                  <button
                    type="button"
                    className="primary"
                    disabled={action.busy || (app.connected && !(move[app.app] ?? false))}
                    onClick={async () => {
                      const result = await action.run(() => invoke('connect.apply', { app: app.app, moveImported: move[app.app] ?? false }));
                      setMove({ ...move, [app.app]: false });
                      if (result) setDone(result.changed ? `${app.label} is connected. A backup of its config is at ${result.backupPath}. Restart ${app.label} to use it.` : `${app.label} was already connected.`);
                      reload();
                    }}
                  >
                    {app.connected ? 'Update' : `Connect ${app.label}`}
                  </button>
                  <button
                    type="button"
                    disabled={action.busy || !app.connected}
                    onClick={async () => {
                      const result = await action.run(() => invoke('connect.undo', { app: app.app }));
                      if (result) setDone(`${app.label}’s config is back as it was (from ${result.restoredFrom}).`);
                      reload();
                    }}
                  >
                    Undo
                  </button>
                </div>
              </>
            )}
          </li>
        ))}
      </ul>
      <details>
        <summary>Add it by hand</summary>
        <p>In any app that takes an MCP server command, add a server that runs:</p>
        <pre className="snippet">{snippet}</pre>
      </details>
      <h3>Over HTTP</h3>
      <OrganisationLock setting="httpGateway" />
      {value.http.running ? (
        <p>
          <Badge tone="ok">Running</Badge> on <code>{value.http.url}</code>. Every request needs the bearer token in <code>{value.http.tokenFile}</code>; only this
          computer can connect.
        </p>
      ) : (
        <p className="muted">For apps that connect over HTTP: only on this computer (127.0.0.1), with a bearer token.</p>
      )}
      <div className="actions">
        {value.http.running ? (
          <button type="button" disabled={action.busy} onClick={async () => setStatus((await action.run(() => invoke('gateway.stopHttp', {}))) ?? value)}>
            Stop the HTTP gateway
          </button>
        ) : (
          <>
            <label>
              Port{' '}
              <input inputMode="numeric" size={6} value={port} onChange={(event) => setPort(event.target.value)} aria-label="Port for the HTTP gateway" />
            </label>
            <button
              type="button"
              disabled={action.busy || !/^\d{1,5}$/.test(port)}
              onClick={async () => setStatus((await action.run(() => invoke('gateway.startHttp', { port: Number(port) }))) ?? value)}
            >
              Start the HTTP gateway
            </button>
          </>
        )}
      </div>
      {done && (
        <p role="status">
          <InertText text={done} />
        </p>
      )}
      <FieldError message={action.error} />
    </div>
  );
}
