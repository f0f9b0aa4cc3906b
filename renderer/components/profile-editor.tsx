/**
 * The sandbox profile as a list of grants, each with its purpose, each
 * removable, and a way to add more. Used by the install flow (local state)
 * and the detail page (each change saved at once).
 */
import { useId, useState } from 'react';
import type { SandboxProfile } from '../../shared/domain';
import { invoke, useAppInfo } from '../api';
import { GRANT_PURPOSE } from '../format';
import { InertText, visible } from './inert-text';

export type EditableProfile = Omit<SandboxProfile, 'unsandboxed'>;

type ListKind = 'read' | 'write' | 'network';

const LIST_TEXT: Record<ListKind, { title: string; none: string; add: string; placeholder: string; purpose: string; item: string }> = {
  read: {
    title: 'Extra folders it may read',
    none: 'None beyond the defaults.',
    add: 'Add a folder to read',
    placeholder: '/home/you/Projects',
    purpose: GRANT_PURPOSE.read,
    item: 'read',
  },
  write: {
    title: 'Folders it may change',
    none: 'None: it writes only to a temporary folder deleted when it stops.',
    add: 'Add a folder to change',
    placeholder: '/home/you/Documents/notes',
    purpose: GRANT_PURPOSE.write,
    item: 'write',
  },
  network: {
    title: 'Internet domains it may reach',
    none: 'None: no network at all.',
    add: 'Add a domain',
    placeholder: 'api.example.com or *.example.com',
    purpose: GRANT_PURPOSE.network,
    item: 'reach',
  },
};

function listOf(profile: EditableProfile, kind: ListKind): string[] {
  return kind === 'network' ? profile.network.allowedDomains : profile.filesystem[kind];
}

function withList(profile: EditableProfile, kind: ListKind, list: string[]): EditableProfile {
  if (kind === 'network') return { ...profile, network: { allowedDomains: list } };
  return { ...profile, filesystem: { ...profile.filesystem, [kind]: list } };
}

function GrantList({ kind, profile, onChange, busy }: { kind: ListKind; profile: EditableProfile; onChange: (next: EditableProfile) => void; busy: boolean }) {
  const text = LIST_TEXT[kind];
  const [draft, setDraft] = useState('');
  const info = useAppInfo();
  const inputId = useId();
  const items = listOf(profile, kind);
  const add = (value: string) => {
    const trimmed = value.trim();
    if (!trimmed || items.includes(trimmed)) return;
    onChange(withList(profile, kind, [...items, trimmed]));
    setDraft('');
  };
  const browse = async () => {
    const result = await invoke('dialog.openFile', { purpose: 'folder' });
    if (result.ok && result.value.path) add(result.value.path);
  };
  return (
    <fieldset className="grant-group" data-testid={`grants-${kind}`}>
      <legend>{text.title}</legend>
      <p className="purpose">{text.purpose}</p>
      {items.length === 0 ? (
        <p className="muted">{text.none}</p>
      ) : (
        <ul className="grant-list">
          {items.map((item) => (
            <li key={item}>
              <code>
                <InertText text={item} />
              </code>
              <button type="button" className="small-button" disabled={busy} onClick={() => onChange(withList(profile, kind, items.filter((x) => x !== item)))} aria-label={`Remove ${text.item} grant for ${visible(item)}`}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="add-row">
        <label htmlFor={inputId} className="visually-hidden">
          {text.add}
        </label>
        <input
          id={inputId}
          type="text"
          value={draft}
          placeholder={text.placeholder}
          spellCheck={false}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add(draft);
            }
          }}
        />
        {kind !== 'network' && info?.canPickFiles && (
          <button type="button" onClick={() => void browse()} disabled={busy}>
            Browse…
          </button>
        )}
        <button type="button" onClick={() => add(draft)} disabled={busy || draft.trim() === ''}>
          {text.add}
        </button>
      </div>
    </fieldset>
  );
}

export interface ProfileEditorProps {
  profile: EditableProfile;
  onChange: (next: EditableProfile) => void;
  /** Paths the command line mentions: offered as one-click grants, never granted silently. */
  suggestedPaths?: { path: string; access: 'read' | 'write' }[];
  busy?: boolean;
}

export function ProfileEditor({ profile, onChange, suggestedPaths = [], busy = false }: ProfileEditorProps) {
  const offered = suggestedPaths.filter((s) => !profile.filesystem[s.access].includes(s.path));
  return (
    <div className="profile-editor" data-testid="profile-editor">
      {offered.length > 0 && (
        <div className="panel panel-suggest" data-testid="suggested-paths">
          <p>
            <strong>Its command line mentions these paths.</strong> It probably needs them, but nothing is granted until you say so:
          </p>
          <ul className="grant-list">
            {offered.map((s) => (
              <li key={`${s.access}:${s.path}`}>
                <code>
                  <InertText text={s.path} />
                </code>
                <button
                  type="button"
                  className="small-button"
                  disabled={busy}
                  onClick={() => onChange({ ...profile, filesystem: { ...profile.filesystem, [s.access]: [...profile.filesystem[s.access], s.path] } })}
                >
                  {s.access === 'write' ? 'Allow changes here' : 'Allow reading here'}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      <GrantList kind="write" profile={profile} onChange={onChange} busy={busy} />
      <GrantList kind="read" profile={profile} onChange={onChange} busy={busy} />
      <fieldset className="grant-group">
        <legend>Data folder of its own</legend>
        <label className="check">
          <input
            type="checkbox"
            checked={profile.filesystem.persistentData}
            disabled={busy}
            onChange={(e) => onChange({ ...profile, filesystem: { ...profile.filesystem, persistentData: e.target.checked } })}
          />{' '}
          Give it a persistent data folder
        </label>
        <p className="purpose">{GRANT_PURPOSE.persistentData}</p>
      </fieldset>
      <GrantList kind="network" profile={profile} onChange={onChange} busy={busy} />
    </div>
  );
}
