/**
 * A server's sampling request, in two dialogs (SECURITY.md rule 8): the
 * request — the server's exact messages, system prompt, context and limits,
 * which the person may edit, then allow once / this session / always, or
 * deny — and the model's answer to it, approved, edited or refused before the
 * server sees it. Everything the server or the model wrote is quoted as
 * theirs, through <InertText>.
 */
import { useId, useMemo, useState } from 'react';
import { editedSamplingParams, editedSamplingResult, samplingEditsOf, textsOf, type SamplingEdits } from '../server-requests';
import { AnswerButton, RememberChoice, UndoEdits, type Remember } from './asking-dialog';
import { Badge } from './badges';
import { ContentBlocks } from './content-view';
import { ServerWords } from './dialog-parts';
import { InertText, visible } from './inert-text';
import { During, QuestionFrame, ServerName, useQuestion, type DialogProps, type View } from './question-parts';

const CONTEXT_WORDS: Record<View<'sampling-request'>['includeContext'], string> = {
  none: 'None — the model sees only the messages above.',
  thisServer: 'It also asks for what this server said earlier in your conversations.',
  allServers: 'It also asks for what every server said earlier in your conversations.',
};

/** Who would answer, in Airlock's words. */
function Answerer({ q }: { q: { answerer?: 'client' | 'model'; answererLabel: string } }) {
  if (q.answerer === 'model') return <>Airlock’s own model</>;
  return (
    <>
      the model of the app using Airlock (<InertText text={q.answererLabel} fold={80} />)
    </>
  );
}

/** The messages a server wrote for a model, quoted as the server's. */
function SamplingMessages({ server, systemPrompt, messages }: { server: string; systemPrompt?: string; messages: View<'sampling-request'>['messages'] }) {
  return (
    <ServerWords server={<InertText text={server} />} testId="sampling-messages">
      {systemPrompt !== undefined && (
        <div className="sampling-message">
          <span className="role-tag">system prompt</span>
          <InertText text={systemPrompt} block fold={1200} className="content-text" />
        </div>
      )}
      {messages.map((message, i) => (
        <div key={i} className="sampling-message" data-testid="sampling-message" data-role={message.role}>
          <span className="role-tag">{message.role === 'user' ? 'as the user' : 'as the assistant'}</span>
          <ContentBlocks content={message.content} fold={1200} />
        </div>
      ))}
    </ServerWords>
  );
}

export function SamplingRequestDialog({ question: q, waiting, onAnswered, swapped = false }: DialogProps<View<'sampling-request'>>) {
  const state = useQuestion(q, onAnswered, swapped);
  const [remember, setRemember] = useState<Remember>('once');
  const [editing, setEditing] = useState(false);
  const [edits, setEdits] = useState<SamplingEdits>(() => samplingEditsOf(q.params));
  const ids = { edit: useId(), error: useId(), tokens: useId() };
  const built = useMemo(() => (editing ? editedSamplingParams(q.params, edits, q.limits.maxTokens) : { value: q.params }), [editing, edits, q.params, q.limits.maxTokens]);
  const deny = () => void state.send({ choice: remember === 'always' ? 'deny-always' : 'deny' }, true);
  const allow = () => {
    if (!built.value) return;
    const choice = remember === 'always' ? 'allow-always' : remember === 'session' ? 'allow-session' : 'allow-once';
    const changed = editing && JSON.stringify(built.value) !== JSON.stringify(q.params);
    void state.send({ choice, ...(changed ? { params: built.value } : {}) }, false);
  };
  const setText = (m: number, b: number, text: string) => setEdits((prev) => ({ ...prev, texts: prev.texts.map((texts, i) => (i === m ? texts.map((t, j) => (j === b ? text : t)) : texts)) }));

  return (
    <QuestionFrame
      q={q}
      state={state}
      waiting={waiting}
      onRefuse={() => void state.send({ choice: 'deny' }, true)}
      headline={
        <>
          <ServerName name={q.server} /> wants a model to write a reply
        </>
      }
      meta={
        <>
          Answered by <Answerer q={q} />
          <During during={q.during} /> · Nothing is sent to a model until you allow it, and its answer comes back to you first.
        </>
      }
      choices={
        <>
          <RememberChoice
            name={`remember-${q.id}`}
            value={remember}
            onChange={setRemember}
            testId="request-remember"
            always={
              <>
                Always, for{' '}
                <code>
                  <InertText text={q.server} />
                </code>
              </>
            }
          />
          {remember !== 'once' && (
            <p className="small rule-preview" data-testid="rule-preview">
              {remember === 'session' ? 'Until Airlock quits, ' : 'From now on, '}
              <InertText text={q.server} />’s requests go to the model <strong>without asking, and its answers go back without your review</strong>, within the limits you
              set for it ({q.limits.maxTokens} tokens a reply{q.limits.allowContext ? '' : ', no context from your conversations'}).
              {remember === 'always'
                ? ' “Always deny” instead refuses them all without asking. Change it on the server’s page, under “Asks back”.'
                : ' “Deny” still only denies this once.'}
            </p>
          )}
        </>
      }
      restatement={
        <>
          Send {editing ? 'the edited request' : 'this request'} from <ServerName name={q.server} /> to <Answerer q={q} />?
        </>
      }
      buttons={
        <>
          <AnswerButton state={state} onPress={deny} className="deny" testId="request-deny">
            {remember === 'always' ? 'Always deny' : 'Deny'}
          </AnswerButton>
          <AnswerButton state={state} onPress={allow} disabled={state.expired || !built.value} className="primary" testId="request-allow">
            {remember === 'once' ? (editing ? 'Allow once, as edited' : 'Allow once') : remember === 'session' ? 'Allow for this session' : 'Always allow'}
          </AnswerButton>
        </>
      }
    >
      <section className="confirm-section">
        <div className="section-head">
          <h3>What it asks the model to read</h3>
          {!editing && (
            <button type="button" className="small-button" onClick={() => setEditing(true)} disabled={state.expired}>
              Edit, then allow…
            </button>
          )}
        </div>
        {!editing ? (
          <SamplingMessages server={q.server} systemPrompt={q.systemPrompt} messages={q.messages} />
        ) : (
          <div className="edit-args" data-testid="sampling-editor">
            <p className="small muted">You are changing what the model will read. Airlock checks the edited request again before anything is sent.</p>
            {edits.systemPrompt !== undefined && (
              <label className="block-label">
                System prompt
                <textarea value={edits.systemPrompt} rows={3} onChange={(e) => setEdits({ ...edits, systemPrompt: e.target.value })} data-testid="sampling-edit-system" />
              </label>
            )}
            {q.messages.map((message, m) =>
              (edits.texts[m] ?? []).map((text, b) => (
                <label key={`${m}-${b}`} className="block-label">
                  Message {m + 1}, {message.role === 'user' ? 'as the user' : 'as the assistant'}
                  {(edits.texts[m]?.length ?? 0) > 1 ? `, text ${b + 1}` : ''}
                  <textarea value={text} rows={Math.min(10, Math.max(3, text.split('\n').length + 1))} onChange={(e) => setText(m, b, e.target.value)} data-testid="sampling-edit-text" />
                </label>
              )),
            )}
            <div className="field-row">
              <label htmlFor={ids.tokens}>Longest reply, in tokens (your limit: {q.limits.maxTokens})</label>
              <input
                id={ids.tokens}
                type="text"
                inputMode="numeric"
                value={edits.maxTokens}
                onChange={(e) => setEdits({ ...edits, maxTokens: e.target.value })}
                aria-invalid={built.error ? true : undefined}
                aria-describedby={built.error ? ids.error : undefined}
                data-testid="sampling-edit-max-tokens"
              />
            </div>
            {built.error && (
              <p id={ids.error} role="alert" className="field-error">
                {built.error} Allow stays off until this is fixed.
              </p>
            )}
            <UndoEdits
              onUndo={() => {
                setEditing(false);
                setEdits(samplingEditsOf(q.params));
              }}
            />
          </div>
        )}
      </section>
      <section className="confirm-section">
        <h3>What else it asks for</h3>
        <dl className="facts" data-testid="sampling-facts">
          <div>
            <dt>Context</dt>
            <dd>
              {q.includeContext !== 'none' && <Badge tone="warn">Asks for more</Badge>} {CONTEXT_WORDS[q.includeContext]}
            </dd>
          </div>
          <div>
            <dt>Longest reply</dt>
            <dd>
              {q.maxTokens} tokens <span className="muted">(your limit for this server: {q.limits.maxTokens})</span>
            </dd>
          </div>
          {q.temperature !== undefined && (
            <div>
              <dt>Temperature</dt>
              <dd>{q.temperature}</dd>
            </div>
          )}
          {q.stopSequences && q.stopSequences.length > 0 && (
            <div>
              <dt>Stops at</dt>
              <dd>
                {q.stopSequences.map((stop, i) => (
                  <code key={i} className="target-value">
                    <InertText text={stop} fold={80} />
                  </code>
                ))}
              </dd>
            </div>
          )}
          {q.modelPreferences !== undefined && (
            <div>
              <dt>Model it prefers</dt>
              <dd>
                <InertText text={q.modelPreferences} fold={300} /> <span className="muted">— the server’s wish; the model is the one you chose.</span>
              </dd>
            </div>
          )}
        </dl>
      </section>
    </QuestionFrame>
  );
}

export function SamplingResponseDialog({ question: q, waiting, onAnswered, swapped = false }: DialogProps<View<'sampling-response'>>) {
  const state = useQuestion(q, onAnswered, swapped);
  const [editing, setEditing] = useState(false);
  const original = useMemo(() => textsOf(q.result.content), [q.result]);
  const [texts, setTexts] = useState<string[]>(original);
  const model = typeof q.result.model === 'string' ? q.result.model : undefined;
  const stop = typeof q.result.stopReason === 'string' ? q.result.stopReason : undefined;
  const approve = () => {
    const changed = editing && texts.some((text, i) => text !== original[i]);
    void state.send({ choice: 'approve', ...(changed ? { result: editedSamplingResult(q.result, texts) } : {}) }, false);
  };
  const refuse = () => void state.send({ choice: 'refuse' }, true);
  return (
    <QuestionFrame
      q={q}
      state={state}
      waiting={waiting}
      onRefuse={refuse}
      headline={
        <>
          The model answered <ServerName name={q.server} /> — check the answer before it goes back
        </>
      }
      meta={
        <>
          Answered by <InertText text={q.answererLabel} fold={80} />
          {model && (
            <>
              {' '}
              (model <InertText text={model} fold={80} />)
            </>
          )}
          <During during={q.during} /> · Nothing goes back to <InertText text={q.server} /> until you send it.
        </>
      }
      restatement={
        <>
          Send {editing ? 'the edited answer' : 'this answer'} to <ServerName name={q.server} />?
        </>
      }
      buttons={
        <>
          <AnswerButton state={state} onPress={refuse} className="deny" testId="request-deny">
            Refuse
          </AnswerButton>
          <AnswerButton state={state} onPress={approve} disabled={state.expired} className="primary" testId="request-allow">
            {editing ? 'Send as edited' : 'Send this answer'}
          </AnswerButton>
        </>
      }
    >
      <section className="confirm-section">
        <div className="section-head">
          <h3>The model’s answer</h3>
          {!editing && original.length > 0 && (
            <button type="button" className="small-button" onClick={() => setEditing(true)} disabled={state.expired}>
              Edit, then send…
            </button>
          )}
        </div>
        {!editing ? (
          <figure className="server-said" data-testid="sampling-answer">
            <figcaption className="server-said-label">
              In the model’s words, not Airlock’s
              {stop ? ` · ${Object.hasOwn(STOP_WORDS, stop) ? STOP_WORDS[stop] : `it stopped: ${visible(stop)}`}` : ''}
            </figcaption>
            <blockquote className="server-quote">
              <ContentBlocks content={q.result.content} fold={2000} />
            </blockquote>
          </figure>
        ) : (
          <div className="edit-args" data-testid="sampling-answer-editor">
            {texts.map((text, i) => (
              <label key={i} className="block-label">
                The answer{texts.length > 1 ? `, text ${i + 1}` : ''}
                <textarea value={text} rows={Math.min(12, Math.max(4, text.split('\n').length + 1))} onChange={(e) => setTexts(texts.map((t, j) => (j === i ? e.target.value : t)))} data-testid="sampling-edit-answer" />
              </label>
            ))}
            <UndoEdits
              onUndo={() => {
                setEditing(false);
                setTexts(original);
              }}
            />
          </div>
        )}
      </section>
      <details className="confirm-section">
        <summary>What the model was asked</summary>
        <SamplingMessages server={q.server} messages={q.messages} />
      </details>
    </QuestionFrame>
  );
}

const STOP_WORDS: Record<string, string> = { endTurn: 'it finished', maxTokens: 'it reached the length limit', stopSequence: 'it reached a stop sequence', toolUse: 'it stopped to use a tool' };
