/**
 * The composer's `/` and `@`: `/` at the start offers the servers' prompts
 * (with a small form for their arguments), `@` offers their resources to
 * attach as removable chips. Keyboard first: arrows move, Enter picks,
 * Escape closes. SECURITY: every name and description here is the server's
 * text — rendered inert and labelled with the server that wrote it.
 */
import { useState, type KeyboardEvent, type ReactNode } from 'react';
import type { ChatCommandsView } from '../../../shared/chat';
import { InertText } from '../inert-text';

type PromptEntry = ChatCommandsView['prompts'][number];
type ResourceEntry = ChatCommandsView['resources'][number];

export interface ChosenPrompt {
  entry: PromptEntry;
  arguments: Record<string, string>;
}

const MAX_SHOWN = 8;
const AT_END = /(^|\s)@(\S*)$/;

/** What the menu offers for this draft (nothing when the draft is not a `/` or `@` token). */
function menuFor(draft: string, commands: ChatCommandsView | undefined, prompt: ChosenPrompt | undefined, attached: readonly ResourceEntry[]) {
  if (!commands?.available) return undefined;
  const slash = /^\/(\S*)$/.exec(draft);
  if (slash && !prompt) {
    const query = slash[1]!.toLowerCase();
    const items = commands.prompts.filter((p) => p.name.toLowerCase().includes(query)).slice(0, MAX_SHOWN);
    return { kind: 'prompt' as const, items };
  }
  const at = AT_END.exec(draft);
  if (at) {
    const query = at[2]!.toLowerCase();
    const items = commands.resources
      .filter((r) => !attached.some((a) => a.server === r.server && a.uri === r.uri))
      .filter((r) => r.uri.toLowerCase().includes(query) || (r.name ?? '').toLowerCase().includes(query))
      .slice(0, MAX_SHOWN);
    return { kind: 'resource' as const, items };
  }
  return undefined;
}

/** The `/` and `@` state of one composer. */
export function useComposerContext(commands: ChatCommandsView | undefined, draft: string, setDraft: (text: string) => void) {
  const [prompt, setPrompt] = useState<ChosenPrompt | undefined>();
  const [attached, setAttached] = useState<ResourceEntry[]>([]);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | undefined>();
  const menu = dismissed === draft ? undefined : menuFor(draft, commands, prompt, attached);
  const count = menu?.items.length ?? 0;
  const index = count ? Math.min(active, count - 1) : 0;

  const pick = (at: number) => {
    if (!menu) return;
    if (menu.kind === 'prompt') {
      const entry = menu.items[at];
      if (!entry) return;
      setPrompt({ entry, arguments: Object.fromEntries((entry.arguments ?? []).map((arg) => [arg.name, ''])) });
      setDraft('');
    } else {
      const entry = menu.items[at];
      if (!entry) return;
      setAttached((current) => [...current, entry]);
      setDraft(draft.replace(AT_END, '$1'));
    }
    setActive(0);
  };

  /** Handles the menu's keys; true when the key was the menu's. */
  const onKeyDown = (event: KeyboardEvent): boolean => {
    if (!menu) return false;
    if (event.key === 'Escape') {
      setDismissed(draft);
      return true;
    }
    if (!count) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      setActive((index + (event.key === 'ArrowDown' ? 1 : count - 1)) % count);
      return true;
    }
    if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
      pick(index);
      return true;
    }
    return false;
  };

  const missing = prompt ? (prompt.entry.arguments ?? []).filter((arg) => arg.required && !prompt.arguments[arg.name]?.trim()).map((arg) => arg.name) : [];

  const menuView: ReactNode = menu ? (
    <div className="composer-menu" data-testid={`${menu.kind}-menu`}>
      <p className="small muted" id="composer-menu-label">
        {menu.kind === 'prompt' ? 'Prompts from your servers' : 'Resources from your servers to attach'} — ↑↓ to choose, Enter to pick, Escape to close.
      </p>
      {count === 0 ? (
        <p className="small muted">{menu.kind === 'prompt' ? 'No prompt matches.' : 'No resource matches.'}</p>
      ) : (
        <ul role="listbox" id="composer-menu" aria-labelledby="composer-menu-label">
          {menu.items.map((item, at) => (
            <li
              key={`${item.server}\u0000${'uri' in item ? item.uri : item.name}`}
              id={`composer-option-${at}`}
              role="option"
              aria-selected={at === index}
              className={at === index ? 'active' : undefined}
              onMouseDown={(event) => {
                event.preventDefault();
                pick(at);
              }}
            >
              <span className="small muted">{item.server}’s {menu.kind}: </span>
              {'uri' in item ? (
                <>
                  <InertText text={item.name ?? item.uri} />
                  {item.name && (
                    <span className="small muted">
                      {' '}
                      <InertText text={item.uri} fold={120} />
                    </span>
                  )}
                </>
              ) : (
                <>
                  <InertText text={`/${item.name}`} />
                  {item.description && (
                    <span className="small muted">
                      {' — '}
                      <InertText text={item.description} fold={160} />
                    </span>
                  )}
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  ) : null;

  const chips: ReactNode =
    prompt || attached.length ? (
      <div className="composer-context" data-testid="composer-context">
        {prompt && (
          <fieldset className="composer-prompt" data-testid="chosen-prompt">
            <legend>
              <span className="small muted">{prompt.entry.server}’s prompt </span>
              <InertText text={`/${prompt.entry.name}`} />{' '}
              <button type="button" className="small-button" onClick={() => setPrompt(undefined)} aria-label="Remove the prompt">
                Remove
              </button>
            </legend>
            {(prompt.entry.arguments ?? []).map((arg, at) => (
              <label key={arg.name} className="block-label">
                <span>
                  <InertText text={arg.name} />
                  {arg.required ? ' (required)' : ''}
                  {arg.description && (
                    <span className="small muted">
                      {' — the server says: '}
                      <InertText text={arg.description} fold={200} />
                    </span>
                  )}
                </span>
                <input
                  type="text"
                  value={prompt.arguments[arg.name] ?? ''}
                  maxLength={10_000}
                  autoFocus={at === 0}
                  data-testid={`prompt-argument-${at}`}
                  onChange={(event) => setPrompt({ ...prompt, arguments: { ...prompt.arguments, [arg.name]: event.target.value } })}
                />
              </label>
            ))}
          </fieldset>
        )}
        {attached.length > 0 && (
          <ul className="composer-chips" aria-label="Attached resources">
            {attached.map((resource) => (
              <li key={`${resource.server}\u0000${resource.uri}`} className="chip" data-testid="attached-resource">
                <span className="small muted">{resource.server}’s </span>
                <InertText text={resource.name ?? resource.uri} fold={80} />{' '}
                <button
                  type="button"
                  className="small-button"
                  aria-label={`Remove the attachment ${resource.name ?? resource.uri}`}
                  onClick={() => setAttached((current) => current.filter((r) => r !== resource))}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    ) : null;

  return {
    menuOpen: menu !== undefined,
    activeOption: count ? `composer-option-${index}` : undefined,
    onKeyDown,
    menuView,
    chips,
    /** A required argument left empty, said plainly (sending waits for it). */
    problem: missing.length ? `Fill in ${missing.join(', ')} for the prompt first.` : undefined,
    hasContext: prompt !== undefined || attached.length > 0,
    payload: () => ({
      ...(prompt ? { prompt: { server: prompt.entry.server, name: prompt.entry.name, arguments: Object.fromEntries(Object.entries(prompt.arguments).filter(([, value]) => value !== '')) } } : {}),
      ...(attached.length ? { resources: attached.map(({ server, uri }) => ({ server, uri })) } : {}),
    }),
    clear: () => {
      setPrompt(undefined);
      setAttached([]);
    },
  };
}
