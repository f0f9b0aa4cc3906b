/**
 * The resource limits a server runs under, as the core words them, with a
 * limit that does not hold here said plainly (not hidden): the person
 * reads what is enforced, not what is hoped.
 */
import type { ResourceLimitView } from '../../shared/views';

export function ResourceLimits({ limits, note }: { limits: readonly ResourceLimitView[]; note?: string }) {
  return (
    <section aria-labelledby="limits-title" data-testid="resource-limits">
      <h2 id="limits-title">Resource limits</h2>
      <p className="purpose">Set inside its sandbox, for the server and everything it starts, so a runaway server cannot take your computer with it.</p>
      {note && <p className="muted">{note}</p>}
      {limits.length > 0 && (
        <dl className="facts">
          {limits.map((limit) => (
            <div key={limit.kind} className="facts-row" data-testid={`limit-${limit.kind}`} data-holds={limit.holds}>
              <dt>{limit.label}</dt>
              <dd>
                {limit.value}
                {!limit.holds && (
                  <div className="notice notice-warning small" role="note">
                    {limit.note ?? 'This limit does not hold here.'}
                  </div>
                )}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
