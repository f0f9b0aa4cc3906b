import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { GatewayCore } from './gateway-core';
import { createGatewayServer, type GatewayServerOptions } from './gateway-server';

/** Options for `serveStdio`: the gateway's own, plus the streams (this process's stdin/stdout by default). */
export interface StdioGatewayOptions extends GatewayServerOptions {
  stdin?: Readable;
  stdout?: Writable;
}

/** A running stdio gateway. */
export interface StdioGateway {
  server: Server;
  /** Settles when the session ends: the client closed stdin, or `close()` was called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves the gateway to one client over stdio — what `airlock gateway
 * --stdio` runs when another app starts it from its config. Nothing but
 * MCP messages may go to stdout; logs go to `options.log` (stderr by
 * default). The session ends when the client closes stdin.
 */
export async function serveStdio(core: GatewayCore, options: StdioGatewayOptions = {}): Promise<StdioGateway> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const server = createGatewayServer(core, options);
  const transport = new StdioServerTransport(stdin, stdout);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  transport.onclose = () => resolveClosed();
  const onEnd = () => {
    void server.close();
  };
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  await server.connect(transport);
  return {
    server,
    closed,
    async close() {
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      await server.close();
      await closed;
    },
  };
}
