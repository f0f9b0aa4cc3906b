import { invoke, useAction, useQuery } from '../api';
import { InertText } from './inert-text';
import { FieldError } from './field-error';

/**
 * A running server asked to reach a host it has no grant for. Shown as a
 * banner (it never steals focus from a form); Deny is the first button, and
 * no answer by the deadline is a deny. Only servers that are not contained
 * are ever asked about — the core decides that.
 */
export function NetworkPrompt() {
  const [pending] = useQuery('network.pending', {}, 'network.didChange');
  const action = useAction();
  if (pending.status !== 'ok' || pending.value.length === 0) return null;
  const question = pending.value[0]!;
  const answer = (allow: boolean, remember: boolean) => void action.run(() => invoke('network.answer', { id: question.id, allow, remember }));
  return (
    <div className="notice notice-warning network-prompt" role="alertdialog" aria-labelledby="network-prompt-title" data-testid="network-prompt">
      <p id="network-prompt-title">
        <strong>
          <InertText text={question.server} />
        </strong>{' '}
        wants to reach{' '}
        <code>
          <InertText text={`${question.host}:${question.port}`} />
        </code>
        , which it has no permission for.
        {pending.value.length > 1 ? ` (${pending.value.length - 1} more waiting)` : ''}
      </p>
      <div className="actions">
        <button type="button" onClick={() => answer(false, false)} disabled={action.busy}>
          Deny
        </button>
        <button type="button" onClick={() => answer(true, false)} disabled={action.busy}>
          Allow this time
        </button>
        <button type="button" onClick={() => answer(true, true)} disabled={action.busy}>
          Always allow for <InertText text={question.server} />
        </button>
      </div>
      <FieldError message={action.error} />
    </div>
  );
}
