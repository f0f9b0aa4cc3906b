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
