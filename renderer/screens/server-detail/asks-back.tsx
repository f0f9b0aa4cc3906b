/**
 * The "Asks back" section of a server's page: what the person lets this
 * server ask of Airlock (a model's reply, a question, its folders) and what it
 * asked so far. The choices are the person's; the core decides each request
 * with them (and records it) — nothing here decides.
 */
import { useEffect, useId, useState } from 'react';
import type { ServerRequestSettings } from '../../../shared/domain';
import type { ServerDetail } from '../../../shared/views';
import { invoke, useAction, useQuery } from '../../api';
import { FieldError } from '../../components/field-error';
import { InertText } from '../../components/inert-text';
import { OrganisationLock } from '../../components/organisation-lock';
import { ServerRequestsActivity } from '../activity-requests';

const SAMPLING_RULES: Array<{ value: ServerRequestSettings['sampling']['rule']; label: string; purpose: string }> = [
  { value: 'ask', label: 'Ask me each time', purpose: 'You see each request, and then the model’s answer, before anything goes on.' },
  { value: 'always', label: 'Always, without asking', purpose: 'Requests go to the model and its answers go back without your review, within the limits below.' },
  { value: 'never', label: 'Never', purpose: 'Requests are refused without asking.' },
];

const ELICITATION_ROUTES: Array<{ value: ServerRequestSettings['elicitation']['answer']; label: string; purpose: string }> = [
  { value: 'airlock', label: 'In Airlock', purpose: 'Its questions open here (or on the terminal running Airlock).' },
  { value: 'client', label: 'In the app I am using', purpose: 'The app calling it through Airlock shows them, when it can; otherwise Airlock does.' },
  { value: 'never', label: 'Never', purpose: 'Its questions are declined without asking.' },
];

export function AsksBack({ server: s }: { server: ServerDetail }) {
  const [saved, , setSaved] = useQuery('requests.settings', { name: s.name });
  const folders = [...new Set([...s.profile.filesystem.read, ...s.profile.filesystem.write])];
  return (
    <div data-testid="asks-back">
      <p className="muted small">
        A server may ask Airlock for things in return. Each request is decided with the choices below, recorded, and — where it needs you — asked in a dialog first.
      </p>
      {saved.status === 'loading' && <p className="muted">Loading…</p>}
      {saved.status === 'error' && (
        <p role="alert" className="notice notice-error">
          <InertText text={saved.message} />
        </p>
      )}
      {saved.status === 'ok' && <RequestSettingsForm name={s.name} saved={saved.value} onSaved={setSaved} />}
      <h2>Its folders (roots)</h2>
      <p data-testid="roots-summary">
        When it asks which folders it may work in, it is told exactly the folders you granted it, never more:{' '}
        {folders.length === 0 ? (
          <strong>none</strong>
        ) : (
          folders.map((folder, i) => (
            <span key={folder}>
              {i > 0 && ', '}
              <code>
                <InertText text={folder} />
              </code>
            </span>
          ))
        )}
        . Change them under Permissions.
      </p>
      <ServerRequestsActivity server={s.name} />
    </div>
  );
}

function RequestSettingsForm({ name, saved, onSaved }: { name: string; saved: ServerRequestSettings; onSaved: (settings: ServerRequestSettings) => void }) {
  const action = useAction();
  const [draft, setDraft] = useState(saved);
  const numbersOf = (settings: ServerRequestSettings) => ({
    maxTokens: String(settings.sampling.maxTokens),
    samplingPerMinute: String(settings.sampling.perMinute),
    questionsPerMinute: String(settings.elicitation.perMinute),
  });
  const [numbers, setNumbers] = useState(() => numbersOf(saved));
  const reset = () => {
    setDraft(saved);
    setNumbers(numbersOf(saved));
  };
   
  useEffect(reset, [saved]);
  const ids = { tokens: useId(), samplingRate: useId(), questionRate: useId() };
  const whole = (text: string, min: number, max: number) => (/^\d+$/.test(text.trim()) && Number(text) >= min && Number(text) <= max ? Number(text) : undefined);
  const maxTokens = whole(numbers.maxTokens, 1, 1_000_000);
  const samplingPerMinute = whole(numbers.samplingPerMinute, 1, 600);
  const questionsPerMinute = whole(numbers.questionsPerMinute, 1, 600);
  const valid = maxTokens !== undefined && samplingPerMinute !== undefined && questionsPerMinute !== undefined;
  const next: ServerRequestSettings | undefined = valid
    ? { sampling: { ...draft.sampling, maxTokens, perMinute: samplingPerMinute }, elicitation: { ...draft.elicitation, perMinute: questionsPerMinute } }
    : undefined;
  const changed = next !== undefined && JSON.stringify(next) !== JSON.stringify(saved);
  return (
    <form
      className="asks-form"
      data-testid="request-settings"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!next) return;
        const value = await action.run(() => invoke('requests.setSettings', { name, settings: next }));
        if (value) onSaved(value);
      }}
    >
      <fieldset>
        <legend>A model’s reply (sampling)</legend>
        <OrganisationLock setting="samplingWithoutReview" />
        {SAMPLING_RULES.map((rule) => (
          <label key={rule.value} className="check mode-option">
            <input type="radio" name="sampling-rule" checked={draft.sampling.rule === rule.value} onChange={() => setDraft({ ...draft, sampling: { ...draft.sampling, rule: rule.value } })} />{' '}
            <strong>{rule.label}</strong> <span className="muted small">— {rule.purpose}</span>
          </label>
        ))}
        <label className="check">
          <input type="checkbox" checked={draft.sampling.allowContext} onChange={(e) => setDraft({ ...draft, sampling: { ...draft.sampling, allowContext: e.target.checked } })} /> Let it ask
          for context from your conversations and other servers (<code>includeContext</code>)
        </label>
        <div className="field-row">
          <label htmlFor={ids.tokens}>Longest reply it may ask for, in tokens</label>
          <input id={ids.tokens} type="text" inputMode="numeric" value={numbers.maxTokens} onChange={(e) => setNumbers({ ...numbers, maxTokens: e.target.value })} aria-invalid={maxTokens === undefined ? true : undefined} />
        </div>
        <div className="field-row">
          <label htmlFor={ids.samplingRate}>Requests a minute, at most</label>
          <input id={ids.samplingRate} type="text" inputMode="numeric" value={numbers.samplingPerMinute} onChange={(e) => setNumbers({ ...numbers, samplingPerMinute: e.target.value })} aria-invalid={samplingPerMinute === undefined ? true : undefined} />
        </div>
      </fieldset>
      <fieldset>
        <legend>Questions for you (elicitation)</legend>
        {ELICITATION_ROUTES.map((route) => (
          <label key={route.value} className="check mode-option">
            <input type="radio" name="elicitation-route" checked={draft.elicitation.answer === route.value} onChange={() => setDraft({ ...draft, elicitation: { ...draft.elicitation, answer: route.value } })} />{' '}
            <strong>{route.label}</strong> <span className="muted small">— {route.purpose}</span>
          </label>
        ))}
        <div className="field-row">
          <label htmlFor={ids.questionRate}>Questions a minute, at most</label>
          <input id={ids.questionRate} type="text" inputMode="numeric" value={numbers.questionsPerMinute} onChange={(e) => setNumbers({ ...numbers, questionsPerMinute: e.target.value })} aria-invalid={questionsPerMinute === undefined ? true : undefined} />
        </div>
      </fieldset>
      {!valid && <p className="field-error">Each limit must be a whole number: tokens from 1 to 1,000,000, requests from 1 to 600 a minute.</p>}
      <FieldError message={action.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={!changed || action.busy} data-testid="request-settings-save">
          Save
        </button>
        {changed && (
          <button type="button" onClick={reset}>
            Undo
          </button>
        )}
      </div>
    </form>
  );
}
