/**
 * A server's proxy on a loopback TCP port, for the backends whose sandbox
 * cannot give each server a network namespace of its own (macOS's Seatbelt
 * lets a server connect to exactly one loopback port; Windows' firewall
 * filter lets the sandbox's user reach a fixed range of ten). Any program
 * on the computer can connect to a loopback port — and on Windows every
 * sandboxed server can reach every port in the range — so the proxy
 * demands this server's own credential, a fresh random one per launch,
 * which only this server's environment carries (socks5.ts checks it).
 */
import { randomBytes } from 'node:crypto';
import { SandboxInitError } from './errors';
import { createProxyServer, type ServerNetworkPolicy } from './network-proxy';
import type { ProxyCredential } from './platform/backend';

/** A running loopback proxy of one server. */
export interface LoopbackProxy {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly credential: ProxyCredential;
  readonly openConnections: number;
  close(): Promise<void>;
}

/** The user name in the proxy URLs Airlock builds (only the password is checked). */
export const PROXY_USER = 'airlock';

/**
 * Starts the proxy on 127.0.0.1: any free port, or the first free one of
 * `portRange` (inclusive; tried from a random place in it so two Airlock
 * processes do not race for the same one). Throws `SandboxInitError` when
 * every port of the range is taken.
 */
export async function startLoopbackProxy(
  policy: Omit<ServerNetworkPolicy, 'credential'>,
  options: { portRange?: readonly [number, number] } = {},
): Promise<LoopbackProxy> {
  const credential: ProxyCredential = { user: PROXY_USER, token: randomBytes(24).toString('hex') };
  const proxy = createProxyServer({ ...policy, credential: credential.token });
  const candidates = portsToTry(options.portRange);
  let port: number | undefined;
  for (const candidate of candidates) {
    try {
      port = await listen(proxy.server, candidate);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' && (error as NodeJS.ErrnoException).code !== 'EACCES') throw error;
    }
  }
  if (port === undefined) {
    await proxy.close();
    const [low, high] = options.portRange!;
    throw new SandboxInitError(
      `Every port the sandbox lets servers reach (${low}–${high}) is taken, so ${policy.serverName} cannot get its network proxy: at most ${high - low + 1} servers with network access can run at once here. Stop one, or close the program using those ports.`,
    );
  }
  proxy.server.unref();
  let closed: Promise<void> | undefined;
  return {
    host: '127.0.0.1',
    port,
    credential,
    get openConnections() {
      return proxy.openConnections();
    },
    close() {
      closed ??= proxy.close();
      return closed;
    },
  };
}

function portsToTry(range: readonly [number, number] | undefined): number[] {
  if (!range) return [0];
  const [low, high] = range;
  if (!Number.isInteger(low) || !Number.isInteger(high) || low < 1 || high > 65535 || low > high) {
    throw new SandboxInitError(`The proxy port range ${low}–${high} is not a range of TCP ports.`);
  }
  const size = high - low + 1;
  const start = Math.floor(Math.random() * size);
  return Array.from({ length: size }, (_, i) => low + ((start + i) % size));
}

function listen(server: import('node:net').Server, port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      server.off('error', onError);
      resolve((server.address() as import('node:net').AddressInfo).port);
    });
  });
}
