import { useQuery } from '../api';
import type { OrganisationView } from '../../shared/views';
import { InertText } from './inert-text';

/** "Set by your organisation. (key: value, file)": why a setting cannot be changed here. */
export function LockNote({ words }: { words: string }) {
  return (
    <p className="notice notice-warning small" data-testid="organisation-lock">
      <strong>Set by your organisation.</strong> <InertText text={words.replace(/^set by your organisation /, '')} />
    </p>
  );
}

/** The lock the organisation's policy puts on one setting, shown where that setting is (nothing when it is free). */
export function OrganisationLock({ setting }: { setting: OrganisationView['locks'][number]['setting'] }) {
  const [organisation] = useQuery('organisation.get', {}, 'servers.didChange');
  const lock = organisation.status === 'ok' ? organisation.value.locks.find((item) => item.setting === setting) : undefined;
  return lock ? <LockNote words={lock.words} /> : null;
}

/**
 * The organisation's bounds on one kind of grant, shown where those grants
 * are edited: the network domains a server may be granted, or write grants
 * only inside the home folder (nothing when the policy sets no bound). While
 * the policy cannot be read, no network grant can be added.
 */
export function OrganisationBounds({ kind }: { kind: 'network' | 'write' }) {
  const [organisation] = useQuery('organisation.get', {}, 'servers.didChange');
  if (organisation.status !== 'ok') return null;
  const view = organisation.value;
  if (kind === 'write') return view.writesOnlyInHome ? <LockNote words="set by your organisation (allowWritesOutsideHome: false): only folders inside your home folder can be granted." /> : null;
  if (view.status === 'unreadable') return <LockNote words="set by your organisation (its policy cannot be read): no domain can be granted until it is fixed." />;
  const allowed = view.network?.allowedDomains;
  const denied = view.network?.deniedDomains;
  return (
    <>
      {allowed && <LockNote words={`set by your organisation (network.allowedDomains: ${allowed.join(', ') || 'none'}): only domains within these can be granted.`} />}
      {denied && <LockNote words={`set by your organisation (network.deniedDomains: ${denied.join(', ')}): these domains cannot be granted.`} />}
    </>
  );
}
