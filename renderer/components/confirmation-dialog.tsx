/**
 * The confirmation dialog for a tool call (UX 1–9), shown by the dialog
 * queue (./dialog-queue.tsx) one request at a time, over any screen, with the
 * queue count visible. Its frame — the modal <dialog>, Escape and closing as
 * deny, the countdown, the sleeping buttons — is the one every question
 * shares (./asking-dialog.tsx); here are a tool call's own words.
 */
import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { ConfirmationView } from '../../shared/views';
import { invoke, useQuery } from '../api';
import { Badge, SandboxBadge, TrustBadge } from './badges';
import { DiffView } from './diff-view';
import { InertText, safeJson, visible } from './inert-text';
import { Claims, Reading } from './tool-reading';
import { AnswerButton, AskingDialog, Refusal, RememberChoice, UndoEdits, useAsking, type Remember } from './asking-dialog';
import { CallerAsks, CallerName, CommandLineNote } from './caller-words';

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
    <span data-testid="confirmation-origin">
      {' · '}From: <InertText text={server.source} />
      {server.pendingChanges > 0 && (
        <>
          {' '}
          <Badge tone="warn">Changed since approved</Badge>
        </>
      )}
    </span>
  );
}

/**
 * The call's targets in Airlock's sentence: "on path /x", "on source a and
 * destination b". Names come from the tool's schema, values from the caller:
 * values are shown inert, in code style, folded.
 */
function Targets({ targets, fold }: { targets: ConfirmationView['targets']; fold: number }) {
  if (targets.length === 0) return null;
  return (
    <>
      {' on '}
      {targets.map((target, i) => (
        <span key={target.key}>
          {i > 0 && (i === targets.length - 1 ? ' and ' : ', ')}
          <span className="target-key">
            <InertText text={target.key} />
          </span>{' '}
          {target.values.slice(0, 3).map((value, j) => (
            <span key={j}>
              {j > 0 && ', '}
              <code className="target-value">
                <InertText text={value} fold={fold} />
              </code>
            </span>
          ))}
          {target.values.length > 3 && ` and ${target.values.length - 3} more`}
        </span>
      ))}
    </>
  );
}

/** "files › write_file on path /x": the tool and its target, in Airlock's words (the restatement). */
function ToolAndTarget({ c, fold }: { c: ConfirmationView; fold: number }) {
  return (
    <>
      <code className="tool-ref">
        <InertText text={c.server} /> › <InertText text={c.tool} />
      </code>
      <Targets targets={c.targets} fold={fold} />
    </>
  );
}

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

export function ConfirmationDialog({
  confirmation: c,
  waiting,
  onAnswered,
  swapped = false,
}: {
  confirmation: ConfirmationView;
  waiting: number;
  onAnswered: (id: string) => void;
  /** This request just took another's place in the dialog. */
  swapped?: boolean;
}) {
  const denyButton = useRef<HTMLButtonElement>(null);
  const state = useAsking(c, onAnswered, swapped, () => void invoke('approvals.extend', { id: c.id }));
  const [remember, setRemember] = useState<Remember>('once');
  const [editing, setEditing] = useState(false);
  const [argsText, setArgsText] = useState(() => safeJson(c.arguments));
  const [objectConfirmed, setObjectConfirmed] = useState(!c.destructive);
  const [alwaysConfirmed, setAlwaysConfirmed] = useState(false);
  const { expired, sending } = state;
  const ids = { args: useId(), argsError: useId() };

  const parsed = useMemo(() => (editing ? parseArguments(argsText) : { value: c.arguments }), [editing, argsText, c.arguments]);
  const needsAlwaysConfirm = c.destructive && remember === 'always';
  // The organisation's policy may forbid "always allow" here: Allow then needs once or this session.
  const alwaysForbidden = c.alwaysForbidden !== undefined && remember === 'always';
  const canAllow = !expired && !sending && parsed.value !== undefined && objectConfirmed && (!needsAlwaysConfirm || alwaysConfirmed) && !alwaysForbidden;

  // A deny the core refused means the request is already closed (expired or answered elsewhere): it closes the dialog too.
  const answer = (kind: 'allow' | 'deny') => {
    const choice = kind === 'deny' ? (remember === 'always' ? 'deny-always' : 'deny') : remember === 'always' ? 'allow-always' : remember === 'session' ? 'allow-session' : 'allow-once';
    const edited = kind === 'allow' && editing && parsed.value && JSON.stringify(parsed.value) !== JSON.stringify(c.arguments) ? parsed.value : undefined;
    return state.send(
      () =>
        invoke('approvals.answer', {
          id: c.id,
          choice,
          ...(edited ? { arguments: edited } : {}),
          ...(kind === 'allow' && needsAlwaysConfirm ? { confirmDestructiveAlways: true } : {}),
        }),
      kind === 'deny',
    );
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== 'Enter' || !c.destructive) return;
    const target = event.target as HTMLElement;
    // SECURITY: Enter never approves a destructive call; only a click or Space on Allow does.
    if (target.dataset.allow !== undefined || target instanceof HTMLInputElement) event.preventDefault();
  };

  return (
    <AskingDialog
      state={state}
      waiting={waiting}
      outcome="Denied"
      onRefuse={() => void answer('deny')}
      className={`confirm ${c.destructive ? 'confirm-destructive' : ''}`}
      data={{ 'data-testid': 'confirmation', 'data-confirmation-id': c.id }}
      // SECURITY: the safe choice is the easy one — Deny has the focus for destructive calls.
      initialFocus={c.destructive ? denyButton : undefined}
      onKeyDown={onKeyDown}
      headline={
        <>
          <CallerAsks caller={c.caller} />
          <ToolAndTarget c={c} fold={160} />
        </>
      }
      headlineTestId="confirmation-headline"
      underHeadline={
        <>
          <p className={`confirm-consequence ${c.destructive ? 'destructive-flag' : ''}`} data-testid="confirmation-consequence">
            {c.destructive && <Badge tone="danger">Destructive</Badge>} {sentence(c.consequence)}
          </p>
          <CommandLineNote caller={c.caller} />
        </>
      }
      meta={
        <>
          Asked by <CallerName caller={c.caller} /> · server <strong><InertText text={c.server} /></strong>{' '}
          <span className="badges">
            <TrustBadge trusted={c.serverTrusted} />
            <SandboxBadge sandboxed={c.serverSandboxed} />
          </span>
          <ServerOrigin name={c.server} />
          {' · '}Its sandbox: <InertText text={c.sandboxSummary} />
        </>
      }
      reasons={c.reasons}
      reasonsTestId="confirmation-reasons"
      foot={
        <>
          <RememberChoice
            name={`remember-${c.id}`}
            value={remember}
            onChange={setRemember}
            testId="confirmation-remember"
            always={
              <>
                Always, for <InertText text={c.server} /> › <InertText text={c.tool} />
              </>
            }
          />
          {remember === 'session' && (
            <p className="small rule-preview" data-testid="rule-preview">
              Until Airlock quits, <InertText text={c.server} /> › <InertText text={c.tool} /> runs without asking when you allow it now. “Deny” still only denies
              this once.
            </p>
          )}
          {alwaysForbidden && (
            <p className="notice notice-warning small" data-testid="always-forbidden">
              <InertText text={c.alwaysForbidden!} />
            </p>
          )}
          {remember === 'always' && (
            <p className="small rule-preview" data-testid="rule-preview">
              This saves a rule: always allow (or, with Deny, always deny) <InertText text={c.server} /> › <InertText text={c.tool} />, for as long as the tool’s
              definition stays exactly as it is now. You can revoke it in Settings, under Standing rules.
            </p>
          )}

          {c.destructive ? (
            <label className="check confirm-object" data-testid="confirm-object">
              <input type="checkbox" checked={objectConfirmed} onChange={(e) => setObjectConfirmed(e.target.checked)} disabled={expired} /> I have read it and want
              this to happen: <ToolAndTarget c={c} fold={120} />
            </label>
          ) : (
            <p className="confirm-restatement" data-testid="confirmation-restatement">
              Allow <ToolAndTarget c={c} fold={120} />?
            </p>
          )}
          {needsAlwaysConfirm && (
            <label className="check confirm-object" data-testid="confirm-always">
              <input type="checkbox" checked={alwaysConfirmed} onChange={(e) => setAlwaysConfirmed(e.target.checked)} /> Yes, let <strong><InertText text={c.tool} /></strong> make destructive changes
              without asking me again, until I revoke the rule.
            </label>
          )}

          <Refusal text={state.refusal} />

          <div className="confirm-buttons">
            <AnswerButton state={state} onPress={() => void answer('deny')} buttonRef={denyButton} className="deny" testId="confirmation-deny">
              {remember === 'always' ? 'Always deny' : 'Deny'}
            </AnswerButton>
            <AnswerButton state={state} onPress={() => void answer('allow')} disabled={!canAllow} allow className={c.destructive ? 'danger-solid' : 'primary'} testId="confirmation-allow">
              {remember === 'once' ? (editing ? 'Allow once, as edited' : 'Allow once') : remember === 'session' ? 'Allow for this session' : 'Always allow'}
            </AnswerButton>
          </div>
        </>
      }
    >
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
          c.argumentList.length === 0 ? (
            <p className="muted">No arguments.</p>
          ) : (
            <dl className="args" data-testid="confirmation-arguments">
              {c.argumentList.map((argument) => (
                <div key={argument.key} className={`arg ${argument.declared ? '' : 'arg-undeclared'}`} data-testid="confirmation-argument" data-key={visible(argument.key)}>
                  <dt>
                    <code>
                      <InertText text={argument.key} fold={60} />
                    </code>
                    {argument.target && <span className="arg-tag">target</span>}
                    {!argument.declared && (
                      <span className="arg-tag arg-tag-warn" data-testid="argument-undeclared">
                        the tool does not declare this
                      </span>
                    )}
                  </dt>
                  <dd>
                    <ArgumentValue value={argument.value} />
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
            <UndoEdits
              onUndo={() => {
                setEditing(false);
                setArgsText(safeJson(c.arguments));
              }}
            />
          </div>
        )}
      </section>

      <section className="confirm-section">
        <h3>About the tool — in the server’s words, not Airlock’s</h3>
        <p className="server-words" data-testid="confirmation-server-words">
          <code>
            <InertText text={c.tool} />
          </code>
          {c.toolTitle !== undefined && c.toolTitle !== c.tool && (
            <>
              {' '}
              — the server calls it “<InertText text={c.toolTitle} fold={120} />”
            </>
          )}
        </p>
        <blockquote className="server-quote">
          <InertText text={c.toolDescription} block fold={300} className="tool-description" empty="No description." />
        </blockquote>
        <div className="claims-vs-reading">
          <Claims reading={c.reading} />
          <Reading reading={c.reading} />
        </div>
      </section>
    </AskingDialog>
  );
}
