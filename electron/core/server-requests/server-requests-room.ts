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
import { AirlockError } from '../errors';
import type { ServerRequestHandlers } from '../servers/server-connection';
import { DownstreamPeers, type DownstreamPeer } from './downstream-peers';
import type { ServerQuestion } from './questions';
import { RequestQueue, type QueueAnswerer, type QueuedQuestion } from './request-queue';
import type { SamplingModel } from './sampling-model';
import { ServerRequestPipeline } from './server-request-pipeline';
import { toServerRequestEntryView, toServerRequestView } from './views';

/** How long a question waits after the person last engaged with it. */
const ENGAGED_GRACE_MS = 60_000;

/** What the room needs from the rest of the core. */
export interface ServerRequestsRoomDeps {
  state(): { servers: Readonly<Record<string, ServerRecord>>; settings: { policyMode: PolicyMode } };
  updateRecord(name: string, change: (record: ServerRecord) => ServerRecord): ServerRecord;
  /** Refuses sampling without review when the organisation's policy forbids it (`allowSamplingWithoutReview: false`), naming the key. */
  refuseSamplingWithoutReview?(server: string): void;
  audit: { dir: string; files(): Promise<string[]>; appendServerRequest(input: ServerRequestAuditInput): Promise<{ seq: number }> };
  canAsk(): boolean;
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
      canAsk: deps.canAsk,
      saveSettings: (server, settings) => void deps.updateRecord(server, (record) => ({ ...record, serverRequests: settings })),
      now: deps.now,
      ...(deps.questionTimeoutMs !== undefined ? { questionTimeoutMs: deps.questionTimeoutMs } : {}),
      onDidAppend: (seq) => deps.emit('audit.didAppend', { seq }),
      note: deps.note,
    });
    this.#disposers.push(this.queue.onDidChange(() => deps.emit('requests.didChange', this.pending())));
  }

  /** The handlers a server's connection declares and answers with. */
  handlersFor(server: string): ServerRequestHandlers {
    return {
      sampling: (params, extra) => this.pipeline.sample(server, params, extra),
      elicitation: (params, extra) => this.pipeline.elicit(server, params, extra),
      roots: () => this.pipeline.roots(server),
    };
  }

  /** Questions waiting for a person. */
  pending(): ServerRequestView[] {
    return this.queue.pending().map(toServerRequestView);
  }

  /** Answers a question from a shell. */
  answer(id: string, answer: unknown, by: QueueAnswerer): { accepted: boolean; reason?: string } {
    return this.pipeline.answer(id, answer, by);
  }

  /**
   * The person clicked "open" on a URL question: returns the https URL for
   * the shell to hand to the system browser, and records the click.
   * SECURITY: SECURITY.md rule 7 — only a URL question this core asked, still
   * waiting, and only an https URL that passed the checks, is ever opened.
   */
  openUrl(id: string): { url: string } {
    const entry = this.queue.get(id);
    if (!entry || entry.question.kind !== 'elicitation-url') throw new AirlockError('not-found', 'Airlock did not ask to open this.');
    const url = new URL(entry.question.url.href);
    if (url.protocol !== 'https:' || entry.question.url.problem) throw new AirlockError('forbidden-sender', 'Airlock opens only https addresses it checked.');
    this.queue.update(id, (question) => (question.kind === 'elicitation-url' ? { ...question, opened: true } : question));
    return { url: url.href };
  }

  settings(name: string): ServerRequestSettings {
    const record = this.#record(name);
    return record.serverRequests ?? defaultServerRequestSettings();
  }

  setSettings(name: string, settings: ServerRequestSettings): ServerRequestSettings {
    if (settings.sampling.rule === 'always') this.deps.refuseSamplingWithoutReview?.(name);
    this.deps.updateRecord(name, (record) => ({ ...record, serverRequests: settings }));
    // A person tightening the rule ends this session's "allow" too.
    if (settings.sampling.rule !== 'always') this.pipeline.revokeSession(name);
    return settings;
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

  /** One handler per requests channel. */
  ipcHandlers(by: QueueAnswerer): Pick<IpcHandlers, 'requests.pending' | 'requests.answer' | 'requests.extend' | 'requests.openUrl' | 'requests.settings' | 'requests.setSettings' | 'requests.history'> {
    return {
      'requests.pending': () => this.pending(),
      'requests.answer': ({ id, answer }) => this.answer(id, answer, by),
      'requests.extend': ({ id }) => {
        const deadline = this.queue.extend(id, ENGAGED_GRACE_MS);
        return deadline === undefined ? {} : { deadline };
      },
      'requests.openUrl': ({ id }) => this.openUrl(id),
      'requests.settings': ({ name }) => this.settings(name),
      'requests.setSettings': ({ name, settings }) => this.setSettings(name, settings),
      'requests.history': (query) => this.history(query),
    };
  }

  dispose(): void {
    this.queue.cancelAll('Airlock is shutting down');
    for (const dispose of this.#disposers.splice(0)) dispose();
  }

  #record(name: string): ServerRecord {
    const servers = this.deps.state().servers;
    const record = Object.hasOwn(servers, name) ? servers[name] : undefined;
    if (!record) throw new AirlockError('not-found', `There is no server named ${name}.`);
    return record;
  }
}
