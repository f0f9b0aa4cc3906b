/** Settings a server needs before it can run (MCPB user_config, VS Code inputs): the form and the values it sends. */
import { useId } from 'react';
import { ownEntry } from '../../../shared/plain';
import type { Disclosure } from '../../../shared/views';
import { invoke, useAppInfo } from '../../api';
import { InertText } from '../../components/inert-text';

type ConfigField = Disclosure['userConfig'][number];
export type ConfigValues = Record<string, string | boolean>;
export type UserConfigValues = Record<string, string | number | boolean | string[]>;

export function configDefaults(d: Disclosure): ConfigValues {
  const out = Object.create(null) as ConfigValues;
  for (const field of d.userConfig) {
    const value = field.default;
    if (field.type === 'boolean') out[field.key] = value === true;
    else if (Array.isArray(value)) out[field.key] = value.join('\n');
    else out[field.key] = value === undefined ? '' : String(value);
  }
  return out;
}

/** The values to send, or undefined while a required one is missing or a number is not a number. */
export function configValues(d: Disclosure, values: ConfigValues): UserConfigValues | undefined {
  // Setting keys are the bundle's: a null-prototype object keeps every one as a plain entry.
  const out = Object.create(null) as UserConfigValues;
  for (const field of d.userConfig) {
    const value = ownEntry(values, field.key);
    if (field.type === 'boolean') {
      out[field.key] = value === true;
      continue;
    }
    const text = typeof value === 'string' ? value.trim() : '';
    if (text === '') {
      if (field.required) return undefined;
      continue;
    }
    if (field.type === 'number') {
      const n = Number(text);
      if (!Number.isFinite(n)) return undefined;
      out[field.key] = n;
    } else if (Array.isArray(field.default)) {
      out[field.key] = text.split('\n').map((line) => line.trim()).filter(Boolean);
    } else {
      out[field.key] = text;
    }
  }
  return out;
}

export function UserConfigFields({ disclosure: d, values, onChange }: { disclosure: Disclosure; values: ConfigValues; onChange: (v: ConfigValues) => void }) {
  const info = useAppInfo();
  const baseId = useId();
  const field = (f: ConfigField) => {
    const id = `${baseId}-${f.key}`;
    const value = ownEntry(values, f.key);
    if (f.type === 'boolean') {
      return (
        <label className="check">
          <input type="checkbox" checked={value === true} onChange={(e) => onChange({ ...values, [f.key]: e.target.checked })} /> <InertText text={f.title} />
        </label>
      );
    }
    const many = Array.isArray(f.default);
    return (
      <>
        <label htmlFor={id}>
          <InertText text={f.title} />
          {f.required && <span className="required"> * (required)</span>}
          {many && <span className="muted small"> one per line</span>}
        </label>
        <div className="add-row">
          {many ? (
            <textarea id={id} rows={3} value={typeof value === 'string' ? value : ''} spellCheck={false} onChange={(e) => onChange({ ...values, [f.key]: e.target.value })} />
          ) : (
            <input id={id} type="text" inputMode={f.type === 'number' ? 'decimal' : 'text'} value={typeof value === 'string' ? value : ''} spellCheck={false} onChange={(e) => onChange({ ...values, [f.key]: e.target.value })} />
          )}
          {(f.type === 'directory' || f.type === 'file') && info?.canPickFiles && (
            <button
              type="button"
              onClick={async () => {
                const result = await invoke('dialog.openFile', { purpose: f.type === 'directory' ? 'folder' : 'config' });
                if (result.ok && result.value.path) onChange({ ...values, [f.key]: many && typeof value === 'string' && value ? `${value}\n${result.value.path}` : result.value.path });
              }}
            >
              Browse…
            </button>
          )}
        </div>
      </>
    );
  };
  return (
    <fieldset data-testid="user-config">
      <legend>Settings it needs</legend>
      <p className="muted small">The server asks for these values. A folder or file you give here is not granted by itself: grant it above if the server needs to use it.</p>
      {d.userConfig.map((f) => (
        <div key={f.key} className="field-row">
          {field(f)}
          {f.description && <InertText text={f.description} quoted fold={300} className="muted small" />}
        </div>
      ))}
      {configValues(d, values) === undefined && <p className="field-error">Fill in every required setting (numbers as numbers) to continue.</p>}
    </fieldset>
  );
}
