/**
 * A stand-in for a service's API (like api.github.com) for the CLI tests: it
 * answers only with the right token, and writes each request it sees to a
 * log. It runs in a process of its own, since those tests run the CLI
 * synchronously and would otherwise keep it from answering.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** The token it accepts (`Authorization: Bearer …`). */
export const API_TOKEN = 's3cret-token';

const SERVER = `
const { appendFileSync } = require('node:fs');
require('node:http').createServer((request, response) => {
  appendFileSync(process.argv[1], request.method + ' ' + request.url + ' ' + (request.headers.authorization || '(no token)') + '\\n');
  if (request.headers.authorization === 'Bearer ${API_TOKEN}') response.end('{"login":"octo"}');
  else response.writeHead(401).end('bad credentials');
}).listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });`;

export interface TokenApi {
  port: number;
  /** Each request it saw so far: `METHOD URL TOKEN` (or `(no token)`). */
  seen(): string[];
  stop(): void;
}

/** Starts it, writing what it sees to `log`. */
export async function startTokenApi(log: string): Promise<TokenApi> {
  const child = spawn(process.execPath, ['-e', SERVER, log], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim()))));
  return {
    port,
    seen: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
    stop: () => void child.kill(),
  };
}
