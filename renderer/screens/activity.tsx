/** The Activity screen (UX 16): every decision and outcome from the audit log, filtered, with the chain's health; then what servers asked back. */
import { useId, useState } from 'react';
import type { AuditEntryView } from '../../shared/views';
import { invoke, useAction, useQuery, useRefreshOn } from '../api';
import { Badge } from '../components/badges';
import { InertText, safeJson } from '../components/inert-text';
import { when } from '../format';
import { serverHref } from '../route';
import { FieldError } from '../components/field-error';
import { ServerRequestsActivity } from './activity-requests';

type VerdictFilter = '' | 'allow' | 'ask' | 'deny';

export function ActivityScreen() {
  const [server, setServer] = useState('');
  const [tool, setTool] = useState('');
  const [verdict, setVerdict] = useState<VerdictFilter>('');
  const [servers] = useQuery('servers.list', {}, 'servers.didChange');
  const request = { ...(server ? { server } : {}), ...(tool.trim() ? { tool: tool.trim() } : {}), ...(verdict ? { verdict } : {}), limit: 200 };
  const [entries, reload] = useQuery('audit.list', request);
  // The whole chain when the page opens (and on request); after an append, only what was appended since.
  const [verify, reverify, setVerify] = useQuery('audit.verify', {});
  const ids = { server: useId(), tool: useId(), verdict: useId() };

  // Refresh on every append, at most a few times a second.
  useRefreshOn(['audit.didAppend'], () => {
    reload();
    void invoke('audit.verify', { scope: 'new' }).then((result) => result.ok && setVerify(result.value));
  });

  return (
    <section aria-labelledby="activity-title">
      <h1 id="activity-title" tabIndex={-1}>
        Activity
      </h1>
      <div data-testid="audit-verify" aria-live="polite">
        {verify.status === 'ok' &&
          (verify.value.ok ? (
            <div className="notice notice-ok">
              <p>
                <strong>Chain verified:</strong> {verify.value.entries.toLocaleString('en')} entries in {verify.value.files} file{verify.value.files === 1 ? '' : 's'}, none edited, removed or
                reordered{verify.value.end === 'confirmed' ? ', and none cut from the end' : ''}.
                {verify.value.scope === 'new' && (
                  <>
                    {' '}
                    <span className="muted small">(New entries checked as they came; the whole log was read when this page opened.)</span>{' '}
                    <button type="button" className="link-button small" onClick={reverify}>
                      Check the whole log
                    </button>
                  </>
                )}
              </p>
              {verify.value.problems.length > 0 && (
                <ul className="small">
                  {verify.value.problems.map((problem, i) => (
                    <li key={i}>
                      <code>
                        <InertText text={`${problem.file}:${problem.line}`} />
                      </code>{' '}
                      — <InertText text={problem.message} />
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ) : (
            <div className="notice notice-error" role="alert">
              <strong>The activity log was changed outside Airlock.</strong>
              <ul>
                {verify.value.problems.map((problem, i) => (
                  <li key={i}>
                    <code>
                      <InertText text={`${problem.file}:${problem.line}`} />
                    </code>{' '}
                    — <InertText text={problem.message} />
                  </li>
                ))}
              </ul>
            </div>
          ))}
        {verify.status === 'error' && (
          <p className="notice notice-error">
            Could not check the log: <InertText text={verify.message} />
          </p>
        )}
      </div>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the activity">
        <div className="field-row">
          <label htmlFor={ids.server}>Server</label>
          <select id={ids.server} value={server} onChange={(e) => setServer(e.target.value)}>
            <option value="">All servers</option>
            {servers.status === 'ok' &&
              servers.value.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name}
                </option>
              ))}
          </select>
        </div>
        <div className="field-row">
          <label htmlFor={ids.tool}>Tool</label>
          <input id={ids.tool} type="text" value={tool} onChange={(e) => setTool(e.target.value)} placeholder="Any tool" spellCheck={false} />
        </div>
        <div className="field-row">
          <label htmlFor={ids.verdict}>Decision</label>
          <select id={ids.verdict} value={verdict} onChange={(e) => setVerdict(e.target.value as VerdictFilter)}>
            <option value="">Any decision</option>
            <option value="allow">Allowed</option>
            <option value="ask">Asked a person</option>
            <option value="deny">Denied</option>
          </select>
        </div>
      </form>
      {entries.status === 'loading' && <p className="muted">Loading…</p>}
      {entries.status === 'error' && (
        <p role="alert" className="notice notice-error">
          <InertText text={entries.message} />
        </p>
      )}
      {entries.status === 'ok' &&
        (entries.value.length === 0 ? (
          <div className="empty">
            <p className="lead">{server || tool || verdict ? 'Nothing matches these filters.' : 'No calls yet.'}</p>
            <p>Every tool call, who asked for it, what Airlock decided and what happened will be listed here — and every change to rules, grants, trust and settings, with who made it.</p>
          </div>
        ) : (
          <>
            {entries.value.filter((e) => e.kind === 'decision').length >= 200 && <p className="muted small">Showing the newest 200 calls; filter to see older ones.</p>}
            <AuditTable entries={entries.value} onChanged={reload} />
          </>
        ))}
      <ServerRequestsActivity {...(server ? { server } : {})} />
    </section>
  );
}

/** The decision as the core words it ("allowed", "denied after asking", …); its tone from the words. */
function verdictTone(verdict: string | undefined): string {
  if (!verdict) return 'neutral';
  if (/den(y|ied)/i.test(verdict)) return 'danger';
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
                {entry.reasons && entry.reasons.length > 0 && (
                  <div className="small">
                    <InertText text={entry.reasons.join(' ')} fold={300} />
                  </div>
                )}
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
                {entry.arguments !== undefined && (
                  <details>
                    <summary className="small">Arguments</summary>
                    <InertText text={safeJson(entry.arguments)} block fold={1000} className="output" />
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
