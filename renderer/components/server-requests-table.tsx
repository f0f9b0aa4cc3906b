/**
 * What servers asked back, as the audit log has it (UX 16): each sampling
 * request, question and roots answer with its decision, who answered and how
 * it ended. The request and answer are shown as the log keeps them
 * (secret-looking text hidden, a form's values as a digest) — inert.
 */
import type { ServerRequestEntryView } from '../../shared/views';
import { when } from '../format';
import { answerWords } from '../server-requests';
import { serverHref } from '../route';
import { Badge } from './badges';
import { InertText } from './inert-text';
import { LoggedValue, LogNote } from './log-details';

const KIND_WORDS: Record<ServerRequestEntryView['kind'], string> = {
  sampling: 'A model’s reply (sampling)',
  elicitation: 'A question for you',
  roots: 'Its folders (roots)',
  screen: 'From its screen',
};

/** What a server's screen asked, by method. */
const SCREEN_METHOD_WORDS: Record<string, string> = {
  'tools/call': 'Its screen: a tool call',
  'ui/open-link': 'Its screen: a link to open',
  'ui/message': 'Its screen: a message for the chat',
  'ui/update-model-context': 'Its screen: context for the model',
};

function tone(words: string | undefined): string {
  if (!words) return 'neutral';
  if (/den(y|ied)|refus|declin|fail|cancel/i.test(words)) return 'danger';
  if (/allow|answer|accept|relayed/i.test(words)) return 'ok';
  return 'warn';
}

/** The kind of a request, with the form's mode (a web page to open) when the log says. */
function kindOf(entry: ServerRequestEntryView): string {
  const request = entry.request as { mode?: unknown } | undefined;
  if (entry.kind === 'elicitation' && request?.mode === 'url') return 'A web page to open';
  if (entry.kind === 'screen') return (entry.method && SCREEN_METHOD_WORDS[entry.method]) ?? KIND_WORDS.screen;
  return KIND_WORDS[entry.kind];
}

export function ServerRequestsTable({ entries, showServer = true }: { entries: ServerRequestEntryView[]; showServer?: boolean }) {
  return (
    <div className="table-wrap">
      <table className="audit-table requests-table" data-testid="requests-table">
        <thead>
          <tr>
            <th scope="col">When</th>
            {showServer && <th scope="col">Server</th>}
            <th scope="col">What it asked</th>
            <th scope="col">Decision</th>
            <th scope="col">How it ended</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={`${entry.seq}-${entry.requestId}`} data-testid="request-row" data-kind={entry.kind} data-outcome={entry.outcome ?? ''}>
              <td className="nowrap" data-label="When">
                {when(entry.time)}
              </td>
              {showServer && (
                <td data-label="Server">
                  <a href={serverHref(entry.server, 'asks')}>
                    <InertText text={entry.server} />
                  </a>
                </td>
              )}
              <td data-label="What it asked">{kindOf(entry)}</td>
              <td data-label="Decision">
                <Badge tone={tone(entry.decision)}>
                  <InertText text={entry.decision} />
                </Badge>
                {entry.requestAnsweredBy && (
                  <div className="small" data-testid="request-answer">
                    Request: <InertText text={answerWords(entry.requestAnsweredBy)} />
                  </div>
                )}
                {entry.answeredBy && (
                  <div className="small" data-testid="request-answer">
                    {entry.requestAnsweredBy ? 'Model’s answer: ' : ''}
                    <InertText text={answerWords(entry.answeredBy)} />
                  </div>
                )}
              </td>
              <td data-label="How it ended">
                {entry.outcome ? (
                  <Badge tone={tone(entry.outcome)}>
                    <InertText text={entry.outcome} />
                  </Badge>
                ) : (
                  <span className="muted small">not yet</span>
                )}
                {entry.durationMs !== undefined && <span className="small muted"> {Math.round(entry.durationMs)} ms</span>}
              </td>
              <td data-label="Details">
                {entry.reasons.length > 0 && <LogNote text={entry.reasons.join(' ')} />}
                {entry.detail && <LogNote text={entry.detail} />}
                {entry.request !== undefined && <LoggedValue summary="What it asked, as logged" value={entry.request} fold={1500} />}
                {entry.response !== undefined && <LoggedValue summary="What went back, as logged" value={entry.response} fold={1500} />}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
