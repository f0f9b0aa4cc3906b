/**
 * The inspection of a remote server at add time, after the person
 * consented: connect (signing in through the person's browser if the
 * server asks), list tools, prompts and resources, disconnect. One job:
 * the same {@link ProbeResult} a local probe gives, over the network.
 *
 * Invariant guarded: every request the server makes during inspection is
 * refused (as in a local probe); the connection is always closed.
 */
import { LogRing } from '../servers/log-ring';
import { readOffer, REFUSE_DURING_PROBE, ProbeError, type ProbeResult } from '../servers/probe';
import type { RemoteLink } from './remote-connector';
import { RemoteChannel, type RemoteWire } from './remote-channel';
import { messageOf } from '../errors';

/** Inspects a remote server through its connector. `timeoutMs` bounds the whole (a sign-in included). */
export async function probeRemote(link: RemoteLink, options: { timeoutMs?: number; initializeTimeoutMs?: number } = {}): Promise<ProbeResult & { wire: RemoteWire }> {
  const log = new LogRing();
  const abort = new AbortController();
  const timeoutMs = options.timeoutMs ?? 6 * 60_000;
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  let connection;
  try {
    connection = await link.open({ log, requests: REFUSE_DURING_PROBE, initializeTimeoutMs: options.initializeTimeoutMs ?? 30_000 }, abort.signal);
    const channel = connection.channel;
    const result: ProbeResult & { wire: RemoteWire } = { ...(await readOffer(connection, false)), wire: channel instanceof RemoteChannel ? channel.wire : 'streamable-http' };
    result.log = log.snapshot();
    return result;
  } catch (error) {
    const message = messageOf(error);
    throw new ProbeError(abort.signal.aborted ? `inspecting the server did not finish within ${Math.round(timeoutMs / 1000)} s` : message, log.snapshot(), abort.signal.aborted);
  } finally {
    clearTimeout(timer);
    await connection?.close().catch(() => undefined); // Closing a connection that may never have opened.
  }
}
