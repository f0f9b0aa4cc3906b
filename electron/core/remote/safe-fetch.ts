/**
 * The one way Airlock's remote code reaches the network: a fetch whose every
 * connection is checked where it is made. One job: resolve the host, refuse
 * addresses more private than the server's own zone (and link-local or
 * reserved ones always), connect to exactly the address that was checked,
 * and turn network failures into plain, typed errors.
 *
 * Invariant guarded (SECURITY.md rule 9): the check happens in the socket's
 * own DNS lookup, so a name that resolves elsewhere a moment later (DNS
 * rebinding) or a redirect to a private address is refused at the moment
 * of connecting, not only when the URL was first read. Redirects are never
 * followed here (`redirect: 'manual'`): the SDK follows them only within the
 * same origin, each hop through this fetch again.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Agent } from 'undici';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ChannelError } from '../servers/connection-channel';
import { AddressRefused, classifyAddress, zoneAllowed, zoneWords, type AddressZone } from './address';

/** How a host name is resolved (tests pass a table; default the system's resolver). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

/** What a safe fetch is built from. */
export interface SafeFetchOptions {
  /** The zone of the server the person chose: no connection goes anywhere more private. */
  zone: AddressZone;
  resolve?: Resolve;
  /** Bound for requests that carry no signal of their own (metadata documents, tokens): default 30 s. */
  requestTimeoutMs?: number;
  /** Bound on the body of such a request's answer: default 1 MiB. */
  maxBodyBytes?: number;
  /** Extra certificate authorities (tests with their own https servers). */
  ca?: string | string[];
}

/** A fetch that checks every address it connects to, and the agent behind it. */
export interface SafeFetch {
  fetch: FetchLike;
  close(): Promise<void>;
}

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** Resolves a host and keeps only what the zone allows; throws {@link AddressRefused} naming what it found. */
export async function resolveAllowed(hostname: string, zone: AddressZone, resolve: Resolve = systemResolve): Promise<LookupAddress[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const found = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await resolve(bare);
  if (found.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
  // SECURITY: every address a name resolves to must be allowed: one private answer among public
  // ones is how a rebinding attack hides.
  for (const entry of found) {
    const target = classifyAddress(entry.address);
    if (!zoneAllowed(zone, target)) {
      throw new AddressRefused(`${hostname} resolves to ${entry.address}, ${zoneWords(target)}; the server is on ${zoneWords(zone)}, and Airlock does not follow it somewhere more private.`);
    }
  }
  return found;
}

/** The zone of a host as it resolves now (the most private of its addresses), for the disclosure. */
export async function zoneOfHost(hostname: string, resolve: Resolve = systemResolve): Promise<{ zone: AddressZone | 'link-local' | 'reserved'; addresses: string[] }> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const found = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await resolve(bare);
  const zones = found.map((entry) => classifyAddress(entry.address));
  const order = ['link-local', 'reserved', 'loopback', 'private', 'public'] as const;
  const zone = order.find((candidate) => zones.includes(candidate)) ?? 'reserved';
  return { zone, addresses: found.map((entry) => entry.address) };
}

/** Creates a fetch bound to the zone of one server. Close it when the connection ends. */
export function createSafeFetch(options: SafeFetchOptions): SafeFetch {
  const resolve = options.resolve ?? systemResolve;
  // undici is loaded with the first request to a remote server, not when Airlock starts.
  let agentReady: Promise<{ agent: Agent; undiciFetch: typeof import('undici').fetch }> | undefined;
  const connection = () => (agentReady ??= import('undici').then(({ Agent: UndiciAgent, fetch: undiciFetch }) => ({ agent: newAgent(UndiciAgent), undiciFetch })));
  const newAgent = (UndiciAgent: typeof Agent) => new UndiciAgent({
    connect: {
      ...(options.ca ? { ca: options.ca } : {}),
      // SECURITY: rule 9 — the address is checked in the lookup the socket itself uses, so the
      // connection goes to exactly an address that passed.
      lookup: (hostname: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
        resolveAllowed(hostname, options.zone, resolve).then(
          (addresses) => (lookupOptions?.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)),
          (error: unknown) => callback(error),
        );
      },
    } as never,
    // A streamable HTTP answer may be an event stream idle for minutes, or a JSON answer only when
    // a long tool call ends: the MCP layer bounds those (request timeouts, cancellation).
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;

  const fetch: FetchLike = async (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : String(input));
    // An IP literal is never resolved, so the socket's lookup never sees it: check it here.
    const bare = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(bare)) {
      const target = classifyAddress(bare);
      if (!zoneAllowed(options.zone, target)) {
        throw new ChannelError(`Airlock did not connect to ${url.host}: it is ${zoneWords(target)}, and the server is on ${zoneWords(options.zone)}.`, 'address-refused', false);
      }
    }
    // Requests without a signal of their own (discovery, registration, tokens) are bounded here, body included.
    const bounded = init?.signal === undefined || init.signal === null;
    // A signal of the caller's own is often one for the whole connection (the SDK's transport passes
    // the same one to every request): each request gets its own that follows it, so what the fetch
    // attaches for one request goes with that request instead of piling up on the connection's signal.
    const signal = bounded ? AbortSignal.timeout(timeoutMs) : AbortSignal.any([init.signal as AbortSignal]);
    let answer;
    try {
      const { agent, undiciFetch } = await connection();
      answer = await undiciFetch(url, { ...(init as object), redirect: 'manual', signal, dispatcher: agent } as never);
    } catch (error) {
      throw networkError(error, url, signal, bounded ? timeoutMs : undefined);
    }
    const nullBody = answer.status === 101 || answer.status === 204 || answer.status === 205 || answer.status === 304;
    let body = nullBody ? null : (answer.body as ReadableStream<Uint8Array> | null);
    if (body && bounded) body = body.pipeThrough(limitBytes(maxBodyBytes, url));
    // The SDK tells responses apart with `instanceof Response`: hand it the runtime's own class.
    const response = new Response(body, { status: answer.status, statusText: answer.statusText, headers: new Headers([...answer.headers]) });
    Object.defineProperty(response, 'url', { value: answer.url || url.href });
    return response;
  };
  // Nothing was ever sent: there is no agent to close.
  return { fetch, close: async () => (agentReady ? (await agentReady).agent.close() : undefined) };
}

/** A stream that errors once more than `max` bytes went through. */
function limitBytes(max: number, url: URL): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > max) controller.error(new ChannelError(`${url.host} answered with more than ${Math.round(max / 1024)} KiB where a short document was expected; Airlock stopped reading.`, 'protocol', false));
      else controller.enqueue(chunk);
    },
  });
}

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_REVOKED',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);

/** The root cause of a fetch failure (undici wraps it as `TypeError: fetch failed`). */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5; depth += 1) {
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    current = cause;
  }
  return current;
}

/** A fetch failure as a typed, plain {@link ChannelError}; aborts and timeouts keep their meaning. */
function networkError(error: unknown, url: URL, signal: AbortSignal, timeoutMs: number | undefined): unknown {
  if (error instanceof ChannelError) return error;
  const cause = rootCause(error);
  if (cause instanceof AddressRefused) return new ChannelError(`Airlock did not connect: ${cause.message}`, 'address-refused', false, { cause });
  if (cause instanceof ChannelError) return cause;
  if (signal.aborted) {
    if (timeoutMs !== undefined && (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError') {
      return new ChannelError(`${url.host} did not answer within ${Math.round(timeoutMs / 1000)} s.`, 'unreachable', false, { cause: error });
    }
    return error;
  }
  const code = String((cause as { code?: unknown } | null)?.code ?? '');
  const host = url.host;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return new ChannelError(`${url.hostname} cannot be found (no such host in DNS): check the address, or your connection.`, 'unreachable', false, { cause });
  if (code === 'ECONNREFUSED') return new ChannelError(`${host} refused the connection: nothing answers there (is the server running?).`, 'unreachable', false, { cause });
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ENETDOWN') return new ChannelError(`${host} cannot be reached from this computer (no route: are you offline?).`, 'unreachable', false, { cause });
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return new ChannelError(`${host} did not answer when Airlock tried to connect (timed out).`, 'unreachable', false, { cause });
  if (TLS_CODES.has(code) || /certificate|ssl|tls/i.test(String((cause as Error | null)?.message ?? ''))) {
    return new ChannelError(`${host}’s secure connection (TLS) was not accepted: ${String((cause as Error | null)?.message ?? code)}. Airlock did not send anything.`, 'tls', false, { cause });
  }
  // A connection that broke after it was made: whatever was sent may have arrived.
  return new ChannelError(`the connection to ${host} broke (${code || String((cause as Error | null)?.message ?? 'no reason given')})`, 'interrupted', true, { cause });
}
