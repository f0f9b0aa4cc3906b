import type { CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * An app connected through the gateway that can answer what a server asks
 * back: sample with its model, or show an elicitation to its user. The
 * gateway registers one per session, with what the app declared at
 * `initialize`. Its label is data (what the app calls itself).
 */
export interface DownstreamPeer {
  id: string;
  label: string;
  sampling: boolean;
  elicitation: { form: boolean; url: boolean };
  createMessage(server: string, params: CreateMessageRequest['params'], options: { signal?: AbortSignal }): Promise<CreateMessageResult>;
  elicit(server: string, params: ElicitRequest['params'], options: { signal?: AbortSignal }): Promise<ElicitResult>;
}

interface InFlight {
  peer: string;
  server: string;
  order: number;
}

/**
 * Which app is waiting on which server. MCP over stdio does not say which
 * call a server's request belongs to, so the rule is: the app whose call to
 * that server started last and is still running is the one asked. An app
 * with no call running to that server is never asked for it — a request
 * during the person's own console call, or out of the blue, goes to
 * Airlock's own model or the person in Airlock instead.
 */
export class DownstreamPeers {
  readonly #peers = new Map<string, DownstreamPeer>();
  readonly #inFlight = new Set<InFlight>();
  #order = 0;

  /** Adds an app; the returned function removes it. */
  register(peer: DownstreamPeer): () => void {
    this.#peers.set(peer.id, peer);
    return () => {
      if (this.#peers.get(peer.id) === peer) this.#peers.delete(peer.id);
      for (const call of this.#inFlight) if (call.peer === peer.id) this.#inFlight.delete(call);
    };
  }

  /** Notes that an app's call to a server started; the returned function notes its end. */
  callStarted(peerId: string | undefined, server: string): () => void {
    if (peerId === undefined || !this.#peers.has(peerId)) return () => {};
    const call: InFlight = { peer: peerId, server, order: ++this.#order };
    this.#inFlight.add(call);
    return () => void this.#inFlight.delete(call);
  }

  /** Apps with a call to `server` running, the latest first. */
  waitingOn(server: string): DownstreamPeer[] {
    const calls = [...this.#inFlight].filter((call) => call.server === server).sort((a, b) => b.order - a.order);
    const seen = new Set<string>();
    const out: DownstreamPeer[] = [];
    for (const call of calls) {
      const peer = this.#peers.get(call.peer);
      if (peer && !seen.has(peer.id)) {
        seen.add(peer.id);
        out.push(peer);
      }
    }
    return out;
  }

  /** The app that answers `server`'s sampling request, if one is waiting on it and can sample. */
  samplerFor(server: string): DownstreamPeer | undefined {
    const waiting = this.waitingOn(server);
    return waiting[0]?.sampling ? waiting[0] : undefined;
  }

  /** The app that could show `server`'s elicitation in `mode`, if the one waiting on it can. */
  elicitorFor(server: string, mode: 'form' | 'url'): DownstreamPeer | undefined {
    const peer = this.waitingOn(server)[0];
    return peer?.elicitation[mode] ? peer : undefined;
  }

  get size(): number {
    return this.#peers.size;
  }
}
