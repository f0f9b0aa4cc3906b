/**
 * The app-wide notice for tools that did what their claims say they do not:
 * shown on every screen, from the moment Airlock withdrew their claims until
 * the person reviews them (the Servers list says the same per server).
 */
import { useLiveQuery } from '../api';
import { serverHref } from '../route';
import { InertText } from './inert-text';

export function ClaimsNotice() {
  const [servers] = useLiveQuery('servers.list', {}, 'servers.didChange', (payload) => payload);
  if (servers.status !== 'ok') return null;
  const flagged = servers.value.filter((server) => server.claimsToReview > 0);
  if (flagged.length === 0) return null;
  return (
    <div role="alert" className="notice notice-error" data-testid="claims-notice">
      {flagged.map((server) => (
        <p key={server.name}>
          <strong>
            <InertText text={server.name} />
          </strong>
          : {server.claimsToReview === 1 ? 'a tool did something its claims say it does not' : `${server.claimsToReview} tools did something their claims say they do not`}.
          Airlock asks before each of {server.claimsToReview === 1 ? 'its' : 'their'} calls until you review what happened.{' '}
          <a href={serverHref(server.name)}>Review</a>
        </p>
      ))}
    </div>
  );
}
