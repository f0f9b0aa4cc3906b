/**
 * A same-user process on the owner socket, speaking its line protocol by
 * hand (no Airlock client code): what a hostile process running as the
 * person can do. Tests of the socket and of who may answer what use it.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { expect } from 'vitest';

/** A same-user process speaking the socket's line protocol by hand. */
export class RawPeer {
  readonly messages: Array<Record<string, unknown>> = [];
  closed = false;
  private buffer = '';
  private nextId = 1;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (line) this.messages.push(JSON.parse(line) as Record<string, unknown>);
      }
    });
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => {});
  }

  static connect(path: string): Promise<RawPeer> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      socket.once('connect', () => resolve(new RawPeer(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends a request and resolves to its reply (result or error). */
  async request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    this.socket.write(`${JSON.stringify({ id, method, params })}\n`);
    return this.waitFor((message) => message.id === id);
  }

  async waitFor(match: (message: Record<string, unknown>) => boolean, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(match);
      if (found) return found;
      if (this.closed) throw new Error('the owner closed the connection');
      if (Date.now() > deadline) throw new Error('no such message');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Answers the owner's challenge with the key the owner wrote (any process running as the user can read it). */
  async authenticate(keyPath: string, hello: { role?: string; terminal?: boolean; label?: string } = {}): Promise<void> {
    const challenge = await this.waitFor((message) => message.event === 'owner.challenge');
    const nonce = (challenge.payload as { nonce: string }).nonce;
    const key = Buffer.from(readFileSync(keyPath, 'utf8').trim(), 'hex');
    const proof = createHmac('sha256', key).update(`client:${nonce}`).digest('base64url');
    const reply = await this.request('hello', { role: 'gateway', terminal: false, label: 'raw', ...hello, nonce: 'n'.repeat(32), proof });
    expect(reply.result).toMatchObject({ ok: true });
  }

  close(): void {
    this.socket.destroy();
  }
}

