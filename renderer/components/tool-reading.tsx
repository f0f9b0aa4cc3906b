/**
 * A tool's claims beside Airlock's reading (UX 12): the annotations are what
 * the server says; the reading and the decision are what Airlock does.
 */
import { Fragment, useState } from 'react';
import type { ClaimsCheckView, ToolReadingView, ToolView, PolicyPreview } from '../../shared/views';
import { when } from '../format';
import { Badge } from './badges';
import { InertText, visible } from './inert-text';

const CLASS_LABEL: Record<ToolReadingView['class'], { text: string; tone: string }> = {
  'read-only': { text: 'Read-only', tone: 'ok' },
  'changes-things': { text: 'Changes things', tone: 'warn' },
  destructive: { text: 'Destructive', tone: 'danger' },
};

const SAYS = /^The server says:\s*/i;

/** One claim line from the core: a stated claim shows what was said; an unstated one, muted, how Airlock treats it. */
function ClaimLine({ claim }: { claim: string }) {
  if (SAYS.test(claim)) return <InertText text={claim.replace(SAYS, '')} className="claim-stated" />;
  return (
    <span className="muted">
      <InertText text={claim} />
    </span>
  );
}

/** "The server says: …" — the annotations as claims, one line each. */
export function Claims({ reading }: { reading: ToolReadingView }) {
  return (
    <div className="claims" data-testid="claims">
      <div className="claims-label">The server says (hints, not facts):</div>
      {reading.claims.length === 0 ? (
        <p className="muted">Nothing about what this tool does.</p>
      ) : (
        <ul>
          {reading.claims.map((claim, i) => (
            <li key={i}>
              <ClaimLine claim={claim} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Airlock's reading of the tool, from the normalised annotations. */
export function Reading({ reading }: { reading: ToolReadingView }) {
  const cls = CLASS_LABEL[reading.class];
  return (
    <div className="reading" data-testid="reading">
      <div className="claims-label">Airlock’s reading:</div>
      <span className="badges">
        <Badge tone={cls.tone}>{cls.text}</Badge>
        <Badge tone={reading.openWorld ? 'warn' : 'neutral'}>{reading.openWorld ? 'May reach outside your machine' : 'Stays on your machine'}</Badge>
        {reading.idempotent && <Badge tone="neutral">Safe to repeat</Badge>}
        {reading.contradictory && <Badge tone="danger">Contradictory claims — counted as destructive</Badge>}
      </span>
    </div>
  );
}

export function PreviewBadge({ preview }: { preview: PolicyPreview }) {
  const tone = preview.verdict === 'allow' ? 'ok' : preview.verdict === 'deny' ? 'danger' : 'warn';
  return (
    <Badge tone={tone} testId="policy-preview">
      {preview.label}
    </Badge>
  );
}

/** One tool, fully: title, description (inert), claims vs reading, what the policy would do, warnings. */
export function ToolCard({ tool }: { tool: ToolView }) {
  return (
    <article className="tool-card" data-testid={`tool-${visible(tool.name)}`} aria-label={`Tool ${visible(tool.name)}`}>
      <header className="tool-card-head">
        <h4>
          <code>
            <InertText text={tool.name} />
          </code>
          {tool.title && (
            <>
              {' '}
              <span className="tool-title">
                <InertText text={tool.title} />
              </span>
            </>
          )}
        </h4>
        <PreviewBadge preview={tool.preview} />
      </header>
      <InertText text={tool.description} quoted fold={240} className="tool-description" empty="No description." />
      <div className="claims-vs-reading">
        <Claims reading={tool.reading} />
        <Reading reading={tool.reading} />
      </div>
      {tool.preview.reasons.length > 0 && (
        <details className="reasons">
          <summary>Why “{tool.preview.label}”</summary>
          <InertText text={tool.preview.reasons.join(' ')} block />
        </details>
      )}
      <Warnings warnings={tool.warnings} />
    </article>
  );
}

export function Warnings({ warnings }: { warnings: ToolView['warnings'] }) {
  if (warnings.length === 0) return null;
  return (
    <ul className="warnings" data-testid="tool-warnings">
      {warnings.map((warning, i) => (
        <li key={i}>
          <Badge tone="warn">Warning</Badge> <InertText text={warning.message} />
        </li>
      ))}
    </ul>
  );
}

/** The review table: claims vs reading vs the effective decision, and any rule with its date. */
/** Makes an "always" rule for one tool, bound to the definition shown; "always allow" for a destructive tool asks twice. */
function MakeRule({ tool, onAddRule }: { tool: ToolView; onAddRule: (tool: ToolView, effect: 'allow' | 'deny', confirmDestructive: boolean) => void }) {
  const [confirming, setConfirming] = useState(false);
  const destructive = tool.reading.class === 'destructive';
  if (confirming) {
    return (
      <div className="confirm-rule" role="group" aria-label={`Always allow ${visible(tool.name)}?`}>
        <p className="small">
          Let <code><InertText text={tool.name} /></code> delete or overwrite things without asking, until you revoke the rule?
        </p>
        <button type="button" className="small-button danger" onClick={() => { setConfirming(false); onAddRule(tool, 'allow', true); }}>
          Yes, always allow
        </button>{' '}
        <button type="button" className="small-button" onClick={() => setConfirming(false)}>
          Cancel
        </button>
      </div>
    );
  }
  return (
    <span className="rule-buttons">
      <button type="button" className="small-button" onClick={() => (destructive ? setConfirming(true) : onAddRule(tool, 'allow', false))} disabled={Boolean(tool.pendingChange)}>
        Always allow…
      </button>
      <button type="button" className="small-button" onClick={() => onAddRule(tool, 'deny', false)}>
        Always deny
      </button>
    </span>
  );
}

const CLAIM_LABEL: Record<ClaimsCheckView['claims'][number], string> = {
  readOnlyHint: 'only reads',
  destructiveHint: 'does not delete or overwrite',
  openWorldHint: 'stays on your machine',
};

/**
 * What a tool did against its claims (Airlock saw it during its calls): the
 * state, the evidence — paths and hosts are the server's doing, shown inert —
 * and, while its claims are withdrawn, the person's two choices. "Keep
 * trusting" asks once more before it gives the claims back.
 */
export function ClaimsEvidence({ tool, onReview, busy }: { tool: ToolView; onReview?: (tool: ToolView, decision: 'keep' | 'distrust') => void; busy?: boolean }) {
  const [confirming, setConfirming] = useState(false);
  const check = tool.claimsCheck;
  if (!check) return null;
  const title =
    check.state === 'withdrawn'
      ? 'It did something its claims say it does not'
      : check.state === 'distrusted'
        ? 'Its claims are not trusted (your review)'
        : 'Its claims are trusted again (your review)';
  return (
    <section className={`claims-check claims-${check.state}`} data-testid={`claims-check-${visible(tool.name)}`} aria-label={`${visible(tool.name)}: ${title}`}>
      <p>
        <Badge tone={check.state === 'kept' ? 'neutral' : 'danger'}>{title}</Badge>{' '}
        <span className="small">It says it {check.claims.map((claim) => CLAIM_LABEL[claim]).join(', ')}.</span>
      </p>
      <p className="small">{check.summary}</p>
      <ul className="small plain" data-testid="claims-evidence">
        {check.evidence.slice(0, 5).map((item, i) => (
          <li key={i}>
            <span className="muted">{when(item.at)}</span> <InertText text={item.words} fold={400} />
          </li>
        ))}
      </ul>
      {check.evidence.length > 5 && <p className="small muted">…and {check.evidence.length - 5} more in Activity.</p>}
      {check.reviewed && (
        <p className="small muted">
          Reviewed {when(check.reviewed.at)} ({check.reviewed.by === 'window' ? 'in the window' : 'at the command line'}).
        </p>
      )}
      {onReview && !confirming && (
        <div className="actions">
          {check.state !== 'distrusted' && (
            <button type="button" className="small-button" disabled={busy} onClick={() => onReview(tool, 'distrust')}>
              Don’t trust its claims
            </button>
          )}
          {check.state !== 'kept' && (
            <button type="button" className="small-button" disabled={busy} onClick={() => setConfirming(true)}>
              Keep trusting its claims…
            </button>
          )}
        </div>
      )}
      {onReview && confirming && (
        <div className="confirm-rule" role="group" aria-label={`Trust what ${visible(tool.name)} claims again?`}>
          <p className="small">
            Trust what <code><InertText text={tool.name} /></code> claims again, for its current definition? What it claims may then spare it a prompt
            (a trusted server’s read-only tools run without asking). What it does against them is still recorded.
          </p>
          <button type="button" className="small-button danger" disabled={busy} onClick={() => { setConfirming(false); onReview(tool, 'keep'); }}>
            Yes, trust its claims again
          </button>{' '}
          <button type="button" className="small-button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
    </section>
  );
}

export function ToolsTable({
  tools,
  onRevokeRule,
  onAddRule,
  onReviewClaims,
  busy,
}: {
  tools: ToolView[];
  onRevokeRule?: (tool: string) => void;
  onAddRule?: (tool: ToolView, effect: 'allow' | 'deny', confirmDestructive: boolean) => void;
  onReviewClaims?: (tool: ToolView, decision: 'keep' | 'distrust') => void;
  busy?: boolean;
}) {
  if (tools.length === 0) return <p className="muted">No tools listed (the server may not be running yet).</p>;
  return (
    <div className="table-wrap">
      <table className="tools-table" data-testid="tools-table">
        <colgroup>
          <col className="col-tool" />
          <col className="col-claims" />
          <col className="col-reading" />
          <col className="col-decision" />
          <col className="col-rule" />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">The server says</th>
            <th scope="col">Airlock’s reading</th>
            <th scope="col">What happens now</th>
            <th scope="col">Rule</th>
          </tr>
        </thead>
        <tbody>
          {tools.map((tool) => (
            <Fragment key={tool.name}>
            <tr data-testid={`tool-row-${visible(tool.name)}`} className={tool.claimsCheck?.state === 'withdrawn' ? 'row-attention' : undefined}>
              <th scope="row">
                <code>
                  <InertText text={tool.name} />
                </code>
                {tool.title && (
                  <div className="muted">
                    <InertText text={tool.title} />
                  </div>
                )}
                <InertText text={tool.description} quoted fold={160} className="tool-description small" />
                {tool.isNew && <Badge tone="warn">New: added after install</Badge>}
                <Warnings warnings={tool.warnings} />
              </th>
              <td data-label="The server says">
                <ul className="plain small" data-testid="claims" aria-label="The server says">
                  {tool.reading.claims.map((claim, i) => (
                    <li key={i}>
                      <ClaimLine claim={claim} />
                    </li>
                  ))}
                </ul>
              </td>
              <td data-label="Airlock’s reading">
                <Reading reading={tool.reading} />
              </td>
              <td data-label="What happens now">
                <PreviewBadge preview={tool.preview} />
                {tool.pendingChange && <div><Badge tone="danger">Paused: changed since approved</Badge></div>}
                {tool.preview.reasons.length > 0 && (
                  <details className="reasons small">
                    <summary>Why</summary>
                    <InertText text={tool.preview.reasons.join(' ')} block />
                  </details>
                )}
              </td>
              <td data-label="Rule">
                {tool.rule ? (
                  <>
                    <Badge tone={tool.rule.effect === 'allow' ? 'ok' : 'danger'}>{tool.rule.effect === 'allow' ? 'Always allow' : 'Always deny'}</Badge>
                    <div className="small muted">since {when(tool.rule.createdAt)}</div>
                    {onRevokeRule && (
                      <button type="button" className="small-button" onClick={() => onRevokeRule(tool.name)}>
                        Revoke rule
                      </button>
                    )}
                  </>
                ) : (
                  <>
                    <div className="muted">None</div>
                    {onAddRule && <MakeRule tool={tool} onAddRule={onAddRule} />}
                  </>
                )}
                {tool.approvedAt && <div className="small muted">Definition approved {when(tool.approvedAt)}</div>}
              </td>
            </tr>
            {tool.claimsCheck && (
              <tr className="claims-row" data-testid={`tool-claims-row-${visible(tool.name)}`}>
                <td colSpan={5}>
                  <ClaimsEvidence tool={tool} {...(onReviewClaims ? { onReview: onReviewClaims } : {})} busy={busy ?? false} />
                </td>
              </tr>
            )}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}
