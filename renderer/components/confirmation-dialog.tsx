/**
 * The confirmation dialog (UX 1–9): one request at a time, over any screen,
 * with the queue count visible. Built on the native <dialog> element opened
 * with showModal(): the browser makes everything behind it inert (the focus
 * trap), gives it role="dialog" and aria-modal, and turns Escape into a
 * `cancel` event — which here means deny. No library is needed, and nothing
 * in it needs inline <style> or eval, so it works under the app's CSP.
 */
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ConfirmationView } from '../../shared/views';
import { invoke, useLiveQuery, useQuery } from '../api';
import { Badge, SandboxBadge, TrustBadge } from './badges';
import { DiffView } from './diff-view';
import { InertText, safeJson, visible } from './inert-text';
import { Claims, Reading } from './tool-reading';

type Remember = 'once' | 'session' | 'always';

/** How long after the last keystroke in a text field a new request waits before taking the focus (UX 9). */
const TYPING_PAUSE_MS = 1200;

/** True while the person is typing in a text field (a keystroke within the pause). */
function useTyping(): boolean {
  const [typing, setTyping] = useState(false);
  useEffect(() => {
    let timer: number | undefined;
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (!target || !(target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target.isContentEditable)) return;
      if (target.closest('dialog')) return;
      setTyping(true);
      window.clearTimeout(timer);
      timer = window.setTimeout(() => setTyping(false), TYPING_PAUSE_MS);
    };
    window.addEventListener('keydown', onKey, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      window.clearTimeout(timer);
    };
  }, []);
  return typing;
}

/** Every confirmation waiting for an answer; shows the oldest first. */
export function ConfirmationCenter() {
  const [list] = useLiveQuery('approvals.list', {}, 'approvals.didChange', (payload) => payload);
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());
  const pending = useMemo(() => {
    if (list.status !== 'ok') return [];
    return list.value.filter((c) => !answered.has(c.id)).sort((a, b) => a.createdAt - b.createdAt);
  }, [list, answered]);
  const onAnswered = useCallback((id: string) => setAnswered((prev) => new Set(prev).add(id)), []);
  const typing = useTyping();
  const [shownId, setShownId] = useState<string | undefined>();
  const current = pending[0];
  useEffect(() => {
    if (current && !typing) setShownId(current.id);
  }, [current, typing]);
  if (!current) return null;
  // Never take the focus mid-word: a request that arrives while the person types waits for a pause, announced.
  if (shownId !== current.id && typing) {
    return (
      <div className="pending-banner" role="status" data-testid="confirmation-waiting">
        A request is waiting for your answer; it opens when you stop typing.
      </div>
    );
  }
  return <ConfirmationDialog key={current.id} confirmation={current} waiting={pending.length} onAnswered={onAnswered} />;
}

/** Seconds left until the deadline, ticking. */
function useSecondsLeft(deadline: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 250);
    return () => window.clearInterval(timer);
  }, []);
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}

/** Parses the edited arguments: a JSON object, or a message saying what is wrong. */
function parseArguments(text: string): { value?: Record<string, unknown>; error?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `This is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { error: 'The arguments must be a JSON object, like {"path": "…"}.' };
  }
  return { value: value as Record<string, unknown> };
}

function ArgumentValue({ value }: { value: unknown }) {
  if (typeof value === 'string') return <InertText text={value} block fold={240} className="arg-value" />;
  return <InertText text={safeJson(value)} block fold={240} className="arg-value" />;
}

/** Where the server comes from and whether it changed since approved (UX 3), from the servers list. */
function ServerOrigin({ name }: { name: string }) {
  const [servers] = useQuery('servers.list', {}, 'servers.didChange');
  const server = servers.status === 'ok' ? servers.value.find((s) => s.name === name) : undefined;
  if (!server) return null;
  return (
    <p className="muted small" data-testid="confirmation-origin">
      From: <InertText text={server.source} />
      {server.pendingChanges > 0 && (
        <>
          {' '}
          <Badge tone="warn">Changed since approved</Badge>
        </>
      )}
    </p>
  );
}

export function ConfirmationDialog({ confirmation: c, waiting, onAnswered }: { confirmation: ConfirmationView; waiting: number; onAnswered: (id: string) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const denyButton = useRef<HTMLButtonElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const answeredRef = useRef(false);
  const [remember, setRemember] = useState<Remember>('once');
  const [editing, setEditing] = useState(false);
  const [argsText, setArgsText] = useState(() => safeJson(c.arguments));
  const [objectConfirmed, setObjectConfirmed] = useState(!c.destructive);
  const [alwaysConfirmed, setAlwaysConfirmed] = useState(false);
  const [sending, setSending] = useState(false);
  const [refusal, setRefusal] = useState<string | undefined>();
  const secondsLeft = useSecondsLeft(c.deadline);
  const expired = secondsLeft <= 0;
  // UX 6: the countdown pauses while the person engages — each interaction moves the deadline a
  // minute ahead (the core bounds it), at most every few seconds.
  const lastExtend = useRef(0);
  const [engaged, setEngaged] = useState(false);
  const engage = useCallback(() => {
    const now = Date.now();
    if (answeredRef.current || now - lastExtend.current < 5_000) return;
    lastExtend.current = now;
    setEngaged(true);
    void invoke('approvals.extend', { id: c.id });
  }, [c.id]);
  const ids = { title: useId(), desc: useId(), args: useId(), argsError: useId() };

  const parsed = useMemo(() => (editing ? parseArguments(argsText) : { value: c.arguments }), [editing, argsText, c.arguments]);
  const needsAlwaysConfirm = c.destructive && remember === 'always';
  const canAllow = !expired && !sending && parsed.value !== undefined && objectConfirmed && (!needsAlwaysConfirm || alwaysConfirmed);

  const answer = useCallback(
    async (kind: 'allow' | 'deny') => {
      if (answeredRef.current) return;
      answeredRef.current = true;
      setSending(true);
      setRefusal(undefined);
      const choice = kind === 'deny' ? (remember === 'always' ? 'deny-always' : 'deny') : remember === 'always' ? 'allow-always' : remember === 'session' ? 'allow-session' : 'allow-once';
      const edited = kind === 'allow' && editing && parsed.value && JSON.stringify(parsed.value) !== JSON.stringify(c.arguments) ? parsed.value : undefined;
      const result = await invoke('approvals.answer', {
        id: c.id,
        choice,
        ...(edited ? { arguments: edited } : {}),
        ...(kind === 'allow' && needsAlwaysConfirm ? { confirmDestructiveAlways: true } : {}),
      });
      setSending(false);
      if (result.ok && result.value.accepted) {
        onAnswered(c.id);
        return;
      }
      const reason = result.ok ? (result.value.reason ?? 'Airlock did not accept this answer.') : result.message;
      if (kind === 'deny') {
        // A deny that was refused means the request is already closed (expired or answered elsewhere).
        onAnswered(c.id);
        return;
      }
      answeredRef.current = false;
      setRefusal(reason);
    },
    [c.id, c.arguments, remember, editing, parsed.value, needsAlwaysConfirm, onAnswered],
  );

  useEffect(() => {
    const el = dialog.current;
    if (!el) return undefined;
    if (!el.open) el.showModal();
    // SECURITY: the safe choice is the easy one — Deny has the focus for destructive calls.
    if (c.destructive) denyButton.current?.focus();
    else heading.current?.focus();
    return () => {
      if (el.open) el.close();
    };
  }, [c.destructive]);

  const onKeyDown = (event: React.KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== 'Enter' || !c.destructive) return;
    const target = event.target as HTMLElement;
    // SECURITY: Enter never approves a destructive call; only a click or Space on Allow does.
    if (target.dataset.allow !== undefined || target instanceof HTMLInputElement) event.preventDefault();
  };

  const title = c.toolTitle ?? c.tool;
  return (
    <dialog
      ref={dialog}
      className={`confirm ${c.destructive ? 'confirm-destructive' : ''}`}
      aria-labelledby={ids.title}
      aria-describedby={ids.desc}
      data-testid="confirmation"
      onCancel={(event) => {
        // Escape means deny.
        event.preventDefault();
        void answer('deny');
      }}
      onClose={() => {
        // Closed by the browser (not re-opened, not answered): that is a deny too.
        if (!answeredRef.current && !dialog.current?.open) void answer('deny');
      }}
      onKeyDown={(event) => {
        engage();
        onKeyDown(event);
      }}
      onPointerDown={engage}
      onInput={engage}
    >
      <div className="confirm-head">
        <div className="confirm-top">
          <span className="muted" data-testid="confirmation-queue">
            {waiting > 1 ? `1 of ${waiting} requests waiting` : '1 request waiting'}
          </span>
          <span className={`countdown ${secondsLeft <= 10 ? 'countdown-soon' : ''}`} data-testid="countdown" role="timer" aria-live="off">
            {expired ? 'Time is up: denied' : engaged ? `Paused while you read · denied ${secondsLeft} s after you stop` : `Denied automatically in ${secondsLeft} s`}
          </span>
        </div>
        {c.destructive && (
          <p className="destructive-flag">
            <Badge tone="danger">Destructive</Badge> This call can delete or overwrite things. Read it carefully.
          </p>
        )}
        <h2 id={ids.title} ref={heading} tabIndex={-1} className="confirm-headline" data-testid="confirmation-headline">
          <InertText text={c.headline} fold={400} />
        </h2>
        <div id={ids.desc} className="confirm-who">
          <p>
            Asked by <strong><InertText text={c.callerLabel} /></strong> through the server <strong><InertText text={c.server} /></strong>{' '}
            <span className="badges">
              <TrustBadge trusted={c.serverTrusted} />
              <SandboxBadge sandboxed={c.serverSandboxed} />
            </span>
          </p>
          <ServerOrigin name={c.server} />
          <p className="muted small">
            Its sandbox: <InertText text={c.sandboxSummary} />
          </p>
        </div>
      </div>
      <div className="confirm-body">
        {c.changes && (
          <section className="confirm-section panel-warn">
            <h3>This tool changed since you approved it</h3>
            <DiffView diff={c.changes} />
          </section>
        )}

        <section className="confirm-section" aria-labelledby={ids.args}>
          <div className="section-head">
            <h3 id={ids.args}>What it will be called with</h3>
            {!editing && (
              <button type="button" className="small-button" onClick={() => setEditing(true)} disabled={expired}>
                Edit, then allow…
              </button>
            )}
          </div>
          {!editing ? (
            Object.keys(c.arguments).length === 0 ? (
              <p className="muted">No arguments.</p>
            ) : (
              <dl className="args" data-testid="confirmation-arguments">
                {Object.entries(c.arguments).map(([key, value]) => (
                  <div key={key} className="arg">
                    <dt>
                      <code>
                        <InertText text={key} />
                      </code>
                    </dt>
                    <dd>
                      <ArgumentValue value={value} />
                    </dd>
                  </div>
                ))}
              </dl>
            )
          ) : (
            <div className="edit-args">
              <label htmlFor={`${ids.args}-edit`}>The arguments as JSON (Airlock checks them against the tool’s schema again before the call)</label>
              <textarea
                id={`${ids.args}-edit`}
                data-testid="confirmation-arguments-editor"
                value={argsText}
                rows={Math.min(16, Math.max(4, argsText.split('\n').length + 1))}
                spellCheck={false}
                aria-invalid={parsed.error ? true : undefined}
                aria-describedby={parsed.error ? ids.argsError : undefined}
                onChange={(e) => setArgsText(e.target.value)}
              />
              {parsed.error && (
                <p id={ids.argsError} role="alert" className="field-error">
                  {parsed.error} Allow stays off until this is a valid JSON object.
                </p>
              )}
              <button
                type="button"
                className="small-button"
                onClick={() => {
                  setEditing(false);
                  setArgsText(safeJson(c.arguments));
                }}
              >
                Undo my edits
              </button>
            </div>
          )}
        </section>

        <section className="confirm-section">
          <h3>
            The tool: <code><InertText text={c.tool} /></code>
            {c.toolTitle && c.toolTitle !== c.tool && (
              <>
                {' '}
                <span className="tool-title"><InertText text={c.toolTitle} /></span>
              </>
            )}
          </h3>
          <InertText text={c.toolDescription} block fold={300} className="tool-description" empty="No description." />
          <div className="claims-vs-reading">
            <Claims reading={c.reading} />
            <Reading reading={c.reading} />
          </div>
          {c.reasons.length > 0 && (
            <div className="reasons">
              <span className="muted">Why Airlock asks:</span>
              <ul>
                {c.reasons.map((reason, i) => (
                  <li key={i}>
                    <InertText text={reason} />
                  </li>
                ))}
              </ul>
            </div>
          )}
        </section>

        <fieldset className="remember">
          <legend>For how long</legend>
          {(['once', 'session', 'always'] as const).map((value) => (
            <label key={value} className="check">
              <input type="radio" name={`remember-${c.id}`} value={value} checked={remember === value} onChange={() => setRemember(value)} />{' '}
              {value === 'once' ? 'Only this time' : value === 'session' ? 'For this session (until Airlock quits)' : `Always, for ${visible(title)}`}
            </label>
          ))}
          {remember === 'session' && (
            <p className="small rule-preview" data-testid="rule-preview">
              Until Airlock quits, <InertText text={c.server} /> › <InertText text={c.tool} /> runs without asking when you allow it now. “Deny” still only
              denies this once.
            </p>
          )}
          {remember === 'always' && (
            <p className="small rule-preview" data-testid="rule-preview">
              This saves a rule: always allow (or, with Deny, always deny) <InertText text={c.server} /> › <InertText text={c.tool} />, for as long as the tool’s
              definition stays exactly as it is now. You can revoke it in Settings, under Standing rules.
            </p>
          )}
        </fieldset>
      </div>
      <div className="confirm-foot">

        {c.destructive && (
          <label className="check confirm-object" data-testid="confirm-object">
            <input type="checkbox" checked={objectConfirmed} onChange={(e) => setObjectConfirmed(e.target.checked)} disabled={expired} /> I have read it and want this to happen:{' '}
            <strong>
              <InertText text={c.tool} />
            </strong>{' '}
            — <InertText text={c.headline} fold={200} />
          </label>
        )}
        {needsAlwaysConfirm && (
          <label className="check confirm-object" data-testid="confirm-always">
            <input type="checkbox" checked={alwaysConfirmed} onChange={(e) => setAlwaysConfirmed(e.target.checked)} /> Yes, let <strong><InertText text={c.tool} /></strong> make destructive changes
            without asking me again, until I revoke the rule.
          </label>
        )}

        {refusal && (
          <p role="alert" className="notice notice-error">
            <InertText text={refusal} />
          </p>
        )}

        <div className="confirm-buttons">
          <button type="button" ref={denyButton} className="deny" onClick={() => void answer('deny')} disabled={sending}>
            {remember === 'always' ? 'Always deny' : 'Deny'}
          </button>
          <button type="button" data-allow="" className={c.destructive ? 'danger-solid' : 'primary'} onClick={() => void answer('allow')} disabled={!canAllow}>
            {remember === 'once' ? (editing ? 'Allow once, as edited' : 'Allow once') : remember === 'session' ? 'Allow for this session' : 'Always allow'}
          </button>
        </div>
      </div>
    </dialog>
  );
}
