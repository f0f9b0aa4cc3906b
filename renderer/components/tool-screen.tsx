/**
 * A tool's screen (MCP Apps): the page its server wrote, shown under the
 * tool's result in the console and the chat. Airlock keeps it at arm's
 * length, as the spec's double frame: the outer frame is Airlock's relay
 * page on this server's own screen origin (never the app's), the inner one
 * — the server's HTML — is sandboxed with `allow-scripts` only. The window
 * talks to it only through the official SDK's `AppBridge`, over a transport
 * bound to that origin; every request it makes names its session, and the
 * core decides: its tool calls go through the call pipeline as “NAME's
 * screen” (Airlock's own dialog asks, never the frame), a link is shown here
 * with its full address and opens only on the person's click, a message for
 * the chat is marked as the server's words.
 *
 * Nothing the screen draws is Airlock's: the frame is labelled as the
 * server's, and Airlock's words (the link bar, refusals) sit outside it.
 *
 * What the screen is told (the SDK's host side): the call's arguments —
 * while the model still writes them (`tool-input-partial`), then whole —
 * its result or why there is none (`tool-cancelled`, with the reason), and
 * the host context: theme, locale, the frame's width and the tallest it may
 * grow, told again when any of them changes. A screen that can reach an
 * address on the web gets a call's arguments only once the call was allowed
 * (`callAllowed`); one that can reach none may see them as they are written.
 * It may ask to fill Airlock's window (`fullscreen`): Airlock's bar with its
 * name and a way back stays above it, and Escape leaves it.
 */
import { AppBridge, type McpUiDisplayMode, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { useEffect, useRef, useState } from 'react';
import type { ScreenOpenView } from '../../shared/views';
import { invoke } from '../api';
import { screenSectionHref } from '../route';
import { InertText } from './inert-text';
import { FrameTransport } from '../screen-transport';
import { useSwapHold } from './dialog-guard';

/** What the tool's call gave, for the screen (`ui/notifications/tool-result`), or why it never will. */
export type ScreenToolResult = { content: unknown[]; structuredContent?: unknown; isError?: boolean } | { cancelled: string };

/** The tallest a screen may make itself (it scrolls inside beyond that). */
const MAX_HEIGHT = 720;
const MIN_HEIGHT = 60;

interface LinkAsk {
  requestId: string;
  url: string;
  answer: (open: boolean) => void;
  /** The frame's height when the link appeared (held while the bar is shown). */
  height: number;
}

/** The display modes Airlock offers a screen: in place, or filling the window (an overlay under Airlock's own bar). */
const DISPLAY_MODES: McpUiDisplayMode[] = ['inline', 'fullscreen'];

interface ToolScreenProps {
  server: string;
  tool: string;
  /** The call's arguments (`ui/notifications/tool-input`), or what the model wrote of them so far. */
  input: Record<string, unknown>;
  /** The model is still writing the arguments: `input` is partial (`ui/notifications/tool-input-partial`). */
  inputPartial?: boolean;
  /**
   * The call was allowed (by the policy or the person): its arguments may go
   * to a screen that can reach the web. Absent or false: only a screen that
   * can reach no address gets them before the call is decided.
   */
  callAllowed?: boolean;
  /** The call's result, once there is one. */
  result?: ScreenToolResult;
  /** In the chat: the conversation a screen's messages go into (as the server's words). */
  conversationId?: string;
}

export function ToolScreen({ server, tool, input, inputPartial, callAllowed, result, conversationId }: ToolScreenProps) {
  const [view, setView] = useState<ScreenOpenView | { error: string } | undefined>();
  useEffect(() => {
    let live = true;
    void invoke('screens.open', { server, tool }).then((opened) => {
      if (live) setView(opened.ok ? opened.value : { error: opened.message });
    });
    return () => {
      live = false;
    };
  }, [server, tool]);
  if (!view) return <p className="muted small screen-note">Opening {server}’s screen…</p>;
  if ('error' in view) {
    return (
      <p className="screen-note small" role="status" data-testid="screen-unavailable">
        Its screen is not shown: <InertText text={view.error} />
      </p>
    );
  }
  if (!view.ready) {
    return (
      <div className="screen-note notice" role="status" data-testid="screen-review">
        <p>
          <InertText text={view.reason} />
        </p>
        {view.screen && view.screen.changes.length > 0 && (
          <ul className="small">
            {view.screen.changes.map((change) => (
              <li key={change}>{change}</li>
            ))}
          </ul>
        )}
        <a href={screenSectionHref(server)} className="small">
          Review it on {server}’s page
        </a>
      </div>
    );
  }
  return (
    <ScreenFrame
      view={view}
      input={input}
      inputPartial={inputPartial === true}
      callAllowed={callAllowed === true}
      result={result}
      {...(conversationId ? { conversationId } : {})}
    />
  );
}

interface ScreenFrameProps {
  view: Extract<ScreenOpenView, { ready: true }>;
  input: Record<string, unknown>;
  inputPartial: boolean;
  callAllowed: boolean;
  result: ScreenToolResult | undefined;
  conversationId?: string;
}

function ScreenFrame({ view, input, inputPartial, callAllowed, result, conversationId }: ScreenFrameProps) {
  const frame = useRef<HTMLIFrameElement>(null);
  const bridgeRef = useRef<AppBridge | undefined>(undefined);
  const initialized = useRef(false);
  // What the screen was told: the last partial arguments (as JSON), whether the whole arguments and the result went.
  const sent = useRef<{ partial?: string; input: boolean; result: boolean }>({ input: false, result: false });
  const latest = useRef({ input, inputPartial, callAllowed, result });
  latest.current = { input, inputPartial, callAllowed, result };
  const [height, setHeight] = useState(240);
  const heightRef = useRef(height);
  heightRef.current = height;
  const [mode, setMode] = useState<McpUiDisplayMode>('inline');
  const modeRef = useRef(mode);
  modeRef.current = mode;
  const [link, setLink] = useState<LinkAsk | undefined>();
  const [notes, setNotes] = useState<string[]>([]);
  const note = (text: string) => setNotes((previous) => [...previous.slice(-4), text]);
  // SECURITY: a screen that may reach an address on the web sees a call's arguments only once the call
  // was allowed (SECURITY.md rule 2); one that can reach none may see them as the model writes them.
  const mayTell = () => view.argumentsBeforeDecision || latest.current.callAllowed;

  /** Tells the screen what it has not been told yet of the call: its arguments (partial, then whole), then how it ended. */
  const tell = (bridge: AppBridge) => {
    if (!initialized.current) return;
    const now = latest.current;
    if (!sent.current.input && mayTell()) {
      if (now.inputPartial) {
        const json = JSON.stringify(now.input);
        if (json !== sent.current.partial) {
          sent.current.partial = json;
          void bridge.sendToolInputPartial({ arguments: now.input });
        }
      } else {
        sent.current.input = true;
        void bridge.sendToolInput({ arguments: now.input });
      }
    }
    const current = now.result;
    if (!current || sent.current.result) return;
    if ('cancelled' in current) {
      // A call refused, not sent or stopped: the screen is told so, with Airlock's reason.
      sent.current.result = true;
      void bridge.sendToolCancelled({ reason: current.cancelled });
    } else if (sent.current.input) {
      sent.current.result = true;
      void bridge.sendToolResult({ content: current.content as never, ...(current.structuredContent !== undefined ? { structuredContent: current.structuredContent } : {}), ...(current.isError ? { isError: true } : {}) });
    }
  };

  /** The host context as it stands: theme, mode, the frame's size, locale. */
  const context = (): McpUiHostContext => {
    const element = frame.current;
    const width = Math.round(element?.clientWidth ?? 0);
    const dark = window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
    return {
      theme: dark ? 'dark' : 'light',
      displayMode: modeRef.current,
      availableDisplayModes: DISPLAY_MODES,
      containerDimensions: modeRef.current === 'fullscreen' ? { width, height: Math.round(element?.clientHeight ?? 0) } : { width, maxHeight: MAX_HEIGHT },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: 'desktop',
      userAgent: 'Airlock',
    };
  };
  /** Tells the screen what changed in the host context (the SDK sends only the changed fields; nothing when none did). */
  const retell = () => {
    if (initialized.current) bridgeRef.current?.setHostContext(context());
  };

  useEffect(() => {
    const element = frame.current;
    if (!element) return undefined;
    const scheme = window.matchMedia?.('(prefers-color-scheme: dark)');
    const permissions = Object.fromEntries(view.permissions.map((permission) => [permission, {}]));
    const csp = { connectDomains: view.domains.connect, resourceDomains: view.domains.resource, frameDomains: view.domains.frame, baseUriDomains: view.domains.baseUri };
    const bridge = new AppBridge(
      null,
      { name: 'Airlock', version: '0.1.0' },
      {
        openLinks: {},
        serverTools: {},
        logging: {},
        sandbox: { permissions, csp },
        ...(conversationId ? { message: { text: {} }, updateModelContext: { text: {} } } : {}),
      },
      { hostContext: context() },
    );
    // The window's theme follows the OS, and the frame's width the window: the screen is told when either changes.
    const onScheme = () => retell();
    scheme?.addEventListener('change', onScheme);
    const resized = new ResizeObserver(() => retell());
    resized.observe(element);
    bridgeRef.current = bridge;
    // Every request names this screen's session; the core decides each.
    bridge.oncalltool = async (params) => {
      const answered = await invoke('screens.callTool', { id: view.id, name: params.name, ...(params.arguments ? { arguments: params.arguments } : {}) });
      if (!answered.ok) return { content: [{ type: 'text', text: answered.message }], isError: true };
      return answered.value as never;
    };
    bridge.onopenlink = async ({ url }) => {
      const asked = await invoke('screens.openLink', { id: view.id, url });
      if (!asked.ok) {
        note(`It asked to open a link Airlock will not open: ${asked.message}`);
        return { isError: true };
      }
      const open = await new Promise<boolean>((resolve) => setLink({ ...asked.value, answer: resolve, height: heightRef.current }));
      setLink(undefined);
      const done = await invoke('screens.answerLink', { requestId: asked.value.requestId, open });
      return open && done.ok ? {} : { isError: true };
    };
    bridge.onmessage = async (params) => {
      const text = (params.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('\n');
      if (!conversationId) {
        note('It sent a message for the chat; screens here have no conversation, so it was not sent.');
        return { isError: true };
      }
      const sent = await invoke('screens.message', { id: view.id, conversationId, text });
      return sent.ok && sent.value.accepted ? {} : { isError: true };
    };
    bridge.onupdatemodelcontext = async (params) => {
      const text = (params.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('\n') || (params.structuredContent !== undefined ? JSON.stringify(params.structuredContent) : '');
      if (!conversationId) throw new Error('This screen has no conversation to give context to.');
      const sent = await invoke('screens.message', { id: view.id, conversationId, text, context: true });
      if (!sent.ok || !sent.value.accepted) throw new Error(sent.ok ? (sent.value.reason ?? 'refused') : sent.message);
      return {};
    };
    // Inline or filling the window; picture-in-picture is not offered (the screen stays as it is).
    bridge.onrequestdisplaymode = async ({ mode: asked }) => {
      const next = DISPLAY_MODES.includes(asked) ? asked : modeRef.current;
      setMode(next);
      return { mode: next };
    };
    bridge.onloggingmessage = () => undefined;
    bridge.onsizechange = ({ height: asked }) => {
      if (typeof asked === 'number' && Number.isFinite(asked)) setHeight(Math.max(MIN_HEIGHT, Math.min(MAX_HEIGHT, Math.ceil(asked))));
    };
    bridge.onsandboxready = () => {
      void bridge.sendSandboxResourceReady({ html: view.html, csp, permissions });
    };
    bridge.oninitialized = () => {
      initialized.current = true;
      // The frame may have been laid out since the context was first built.
      bridge.setHostContext(context());
      tell(bridge);
    };
    let closed = false;
    void bridge.connect(new FrameTransport(element, view.frameOrigin)).then(() => {
      // The relay loads only once the window listens for it.
      if (!closed) element.src = view.frameUrl;
    });
    return () => {
      closed = true;
      scheme?.removeEventListener('change', onScheme);
      resized.disconnect();
      const teardown = initialized.current ? Promise.race([bridge.teardownResource({}), new Promise((resolve) => setTimeout(resolve, 500))]) : Promise.resolve();
      void teardown.catch(() => undefined).finally(() => { // A screen that does not answer its teardown is closed anyway.
        void bridge.close().catch(() => undefined); // The frame is going away; a bridge that fails to close holds nothing.
        void invoke('screens.close', { id: view.id });
      });
    };
    // The session is this screen's for its life: a new one opens with a new view.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one bridge per opened screen (view.id); input and result reach it through their own effects.
  }, [view.id]);

  useEffect(() => {
    if (bridgeRef.current) tell(bridgeRef.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `tell` reads the latest props through a ref; these are what can change.
  }, [input, inputPartial, callAllowed, result]);

  // A new mode: the screen is told (with the frame's new size), and Escape leaves the full window.
  useEffect(() => {
    retell();
    if (mode !== 'fullscreen') return undefined;
    const onKey = (event: KeyboardEvent) => {
      // An Escape that answers one of Airlock's dialogs (denies it) is the dialog's, not the screen's.
      if (event.key === 'Escape' && !document.querySelector('dialog[open]')) setMode('inline');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `retell` reads refs; the mode is what changes.
  }, [mode]);

  // SECURITY: while a link waits for the person, the screen cannot move it: the frame keeps the height it had
  // when the link appeared (a screen that grows or shrinks could slide Open under a cursor aimed elsewhere);
  // what it asks for meanwhile applies after.
  const shownHeight = link ? link.height : height;
  const fullscreen = mode === 'fullscreen';

  return (
    <section
      className={`tool-screen${view.prefersBorder === false ? ' tool-screen-borderless' : ''}${fullscreen ? ' tool-screen-fullscreen' : ''}`}
      aria-label={`${view.server}’s screen`}
      data-testid="tool-screen"
      data-mode={mode}
    >
      <div className="tool-screen-bar">
        <p className="tool-screen-label small" data-testid="screen-label">
          <strong>
            <InertText text={view.server} />
          </strong>
          ’s screen — a page the server wrote, running in a sandbox; what it shows is the server’s, not Airlock’s.
        </p>
        {fullscreen && (
          <button type="button" onClick={() => setMode('inline')} data-testid="screen-leave-fullscreen">
            Back to Airlock (Esc)
          </button>
        )}
      </div>
      <iframe
        ref={frame}
        className="tool-screen-frame"
        title={`${view.server}’s screen`}
        sandbox="allow-scripts allow-same-origin"
        referrerPolicy="no-referrer"
        {...(view.allow ? { allow: view.allow } : {})}
        style={fullscreen ? undefined : { height: shownHeight }}
        data-testid="screen-frame"
      />
      {link && <LinkBar key={link.requestId} server={view.server} ask={link} />}
      {notes.length > 0 && (
        <ul className="tool-screen-notes small" data-testid="screen-notes">
          {notes.map((text, index) => (
            <li key={index}>{text}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * The screen asked to open a page: Airlock shows the full address, outside
 * the screen, and waits for the person. Open sleeps for a moment after the
 * bar appears, as a confirmation's buttons do: a click the screen timed for
 * the moment the bar appears (under the person's cursor) opens nothing.
 */
function LinkBar({ server, ask }: { server: string; ask: LinkAsk }) {
  const { holding, asleep } = useSwapHold();
  const url = new URL(ask.url);
  const [before, after] = [ask.url.slice(0, ask.url.indexOf(url.host)), ask.url.slice(ask.url.indexOf(url.host) + url.host.length)];
  return (
    <div className="screen-link notice" role="alertdialog" aria-label={`${server}’s screen wants to open a page`} data-testid="screen-link">
      <p>
        <strong>
          <InertText text={server} />
        </strong>
        ’s screen wants to open a page in your browser. The full address:
      </p>
      {/* Text, never a link: nothing here can be followed or prefetched. */}
      <p className="url-full" data-testid="screen-link-url">
        <InertText text={before} />
        <mark className="url-host">
          <InertText text={url.host} />
        </mark>
        <InertText text={after} fold={2000} />
      </p>
      {url.hostname.split('.').some((label) => label.startsWith('xn--')) && (
        <p className="notice notice-error small" role="note">
          Check this name letter by letter: it is written in Punycode, and names like this can imitate a site you know.
        </p>
      )}
      <div className="confirm-buttons">
        <button type="button" className="deny" onClick={() => ask.answer(false)} data-testid="screen-link-cancel" autoFocus>
          Cancel
        </button>
        <button
          type="button"
          className="primary"
          onClick={() => {
            if (asleep()) return;
            ask.answer(true);
          }}
          aria-disabled={holding ? true : undefined}
          data-testid="screen-link-open"
        >
          Open in browser
        </button>
      </div>
    </div>
  );
}
