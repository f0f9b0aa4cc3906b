/**
 * Plain settings a server gets as environment variables (e.g.
 * MEMORY_FILE_PATH): add, change, remove. Names that look like secrets are
 * sent to the secret store instead (the core refuses them here too).
 */
import { useId, useState } from 'react';
import { InertText, visible } from './inert-text';

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const SECRET_LIKE = /(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH)/i;

export function EnvEditor({ env, onChange, busy = false }: { env: Record<string, string>; onChange: (next: Record<string, string>) => void; busy?: boolean }) {
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const ids = { name: useId(), value: useId() };
  const entries = Object.entries(env);
  const problem = name === '' ? undefined : !NAME.test(name) ? 'Use letters, digits and _, not starting with a digit.' : SECRET_LIKE.test(name) ? 'This looks like a secret: add it under Secrets, where its value is kept out of the settings file.' : undefined;
  const add = () => {
    if (!name || problem) return;
    onChange({ ...env, [name]: value });
    setName('');
    setValue('');
  };
  return (
    <fieldset className="grant-group" data-testid="env-editor">
      <legend>Settings it gets</legend>
      <p className="purpose">Plain values passed as environment variables, such as where a server keeps its file. Visible in Airlock; secrets go under Secrets.</p>
      {entries.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="grant-list">
          {entries.map(([key, current]) => (
            <li key={key}>
              <code>
                <InertText text={`${key}=${current}`} fold={200} />
              </code>
              <button
                type="button"
                className="small-button"
                disabled={busy}
                aria-label={`Remove the setting ${visible(key)}`}
                onClick={() => onChange(Object.fromEntries(entries.filter(([other]) => other !== key)))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="add-row">
        <label htmlFor={ids.name} className="visually-hidden">
          Setting name
        </label>
        <input id={ids.name} type="text" value={name} placeholder="MEMORY_FILE_PATH" spellCheck={false} onChange={(e) => setName(e.target.value.trim())} aria-invalid={problem !== undefined} />
        <label htmlFor={ids.value} className="visually-hidden">
          Setting value
        </label>
        <input
          id={ids.value}
          type="text"
          value={value}
          placeholder="/home/you/memory/memory.json"
          spellCheck={false}
          onChange={(e) => setValue(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
        />
        <button type="button" onClick={add} disabled={busy || !name || problem !== undefined}>
          Add setting
        </button>
      </div>
      {problem && <p className="field-error">{problem}</p>}
    </fieldset>
  );
}
