/**
 * A real `airlock gateway --stdio` (the built CLI) as another AI app runs it,
 * spoken to in raw JSON-RPC lines: what the app sends is exactly what the
 * test writes, so malformed input reaches the gateway unchanged.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '../../..');
export const CLI = resolve(REPO, 'bin/airlock.js');

/** One message the gateway wrote on stdout (parsed), or the raw line when it is not JSON. */
export type GatewayLine = { message: Record<string, unknown> } | { raw: string };

export interface GatewayProcess {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  /** Every line the gateway wrote on stdout, in order. */
  lines: GatewayLine[];
  /** What it wrote on stderr (bounded). */
  stderr(): string;
  /** Writes one line (a message, or raw text as is) to the gateway's stdin. */
  write(line: string): void;
  send(message: unknown): void;
  /** Sends a request and resolves with the response of that id (rejects after `timeoutMs`). */
  request(message: { id: string | number; method: string; params?: unknown }, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** The response to `id`, once it arrives. */
  response(id: string | number, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
}

/** Starts `airlock --data-dir DATA gateway --stdio`, with the given environment added. */
export function startGateway(dataDir: string, env: NodeJS.ProcessEnv, extraArgs: string[] = []): GatewayProcess {
  const child = spawn(process.execPath, [CLI, '--data-dir', dataDir, 'gateway', '--stdio', ...extraArgs], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const lines: GatewayLine[] = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  let stderr = '';
  let done = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!line) continue;
      try {
        lines.push({ message: JSON.parse(line) as Record<string, unknown> });
      } catch {
        lines.push({ raw: line });
      }
    }
    for (const waiter of waiters) waiter();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 64 * 1024) stderr += chunk;
  });
  child.stdin.on('error', () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done_) =>
    child.once('exit', (code, signal) => {
      done = true;
      for (const waiter of waiters) waiter();
      done_({ code, signal });
    }),
  );
  const response = (id: string | number, timeoutMs = 30_000) =>
    new Promise<Record<string, unknown>>((resolveResponse, reject) => {
      const find = () => {
        for (const line of lines) if ('message' in line && line.message.id === id && ('result' in line.message || 'error' in line.message)) return line.message;
        return undefined;
      };
      const check = () => {
        const found = find();
        if (found) {
          cleanup();
          resolveResponse(found);
        } else if (done) {
          cleanup();
          reject(new Error(`the gateway exited before answering ${String(id)}; stderr: ${stderr.slice(-2000)}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no answer to ${String(id)} within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  const write = (line: string) => {
    if (!child.stdin.destroyed) child.stdin.write(`${line}\n`);
  };
  return {
    child,
    pid: child.pid!,
    lines,
    stderr: () => stderr,
    write,
    send: (message) => write(JSON.stringify(message)),
    request(message, timeoutMs) {
      write(JSON.stringify({ jsonrpc: '2.0', ...message }));
      return response(message.id, timeoutMs);
    },
    response,
    exited,
    alive: () => !done,
  };
}

/** The `initialize` request every session opens with. */
export function initializeRequest(id: string | number = 'init', name = 'airlock-reliability-test'): { id: string | number; method: string; params: unknown } {
  return { id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1.0.0' } } };
}

/** Opens an MCP session: initialize, then the initialized notification. */
export async function openSession(gateway: GatewayProcess, timeoutMs = 60_000): Promise<Record<string, unknown>> {
  const answer = await gateway.request(initializeRequest(), timeoutMs);
  gateway.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return answer;
}
