/** "This server: can read … · writes … · no internet · no secrets" — the plain-language summary of a profile (UX 10). */
import { profileSentences } from '../format';
import { InertText } from './inert-text';
import type { EditableProfile } from './profile-editor';

export function ProfileSummary({ profile, testId }: { profile: EditableProfile; testId?: string }) {
  return (
    <div className="panel summary-panel" data-testid={testId ?? 'profile-summary'}>
      <p className="lead">This server:</p>
      <ul>
        {profileSentences(profile).map((sentence, i) => (
          <li key={i}>
            <InertText text={sentence} fold={2000} />
          </li>
        ))}
      </ul>
    </div>
  );
}
