/**
 * The dialogs for what a server asks back (SECURITY.md rules 7 and 8), shown
 * by the dialog queue one at a time, like tool confirmations:
 * - a sampling request: the server's exact messages, system prompt, context
 *   and limits; the person may edit them, then allow once / this session /
 *   always, or deny;
 * - the model's answer to it: approve, edit or refuse before the server sees it;
 * - a form: "<server> asks you", the server's text quoted as its own, fields
 *   that start empty (a default is shown and used only on a click), fields
 *   that look secret flagged, decline and cancel always there;
 * - a web page to open: the full address with its host highlighted, Punycode
 *   warned, never loaded by the window; the system browser opens it only
 *   after the click (`requests.openUrl`).
 * Escape (or closing) refuses: deny, refuse or decline. Airlock's own words
 * are built here from the view's parts; everything a server, an app or a
 * model wrote goes through <InertText>.
 */
import { useCallback, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import type { RequestOf } from '../../shared/ipc';
import type { ServerRequestView } from '../../shared/views';
import { invoke } from '../api';
import {
  defaultText,
  editedSamplingParams,
  editedSamplingResult,
  formAnswer,
  inputFromDefault,
  samplingEditsOf,
  splitUrl,
  textsOf,
  type FieldInput,
  type FormField,
  type SamplingEdits,
} from '../server-requests';
import { Badge } from './badges';
import { ContentBlocks } from './content-view';
import { useEngage, useModal, useSecondsLeft, useSwapHold } from './dialog-guard';
import { DialogTop, ServerWords, SwapNote } from './dialog-parts';
import { InertText, visible } from './inert-text';

type Answer = RequestOf<'requests.answer'>['answer'];
type View<K extends ServerRequestView['kind']> = Extract<ServerRequestView, { kind: K }>;

interface DialogProps<Q> {
  question: Q;
  waiting: number;
  onAnswered: (id: string) => void;
  /** This question just took another's place in the dialog. */
  swapped?: boolean;
}

/** The dialog for one question from a server, by its kind. */
export function ServerRequestDialog({ question, ...rest }: DialogProps<ServerRequestView>) {
  switch (question.kind) {
    case 'sampling-request':
      return <SamplingRequestDialog question={question} {...rest} />;
    case 'sampling-response':
      return <SamplingResponseDialog question={question} {...rest} />;
    case 'elicitation-form':
      return <ElicitationFormDialog question={question} {...rest} />;
    case 'elicitation-url':
      return <ElicitationUrlDialog question={question} {...rest} />;
  }
}

/** The server's name in Airlock's sentence: data, in code style. */
function ServerName({ name }: { name: string }) {
  return (
    <code className="tool-ref">
      <InertText text={name} fold={60} />
    </code>
  );
}

/** "(while app “Claude Desktop” runs one of its tools)" — the app is data. */
function During({ during }: { during?: string }) {
  if (!during) return null;
  return (
    <>
      {' '}
      · while app “<InertText text={during} fold={60} />” runs one of its tools
    </>
  );
}

/** State and actions every question dialog shares: the answer (once), the swap pause, the countdown. */
function useQuestion(q: ServerRequestView, onAnswered: (id: string) => void, swapped: boolean) {
  const answeredRef = useRef(false);
  const [sending, setSending] = useState(false);
  const [refusal, setRefusal] = useState<string | undefined>();
  const [wasSwapped] = useState(swapped);
  // SECURITY: invariant 1 — the answer buttons sleep for a moment after this question is shown (dialog-guard.ts).
  const { holding, asleep } = useSwapHold();
  const secondsLeft = useSecondsLeft(q.deadline);
  const { engaged, engage } = useEngage(
    () => void invoke('requests.extend', { id: q.id }),
    useCallback(() => answeredRef.current, []),
  );
  /**
   * Sends an answer once. `closing` answers (deny, refuse, decline, cancel)
   * close the dialog even when the core refuses them: the question is then
   * already closed (expired or answered elsewhere).
   */
  const send = useCallback(
    async (answer: Answer, closing: boolean): Promise<boolean> => {
      if (answeredRef.current) return false;
      answeredRef.current = true;
      setSending(true);
      setRefusal(undefined);
      const result = await invoke('requests.answer', { id: q.id, answer });
      setSending(false);
      if (result.ok && result.value.accepted) {
        onAnswered(q.id);
        return true;
      }
      if (closing) {
        onAnswered(q.id);
        return false;
      }
      answeredRef.current = false;
      setRefusal(result.ok ? (result.value.reason ?? 'Airlock did not accept this answer.') : result.message);
      return false;
    },
    [q.id, onAnswered],
  );
  return { answeredRef, sending, refusal, setRefusal, wasSwapped, holding, asleep, secondsLeft, expired: secondsLeft <= 0, engaged, engage, send };
}

type QuestionState = ReturnType<typeof useQuestion>;

/** The frame of a question dialog: the queue and countdown, Airlock's headline, a scrolling body, and the answer area. */
function QuestionFrame({
  q,
  state,
  waiting,
  outcome,
  onRefuse,
  headline,
  meta,
  children,
  foot,
}: {
  q: ServerRequestView;
  state: QuestionState;
  waiting: number;
  /** What no answer means: "Refused", "Cancelled". */
  outcome: string;
  /** Escape or closing: deny, refuse or decline — at once, even while the buttons sleep. */
  onRefuse: () => void;
  headline: ReactNode;
  meta: ReactNode;
  children: ReactNode;
  foot: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const ids = { title: useId(), desc: useId(), why: useId() };
  useModal(dialog, () => heading.current);
  return (
    <dialog
      ref={dialog}
      className="confirm confirm-question"
      aria-labelledby={ids.title}
      aria-describedby={ids.desc}
      data-testid="server-request"
      data-request-id={q.id}
      data-kind={q.kind}
      onCancel={(event) => {
        event.preventDefault();
        onRefuse();
      }}
      onClose={() => {
        if (!state.answeredRef.current && !dialog.current?.open) onRefuse();
      }}
      onKeyDown={state.engage}
      onPointerDown={state.engage}
      onInput={state.engage}
    >
      <div className="confirm-head">
        <DialogTop waiting={waiting} secondsLeft={state.secondsLeft} engaged={state.engaged} outcome={outcome} />
        <SwapNote show={state.wasSwapped && state.holding} />
        <h2 id={ids.title} ref={heading} tabIndex={-1} className="confirm-headline" data-testid="request-headline">
          {headline}
        </h2>
        <p id={ids.desc} className="confirm-meta small muted" data-testid="request-meta">
          {meta}
        </p>
      </div>
      <div className="confirm-body">{children}</div>
      <div className="confirm-foot">
        {q.reasons.length > 0 && (
          <div className="reasons confirm-why small" data-testid="request-reasons" aria-labelledby={ids.why}>
            <span id={ids.why} className="why-label">
              Why Airlock asks:
            </span>{' '}
            {q.reasons.map((reason, i) => (
              <span key={i}>
                {i > 0 && ' '}
                <InertText text={reason} />
              </span>
            ))}
          </div>
        )}
        {foot}
        {state.refusal && (
          <p role="alert" className="notice notice-error" data-testid="request-refusal">
            <InertText text={state.refusal} />
          </p>
        )}
      </div>
    </dialog>
  );
}

/** An answer button: asleep (aria-disabled) for a moment after the question is shown; a press then does nothing. */
function AnswerButton({
  state,
  onPress,
  disabled = false,
  className,
  testId,
  children,
}: {
  state: QuestionState;
  onPress: () => void;
  disabled?: boolean;
  className?: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className={className}
      onClick={() => {
        if (state.asleep()) return;
        onPress();
      }}
      disabled={disabled || state.sending}
      aria-disabled={state.holding ? true : undefined}
      data-testid={testId}
    >
      {children}
    </button>
  );
}

// ── Sampling: the request ───────────────────────────────────────────────────

type Remember = 'once' | 'session' | 'always';

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

function SamplingRequestDialog({ question: q, waiting, onAnswered, swapped = false }: DialogProps<View<'sampling-request'>>) {
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
      outcome="Refused"
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
      foot={
        <>
          <fieldset className="remember" data-testid="request-remember">
            <legend>Remember:</legend>
            {(['once', 'session', 'always'] as const).map((value) => (
              <label key={value} className="check">
                <input type="radio" name={`remember-${q.id}`} value={value} checked={remember === value} onChange={() => setRemember(value)} />{' '}
                {value === 'once' ? (
                  'Only this time'
                ) : value === 'session' ? (
                  'For this session (until Airlock quits)'
                ) : (
                  <>
                    Always, for{' '}
                    <code>
                      <InertText text={q.server} />
                    </code>
                  </>
                )}
              </label>
            ))}
          </fieldset>
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
          <p className="confirm-restatement" data-testid="request-restatement">
            Send {editing ? 'the edited request' : 'this request'} from <ServerName name={q.server} /> to <Answerer q={q} />?
          </p>
          <div className="confirm-buttons">
            <AnswerButton state={state} onPress={deny} className="deny" testId="request-deny">
              {remember === 'always' ? 'Always deny' : 'Deny'}
            </AnswerButton>
            <AnswerButton state={state} onPress={allow} disabled={state.expired || !built.value} className="primary" testId="request-allow">
              {remember === 'once' ? (editing ? 'Allow once, as edited' : 'Allow once') : remember === 'session' ? 'Allow for this session' : 'Always allow'}
            </AnswerButton>
          </div>
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
            <button
              type="button"
              className="small-button"
              onClick={() => {
                setEditing(false);
                setEdits(samplingEditsOf(q.params));
              }}
            >
              Undo my edits
            </button>
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

// ── Sampling: the model's answer ────────────────────────────────────────────

function SamplingResponseDialog({ question: q, waiting, onAnswered, swapped = false }: DialogProps<View<'sampling-response'>>) {
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
      outcome="Refused"
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
      foot={
        <>
          <p className="confirm-restatement" data-testid="request-restatement">
            Send {editing ? 'the edited answer' : 'this answer'} to <ServerName name={q.server} />?
          </p>
          <div className="confirm-buttons">
            <AnswerButton state={state} onPress={refuse} className="deny" testId="request-deny">
              Refuse
            </AnswerButton>
            <AnswerButton state={state} onPress={approve} disabled={state.expired} className="primary" testId="request-allow">
              {editing ? 'Send as edited' : 'Send this answer'}
            </AnswerButton>
          </div>
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
            <button
              type="button"
              className="small-button"
              onClick={() => {
                setEditing(false);
                setTexts(original);
              }}
            >
              Undo my edits
            </button>
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

// ── Elicitation: a form ─────────────────────────────────────────────────────

function ElicitationFormDialog({ question: q, waiting, onAnswered, swapped = false }: DialogProps<View<'elicitation-form'>>) {
  const state = useQuestion(q, onAnswered, swapped);
  const [inputs, setInputs] = useState<ReadonlyMap<string, FieldInput>>(new Map());
  const [tried, setTried] = useState(false);
  const answer = useMemo(() => formAnswer(q.fields, inputs), [q.fields, inputs]);
  const secret = q.fields.filter((field) => field.secretLooking);
  const set = (key: string, input: FieldInput | undefined) =>
    setInputs((prev) => {
      const next = new Map(prev);
      if (input === undefined) next.delete(key);
      else next.set(key, input);
      return next;
    });
  const accept = () => {
    setTried(true);
    if (answer.problems.size > 0) return;
    void state.send({ action: 'accept', content: answer.content as Record<string, string | number | boolean | string[]> }, false);
  };
  const decline = () => void state.send({ action: 'decline' }, true);
  const cancel = () => void state.send({ action: 'cancel' }, true);
  return (
    <QuestionFrame
      q={q}
      state={state}
      waiting={waiting}
      outcome="Cancelled"
      onRefuse={decline}
      headline={
        <>
          <ServerName name={q.server} /> asks you
        </>
      }
      meta={
        <>
          A question from the server, in a form Airlock draws
          <During during={q.during} /> · Answer only if you want to: you can decline. Nothing is filled in for you.
        </>
      }
      foot={
        <>
          <p className="confirm-restatement" data-testid="request-restatement">
            Send your answers to <ServerName name={q.server} />?
          </p>
          <div className="confirm-buttons">
            <AnswerButton state={state} onPress={decline} className="deny" testId="request-decline">
              Decline
            </AnswerButton>
            <AnswerButton state={state} onPress={cancel} testId="request-cancel">
              Cancel
            </AnswerButton>
            <AnswerButton state={state} onPress={accept} disabled={state.expired || (tried && answer.problems.size > 0)} className="primary" testId="request-accept">
              Send my answers
            </AnswerButton>
          </div>
        </>
      }
    >
      <section className="confirm-section">
        <ServerWords server={<InertText text={q.server} />} testId="request-message">
          <InertText text={q.message} block fold={1200} empty="(no message)" />
        </ServerWords>
      </section>
      {secret.length > 0 && (
        <div className="notice notice-error" role="note" data-testid="secret-warning">
          <strong>This looks like it asks for a secret</strong> ({secret.map((field, i) => (
            <span key={field.key}>
              {i > 0 && ', '}
              <InertText text={field.title ?? field.key} fold={60} />
            </span>
          ))}
          ). Servers must not ask for passwords, keys or tokens in a form, and Airlock cannot know what this one does with them. Decline unless you are sure.
        </div>
      )}
      <section className="confirm-section elicitation-form" data-testid="elicitation-form">
        {q.fields.length === 0 && <p className="muted">The form has no fields: sending answers “yes, go ahead”.</p>}
        {q.fields.map((field) => (
          <FormFieldInput key={field.key} field={field} input={inputs.get(field.key)} onChange={(input) => set(field.key, input)} problem={tried ? answer.problems.get(field.key) : undefined} />
        ))}
        {tried && answer.problems.size > 0 && (
          <p role="alert" className="field-error" data-testid="form-problems">
            {answer.problems.size === 1 ? 'One answer needs fixing' : `${answer.problems.size} answers need fixing`} before it can be sent.
          </p>
        )}
      </section>
    </QuestionFrame>
  );
}

/** One field of a server's form: its label and description are the server's words; a default is offered, never filled in. */
function FormFieldInput({ field, input, onChange, problem }: { field: FormField; input: FieldInput | undefined; onChange: (input: FieldInput | undefined) => void; problem?: string }) {
  const id = useId();
  const suggestion = defaultText(field);
  const fromDefault = inputFromDefault(field);
  const text = input?.kind === 'text' ? input.text : '';
  const describedBy = [field.description ? `${id}-desc` : '', problem ? `${id}-problem` : ''].filter(Boolean).join(' ') || undefined;
  const label = (
    <>
      <InertText text={field.title ?? field.key} fold={120} />
      {field.title !== undefined && field.title !== field.key && (
        <>
          {' '}
          <code className="muted small">
            <InertText text={field.key} fold={60} />
          </code>
        </>
      )}
      {field.required && (
        <span className="required" aria-label="required">
          {' '}
          *
        </span>
      )}
      {field.secretLooking && (
        <>
          {' '}
          <Badge tone="danger" testId="secret-field">
            Looks secret
          </Badge>
        </>
      )}
    </>
  );
  let control: ReactNode;
  if (field.type === 'boolean') {
    const value = input?.kind === 'boolean' ? input.value : undefined;
    control = (
      <fieldset className="field-choices" aria-describedby={describedBy}>
        <legend>{label}</legend>
        {([true, false] as const).map((option) => (
          <label key={String(option)} className="check">
            <input type="radio" name={`${id}-bool`} checked={value === option} onChange={() => onChange({ kind: 'boolean', value: option })} /> {option ? 'Yes' : 'No'}
          </label>
        ))}
        {value !== undefined && !field.required && (
          <button type="button" className="link-button small" onClick={() => onChange(undefined)}>
            Leave unanswered
          </button>
        )}
      </fieldset>
    );
  } else if (field.type === 'choices') {
    const values = input?.kind === 'choices' ? input.values : [];
    control = (
      <fieldset className="field-choices" aria-describedby={describedBy}>
        <legend>
          {label}
          {field.minItems !== undefined || field.maxItems !== undefined ? (
            <span className="muted small">
              {' '}
              (choose {field.minItems !== undefined && field.maxItems !== undefined ? `${field.minItems}–${field.maxItems}` : field.minItems !== undefined ? `at least ${field.minItems}` : `at most ${field.maxItems}`})
            </span>
          ) : null}
        </legend>
        {(field.options ?? []).map((option) => (
          <label key={option.value} className="check">
            <input
              type="checkbox"
              checked={values.includes(option.value)}
              onChange={(e) => onChange({ kind: 'choices', values: e.target.checked ? [...values, option.value] : values.filter((v) => v !== option.value) })}
            />{' '}
            <InertText text={option.title} fold={120} />
          </label>
        ))}
      </fieldset>
    );
  } else if (field.type === 'choice') {
    control = (
      <>
        <label htmlFor={id}>{label}</label>
        <select id={id} value={text} onChange={(e) => onChange(e.target.value === '' ? undefined : { kind: 'text', text: e.target.value })} aria-describedby={describedBy} aria-invalid={problem ? true : undefined}>
          <option value="">{field.required ? 'Choose…' : '(no answer)'}</option>
          {(field.options ?? []).map((option) => (
            <option key={option.value} value={option.value}>
              {/* Option text cannot hold elements: the same visible markers, as a string. */}
              {visible(option.title)}
            </option>
          ))}
        </select>
      </>
    );
  } else {
    const numeric = field.type === 'number' || field.type === 'integer';
    control = (
      <>
        <label htmlFor={id}>
          {label} {numeric && <span className="muted small">{field.type === 'integer' ? 'a whole number' : 'a number'}{bounds(field)}</span>}
          {!numeric && field.format && <span className="muted small">{FORMAT_WORDS[field.format] ?? ''}</span>}
        </label>
        <input
          id={id}
          type="text"
          inputMode={numeric ? 'decimal' : field.format === 'email' ? 'email' : field.format === 'uri' ? 'url' : 'text'}
          autoComplete="off"
          spellCheck={false}
          value={text}
          onChange={(e) => onChange(e.target.value === '' ? undefined : { kind: 'text', text: e.target.value })}
          aria-describedby={describedBy}
          aria-invalid={problem ? true : undefined}
          data-key={visible(field.key)}
        />
      </>
    );
  }
  return (
    <div className={`form-field ${field.secretLooking ? 'form-field-secret' : ''}`} data-testid="form-field" data-key={visible(field.key)}>
      {control}
      {field.description && (
        <div id={`${id}-desc`} className="small muted">
          <InertText text={field.description} fold={300} />
        </div>
      )}
      {suggestion !== undefined && fromDefault !== undefined && (
        <div className="small field-suggestion" data-testid="field-suggestion">
          The server suggests: <strong><InertText text={suggestion} fold={120} /></strong>{' '}
          <button type="button" className="small-button" onClick={() => onChange(fromDefault)}>
            Use it
          </button>
        </div>
      )}
      {problem && (
        <p id={`${id}-problem`} className="field-error small">
          {problem}
        </p>
      )}
    </div>
  );
}

const FORMAT_WORDS: Record<string, string> = { email: ' an email address', uri: ' a web address', date: ' a date, YYYY-MM-DD', 'date-time': ' a date and time' };

function bounds(field: FormField): string {
  if (field.minimum !== undefined && field.maximum !== undefined) return `, ${field.minimum} to ${field.maximum}`;
  if (field.minimum !== undefined) return `, at least ${field.minimum}`;
  if (field.maximum !== undefined) return `, at most ${field.maximum}`;
  return '';
}

// ── Elicitation: a web page ─────────────────────────────────────────────────

function ElicitationUrlDialog({ question: q, waiting, onAnswered, swapped = false }: DialogProps<View<'elicitation-url'>>) {
  const state = useQuestion(q, onAnswered, swapped);
  const parts = splitUrl(q.url, q.asciiHost);
  // SECURITY: SECURITY.md rule 7 — Airlock's own sentences name the host as DNS sees it; a Punycode
  // name's look-alike Unicode form appears only inside the warning about it.
  const shownHost = q.punycode ? q.asciiHost : q.host;
  const [opening, setOpening] = useState(false);
  const decline = () => void state.send({ action: 'decline' }, true);
  const cancel = () => void state.send({ action: 'cancel' }, true);
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
    <QuestionFrame
      q={q}
      state={state}
      waiting={waiting}
      outcome="Cancelled"
      onRefuse={decline}
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
      foot={
        <>
          <p className="confirm-restatement" data-testid="request-restatement">
            Open{' '}
            <span className="url-host">
              <InertText text={shownHost} fold={120} />
            </span>{' '}
            in your browser?
          </p>
          <div className="confirm-buttons">
            <AnswerButton state={state} onPress={decline} className="deny" testId="request-decline">
              Decline
            </AnswerButton>
            <AnswerButton state={state} onPress={cancel} testId="request-cancel">
              Cancel
            </AnswerButton>
            <AnswerButton state={state} onPress={() => void open()} disabled={state.expired || opening} className="primary" testId="request-open">
              {opening ? 'Opening…' : 'Open in browser'}
            </AnswerButton>
          </div>
        </>
      }
    >
      <section className="confirm-section">
        <ServerWords server={<InertText text={q.server} />} testId="request-message">
          <InertText text={q.message} block fold={1200} empty="(no message)" />
        </ServerWords>
      </section>
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
    </QuestionFrame>
  );
}
