/**
 * A server's form (SECURITY.md rule 7): "<server> asks you", the server's
 * text quoted as its own, fields that start empty (a default is shown and
 * used only on a click), fields that look secret flagged, decline and cancel
 * always there.
 */
import { useId, useMemo, useState, type ReactNode } from 'react';
import { defaultText, formAnswer, inputFromDefault, type FieldInput, type FormField } from '../server-requests';
import { AnswerButton } from './asking-dialog';
import { Badge } from './badges';
import { InertText, visible } from './inert-text';
import { During, ElicitationFrame, ServerName, useQuestion, type DialogProps, type View } from './question-parts';

export function ElicitationFormDialog({ question: q, waiting, onAnswered, swapped = false }: DialogProps<View<'elicitation-form'>>) {
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
  return (
    <ElicitationFrame
      q={q}
      state={state}
      waiting={waiting}
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
      restatement={
        <>
          Send your answers to <ServerName name={q.server} />?
        </>
      }
      accept={
        <AnswerButton state={state} onPress={accept} disabled={state.expired || (tried && answer.problems.size > 0)} className="primary" testId="request-accept">
          Send my answers
        </AnswerButton>
      }
    >
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
    </ElicitationFrame>
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
