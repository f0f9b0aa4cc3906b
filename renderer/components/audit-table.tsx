/** Audit entries as a table (the Activity screen and a server's page): each decision names its rule, with a way to revoke it (UX 16). */
import type { AuditEntryView } from '../../shared/views';
import { invoke, useAction } from '../api';
import { when } from '../format';
import { serverHref } from '../route';
import { Badge } from './badges';
import { FieldError } from './field-error';
import { InertText } from './inert-text';
import { LoggedValue, LogNote } from './log-details';

/** The decision as the core words it ("allowed", "denied after asking", …); its tone from the words. */
function verdictTone(verdict: string | undefined): string {
  if (!verdict) return 'neutral';
  if (/den(y|ied)|contradicted/i.test(verdict)) return 'danger';
  if (/allow/i.test(verdict)) return 'ok';
  return 'warn';
}
const OUTCOME_TONE: Record<string, string> = { ok: 'ok', 'tool-error': 'warn', unknown: 'warn', denied: 'danger', 'not-running': 'warn' };

/** Audit entries as a table; each decision names its rule, with a way to revoke it (UX 16). */
export function AuditTable({ entries, showServer = true, onChanged }: { entries: AuditEntryView[]; showServer?: boolean; onChanged?: () => void }) {
  const action = useAction();
  return (
    <div className="table-wrap">
      <FieldError message={action.error} />
      <table className="audit-table" data-testid="audit-table">
        <thead>
          <tr>
            <th scope="col">When</th>
            {showServer && <th scope="col">Server</th>}
            <th scope="col">Tool</th>
            <th scope="col">Who</th>
            <th scope="col">What happened</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={`${entry.seq}-${entry.kind}`} data-testid="audit-row" data-kind={entry.kind} data-verdict={entry.verdict ?? ''} data-outcome={entry.outcome ?? ''}>
              <td className="nowrap" data-label="When">{when(entry.time)}</td>
              {showServer && (
                <td data-label="Server">
                  {entry.server ? (
                    <a href={serverHref(entry.server)}>
                      <InertText text={entry.server} />
                    </a>
                  ) : (
                    <span className="small muted">Settings</span>
                  )}
                </td>
              )}
              <td data-label="Tool">
                {entry.kind === 'network' ? (
                  <span className="small">
                    network <code><InertText text={entry.target ?? ''} /></code>
                  </span>
                ) : entry.kind === 'sandbox' ? (
                  <span className="small">
                    sandbox <code><InertText text={entry.target ?? ''} /></code>
                  </span>
                ) : entry.kind === 'change' && !entry.tool ? (
                  <span className="small muted">—</span>
                ) : (
                  <code><InertText text={entry.tool} /></code>
                )}
              </td>
              <td data-label="Who">
                <InertText text={entry.caller} />
              </td>
              <td data-label="What happened">
                {entry.kind !== 'outcome' ? (
                  <>
                    <Badge tone={verdictTone(entry.verdict)}>
                      <InertText text={entry.verdict ?? 'decided'} />
                    </Badge>
                    {entry.answeredBy && (
                      <div className="small">
                        Answered: <InertText text={entry.answeredBy} />
                      </div>
                    )}
                  </>
                ) : (
                  <>
                    <Badge tone={OUTCOME_TONE[entry.outcome ?? ''] ?? 'neutral'}>
                      <InertText text={entry.outcome ?? 'outcome'} />
                    </Badge>
                    {entry.durationMs !== undefined && <span className="small muted duration"> {Math.round(entry.durationMs)} ms</span>}
                  </>
                )}
              </td>
              <td data-label="Details">
                {entry.changes && entry.changes.length > 0 && (
                  <ul className="small plain" data-testid="audit-changes">
                    {entry.changes.map((line, i) => (
                      <li key={i}>
                        <InertText text={line} />
                      </li>
                    ))}
                  </ul>
                )}
                {entry.reasons && entry.reasons.length > 0 && <LogNote text={entry.reasons.join(' ')} />}
                {entry.rule && (
                  <div className="small">
                    Rule: <InertText text={entry.rule} />{' '}
                    <button
                      type="button"
                      className="small-button"
                      disabled={action.busy}
                      onClick={async () => {
                        if (await action.run(() => invoke('rules.remove', { server: entry.server, tool: entry.tool }))) onChanged?.();
                      }}
                    >
                      {/^deny/i.test(entry.rule) ? 'Revoke the rule that denied this' : 'Revoke the rule that allowed this'}
                    </button>
                  </div>
                )}
                {entry.arguments !== undefined && <LoggedValue summary="Arguments" value={entry.arguments} fold={1000} />}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
