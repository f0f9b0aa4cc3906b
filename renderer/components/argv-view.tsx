/** The exact, untruncated command line, one argument per line, with risky spans marked. */
import type { CommandRisk } from '../../shared/views';
import { InertText, visible } from './inert-text';

function Marked({ text, risks }: { text: string; risks: CommandRisk[] }) {
  if (risks.length === 0) return <InertText text={text} fold={100_000} />;
  const sorted = [...risks].sort((a, b) => a.start - b.start);
  const parts: React.ReactNode[] = [];
  let at = 0;
  sorted.forEach((risk, i) => {
    const start = Math.max(risk.start, at);
    const end = Math.min(Math.max(risk.end, start), text.length);
    if (start > at) parts.push(<InertText key={`t${i}`} text={text.slice(at, start)} fold={100_000} />);
    if (end > start) {
      parts.push(
        <mark key={`m${i}`} className={`risk risk-${risk.severity}`} title={visible(risk.reason)}>
          <InertText text={text.slice(start, end)} fold={100_000} />
        </mark>,
      );
    }
    at = Math.max(at, end);
  });
  if (at < text.length) parts.push(<InertText key="rest" text={text.slice(at)} fold={100_000} />);
  return <>{parts}</>;
}

export function ArgvView({ argv, risks, cwd }: { argv: string[]; risks: CommandRisk[]; cwd?: string }) {
  return (
    <div className="argv" data-testid="argv">
      <ol className="argv-list" aria-label="The exact command line, one argument per line">
        {argv.map((arg, i) => (
          <li key={i}>
            <span className="argv-index" aria-hidden="true">
              {i === 0 ? 'run' : `${i}`}
            </span>
            <code>
              <Marked text={arg} risks={risks.filter((risk) => risk.arg === i)} />
            </code>
          </li>
        ))}
      </ol>
      {cwd && (
        <p className="muted">
          In folder <code><InertText text={cwd} /></code>
        </p>
      )}
      {risks.length > 0 && (
        <ul className="risk-list" aria-label="What to look at in this command line">
          {risks.map((risk, i) => (
            <li key={i} className={`risk-reason risk-reason-${risk.severity}`}>
              <span className={`badge badge-${risk.severity === 'danger' ? 'danger' : 'warn'}`}>{risk.severity === 'danger' ? 'Danger' : 'Check'}</span>{' '}
              <code>
                <InertText text={(argv[risk.arg] ?? '').slice(risk.start, risk.end)} />
              </code>{' '}
              — <InertText text={risk.reason} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
