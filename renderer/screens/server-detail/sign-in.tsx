/**
 * A remote server's sign-in on its page: the account, the scopes granted, when the access expires and
 * whether Airlock can renew it — never a token — with Sign in (or Grant more access) and Sign out.
 */
import { useState } from 'react';
import type { SignOutOutcome } from '../../../shared/ipc';
import { signOutWords } from '../../../shared/plain';
import { invoke, useAction, useQuery } from '../../api';
import { Badge } from '../../components/badges';
import { InertText } from '../../components/inert-text';
import { when } from '../../format';

export function SignInPanel({ name, onChange }: { name: string; onChange: () => void }) {
  const [status, reload] = useQuery('servers.signInStatus', { name });
  const action = useAction();
  // How the last sign-out went at the server: whether the tokens still work there is the person's to know.
  const [signedOut, setSignedOut] = useState<SignOutOutcome | undefined>();
  if (status.status !== 'ok' || status.value === null) return null;
  const s = status.value;
  const done = () => {
    reload();
    onChange();
  };
  const signIn = async () => {
    if ((await action.run(() => invoke('servers.signIn', { name }))) !== undefined) {
      setSignedOut(undefined);
      done();
    }
  };
  const signOut = async () => {
    const outcome = await action.run(() => invoke('servers.signOut', { name }));
    if (outcome === undefined) return;
    setSignedOut(outcome);
    done();
  };
  return (
    <section className="panel" aria-labelledby="sign-in-title" data-testid="sign-in">
      <h2 id="sign-in-title">Sign-in</h2>
      {s.signedIn ? (
        <dl className="facts">
          <dt>Account</dt>
          <dd>{s.account ? <InertText text={s.account} /> : <span className="muted">The server’s token does not say.</span>}</dd>
          <dt>Access granted</dt>
          <dd>{s.scopes ? <code><InertText text={s.scopes} /></code> : <span className="muted">Not stated.</span>}</dd>
          <dt>Expires</dt>
          <dd>
            {s.expiresAt ? when(new Date(s.expiresAt).toISOString()) : <span className="muted">Not stated.</span>} ·{' '}
            {s.renewable ? 'Airlock renews it without asking you' : 'you will be asked to sign in again'}
          </dd>
          {s.authorizationServer && (
            <>
              <dt>Signed in at</dt>
              <dd>
                <InertText text={s.authorizationServer} />
              </dd>
            </>
          )}
        </dl>
      ) : (
        <p className="muted">Not signed in. If the server asks for a sign-in, it stops and says so here.</p>
      )}
      {s.stepUpScope && (
        <p className="notice notice-warning">
          <Badge tone="warn">More access asked</Badge> The server asked for <code><InertText text={s.stepUpScope} /></code>.
        </p>
      )}
      <div className="actions">
        <button type="button" className={s.signedIn && !s.stepUpScope ? '' : 'primary'} disabled={action.busy} onClick={() => void signIn()}>
          {action.busy ? 'Waiting for the browser…' : s.stepUpScope ? 'Grant more access' : s.signedIn ? 'Sign in again' : 'Sign in'}
        </button>
        {s.signedIn && (
          <button type="button" disabled={action.busy} onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </div>
      {signedOut && !s.signedIn && (
        <p role="status" className={`notice notice-${signedOut.revoked === 'yes' ? 'ok' : 'warning'}`} data-testid="signed-out">
          Signed out. <InertText text={signOutWords(signedOut)} />
        </p>
      )}
      {action.error && (
        <p role="alert" className="notice notice-error">
          <InertText text={action.error} block />
        </p>
      )}
    </section>
  );
}
