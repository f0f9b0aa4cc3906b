/**
 * The approvals room: what waits for a person — confirmations of tool calls
 * and a running server's questions to reach a host it has no grant for —
 * as each shell may see and answer them, decided here from the caller's
 * shell: the window every confirmation and every network question; a
 * terminal (the owner's own, or a client process) only the confirmations of
 * calls made through it, and no network question.
 *
 * SECURITY: invariant 1 — an answer comes from a shell that was shown the
 * prompt; another shell's reads as one Airlock never asked.
 */
import { isIP } from 'node:net';
import type { EmitEvent, IpcHandlers } from '../../../shared/ipc';
import type { ConfirmationView } from '../../../shared/views';
import type { ChangeRecorder } from '../audit/change-record';
import { actorOfShell } from '../audit/change-record';
import { mayAnswer, WINDOW_SHELL, type ShellIdentity } from '../ipc/shell-identity';
import { summariseSandbox } from '../policy/containment';
import type { AirlockStore } from '../store/store';
import type { Answerer, ConfirmationAnswer, ConfirmationRegistry } from './confirmation-registry';
import { NetworkQuestions, NoAnswerError } from './network-questions';
import { toConfirmationView } from './views';

/** How long a confirmation waits after the person last engaged with it. */
const ENGAGED_GRACE_MS = 60_000;

export interface ApprovalsRoomDeps {
  confirmations: ConfirmationRegistry;
  store: Pick<AirlockStore, 'read' | 'update'>;
  changes: Pick<ChangeRecorder, 'record' | 'once'>;
  /** Notes who answered a network question, for the entry that records its decision. */
  noteNetworkAnswer(server: string, host: string, port: number, by: string): void;
  /** True when a person can be asked a network question now (the window, or the owner's own terminal). */
  canAsk(): boolean;
  /** True when the organisation's policy puts a host out of bounds: refused without asking (nobody may grant it). */
  refusesHost?(host: string): boolean;
  emit: EmitEvent;
  /** Told after a grant was added ("always allow"). */
  didChangeServers(): void;
}

export class ApprovalsRoom {
  /** Running servers' questions about hosts they have no grant for. */
  readonly network: NetworkQuestions;
  readonly #disposers: Array<() => void> = [];

  constructor(private readonly deps: ApprovalsRoomDeps) {
    this.network = new NetworkQuestions(() => deps.emit('network.didChange', this.network.list()));
    const emitApprovals = () => deps.emit('approvals.didChange', this.pending());
    this.#disposers.push(deps.confirmations.onDidOpen(emitApprovals), deps.confirmations.onDidClose(emitApprovals));
  }

  /**
   * Confirmations waiting for an answer, as `shell` may see them: the window
   * every one; a terminal only those of calls made through it.
   */
  pending(shell: ShellIdentity = WINDOW_SHELL): ConfirmationView[] {
    return this.deps.confirmations
      .pending()
      .filter((request) => mayAnswer(shell, request))
      .map((request) => {
        const record = this.deps.store.read().servers[request.server];
        const view = toConfirmationView(request);
        // The sandbox as it is now (grants may have changed while the request waited).
        return record ? { ...view, sandboxSummary: summariseSandbox(record.profile, record.spec.remote).line } : view;
      });
  }

  /**
   * Answers a confirmation. With `shell`, only one routed to that shell
   * (SECURITY: invariant 1 — an answer comes from a shell that was shown the
   * prompt; another process's confirmation reads as one Airlock never asked).
   */
  answer(id: string, answer: Omit<ConfirmationAnswer, 'answeredBy'>, answeredBy: Answerer, shell: ShellIdentity = WINDOW_SHELL): { accepted: boolean; reason?: string } {
    const request = this.deps.confirmations.get(id);
    if (request && !mayAnswer(shell, request)) return { accepted: false, reason: 'Airlock did not ask this.' };
    const result = this.deps.confirmations.answer(id, { ...answer, answeredBy });
    return result.ok ? { accepted: true } : { accepted: false, reason: result.message };
  }

  /** While a person engages with a confirmation, its countdown pauses: the deadline moves to a minute from now (bounded). */
  extend(id: string, shell: ShellIdentity = WINDOW_SHELL): number | undefined {
    const request = this.deps.confirmations.get(id);
    if (!request || !mayAnswer(shell, request)) return undefined;
    const deadline = this.deps.confirmations.extend(id, ENGAGED_GRACE_MS);
    if (deadline !== undefined) this.deps.emit('approvals.didChange', this.pending());
    return deadline;
  }

  /**
   * A running server wants a host it has no grant for: ask a person, if one
   * can be asked. Nobody to ask (or nobody answering) rejects, so the proxy
   * records "denied: nobody could be asked", not "denied by you".
   */
  askNetwork(server: string, host: string, port: number): Promise<boolean> {
    if (!this.deps.canAsk()) return Promise.reject(new NoAnswerError('No window or terminal could ask.'));
    // SECURITY: a host outside the organisation's bounds is refused without asking.
    if (this.deps.refusesHost?.(host)) return Promise.reject(new NoAnswerError("Your organisation's policy does not allow this host."));
    return this.network.ask(server, host, port);
  }

  /**
   * Answers a network question, from `by` (the window, a terminal).
   * "Remember" adds the host to the server's grants for later runs (this run
   * already has the answer).
   */
  answerNetwork(id: string, allow: boolean, remember: boolean, by = 'window'): { accepted: boolean } {
    const question = this.network.get(id);
    if (question) this.deps.noteNetworkAnswer(question.server, question.host, question.port, by);
    if (!question || !this.network.answer(id, allow)) return { accepted: false };
    if (allow && remember) {
      const grant = isIP(question.host) ? `${question.host.includes(':') ? `[${question.host}]` : question.host}:${question.port}` : question.host;
      let added = false;
      this.deps.store.update((data) => {
        const record = data.servers[question.server];
        if (!record || record.profile.network.allowedDomains.includes(grant)) return data;
        added = true;
        const profile = { ...record.profile, network: { allowedDomains: [...record.profile.network.allowedDomains, grant] } };
        return { ...data, servers: { ...data.servers, [question.server]: { ...record, profile } } };
      });
      if (added) this.deps.changes.record({ change: 'grants', by: actorOfShell(by), via: 'network-question', server: question.server, changes: [`network added: ${grant}`] });
      this.deps.didChangeServers();
    }
    return { accepted: true };
  }

  /** The approvals channels, for the shell that calls. */
  ipcHandlers(shell: ShellIdentity): Pick<IpcHandlers, 'approvals.list' | 'approvals.answer' | 'approvals.extend' | 'network.pending' | 'network.answer'> {
    const answerer: Answerer = { shell: shell.kind === 'window' ? 'window' : 'terminal' };
    // Network questions are the window's (and the owner's own terminal's, in its process).
    const window = shell.kind === 'window';
    return {
      'approvals.list': () => this.pending(shell),
      'approvals.answer': ({ id, choice, arguments: edited, confirmDestructiveAlways }) =>
        // An "always" answer saves its rule when the waiting call resumes (the pipeline), not here.
        this.answer(id, { choice, ...(edited ? { editedArguments: edited } : {}), ...(confirmDestructiveAlways ? { confirmDestructiveAlways } : {}) }, answerer, shell),
      'approvals.extend': ({ id }) => {
        const deadline = this.extend(id, shell);
        return deadline === undefined ? {} : { deadline };
      },
      'network.pending': () => (window ? this.network.list().map(({ id, server, host, port, deadline }) => ({ id, server, host, port, deadline })) : []),
      'network.answer': ({ id, allow, remember }) => (window ? this.deps.changes.once(this.answerNetwork(id, allow, remember, 'window')) : { accepted: false }),
    };
  }

  /** Refuses what is still waiting (Airlock is shutting down). */
  dispose(): void {
    this.deps.confirmations.cancelAll('Airlock is shutting down');
    this.network.denyAll();
    for (const dispose of this.#disposers.splice(0)) dispose();
  }
}
