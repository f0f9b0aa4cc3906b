/**
 * The calls room: the one door every tool call goes through (the call
 * pipeline), how many calls are running (a hand-over waits for none), and
 * the tool console's channel, whose caller kind comes from the shell the
 * owner knows — never from the request — with a hint when the sandbox's
 * network refusal looks like the cause of a failure.
 *
 * SECURITY: invariant 1 — the caller kind is the shell's (`user` only for
 * the window's own console; `cli` for any terminal or client process).
 */
import { isIP } from 'node:net';
import type { Caller, ServerRecord } from '../../../shared/domain';
import type { IpcHandlers } from '../../../shared/ipc';
import type { CallResultView } from '../../../shared/views';
import type { ShellIdentity } from '../ipc/shell-identity';
import type { NetworkDecision } from '../sandbox/network-proxy';
import { networkHint, writeHint } from '../views/call-hints';
import { CallPipeline, type CallPipelineDeps, type CallRequest, type CallResult } from './call-pipeline';

export interface CallsRoomDeps {
  pipeline: CallPipelineDeps;
  /** A server's record (for the hint after a failed call). */
  record(server: string): ServerRecord;
}

export class CallsRoom {
  readonly #pipeline: CallPipeline;
  /** Calls in the pipeline now, and who waits for none (see `whenIdle`). */
  #running = 0;
  readonly #idleWaiters: Array<() => void> = [];
  /** Hosts the sandbox's proxy refused each server lately (for the hint on a failed call). */
  readonly #refusals = new Map<string, Array<{ host: string; at: number }>>();

  constructor(private readonly deps: CallsRoomDeps) {
    this.#pipeline = new CallPipeline(deps.pipeline);
  }

  /** The one choke point: every call from every caller goes through here. */
  async call(request: CallRequest): Promise<CallResult> {
    this.#running += 1;
    try {
      return await this.#pipeline.call(request);
    } finally {
      this.#running -= 1;
      if (this.#running === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
    }
  }

  /**
   * Resolves once no call is running (bounded by `timeoutMs`): before this
   * process hands the servers to another, calls in flight finish here.
   */
  async whenIdle(timeoutMs: number): Promise<void> {
    if (this.#running === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.#idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** A network decision of a server's proxy: refusals are kept briefly, so a failed call can name the host. */
  noteNetworkDecision(decision: NetworkDecision): void {
    if (decision.allowed) return;
    const list = this.#refusals.get(decision.serverName) ?? [];
    const host = isIP(decision.host) === 6 ? `[${decision.host}]:${decision.port}` : isIP(decision.host) ? `${decision.host}:${decision.port}` : decision.host;
    list.push({ host, at: Date.now() });
    this.#refusals.set(decision.serverName, list.slice(-20));
  }

  /** The tool console's channel, for the shell that calls. */
  ipcHandlers(shell: ShellIdentity): Pick<IpcHandlers, 'tools.call'> {
    // SECURITY: invariant 1 — the caller kind comes from the shell the owner knows, never from the request.
    const caller: Caller = shell.kind === 'window' ? { kind: 'user' } : { kind: 'cli' };
    return {
      'tools.call': async ({ server, tool, arguments: args }): Promise<CallResultView> => {
        const started = Date.now();
        const result = await this.call({ server, tool, arguments: args, caller, origin: shell.origin });
        const content = result.result?.content ?? [];
        // A failed call keeps the server's own words; a network hint follows when that looks like the cause.
        const said = [result.message ?? '', ...content.map((item) => (item.type === 'text' ? item.text : ''))].join('\n');
        const refused = [...new Set((this.#refusals.get(server) ?? []).filter((refusal) => refusal.at >= started).map((refusal) => refusal.host))];
        const failed = result.outcome === 'tool-error' || result.outcome === 'unknown';
        const hint = failed ? (networkHint(this.deps.record(server), said, refused) ?? writeHint(this.deps.record(server), said, result.arguments)) : undefined;
        const message = [result.message, hint].filter(Boolean).join('\n');
        return {
          outcome: result.outcome,
          ...(result.nobodyToAsk ? { nobodyToAsk: true } : {}),
          ...(result.waysForward ? { waysForward: result.waysForward } : {}),
          content,
          ...(result.result?.structuredContent !== undefined ? { structuredContent: result.result.structuredContent } : {}),
          ...(message ? { message } : {}),
          durationMs: result.durationMs,
        };
      },
    };
  }
}
