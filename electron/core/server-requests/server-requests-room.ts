/**
 * Requests from servers as the rest of Airlock uses them: the handlers the
 * supervisor gives each server's connection, the IPC handlers of the
 * sampling and elicitation dialogs, a person's settings per server, the
 * Activity history, and the gateway's registration of apps that can answer.
 * The host composes it.
 */
import { randomUUID } from 'node:crypto';
import { defaultServerRequestSettings, type PolicyMode, type ServerRecord, type ServerRequestSettings } from '../../../shared/domain';
import type { EmitEvent, IpcHandlers } from '../../../shared/ipc';
import type { ServerRequestView } from '../../../shared/views';
import { readServerRequestEntries, type ServerRequestAuditInput } from '../audit/server-request-entries';
import type { ChangeInput } from '../audit/change-record';
import { AirlockError } from '../errors';
import type { ShellIdentity } from '../ipc/shell-identity';
import type { ServerRequestHandlers } from '../servers/server-connection';
import { DownstreamPeers, type DownstreamPeer } from './downstream-peers';
import { withResolvedName, type ResolveHost } from './elicitation-form';
import type { ServerQuestion } from './questions';
import { RequestQueue, type QueueAnswerer, type QueuedQuestion } from './request-queue';
import type { SamplingModel } from './sampling-model';
import { ServerRequestPipeline } from './server-request-pipeline';
import { wideningLines } from './settings-widening';
import { toServerRequestEntryView, toServerRequestView } from './views';

/** The window as a question's answerer. */
const WINDOW_ANSWERER: QueueAnswerer = Object.freeze({ shell: 'window' });

/** How long a question waits after the person last engaged with it. */
const ENGAGED_GRACE_MS = 60_000;

/** What the room needs from the rest of the core. */
export interface ServerRequestsRoomDeps {
  state(): { servers: Readonly<Record<string, ServerRecord>>; settings: { policyMode: PolicyMode } };
  updateRecord(name: string, change: (record: ServerRecord) => ServerRecord): ServerRecord;
  /** Refuses sampling without review when the organisation's policy forbids it (`allowSamplingWithoutReview: false`), naming the key. */
  refuseSamplingWithoutReview?(server: string): void;
  audit: { dir: string; files(): Promise<string[]>; appendServerRequest(input: ServerRequestAuditInput): Promise<{ seq: number }> };
  /** The shells that can show a question now, by origin (see ServerRequestPipelineDeps.askers). */
  askers(): readonly string[];
  /** Records a change to what a server may ask (off the call path; see change-record.ts). */
  recordChange(input: ChangeInput): void;
  /** This process's own shell (the window in the app; its terminal otherwise): with the window, the only shells that may widen a server's settings. */
  ownShell?(): ShellIdentity;
  /** Every value the person gave a server (throws when they cannot be read; see redaction/server-secrets.ts). */
  secretValues?(server: string): readonly string[];
  emit: EmitEvent;
  samplingModel?: SamplingModel;
  note(server: string, text: string): void;
  /**
   * A steady clock in ms (performance.now), never the wall clock: it times
   * requests and the per-minute caps, which a clock set back would otherwise
   * reset (a flood let through again).
   */
  now(): number;
  questionTimeoutMs?: number;
  /** The addresses a host name resolves to (DNS, as the browser will ask; see elicitation-form.ts); injectable for tests. */
  resolveHost?: ResolveHost;
}

export class ServerRequestsRoom {
  readonly queue: RequestQueue<ServerQuestion>;
  readonly peers = new DownstreamPeers();
  readonly pipeline: ServerRequestPipeline;
  readonly #disposers: Array<() => void> = [];

  constructor(private readonly deps: ServerRequestsRoomDeps) {
    this.queue = new RequestQueue<ServerQuestion>({ defaultTimeoutMs: deps.questionTimeoutMs ?? 120_000 });
    this.pipeline = new ServerRequestPipeline({
      state: deps.state,
      peers: this.peers,
      ...(deps.samplingModel ? { samplingModel: deps.samplingModel } : {}),
      queue: this.queue,
      audit: deps.audit,
      askers: deps.askers,
      ...(deps.secretValues ? { secretValues: deps.secretValues } : {}),
      ...(deps.resolveHost ? { resolveHost: deps.resolveHost } : {}),
      saveSettings: (server, settings, by) => this.#save(server, settings, by.shell === 'window' || by.shell === 'test' ? 'window' : 'command-line', 'confirmation'),
      now: deps.now,
      ...(deps.questionTimeoutMs !== undefined ? { questionTimeoutMs: deps.questionTimeoutMs } : {}),
      onDidAppend: (seq) => deps.emit('audit.didAppend', { seq }),
      note: deps.note,
    });
    // Emitted as the window sees it; every other shell is sent its own list instead (ipc/shell-events.ts).
    this.#disposers.push(this.queue.onDidChange(() => deps.emit('requests.didChange', this.pending(WINDOW_ANSWERER))));
  }

  /** The handlers a server's connection declares and answers with. */
  handlersFor(server: string): ServerRequestHandlers {
    return {
      sampling: (params, extra) => this.pipeline.sample(server, params, extra),
      elicitation: (params, extra) => this.pipeline.elicit(server, params, extra),
      roots: () => this.pipeline.roots(server),
    };
  }

  /** Questions waiting for a person, as `by` was shown them (the window every one; a terminal those routed to it). */
  pending(by: QueueAnswerer = WINDOW_ANSWERER): ServerRequestView[] {
    return this.queue.pending(by).map(toServerRequestView);
  }

  /** Answers a question from a shell; one not routed to it reads as one Airlock never asked. */
  answer(id: string, answer: unknown, by: QueueAnswerer): { accepted: boolean; reason?: string } {
    return this.pipeline.answer(id, answer, by);
  }

  /**
   * The person clicked "open" on a URL question: returns the https URL for
   * the shell to hand to the system browser, and records the click.
   * SECURITY: SECURITY.md rule 7 — only a URL question this core asked, still
   * waiting, routed to the shell that clicked, and only an https URL that
   * passed the checks, is ever opened.
   */
  async openUrl(id: string, by: QueueAnswerer = WINDOW_ANSWERER): Promise<{ url: string }> {
    const entry = this.queue.get(id, by);
    if (!entry || entry.question.kind !== 'elicitation-url') throw new AirlockError('not-found', 'Airlock did not ask to open this.');
    const url = new URL(entry.question.url.href);
    if (url.protocol !== 'https:' || entry.question.url.problem) throw new AirlockError('forbidden-sender', 'Airlock opens only https addresses it checked.');
    // SECURITY: looked up again now, as the browser is about to (the name may lead elsewhere than when it was asked).
    const { problem } = await withResolvedName(entry.question.url, this.deps.resolveHost);
    if (problem) {
      this.queue.update(id, (question) => (question.kind === 'elicitation-url' ? { ...question, url: { ...question.url, problem } } : question));
      throw new AirlockError('forbidden-sender', `Airlock did not open ${url.hostname}: ${problem}.`);
    }
    if (!this.queue.get(id, by)) throw new AirlockError('not-found', 'This question is no longer waiting.');
    this.queue.update(id, (question) => (question.kind === 'elicitation-url' ? { ...question, opened: true } : question));
    return { url: url.href };
  }

  settings(name: string): ServerRequestSettings {
    const record = this.#record(name);
    return record.serverRequests ?? defaultServerRequestSettings();
  }

  /** What a person set for a server (Asks back, `airlock asks`), recorded as a change by `by`. */
  setSettings(name: string, settings: ServerRequestSettings, by: ChangeInput['by'] = 'window'): ServerRequestSettings {
    if (settings.sampling.rule === 'always') this.deps.refuseSamplingWithoutReview?.(name);
    this.#save(name, settings, by);
    // A person tightening the rule ends this session's "allow" too.
    if (settings.sampling.rule !== 'always') this.pipeline.revokeSession(name);
    return settings;
  }

  /** Saves a server's settings and records what changed (nothing when nothing did). */
  #save(name: string, settings: ServerRequestSettings, by: ChangeInput['by'], via?: ChangeInput['via']): void {
    let before: ServerRequestSettings | undefined;
    this.deps.updateRecord(name, (record) => {
      before = record.serverRequests ?? defaultServerRequestSettings();
      return { ...record, serverRequests: settings };
    });
    const changes = before ? serverRequestChanges(before, settings) : [];
    if (changes.length > 0) this.deps.recordChange({ change: 'server-requests', by, ...(via ? { via } : {}), server: name, changes });
  }

  async history(query: { server?: string; kind?: 'sampling' | 'elicitation' | 'roots'; limit?: number }) {
    return (await readServerRequestEntries(this.deps.audit, { ...query, limit: query.limit ?? 200 })).map(toServerRequestEntryView);
  }

  /** A gateway session that can answer servers' requests. */
  registerPeer(peer: Omit<DownstreamPeer, 'id'>): { id: string; dispose(): void } {
    const id = randomUUID();
    const dispose = this.peers.register({ ...peer, id });
    return { id, dispose };
  }

  /** Questions of a removed server end. */
  forget(server: string): void {
    for (const entry of this.queue.pending()) if (entry.question.server === server) this.queue.cancel(entry.id, 'the server was removed');
    this.pipeline.revokeSession(server);
  }

  onDidOpen(listener: (entry: QueuedQuestion<ServerQuestion>) => void): () => void {
    return this.queue.onDidOpen(listener);
  }

  /**
   * One handler per requests channel, for the shell that calls (the window,
   * the owner's own terminal, a client process): it is shown, and may answer,
   * extend or open, only the questions routed to it; its settings changes
   * are recorded as its own.
   * SECURITY: invariant 1 in reverse — who may answer is the caller's
   * identity as the owner knows it, never a constant.
   */
  ipcHandlers(shell: ShellIdentity): Pick<IpcHandlers, 'requests.pending' | 'requests.answer' | 'requests.extend' | 'requests.openUrl' | 'requests.settings' | 'requests.setSettings' | 'requests.history'> {
    const by = answererOf(shell);
    return {
      'requests.pending': () => this.pending(by),
      'requests.answer': ({ id, answer }) => this.answer(id, answer, by),
      'requests.extend': ({ id }) => {
        const deadline = this.queue.extend(id, ENGAGED_GRACE_MS, by);
        return deadline === undefined ? {} : { deadline };
      },
      'requests.openUrl': ({ id }) => this.openUrl(id, by),
      'requests.settings': ({ name }) => this.settings(name),
      'requests.setSettings': ({ name, settings }) => {
        this.#refuseWidening(shell, name, settings);
        return this.setSettings(name, settings, shell.kind === 'window' ? 'window' : 'command-line');
      },
      'requests.history': (query) => this.history(query),
    };
  }

  dispose(): void {
    this.queue.cancelAll('Airlock is shutting down');
    for (const dispose of this.#disposers.splice(0)) dispose();
  }

  /**
   * SECURITY: invariant 1 in reverse — only the window or this process's own
   * terminal may let a server ask for more (a client process on the socket
   * cannot be told from another program running as the person); anyone may
   * narrow. A refusal is recorded, saying what was asked.
   */
  #refuseWidening(shell: ShellIdentity, name: string, settings: ServerRequestSettings): void {
    if (shell.kind === 'window' || shell.origin === this.deps.ownShell?.().origin) return;
    const wider = wideningLines(this.settings(name), settings);
    if (wider.length === 0) return;
    const who = shell.label ? `another Airlock process (${shell.label})` : 'another Airlock process';
    this.deps.recordChange({ change: 'server-requests', by: 'command-line', server: name, changes: wider.map((line) => `not changed — asked by ${who}, which may not widen it: ${line}`) });
    throw new AirlockError(
      'forbidden-sender',
      `${name} was not changed: only Airlock's window, or the terminal of the Airlock process that runs the servers, can let a server ask for more (${wider.join('; ')}). Change it in Airlock's window (the server's Asks back), or run this command when no other Airlock process is running. Narrowing works from anywhere.`,
    );
  }

  #record(name: string): ServerRecord {
    const servers = this.deps.state().servers;
    const record = Object.hasOwn(servers, name) ? servers[name] : undefined;
    if (!record) throw new AirlockError('not-found', `There is no server named ${name}.`);
    return record;
  }
}

/** How a shell answers questions: the window as itself, a terminal by the origin the owner knows it by. */
export function answererOf(shell: ShellIdentity): QueueAnswerer {
  return shell.kind === 'window' ? WINDOW_ANSWERER : { shell: 'terminal', origin: shell.origin };
}

/** What changed in a server's settings for what it asks back, one line each ("sampling: always (was ask)"). */
export function serverRequestChanges(before: ServerRequestSettings, after: ServerRequestSettings): string[] {
  const lines: string[] = [];
  const line = (label: string, was: unknown, now: unknown) => {
    if (was !== now) lines.push(`${label}: ${String(now)} (was ${String(was)})`);
  };
  line('sampling', before.sampling.rule, after.sampling.rule);
  line('sampling may include context', before.sampling.allowContext ? 'yes' : 'no', after.sampling.allowContext ? 'yes' : 'no');
  line('sampling reply limit (tokens)', before.sampling.maxTokens, after.sampling.maxTokens);
  line('sampling requests a minute', before.sampling.perMinute, after.sampling.perMinute);
  line('questions answered', before.elicitation.answer, after.elicitation.answer);
  line('questions a minute', before.elicitation.perMinute, after.elicitation.perMinute);
  return lines;
}
