import { invoke, useQuery } from '../api';

/** Settings: the sandbox's status on this machine (the same truth as `airlock doctor`). */
export function SettingsScreen() {
  const [sandbox, , setSandbox] = useQuery('sandbox.status', {}, 'sandbox.didChange');
  const [info] = useQuery('app.info', {});

  const recheck = async () => {
    const result = await invoke('sandbox.recheck', {});
    if (result.ok) setSandbox(result.value);
  };

  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <h2>Sandbox</h2>
      {sandbox.status === 'loading' && <p className="muted">Checking…</p>}
      {sandbox.status === 'error' && <p role="alert">{sandbox.message}</p>}
      {sandbox.status === 'ok' && (
        <div className={`panel ${sandbox.value.supported ? 'panel-ok' : 'panel-danger'}`} data-testid="sandbox-status">
          <p className="lead">{sandbox.value.summary}</p>
          {sandbox.value.missing.length > 0 && (
            <p>
              Missing: <strong>{sandbox.value.missing.join(', ')}</strong>
            </p>
          )}
          {sandbox.value.fix && (
            <p>
              To fix it, run <code>{sandbox.value.fix}</code>, then check again.
            </p>
          )}
          <button type="button" onClick={() => void recheck()}>
            Check again
          </button>
        </div>
      )}
      <h2>About</h2>
      {info.status === 'ok' && (
        <dl className="facts">
          <dt>Version</dt>
          <dd>{info.value.version}</dd>
          <dt>Data folder</dt>
          <dd>
            <code>{info.value.dataDir}</code>
          </dd>
        </dl>
      )}
    </section>
  );
}
