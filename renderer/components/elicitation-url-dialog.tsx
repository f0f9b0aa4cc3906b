/**
 * A server asks the person to open a web page (SECURITY.md rule 7): the full
 * address with its host highlighted, Punycode warned, never loaded by the
 * window; the system browser opens it only after the click
 * (`requests.openUrl`, in main).
 */
import { useState } from 'react';
import { invoke } from '../api';
import { splitUrl } from '../server-requests';
import { AnswerButton } from './asking-dialog';
import { InertText, visible } from './inert-text';
import { During, ElicitationFrame, ServerName, useQuestion, type DialogProps, type View } from './question-parts';

export function ElicitationUrlDialog({ question: q, waiting, onAnswered, swapped = false }: DialogProps<View<'elicitation-url'>>) {
  const state = useQuestion(q, onAnswered, swapped);
  const parts = splitUrl(q.url, q.asciiHost);
  // SECURITY: SECURITY.md rule 7 — Airlock's own sentences name the host as DNS sees it; a Punycode
  // name's look-alike Unicode form appears only inside the warning about it.
  const shownHost = q.punycode ? q.asciiHost : q.host;
  const [opening, setOpening] = useState(false);
  const open = async () => {
    if (opening) return;
    setOpening(true);
    state.setRefusal(undefined);
    // SECURITY: SECURITY.md rule 7 — the address is opened by main, in the system browser, only now, after the click.
    const opened = await invoke('requests.openUrl', { id: q.id });
    setOpening(false);
    if (!opened.ok) {
      state.setRefusal(`It did not open: ${opened.message}`);
      return;
    }
    await state.send({ action: 'accept' }, false);
  };
  return (
    <ElicitationFrame
      q={q}
      state={state}
      waiting={waiting}
      headline={
        <>
          <ServerName name={q.server} /> asks you to open a web page on{' '}
          <span className="url-host">
            <InertText text={shownHost} fold={120} />
          </span>
        </>
      }
      meta={
        <>
          A request from the server
          <During during={q.during} /> · Airlock has not loaded this address; it opens in your web browser only if you click “Open in browser”.
        </>
      }
      restatement={
        <>
          Open{' '}
          <span className="url-host">
            <InertText text={shownHost} fold={120} />
          </span>{' '}
          in your browser?
        </>
      }
      accept={
        <AnswerButton state={state} onPress={() => void open()} disabled={state.expired || opening} className="primary" testId="request-open">
          {opening ? 'Opening…' : 'Open in browser'}
        </AnswerButton>
      }
    >
      <section className="confirm-section">
        <h3>The full address</h3>
        {/* Text, never a link: nothing here can be followed, prefetched or previewed. */}
        <p className="url-full" data-testid="request-url">
          {parts.host ? (
            <>
              <InertText text={parts.before} />
              <mark className="url-host" data-testid="request-url-host">
                <InertText text={parts.host} />
              </mark>
              <InertText text={parts.after} fold={2000} />
            </>
          ) : (
            <InertText text={q.url} fold={2000} />
          )}
        </p>
        {q.punycode && (
          <div className="notice notice-error" role="note" data-testid="punycode-warning">
            <strong>Check this name letter by letter.</strong> The host is written in Punycode (<code>{visible(q.asciiHost)}</code>) and shows as “
            <strong>{visible(q.host)}</strong>”: names like this can imitate a site you know.
          </div>
        )}
        <p className="small muted">
          Only https addresses of public hosts are ever offered. Opening it sends nothing from Airlock, but the site will see your visit like any other; Airlock then tells{' '}
          <InertText text={q.server} /> that you accepted.
        </p>
      </section>
    </ElicitationFrame>
  );
}
