/**
 * The screens room: servers' own pages (MCP Apps) in Airlock's window, for
 * the host to compose. A screen is code its server wrote, running inside
 * Airlock, so it is treated as that server:
 *
 * - **pinned like a tool**: its HTML's sha256 and what it asks for (the
 *   addresses it would load from, connect to or frame; device permissions)
 *   are fingerprinted; a screen that reads back different from what the
 *   person approved does not render until they approve it again;
 * - **allowed like network domains**: of what it asks for, it gets only what
 *   the person allowed (`screens.setAllowed`); the frame's CSP is built from
 *   that intersection (screen-policy.ts);
 * - **its requests are decisions**: a tool call names the screen's session
 *   and may reach only its own server's tools visible to apps, through the
 *   call pipeline as “NAME's screen” (which asks in Airlock's own dialog
 *   where the policy asks), rate-limited; a link is shown to the person with
 *   its full address before anything opens; a message for the chat is the
 *   server's words, never the person's. Each is recorded in the audit log.
 *
 * Sessions live in memory; a screen whose session is gone (closed, Airlock
 * restarted) can ask nothing.
 *
 * One file on purpose: a screen's session — opened, allowed, its requests decided
 * and recorded, closed — is one life; its decisions, policy, relay and frames are
 * files of their own.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { ownEntry, type ApprovedScreen, type Caller, type ServerRecord } from '../../../shared/domain';
import type { IpcHandlers } from '../../../shared/ipc';
import {
  allowedScreenDomains,
  noScreenDomains,
  parseScreenDomain,
  SCREEN_DOMAIN_KINDS,
  SCREEN_DOMAIN_WORDS,
  SCREEN_PERMISSION_WORDS,
  toolScreen,
  type ScreenDomains,
  type ScreenPermission,
} from '../../../shared/screens';
import type { ScreenCallResult, ScreenOpenView, ScreenView, ServerScreensView } from '../../../shared/views';
import type { ChangeActor } from '../audit';
import type { ChangeRecorder } from '../audit/change-record';
import type { ServerRequestAuditInput } from '../audit/server-request-entries';
import type { CallRequest, CallResult } from '../calls/call-pipeline';
import { AirlockError, messageOf } from '../errors';
import type { ShellIdentity } from '../ipc/shell-identity';
import { RateWindow } from '../server-requests/rate-window';
import type { IndexedTool } from '../servers/tool-index';
import {
  decideScreenCall,
  linkProblem,
  readScreen,
  SCREEN_LINKS_PER_MINUTE,
  SCREEN_MESSAGES_PER_MINUTE,
  screenChanges,
  screensOf,
  screenState,
  type ReadScreen,
} from './screen-decisions';
import { screenOriginKey, type ScreenFrames } from './screen-frames';
import { screenAllowAttribute, screenContentSecurityPolicy, screenPermissionsPolicy } from './screen-policy';

/** Where a screen's message for the chat goes (the built-in agent's conversations). */
export interface ScreenChat {
  /**
   * Adds `text` to a conversation as the server's words (a message, which
   * the model answers; or context it sees at its next turn). Throws with a
   * sentence when it cannot (no such conversation, a turn is running).
   */
  fromScreen(conversationId: string, server: string, text: string, kind: 'message' | 'context'): Promise<void>;
}

export interface ScreenRoomDeps {
  /** A server's record; throws `not-found` when there is none. */
  record(server: string): ServerRecord;
  /** Saves a change to one server's record (throws `not-found`) and tells the window. */
  updateRecord(server: string, change: (record: ServerRecord) => ServerRecord): ServerRecord;
  /** A running server's tools as listed now (undefined when it is not running). */
  tools(server: string): readonly IndexedTool[] | undefined;
  /** Starts the server when it is enabled and not running (as a call does). */
  ensureReady(server: string): Promise<void>;
  /** Reads a resource of a running server (the catalog: size-capped). */
  readResource(server: string, uri: string): Promise<ReadResourceResult>;
  /** The call pipeline (the host's one choke point). */
  callTool(request: CallRequest): Promise<CallResult>;
  /** Appends a screen request's decision or outcome to the audit log. */
  recordRequest(input: ServerRequestAuditInput): Promise<unknown>;
  changes: Pick<ChangeRecorder, 'record' | 'once'>;
  /** Where frames load from (the app's scheme; the browser tests' loopback origin). */
  frames: ScreenFrames;
  chat?: ScreenChat;
  /** Steady milliseconds (rates, link expiry). */
  now(): number;
}

/** One screen opened in the window. */
interface Session {
  id: string;
  server: string;
  tool: string;
  uri: string;
  key: string;
  fingerprint: string;
  domains: ScreenDomains;
  permissions: ScreenPermission[];
  inFlight: number;
}

/** A link a screen asked to open, waiting for the person. */
interface PendingLink {
  requestId: string;
  server: string;
  url: string;
  askedAt: number;
}

/** Most screens open at once; opening another closes the oldest. */
const MAX_SESSIONS = 64;
/** How long a link waits for the person's Open or Cancel. */
const LINK_TTL_MS = 5 * 60_000;
/** Refusals recorded one by one per server, kind of request and minute; more are counted into the next record. */
const REFUSALS_RECORDED_PER_MINUTE = 5;

export class ScreenRoom {
  readonly #sessions = new Map<string, Session>();
  readonly #links = new Map<string, PendingLink>();
  readonly #calls = new RateWindow(60_000, 1000);
  readonly #asks = new RateWindow(60_000, 1000);
  readonly #refusals = new RateWindow(60_000, 1000);
  readonly #unrecorded = new Map<string, number>();

  constructor(private readonly deps: ScreenRoomDeps) {}

  // ── What a server's screens are, and what the person decided ───────────

  /** Each screen the server's tools name (read from the server when it runs, else as approved), and what is allowed them. */
  async list(server: string): Promise<ServerScreensView> {
    const record = this.deps.record(server);
    const settings = record.screens ?? emptySettings();
    return { server, screens: await this.#views(server, record), allowed: settings.allowed, permissions: settings.permissions };
  }

  async #views(server: string, record: ServerRecord): Promise<ScreenView[]> {
    const live = this.deps.tools(server);
    const byUri = screensOf(live ? live.map((tool) => tool.definition) : Object.values(record.approvedTools).map((approved) => approved.definition));
    const views: ScreenView[] = [];
    for (const [uri, tools] of byUri) {
      const approved = ownEntry(record.screens?.approved, uri);
      if (!live) {
        views.push(pinnedView(uri, tools, approved, record));
        continue;
      }
      const read = await this.#read(server, uri).catch((error: unknown) => error as Error);
      views.push(read instanceof Error ? { ...pinnedView(uri, tools, approved, record), state: 'unreadable', problem: messageOf(read) } : readView(uri, tools, read, approved, record));
    }
    return views;
  }

  /** Pins a screen as the person saw it (its fingerprint); refused when it reads back different now. */
  async approve(server: string, uri: string, fingerprint: string, by: ChangeActor): Promise<ServerScreensView> {
    this.deps.record(server);
    await this.deps.ensureReady(server);
    if (!screensOf((this.deps.tools(server) ?? []).map((tool) => tool.definition)).has(uri)) throw new AirlockError('not-found', `${server}'s tools name no screen ${uri.slice(0, 200)}.`);
    const read = await this.#read(server, uri).catch((error: unknown) => {
      throw error instanceof AirlockError ? error : new AirlockError('unavailable', `${server} did not give its screen ${uri.slice(0, 200)}: ${messageOf(error)}`);
    });
    if (read.fingerprint !== fingerprint) throw new AirlockError('conflict', `The screen ${uri} changed again since you looked at it; review it again.`);
    const approved: ApprovedScreen = {
      fingerprint,
      htmlSha256: read.htmlSha256,
      domains: read.declaration.domains,
      permissions: read.declaration.permissions,
      approvedAt: new Date().toISOString(),
    };
    this.deps.updateRecord(server, (record) => {
      const screens = record.screens ?? emptySettings();
      const next = Object.assign(Object.create(null), screens.approved) as Record<string, ApprovedScreen>;
      next[uri] = approved;
      return { ...record, screens: { ...screens, approved: next } };
    });
    this.deps.changes.record({ change: 'screen-approved', by, server, changes: [`screen approved: ${uri} (page sha256 ${read.htmlSha256.slice(0, 12)}…)`, ...askedLines(read.declaration.domains, read.declaration.permissions)] });
    return this.list(server);
  }

  /** Replaces what this server's screens are allowed (addresses by kind, permissions); each address must be exact. */
  async setAllowed(server: string, allowed: ScreenDomains, permissions: readonly ScreenPermission[], by: ChangeActor): Promise<ServerScreensView> {
    const clean = noScreenDomains();
    const problems: string[] = [];
    for (const kind of SCREEN_DOMAIN_KINDS) {
      for (const raw of allowed[kind]) {
        const parsed = parseScreenDomain(raw);
        if (!parsed.ok) problems.push(parsed.reason);
        else if (!clean[kind].includes(parsed.origin)) clean[kind].push(parsed.origin);
      }
      clean[kind].sort();
    }
    if (problems.length) throw new AirlockError('invalid-request', `${problems.join('; ')}. Nothing was changed.`);
    const granted = [...new Set(permissions)].sort();
    const before = this.deps.record(server).screens ?? emptySettings();
    this.deps.updateRecord(server, (record) => ({ ...record, screens: { ...(record.screens ?? emptySettings()), allowed: clean, permissions: granted } }));
    const lines = screenGrantChanges(before, { allowed: clean, permissions: granted });
    if (lines.length) this.deps.changes.record({ change: 'grants', by, server, changes: lines });
    // What an open screen may use was fixed when it opened; it gets the new grants when it opens again.
    return this.list(server);
  }

  // ── A screen in the window ────────────────────────────────────────────

  /**
   * Opens a tool's screen: reads it, and only when it is the approved one
   * mints a session (its frame's policy, its requests' key). Otherwise says
   * why, with the screen to review.
   */
  async open(server: string, tool: string): Promise<ScreenOpenView> {
    const record = this.deps.record(server);
    await this.deps.ensureReady(server);
    const definition = this.deps.tools(server)?.find((candidate) => candidate.name === tool)?.definition;
    if (!definition) throw new AirlockError('not-found', `${server} does not offer a tool named ${tool} right now.`);
    const named = toolScreen(definition);
    if (!named) throw new AirlockError('not-found', `${server}'s tool ${tool} has no screen.`);
    let read: ReadScreen;
    try {
      read = await this.#read(server, named.uri);
    } catch (error) {
      return { ready: false, reason: `${server} did not give its screen: ${messageOf(error)}` };
    }
    const approved = ownEntry(record.screens?.approved, named.uri);
    const state = screenState(read, approved);
    if (state !== 'approved') {
      const screen = readView(named.uri, [tool], read, approved, record);
      return {
        ready: false,
        reason: state === 'new' ? `${server}'s screen for ${tool} is new: review what it asks for on the server's page before it shows here.` : `${server}'s screen for ${tool} changed since you approved it: review the change on the server's page before it shows here.`,
        screen,
      };
    }
    const settings = record.screens ?? emptySettings();
    const domains = allowedScreenDomains(read.declaration.domains, settings.allowed);
    const permissions = read.declaration.permissions.filter((permission) => settings.permissions.includes(permission));
    const id = randomBytes(16).toString('hex');
    const key = screenOriginKey(server, record.createdAt);
    const session: Session = { id, server, tool, uri: named.uri, key, fingerprint: read.fingerprint, domains, permissions, inFlight: 0 };
    this.#sessions.set(id, session);
    if (this.#sessions.size > MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
    const origin = this.deps.frames.origin(key);
    return {
      ready: true,
      id,
      server,
      tool,
      uri: named.uri,
      frameUrl: `${origin}/relay.html?screen=${id}`,
      frameOrigin: origin,
      html: read.declaration.html,
      allow: screenAllowAttribute(permissions),
      domains,
      permissions,
      ...(read.declaration.prefersBorder !== undefined ? { prefersBorder: read.declaration.prefersBorder } : {}),
      // SECURITY: rule 2 — a page that can send a call's arguments out gets them only once the call was allowed.
      argumentsBeforeDecision: SCREEN_DOMAIN_KINDS.every((kind) => domains[kind].length === 0),
    };
  }

  /** The headers of a session's frame (the screens' origin asks); undefined for no such session of that key. */
  framePolicy(id: string, key: string): { csp: string; permissionsPolicy: string } | undefined {
    const session = this.#sessions.get(id);
    if (!session || session.key !== key) return undefined;
    return { csp: screenContentSecurityPolicy(session.domains, this.deps.frames.appOrigin), permissionsPolicy: screenPermissionsPolicy(session.permissions) };
  }

  /** Ends a session: requests that name it are refused from now on. */
  close(id: string): void {
    this.#sessions.delete(id);
  }

  /**
   * A screen's `tools/call`: refused here when it is not its server's tool,
   * not visible to apps, too many or the screen changed (recorded); else
   * through the call pipeline as “NAME's screen”.
   */
  async callTool(id: string, name: string, args: Record<string, unknown>): Promise<ScreenCallResult> {
    const session = this.#session(id);
    const now = this.deps.now();
    const record = this.deps.record(session.server);
    const tool = this.deps.tools(session.server)?.find((candidate) => candidate.name === name)?.definition;
    const verdict = decideScreenCall({
      server: session.server,
      tool,
      name,
      stillApproved: ownEntry(record.screens?.approved, session.uri)?.fingerprint === session.fingerprint,
      recentCalls: this.#calls.count(session.server, now),
      inFlight: session.inFlight,
    });
    if (!verdict.pass) {
      await this.#refuse(session, 'tools/call', verdict.reason, verdict.decidedBy, { tool: name.slice(0, 256) });
      return { content: [{ type: 'text', text: `Airlock refused this call: ${verdict.reason}` }], isError: true };
    }
    this.#calls.note(session.server, now);
    session.inFlight += 1;
    try {
      const caller: Caller = { kind: 'screen', server: session.server };
      const result = await this.deps.callTool({ server: session.server, tool: name, arguments: args, caller });
      if ((result.outcome === 'ok' || result.outcome === 'tool-error') && result.result) {
        return { content: result.result.content ?? [], ...(result.result.structuredContent !== undefined ? { structuredContent: result.result.structuredContent } : {}), ...(result.result.isError ? { isError: true } : {}) };
      }
      return { content: [{ type: 'text', text: result.message ?? 'Airlock did not complete this call.' }], isError: true };
    } finally {
      session.inFlight -= 1;
    }
  }

  /** A screen's `ui/open-link`: recorded and held for the person, who sees the full address outside the screen. */
  async openLink(id: string, url: string): Promise<{ requestId: string; url: string }> {
    const session = this.#session(id);
    const now = this.deps.now();
    const problem = linkProblem(url);
    const tooMany = this.#asks.count(`link:${session.server}`, now) >= SCREEN_LINKS_PER_MINUTE;
    if (problem || tooMany) {
      const reason = problem ? `Airlock will not open this link: ${problem}.` : `${session.server}'s screens asked to open more than ${SCREEN_LINKS_PER_MINUTE} links in a minute.`;
      await this.#refuse(session, 'ui/open-link', reason, problem ? 'link' : 'rate', { url: url.slice(0, 2048) });
      throw new AirlockError('invalid-request', reason);
    }
    this.#asks.note(`link:${session.server}`, now);
    for (const [requestId, link] of this.#links) if (now - link.askedAt > LINK_TTL_MS) this.#links.delete(requestId);
    const requestId = randomBytes(16).toString('hex');
    const href = new URL(url).href;
    await this.deps.recordRequest({
      requestId,
      server: session.server,
      kind: 'screen',
      method: 'ui/open-link',
      stage: 'decision',
      verdict: 'ask',
      final: 'allow',
      decidedBy: 'person',
      route: 'airlock',
      reasons: ['A screen opens nothing itself: the person sees the full address and chooses.'],
      request: { url: href, tool: session.tool },
    });
    this.#links.set(requestId, { requestId, server: session.server, url: href, askedAt: now });
    return { requestId, url: href };
  }

  /** The person's Open or Cancel on a screen's link; Open returns the address for the shell to open. */
  async answerLink(requestId: string, open: boolean): Promise<{ url?: string }> {
    const link = this.#links.get(requestId);
    if (!link) throw new AirlockError('not-found', 'That link is no longer waiting (it was answered, or it expired).');
    this.#links.delete(requestId);
    const expired = this.deps.now() - link.askedAt > LINK_TTL_MS;
    await this.deps.recordRequest({
      requestId,
      server: link.server,
      kind: 'screen',
      method: 'ui/open-link',
      stage: 'outcome',
      outcome: expired ? 'expired' : open ? 'opened' : 'declined',
      answer: { how: expired ? 'expired' : open ? 'open' : 'cancel', by: 'window' },
    });
    if (expired) throw new AirlockError('conflict', 'That link waited too long; ask the screen to open it again.');
    return open ? { url: link.url } : {};
  }

  /** A screen's `ui/message` (or `ui/update-model-context`) in a conversation: the server's words, recorded. */
  async message(id: string, conversationId: string, text: string, kind: 'message' | 'context'): Promise<{ accepted: boolean; reason?: string }> {
    const session = this.#session(id);
    const method = kind === 'message' ? 'ui/message' : 'ui/update-model-context';
    const now = this.deps.now();
    const refuse = async (reason: string, decidedBy: string) => {
      await this.#refuse(session, method, reason, decidedBy, { conversationId: conversationId.slice(0, 128), chars: text.length });
      return { accepted: false, reason };
    };
    if (!this.deps.chat) return refuse('Airlock has no conversation for this screen.', 'no-chat');
    if (this.#asks.count(`message:${session.server}`, now) >= SCREEN_MESSAGES_PER_MINUTE) return refuse(`${session.server}'s screens sent more than ${SCREEN_MESSAGES_PER_MINUTE} messages in a minute.`, 'rate');
    this.#asks.note(`message:${session.server}`, now);
    const requestId = randomBytes(16).toString('hex');
    await this.deps.recordRequest({
      requestId,
      server: session.server,
      kind: 'screen',
      method,
      stage: 'decision',
      verdict: 'allow',
      final: 'allow',
      decidedBy: 'policy',
      reasons: ['A screen’s message enters the conversation as the server’s words, never the person’s; it cannot answer or approve anything.'],
      request: { conversationId: conversationId.slice(0, 128), sha256: createHash('sha256').update(text).digest('hex'), chars: text.length, tool: session.tool },
    });
    try {
      await this.deps.chat.fromScreen(conversationId, session.server, text, kind);
    } catch (error) {
      await this.deps.recordRequest({ requestId, server: session.server, kind: 'screen', method, stage: 'outcome', outcome: 'failed', detail: messageOf(error) });
      return { accepted: false, reason: messageOf(error) };
    }
    await this.deps.recordRequest({ requestId, server: session.server, kind: 'screen', method, stage: 'outcome', outcome: 'answered' });
    return { accepted: true };
  }

  /**
   * The room's channels. Screens render only in Airlock's window: opening
   * one and relaying its requests are the window's; listing, approving and
   * allowing are the person's wherever they are (window or command line).
   */
  ipcHandlers(shell: ShellIdentity): Pick<
    IpcHandlers,
    'screens.list' | 'screens.approve' | 'screens.setAllowed' | 'screens.open' | 'screens.frame' | 'screens.callTool' | 'screens.openLink' | 'screens.answerLink' | 'screens.message' | 'screens.close'
  > {
    const by: ChangeActor = shell.kind === 'window' ? 'window' : 'command-line';
    const recorded = <T>(value: T | Promise<T>) => this.deps.changes.once(value);
    // SECURITY: a screen runs only in the person's own window; no other shell may open one or speak for one.
    const windowOnly = () => {
      if (shell.kind !== 'window') throw new AirlockError('forbidden-sender', 'Screens run only in Airlock’s window.');
    };
    return {
      'screens.list': ({ server }) => this.list(server),
      'screens.approve': ({ server, uri, fingerprint }) => recorded(this.approve(server, uri, fingerprint, by)),
      'screens.setAllowed': ({ server, allowed, permissions }) => recorded(this.setAllowed(server, allowed, permissions, by)),
      'screens.open': ({ server, tool }) => (windowOnly(), this.open(server, tool)),
      'screens.frame': ({ id, key }) => {
        windowOnly();
        const policy = this.framePolicy(id, key);
        if (!policy) throw new AirlockError('not-found', 'No such screen is open.');
        return policy;
      },
      'screens.callTool': ({ id, name, arguments: args }) => (windowOnly(), this.callTool(id, name, args ?? {})),
      'screens.openLink': ({ id, url }) => (windowOnly(), this.openLink(id, url)),
      'screens.answerLink': ({ requestId, open }) => (windowOnly(), this.answerLink(requestId, open)),
      'screens.message': ({ id, conversationId, text, context }) => (windowOnly(), this.message(id, conversationId, text, context ? 'context' : 'message')),
      'screens.close': ({ id }) => (windowOnly(), this.close(id), {}),
    };
  }

  // ── Internals ──────────────────────────────────────────────────────────

  #session(id: string): Session {
    const session = this.#sessions.get(id);
    if (!session) throw new AirlockError('not-found', 'This screen is closed; it can ask nothing more.');
    return session;
  }

  async #read(server: string, uri: string): Promise<ReadScreen> {
    return readScreen(uri, await this.deps.readResource(server, uri));
  }

  /** Records a refusal; past a few a minute per server, counts them into the next record instead (a flood writes a bounded log). */
  async #refuse(session: Session, method: string, reason: string, decidedBy: string, request: Record<string, unknown>): Promise<void> {
    const now = this.deps.now();
    const key = `${session.server}\u0000${method}`;
    if (this.#refusals.count(key, now) >= REFUSALS_RECORDED_PER_MINUTE) {
      this.#unrecorded.set(key, (this.#unrecorded.get(key) ?? 0) + 1);
      return;
    }
    this.#refusals.note(key, now);
    const skipped = this.#unrecorded.get(key) ?? 0;
    this.#unrecorded.delete(key);
    await this.deps.recordRequest({
      requestId: randomBytes(16).toString('hex'),
      server: session.server,
      kind: 'screen',
      method,
      stage: 'decision',
      verdict: 'deny',
      final: 'deny',
      decidedBy,
      reasons: [reason, ...(skipped ? [`${skipped} more refused requests from ${session.server}'s screens in the minute before are counted here, not recorded one by one.`] : [])],
      request: { ...request, screen: session.uri },
    });
  }
}

/** What changed in what a server's screens may use, one line each ("screens may connect to …"), for change records. */
export function screenGrantChanges(
  before: Pick<NonNullable<ServerRecord['screens']>, 'allowed' | 'permissions'> | undefined,
  after: Pick<NonNullable<ServerRecord['screens']>, 'allowed' | 'permissions'> | undefined,
): string[] {
  const was = before ?? emptySettings();
  const now = after ?? emptySettings();
  const lines: string[] = [];
  for (const kind of SCREEN_DOMAIN_KINDS) {
    for (const origin of now.allowed[kind]) if (!was.allowed[kind].includes(origin)) lines.push(`screens may ${SCREEN_DOMAIN_WORDS[kind]} ${origin}`);
    for (const origin of was.allowed[kind]) if (!now.allowed[kind].includes(origin)) lines.push(`screens may no longer ${SCREEN_DOMAIN_WORDS[kind]} ${origin}`);
  }
  for (const permission of now.permissions) if (!was.permissions.includes(permission)) lines.push(`screens may use ${SCREEN_PERMISSION_WORDS[permission]}`);
  for (const permission of was.permissions) if (!now.permissions.includes(permission)) lines.push(`screens may no longer use ${SCREEN_PERMISSION_WORDS[permission]}`);
  return lines;
}

function emptySettings(): NonNullable<ServerRecord['screens']> {
  return { approved: Object.create(null) as NonNullable<ServerRecord['screens']>['approved'], allowed: noScreenDomains(), permissions: [] };
}

/** What a screen asks for, one line per kind (for change records). */
function askedLines(domains: ScreenDomains, permissions: readonly ScreenPermission[]): string[] {
  const lines = SCREEN_DOMAIN_KINDS.filter((kind) => domains[kind].length > 0).map((kind) => `it asks to ${SCREEN_DOMAIN_WORDS[kind]}: ${domains[kind].join(', ')}`);
  if (permissions.length) lines.push(`it asks for ${permissions.map((permission) => SCREEN_PERMISSION_WORDS[permission]).join(', ')}`);
  return lines;
}

/** A screen as read now, beside what was approved and allowed. */
export function readView(uri: string, tools: string[], read: ReadScreen, approved: ApprovedScreen | undefined, record: ServerRecord): ScreenView {
  const settings = record.screens;
  const state = screenState(read, approved);
  return {
    uri,
    tools,
    state,
    declared: read.declaration.domains,
    allowed: allowedScreenDomains(read.declaration.domains, settings?.allowed ?? noScreenDomains()),
    permissions: { asked: read.declaration.permissions, granted: read.declaration.permissions.filter((permission) => settings?.permissions.includes(permission)) },
    htmlSha256: read.htmlSha256,
    size: Buffer.byteLength(read.declaration.html),
    changes: approved && state === 'changed' ? screenChanges(approved, read) : [],
    notes: read.declaration.problems,
    fingerprint: read.fingerprint,
    ...(read.declaration.prefersBorder !== undefined ? { prefersBorder: read.declaration.prefersBorder } : {}),
  };
}

/** A screen as last approved (the server is not running), or nothing known yet. */
function pinnedView(uri: string, tools: string[], approved: ApprovedScreen | undefined, record: ServerRecord): ScreenView {
  const settings = record.screens;
  const declared = approved?.domains ?? noScreenDomains();
  const asked = approved?.permissions ?? [];
  return {
    uri,
    tools,
    state: approved ? 'not-read' : 'new',
    declared,
    allowed: allowedScreenDomains(declared, settings?.allowed ?? noScreenDomains()),
    permissions: { asked, granted: asked.filter((permission) => settings?.permissions.includes(permission)) },
    ...(approved ? { htmlSha256: approved.htmlSha256 } : {}),
    changes: [],
    notes: approved ? [] : ['Not read yet: start the server to see what it asks for.'],
  };
}
