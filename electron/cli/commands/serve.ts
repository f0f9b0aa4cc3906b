/**
 * Serving MCP to another app until it is done, as `airlock gateway` and
 * `airlock run` both do: over stdio until the app closes it (or Ctrl-C), or
 * over streamable HTTP on a loopback port with the bearer token in the data
 * folder — refused when the organisation locks the HTTP gateway — until one
 * Ctrl-C or SIGTERM stops it (exit 130 for Ctrl-C).
 */
import { resolve } from 'node:path';
import { GATEWAY_TOKEN_FILE, loadOrCreateGatewayToken, serveStdio, startHttpGateway, type GatewayCore, type GatewayServerOptions } from '../../core/gateway';
import type { SharedHost } from '../../core/ipc/shared-host';
import { CliExit, EXIT } from '../output';
import type { CliContext } from './servers';
import { refuseIfLocked } from './settings';

/** `--http <port>` as a port number; a usage error otherwise. */
export function httpPort(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliExit(EXIT.usage, `--http takes a port number, got “${text}”.`);
  return port;
}

/** Serves `core` over stdio, or over HTTP on `http.port` (saying `http.serving` and where the URL is), until it is stopped. */
export async function serveUntilStopped(
  context: CliContext & { dataDir(): string },
  shared: SharedHost,
  core: GatewayCore,
  options: GatewayServerOptions,
  http?: { port: number; serving: string },
): Promise<void> {
  const { io } = context;
  if (!http) {
    const gateway = await serveStdio(core, options);
    await Promise.race([gateway.closed, new Promise<void>((done) => io.signal?.addEventListener('abort', () => done(), { once: true }))]);
    if (io.signal?.aborted) context.exit(EXIT.interrupted);
    return;
  }
  await refuseIfLocked(shared, 'httpGateway', 'start the HTTP gateway');
  const token = await loadOrCreateGatewayToken(context.dataDir());
  const gateway = await startHttpGateway(core, { ...options, port: http.port, token });
  const tokenFile = resolve(context.dataDir(), GATEWAY_TOKEN_FILE);
  io.out(context.json() ? JSON.stringify({ url: gateway.url, tokenFile }) : `${http.serving} on ${gateway.url}\nBearer token: in ${tokenFile}`);
  // One Ctrl-C (or SIGTERM) stops it: the listener closes, servers stop, exit 130 for Ctrl-C.
  await new Promise<void>((done) => {
    if (io.signal?.aborted) return done();
    io.signal?.addEventListener('abort', () => done(), { once: true });
    process.once('SIGTERM', done);
  });
  await gateway.close();
  if (io.signal?.aborted) context.exit(EXIT.interrupted);
}
