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
 */
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import { useEffect, useRef, useState } from 'react';
import type { ScreenOpenView } from '../../shared/views';
import { invoke } from '../api';
import { screenSectionHref } from '../route';
import { InertText } from './inert-text';
import { FrameTransport } from '../screen-transport';

/** What the tool's call gave, for the screen (`ui/notifications/tool-result`), or why it never will. */
export type ScreenToolResult = { content: unknown[]; structuredContent?: unknown; isError?: boolean } | { cancelled: string };

/** The tallest a screen may make itself (it scrolls inside beyond that). */
const MAX_HEIGHT = 720;
const MIN_HEIGHT = 60;

interface LinkAsk {
  requestId: string;
  url: string;
  answer: (open: boolean) => void;
}

interface ToolScreenProps {
  server: string;
  tool: string;
  /** The call's arguments (`ui/notifications/tool-input`). */
  input: Record<string, unknown>;
  /** The call's result, once there is one. */
  result?: ScreenToolResult;
  /** In the chat: the conversation a screen's messages go into (as the server's words). */
  conversationId?: string;
}

export function ToolScreen({ server, tool, input, result, conversationId }: ToolScreenProps) {
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
  return <ScreenFrame view={view} input={input} result={result} {...(conversationId ? { conversationId } : {})} />;
}

function ScreenFrame({ view, input, result, conversationId }: { view: Extract<ScreenOpenView, { ready: true }>; input: Record<string, unknown>; result?: ScreenToolResult; conversationId?: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const bridgeRef = useRef<AppBridge | undefined>(undefined);
  const initialized = useRef(false);
  const sentResult = useRef(false);
  const resultRef = useRef(result);
  resultRef.current = result;
  const [height, setHeight] = useState(240);
  const [link, setLink] = useState<LinkAsk | undefined>();
  const [notes, setNotes] = useState<string[]>([]);
  const note = (text: string) => setNotes((previous) => [...previous.slice(-4), text]);

  const sendResult = (bridge: AppBridge) => {
    const current = resultRef.current;
    if (!current || sentResult.current || !initialized.current) return;
    sentResult.current = true;
    if ('cancelled' in current) void bridge.sendToolCancelled({ reason: current.cancelled });
    else void bridge.sendToolResult({ content: current.content as never, ...(current.structuredContent !== undefined ? { structuredContent: current.structuredContent } : {}), ...(current.isError ? { isError: true } : {}) });
  };

  useEffect(() => {
    const element = frame.current;
    if (!element) return undefined;
    const scheme = window.matchMedia?.('(prefers-color-scheme: dark)');
    const dark = scheme?.matches ?? false;
    const permissions = Object.fromEntries(view.permissions.map((permission) => [permission, {}]));
    const csp = { connectDomains: view.domains.connect, resourceDomains: view.domains.resource, frameDomains: view.domains.frame, baseUriDomains: view.domains.baseUri };
    const hostContext = {
      theme: dark ? ('dark' as const) : ('light' as const),
      displayMode: 'inline' as const,
      availableDisplayModes: ['inline' as const],
      containerDimensions: { maxHeight: MAX_HEIGHT },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: 'desktop' as const,
      userAgent: 'Airlock',
    };
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
      { hostContext },
    );
    // The window's theme follows the OS; the screen is told when it changes (once it is listening).
    const onScheme = (event: MediaQueryListEvent) => {
      if (initialized.current) bridge.setHostContext({ ...hostContext, theme: event.matches ? 'dark' : 'light' });
    };
    scheme?.addEventListener('change', onScheme);
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
      const open = await new Promise<boolean>((resolve) => setLink({ ...asked.value, answer: resolve }));
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
    bridge.onrequestdisplaymode = async () => ({ mode: 'inline' });
    bridge.onloggingmessage = () => undefined;
    bridge.onsizechange = ({ height: asked }) => {
      if (typeof asked === 'number' && Number.isFinite(asked)) setHeight(Math.max(MIN_HEIGHT, Math.min(MAX_HEIGHT, Math.ceil(asked))));
    };
    bridge.onsandboxready = () => {
      void bridge.sendSandboxResourceReady({ html: view.html, csp, permissions });
    };
    bridge.oninitialized = () => {
      initialized.current = true;
      void bridge.sendToolInput({ arguments: input });
      sendResult(bridge);
    };
    let closed = false;
    void bridge.connect(new FrameTransport(element, view.frameOrigin)).then(() => {
      // The relay loads only once the window listens for it.
      if (!closed) element.src = view.frameUrl;
    });
    return () => {
      closed = true;
      scheme?.removeEventListener('change', onScheme);
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
    if (bridgeRef.current) sendResult(bridgeRef.current);
  }, [result]);

  return (
    <section className={`tool-screen${view.prefersBorder === false ? ' tool-screen-borderless' : ''}`} aria-label={`${view.server}’s screen`} data-testid="tool-screen">
      <p className="tool-screen-label small" data-testid="screen-label">
        <strong>
          <InertText text={view.server} />
        </strong>
        ’s screen — a page the server wrote, running in a sandbox; what it shows is the server’s, not Airlock’s.
      </p>
      <iframe
        ref={frame}
        className="tool-screen-frame"
        title={`${view.server}’s screen`}
        sandbox="allow-scripts allow-same-origin"
        referrerPolicy="no-referrer"
        {...(view.allow ? { allow: view.allow } : {})}
        style={{ height }}
        data-testid="screen-frame"
      />
      {link && <LinkBar server={view.server} ask={link} />}
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

/** The screen asked to open a page: Airlock shows the full address, outside the screen, and waits for the person. */
function LinkBar({ server, ask }: { server: string; ask: LinkAsk }) {
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
        <button type="button" className="primary" onClick={() => ask.answer(true)} data-testid="screen-link-open">
          Open in browser
        </button>
      </div>
    </div>
  );
}
