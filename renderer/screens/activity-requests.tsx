/** The Activity page's second part: what servers asked back (sampling, questions, roots) and what was decided. */
import { useQuery, useRefreshOn } from '../api';
import { InertText } from '../components/inert-text';
import { ServerRequestsTable } from '../components/server-requests-table';

export function ServerRequestsActivity({ server }: { server?: string }) {
  const [entries, reload] = useQuery('requests.history', { ...(server ? { server } : {}), limit: 200 });
  useRefreshOn(['audit.didAppend'], reload);
  return (
    <section aria-labelledby="requests-activity-title" data-testid="requests-activity">
      <h2 id="requests-activity-title">What servers asked</h2>
      <p className="muted small">A server may ask for a model’s reply (sampling), ask you a question, or ask which folders it may work in. Each was decided and recorded before anything was answered.</p>
      {entries.status === 'loading' && <p className="muted">Loading…</p>}
      {entries.status === 'error' && (
        <p role="alert" className="notice notice-error">
          <InertText text={entries.message} />
        </p>
      )}
      {entries.status === 'ok' &&
        (entries.value.length === 0 ? (
          <p className="muted">{server ? 'This server has asked nothing yet.' : 'No server has asked anything yet.'}</p>
        ) : (
          <ServerRequestsTable entries={entries.value} showServer={!server} />
        ))}
    </section>
  );
}
