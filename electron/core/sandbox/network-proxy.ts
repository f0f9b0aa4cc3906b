/**
 * Per-server network grants.
 *
 * DESIGN. sandbox-runtime's own proxy is one per Airlock process and reads
 * only the `initialize()` config; the only thing that tells one sandboxed
 * command from another there is the proxy username (`srt.<encodedCommand>`),
 * which the server itself sends and which is derived from its command text —
 * so server B could present server A's name and borrow A's grants. Airlock
 * therefore does not start the library's proxy at all. Instead each server
 * that may use the network gets its own small HTTP CONNECT + SOCKS5 proxy,
 * running inside Airlock's process and listening on a Unix socket that only
 * that server's sandbox can see:
 *
 *   server --TCP 127.0.0.1:3128--> socat (inside its bwrap, before seccomp)
 *          --Unix socket (bound into that sandbox only)--> this proxy
 *          --policy(serverName)--> the destination
 *
 * Attribution is by which socket a connection arrived on, which the server
 * cannot forge: its network namespace has no route out (`--unshare-net`), the
 * seccomp helper stops it from opening other Unix sockets, and the other
 * servers' sockets sit in a folder every sandbox has hidden. Server A's grant
 * lives in A's proxy object and nowhere else.
 *
 * A host that no grant covers goes to `ask(serverName, host, port)` (the
 * person decides, naming the server); without `ask` it is denied. Answers are
 * remembered for the life of the launch, and concurrent identical requests
 * share one question. Names that resolve to loopback, private, link-local or
 * otherwise non-public addresses are refused (DNS rebinding); a local service
 * is granted by its IP literal (`127.0.0.1:8080`).
 *
 * COST (measured 2026-12-02 on this 2-core machine shared with four other
 * engineers, Node 20, test/bench/sandbox-startup.mjs; medians of 5–7):
 * - Airlock's side: one `net.Server` + one `http.Server` per server, 3–4 KB
 *   of heap each with no traffic (< 0.1 MB for 20 servers). No extra host
 *   process (the library's design runs a host socat bridge too).
 * - Inside each networked sandbox: one `socat`, ≈ 0.9 MB PSS (17.7 MB for
 *   20 servers), and a `/bin/sh` that execs into the server. The library's
 *   own wrapper runs two socats and three shells per command.
 * - 20 sandboxed server-filesystem instances with proxies running at once:
 *   the benchmark process (SDK clients, launcher, proxies) at 110–126 MB RSS,
 *   20–30 MB heap.
 * - Start-up, server-filesystem connect + listTools, wall time: in a quieter
 *   spell direct 271–311 ms, sandboxed ×1.07–1.21, with a proxy ×1.09–1.17.
 *   Under heavy load (load average 8–14) every variant swings ×0.9–1.7 —
 *   neighbours, not the sandbox. CPU time of the whole start (plan, bwrap,
 *   the server's process tree, the client) is steadier: direct ≈ 300 ms,
 *   sandboxed ≈ 317 ms (×1.06), with a proxy ≈ 328 ms (×1.10); the
 *   library's own wrapper (shared proxy, shells) ≈ 309 ms (×1.03) — shells
 *   cost ≈ 2 ms here, not the 95 ms TECH-NOTES saw. What a sandboxed start
 *   adds: `plan()` 23–53 ms wall (sandbox-runtime's ripgrep scan, `which`,
 *   path resolution) and ≈ 17 ms for apply-seccomp's nested namespace; bwrap
 *   itself ≈ 4 ms. The proxy bridge is lost in the noise.
 * Servers with no grant and no `ask` get no proxy and no socat at all: just
 * an empty network namespace.
 */
import { lookup } from 'node:dns/promises';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, connect as netConnect, isIP, type Server as NetServer, type Socket } from 'node:net';
import { unlink } from 'node:fs/promises';
import type { Duplex } from 'node:stream';
import { basicPasswordMatches, CHALLENGE, handleSocks5 } from './socks5';
import type { NetworkDecision, Verdict } from './network-decision';
export type { NetworkDecision, Verdict } from './network-decision';
import { isPublicAddress, readHostName } from '../net/address-ranges';

/** Asks the person whether a server may reach a host it was not granted. */
export type NetworkRequestHandler = (serverName: string, host: string, port: number) => Promise<boolean>;

/** What one server's proxy enforces. */
export interface ServerNetworkPolicy {
  serverName: string;
  /** Grants: `example.com`, `*.example.com` (subdomains only), `host:port`, IP literals. */
  allowedDomains: string[];
  ask?: NetworkRequestHandler;
  /** How long a question may stay unanswered before it counts as a deny. */
  askTimeoutMs?: number;
  onDecision?: (decision: NetworkDecision) => void;
  /**
   * The secret a connection must present (HTTP `Proxy-Authorization: Basic`
   * with it as the password, or SOCKS5 user/password), for a proxy on a
   * loopback port that other programs can reach. Absent: no credential is
   * asked (the Unix socket only this server's sandbox sees).
   */
  credential?: string;
}

/** A running per-server proxy. */
export interface ServerProxy {
  readonly socketPath: string;
  /** Connections currently open through this proxy. */
  readonly openConnections: number;
  close(): Promise<void>;
}

const DEFAULT_ASK_TIMEOUT_MS = 120_000;
/** Distinct hosts one launch may ask about; past this, unlisted hosts are denied unasked (no prompt flood). */
const MAX_QUESTIONS = 32;
const MAX_CONNECTIONS = 128;
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * The canonical spelling of a host the way it will be dialled: lower case,
 * no trailing dot, no IPv6 brackets. Undefined for anything that is not a
 * plain DNS name or IP literal (control characters, spaces, `%`, …).
 */
export function canonicalHost(host: string): string | undefined {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (!h || h.length > 253) return undefined;
  if (isIP(h) === 4) return h;
  // One spelling per IPv6 address (`0:0:0:0:0:0:0:1` is `::1`).
  if (isIP(h) === 6) return new URL(`http://[${h}]/`).hostname.slice(1, -1);
  // SECURITY (invariant 5): only LDH names; anything else could be read
  // differently by the matcher and by the resolver (`evil.com\0.good.com`).
  if (!/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(h)) return undefined;
  // Purely numeric names are inet_aton shorthand for an IP (`2130706433`, `127.1`).
  if (/^[0-9.]+$/.test(h) || /^0x/.test(h)) return undefined;
  return h;
}

/** Whether `host:port` (canonical) is covered by one grant. */
export function matchesGrant(host: string, port: number, grant: string): boolean {
  let pattern = grant.trim().toLowerCase();
  let grantPort: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(pattern);
  if (bracketed) {
    pattern = bracketed[1]!;
    grantPort = bracketed[2] ? Number(bracketed[2]) : undefined;
  } else if (!isIP(pattern)) {
    const withPort = /^(.*):(\d+)$/.exec(pattern);
    if (withPort) {
      pattern = withPort[1]!;
      grantPort = Number(withPort[2]);
    }
  }
  if (grantPort !== undefined && grantPort !== port) return false;
  if (pattern.startsWith('*.')) {
    const base = canonicalHost(pattern.slice(2));
    return base !== undefined && host.endsWith(`.${base}`);
  }
  const exact = canonicalHost(pattern);
  return exact !== undefined && exact === host;
}

/**
 * True for addresses a name must never resolve to: anything but the internet
 * (loopback, private, link-local, CGNAT, reserved, IPv4 inside IPv6 in any
 * form …), as the one address reading (`net/address-ranges.ts`) says.
 */
export function isNonPublicAddress(address: string): boolean {
  return !isPublicAddress(address);
}

/** What a question came to: the person's yes or no, no usable answer, or not asked (too many). */
type Answer = 'yes' | 'no' | 'failed' | 'too-many';
const ANSWER_REASON = { no: 'user-denied', failed: 'ask-failed', 'too-many': 'too-many-questions' } as const;


/**
 * Starts one server's proxy on `socketPath` (a Unix socket the launcher binds
 * into that server's sandbox and no other).
 */
export async function startServerProxy(socketPath: string, policy: ServerNetworkPolicy): Promise<ServerProxy> {
  const proxy = createProxyServer(policy);
  await unlink(socketPath).catch(() => undefined); // A socket left from before may not exist.
  await new Promise<void>((resolve, reject) => {
    proxy.server.once('error', reject);
    proxy.server.listen(socketPath, () => {
      proxy.server.off('error', reject);
      resolve();
    });
  });
  proxy.server.unref();
  let closed: Promise<void> | undefined;
  return {
    socketPath,
    get openConnections() {
      return proxy.openConnections();
    },
    close() {
      closed ??= proxy.close().then(() => unlink(socketPath).catch(() => undefined)); // The socket may already be gone.
      return closed;
    },
  };
}

/** One server's proxy, not yet listening: the loopback listener (loopback-proxy.ts) and the Unix socket one share it. */
export interface ProxyServer {
  server: NetServer;
  openConnections(): number;
  /** Ends every connection and stops listening. */
  close(): Promise<void>;
}

/** Builds a server's proxy: HTTP CONNECT, plain HTTP and SOCKS5 on one listener, every request through one `decide`. */
export function createProxyServer(policy: ServerNetworkPolicy): ProxyServer {
  const answers = new Map<string, Promise<Answer>>();
  const live = new Set<Duplex>();

  const record = (host: string, port: number, allowed: boolean, reason: NetworkDecision['reason']): void => {
    try {
      policy.onDecision?.({ serverName: policy.serverName, host, port, allowed, reason });
    } catch {
      // an observer's failure must not change the verdict
    }
  };

  const askOnce = (host: string, port: number): Promise<Answer> => {
    const key = `${host}:${port}`;
    let answer = answers.get(key);
    if (answer) return answer;
    if (answers.size >= MAX_QUESTIONS) return Promise.resolve('too-many');
    const ask = policy.ask!;
    answer = new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => resolve('failed'), policy.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS);
      timer.unref();
      Promise.resolve()
        .then(() => ask(policy.serverName, host, port))
        .then(
          (value) => {
            clearTimeout(timer);
            resolve(value === true ? 'yes' : 'no');
          },
          () => {
            clearTimeout(timer);
            resolve('failed');
          },
        );
    });
    answers.set(key, answer);
    return answer;
  };

  // SECURITY (invariant 5): the only place a server's traffic is let out;
  // every path (CONNECT, plain HTTP, SOCKS5) goes through this function.
  const decide = async (rawHost: string, port: number): Promise<Verdict> => {
    const host = canonicalHost(rawHost);
    if (!host || !Number.isInteger(port) || port < 1 || port > 65535) {
      record(rawHost, port, false, 'malformed-host');
      return { allowed: false, reason: 'malformed-host' };
    }
    // SECURITY (invariant 5): a name that is never the internet (`localhost.`, `printer.local`,
    // `metadata.google.internal`, a name without a domain) is refused before anyone is asked
    // or DNS is: whatever it resolves to, it is not the internet (net/address-ranges.ts).
    if (!isIP(host) && readHostName(host)) {
      record(host, port, false, 'non-public-address');
      return { allowed: false, reason: 'non-public-address' };
    }
    let reason: NetworkDecision['reason'];
    if (policy.allowedDomains.some((grant) => matchesGrant(host, port, grant))) {
      reason = 'granted';
    } else if (policy.ask) {
      const answer = await askOnce(host, port);
      if (answer !== 'yes') {
        const denial = ANSWER_REASON[answer];
        record(host, port, false, denial);
        return { allowed: false, reason: denial };
      }
      reason = 'user-allowed';
    } else {
      record(host, port, false, 'not-granted');
      return { allowed: false, reason: 'not-granted' };
    }
    if (isIP(host)) {
      record(host, port, true, reason);
      return { allowed: true, address: host, reason };
    }
    let address: string;
    try {
      address = (await lookup(host)).address;
    } catch {
      record(host, port, false, 'unresolvable');
      return { allowed: false, reason: 'unresolvable' };
    }
    // SECURITY (invariant 5): a granted name must not become a way into the
    // host's loopback or LAN (DNS rebinding); dial the address we checked.
    if (isNonPublicAddress(address)) {
      record(host, port, false, 'non-public-address');
      return { allowed: false, reason: 'non-public-address' };
    }
    record(host, port, true, reason);
    return { allowed: true, address, reason };
  };

  const track = (stream: Duplex): void => {
    live.add(stream);
    stream.once('close', () => live.delete(stream));
    stream.on('error', () => stream.destroy());
  };

  // SECURITY (invariant 5): a proxy on a loopback port is reachable by any
  // program on this computer (and, on Windows, by every sandboxed server):
  // only a connection that presents this server's credential is this
  // server's. Refused before anything is decided or asked.
  const authorised = (req: IncomingMessage): boolean => policy.credential === undefined || basicPasswordMatches(req.headers['proxy-authorization'], policy.credential);
  const refuseUnauthorised = (host: string, port: number): void => record(host, Number.isInteger(port) ? port : 0, false, 'no-credential');

  const tunnel = (client: Duplex, address: string, port: number, onOpen: () => void, onFail: () => void): void => {
    // The client may have gone while the person was being asked.
    if (client.destroyed) return;
    const upstream = netConnect({ host: address, port });
    track(upstream);
    upstream.once('connect', () => {
      onOpen();
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', () => onFail());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  };

  const http = createHttpServer({ maxHeaderSize: MAX_HEADER_BYTES });
  http.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const target = parseAuthority(req.url ?? '');
    if (!target) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    if (!authorised(req)) {
      refuseUnauthorised(target.host, target.port);
      client.end(`HTTP/1.1 407 Proxy Authentication Required\r\n${CHALLENGE}\r\n\r\n`);
      return;
    }
    void decide(target.host, target.port).then((verdict) => {
      if (!verdict.allowed) {
        client.end(`HTTP/1.1 403 Forbidden\r\nX-Airlock-Denied: ${verdict.reason}\r\n\r\n`);
        return;
      }
      tunnel(
        client,
        verdict.address,
        target.port,
        () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length > 0) client.unshift(head);
        },
        () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'),
      );
    });
  });
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (url.protocol !== 'http:') {
      res.writeHead(400).end();
      return;
    }
    const port = url.port ? Number(url.port) : 80;
    if (!authorised(req)) {
      refuseUnauthorised(url.hostname, port);
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="airlock"' }).end();
      return;
    }
    void decide(url.hostname, port).then((verdict) => {
      if (!verdict.allowed) {
        res.writeHead(403, { 'x-airlock-denied': verdict.reason }).end();
        return;
      }
      const headers = { ...req.headers };
      for (const name of Object.keys(headers)) if (name.startsWith('proxy-')) delete headers[name];
      const upstream = httpRequest(
        { host: verdict.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      req.pipe(upstream);
    });
  });
  http.on('clientError', (_err, socket) => socket.destroy());

  const server = createNetServer((socket: Socket) => {
    track(socket);
    socket.once('data', (first: Buffer) => {
      socket.pause();
      if (first[0] === 0x05) {
        handleSocks5(socket, first, decide, tunnel, policy.credential, refuseUnauthorised);
      } else {
        socket.unshift(first);
        http.emit('connection', socket);
        socket.resume();
      }
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  return {
    server,
    openConnections: () => live.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of live) stream.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `host:port` of a CONNECT request (IPv6 in brackets). */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  return { host: match[1]!, port: Number(match[2]) };
}
