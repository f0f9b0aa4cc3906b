/**
 * The sandbox profile as a list of grants, each with its purpose, each
 * removable, and a way to add more. Used by the install flow (local state)
 * and the detail page (each change saved at once).
 */
import { useId, useState } from 'react';
import type { SandboxProfile } from '../../shared/domain';
import type { GrantProposalView } from '../../shared/views';
import { invoke, useAppInfo } from '../api';
import { GRANT_PURPOSE } from '../format';
import { InertText, visible } from './inert-text';
import { OrganisationBounds } from './organisation-lock';

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

/** `path` is `root` or lies beneath it (plain string paths, as the person typed them). */
function isAtOrUnder(path: string, root: string): boolean {
  const base = root.endsWith('/') ? root : `${root}/`;
  return path === root || path.startsWith(base);
}

/** The repository folder at a write grant's root: what a git server that commits needs to change. */
export function repositoryOf(grant: string): string {
  return `${grant.endsWith('/') ? grant.slice(0, -1) : grant}/.git`;
}

/** A profile with a write grant removed, and the trusted-files exceptions inside it with it (they must not come back with a later grant). */
function withoutWriteGrant(profile: EditableProfile, grant: string): EditableProfile {
  const { writeTrusted, ...filesystem } = profile.filesystem;
  const kept = (writeTrusted ?? []).filter((path) => !isAtOrUnder(path, grant));
  return { ...profile, filesystem: { ...filesystem, write: profile.filesystem.write.filter((x) => x !== grant), ...(kept.length ? { writeTrusted: kept } : {}) } };
}

/** A profile with `path` added to or taken from the trusted-files exceptions. */
function withWriteTrusted(profile: EditableProfile, path: string, allowed: boolean): EditableProfile {
  const { writeTrusted, ...filesystem } = profile.filesystem;
  const list = (writeTrusted ?? []).filter((p) => p !== path);
  if (allowed) list.push(path);
  return { ...profile, filesystem: { ...filesystem, ...(list.length ? { writeTrusted: list } : {}) } };
}

/**
 * Under one write grant: the files other programs trust there stay
 * protected unless the person, warned, lets the server change them — a
 * checkbox for the repository at the grant's root (a git server that
 * commits), and every other exception made (on the command line) with a
 * way to take it back.
 */
function TrustedFilesOption({ grant, profile, onChange, busy }: { grant: string; profile: EditableProfile; onChange: (next: EditableProfile) => void; busy: boolean }) {
  const id = useId();
  const repository = repositoryOf(grant);
  const exceptions = (profile.filesystem.writeTrusted ?? []).filter((path) => isAtOrUnder(path, grant));
  const allowed = exceptions.includes(repository);
  const others = exceptions.filter((path) => path !== repository);
  return (
    <div className={`trusted-files${allowed || others.length ? ' trusted-files-open' : ''}`} data-testid="write-trusted">
      <label className="check" htmlFor={id}>
        <input id={id} type="checkbox" checked={allowed} disabled={busy} aria-describedby={`${id}-why`} onChange={(e) => onChange(withWriteTrusted(profile, repository, e.target.checked))} /> Also let it change
        the repository here (<code><InertText text={repository} /></code>)
      </label>
      <p id={`${id}-why`} className={`small ${allowed ? 'danger-text' : 'muted'}`}>
        {allowed ? <strong>Warning: </strong> : null}
        {GRANT_PURPOSE.writeTrusted}
      </p>
      {others.length > 0 && (
        <ul className="grant-list">
          {others.map((path) => (
            <li key={path} className="danger-text">
              It may change the trusted files at{' '}
              <code>
                <InertText text={path} />
              </code>
              <button type="button" className="small-button" disabled={busy} onClick={() => onChange(withWriteTrusted(profile, path, false))} aria-label={`Protect the trusted files at ${visible(path)} again`}>
                Protect again
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
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
      {kind !== 'read' && <OrganisationBounds kind={kind} />}
      {items.length === 0 ? (
        <p className="muted">{text.none}</p>
      ) : (
        <ul className="grant-list">
          {items.map((item) => (
            <li key={item} className={kind === 'write' ? 'grant-with-options' : undefined}>
              <code>
                <InertText text={item} />
              </code>
              <button
                type="button"
                className="small-button"
                disabled={busy}
                onClick={() => onChange(kind === 'write' ? withoutWriteGrant(profile, item) : withList(profile, kind, items.filter((x) => x !== item)))}
                aria-label={`Remove ${text.item} grant for ${visible(item)}`}
              >
                Remove
              </button>
              {kind === 'write' && <TrustedFilesOption grant={item} profile={profile} onChange={onChange} busy={busy} />}
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
  /** Grants it probably needs, each with why (paths, its API's domain): offered, never granted silently. */
  proposals?: GrantProposalView[];
  busy?: boolean;
}

/** Adds one proposal to a profile (a write grant covers reading). */
export function withProposal(profile: EditableProfile, proposal: GrantProposalView): EditableProfile {
  if (proposal.kind === 'domain') return profile.network.allowedDomains.includes(proposal.value) ? profile : { ...profile, network: { allowedDomains: [...profile.network.allowedDomains, proposal.value] } };
  const list = profile.filesystem[proposal.kind];
  return list.includes(proposal.value) ? profile : { ...profile, filesystem: { ...profile.filesystem, [proposal.kind]: [...list, proposal.value] } };
}

function isGranted(profile: EditableProfile, proposal: GrantProposalView): boolean {
  if (proposal.kind === 'domain') return profile.network.allowedDomains.includes(proposal.value);
  return profile.filesystem[proposal.kind].includes(proposal.value) || (proposal.kind === 'read' && profile.filesystem.write.includes(proposal.value));
}

const PROPOSAL_BUTTON: Record<GrantProposalView['kind'], string> = { write: 'Allow changes here', read: 'Allow reading here', domain: 'Allow reaching it' };

export function ProfileEditor({ profile, onChange, suggestedPaths = [], proposals, busy = false }: ProfileEditorProps) {
  const offered = (proposals ?? suggestedPaths.map((s) => ({ kind: s.access, value: s.path, reason: 'its command line names it' }))).filter((p) => !isGranted(profile, p));
  return (
    <div className="profile-editor" data-testid="profile-editor">
      {offered.length > 0 && (
        <div className="panel panel-suggest" data-testid="suggested-paths">
          <p>
            <strong>It probably needs these.</strong> Nothing is granted until you say so:
          </p>
          <ul className="grant-list">
            {offered.map((p) => (
              <li key={`${p.kind}:${p.value}`} data-testid={`proposal-${p.kind}`}>
                <code>
                  <InertText text={p.value} />
                </code>{' '}
                <span className="muted small">
                  <InertText text={p.reason} />
                </span>
                <button type="button" className="small-button" disabled={busy} onClick={() => onChange(withProposal(profile, p))}>
                  {PROPOSAL_BUTTON[p.kind]}
                </button>
              </li>
            ))}
          </ul>
          {offered.length > 1 && (
            <button type="button" className="small-button" disabled={busy} onClick={() => onChange(offered.reduce(withProposal, profile))}>
              Allow all of these
            </button>
          )}
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
