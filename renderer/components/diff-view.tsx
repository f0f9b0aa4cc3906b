/** A tool definition's changes, field by field, with added and removed words marked (not only by colour). */
import type { DefinitionDiffView } from '../../shared/views';
import { InertText } from './inert-text';

export function DiffView({ diff }: { diff: DefinitionDiffView }) {
  return (
    <div className="diff" data-testid="definition-diff">
      {diff.loosenings.length > 0 && (
        <div className="notice notice-error" role="note">
          <strong>Suspicious: </strong>these changes would make Airlock ask less.
          <ul>
            {diff.loosenings.map((text, i) => (
              <li key={i}>
                <InertText text={text} />
              </li>
            ))}
          </ul>
        </div>
      )}
      <dl className="diff-fields">
        {diff.changes.map((change, i) => (
          <div key={i} className="diff-field">
            <dt>
              <InertText text={change.field} />
            </dt>
            <dd>
              {change.parts ? (
                <div className="inert-block diff-parts">
                  {change.parts.map((part, j) =>
                    part.added ? (
                      <ins key={j} className="diff-added" aria-label="added">
                        <InertText text={part.value} fold={4000} />
                      </ins>
                    ) : part.removed ? (
                      <del key={j} className="diff-removed" aria-label="removed">
                        <InertText text={part.value} fold={4000} />
                      </del>
                    ) : (
                      <span key={j}>
                        <InertText text={part.value} fold={4000} />
                      </span>
                    ),
                  )}
                </div>
              ) : (
                <div className="diff-before-after">
                  <div>
                    <span className="diff-label">Before: </span>
                    {change.before === undefined ? <span className="muted">(not there)</span> : <del className="diff-removed"><InertText text={change.before} /></del>}
                  </div>
                  <div>
                    <span className="diff-label">After: </span>
                    {change.after === undefined ? <span className="muted">(removed)</span> : <ins className="diff-added"><InertText text={change.after} /></ins>}
                  </div>
                </div>
              )}
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
