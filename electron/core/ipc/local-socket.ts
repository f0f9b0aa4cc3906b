/**
 * One data folder, several processes. The first process that runs servers
 * (the app, `airlock gateway`, or a CLI command) becomes the folder's owner:
 * it holds `owner.lock` and serves a Unix socket only the user can open.
 * Every other Airlock process on that folder is the owner's client: its
 * requests run in the owner, through the same contract and the same choke
 * point, so a server is never started twice, a rule saved anywhere is in
 * force everywhere, and the audit log stays one chain. When the owner exits,
 * the next process to need servers takes over.
 *
 * SECURITY: the owner decides who each connection is; nothing a client
 * says makes it more than a terminal shell.
 * - Peers authenticate: the owner writes a fresh random key to `owner.key`
 *   (0600, in the 0700 data folder) when it claims the folder; every
 *   connection gets a fresh nonce and must answer with HMAC(key, nonce),
 *   and the owner answers the client's nonce the same way. That proves the
 *   peer could read Airlock's data folder: it runs as this user (or root),
 *   and it is not one of Airlock's sandboxed servers (which can never read
 *   the data folder, even where they can reach a socket in /tmp). It does
 *   not tell one same-user program from another: the kernel does not either.
 * - Callers are typed by the owner: a connection's `tools.call` over the
 *   contract runs as `cli`, a gateway's as `client` (its name made inert);
 *   `user` — the person's own call, needing no confirmation — is only ever
 *   Airlock's own window, in the owner's process.
 * - Confirmations are routed: a connection is shown, and may answer, only
 *   the confirmations of calls made through it, and only when it said it has
 *   a terminal to ask on; never another's, never a network question.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { EventName, PayloadOf } from '../../../shared/ipc';
import { AirlockError } from '../errors';
import type { CatalogChange } from '../catalog/catalog';
import { proofMatches, prove, readHello, writeKey } from './owner-handshake';
import { ownerEndpoint, takeLock, type LockHandle, type OwnerEndpoint } from './owner-lock';
import { CHALLENGE_EVENT, HELLO_TIMEOUT_MS, MAX_HELLO_LINE, MAX_LINE, readLines, write, type Request } from './owner-wire';
import { PeerConnection, type OwnerServices } from './peer-connection';
import type { ShellIdentity } from './shell-identity';

export { OwnerClient } from './owner-client';
export { ownerEndpoint, type OwnerEndpoint } from './owner-lock';
export type { PeerHello } from './owner-wire';
export type { OwnerServices } from './peer-connection';

interface Peer {
  socket: Socket;
  shell: ShellIdentity;
  terminal: boolean;
}

/** The owner's side: the socket server, with the clients that can ask a person. */
export class OwnerSocket {
  private readonly peers = new Map<Socket, Peer>();
  private readonly sockets = new Set<Socket>();
  private nextSocketId = 1;
  private nextPeer = 1;
  private services: OwnerServices | undefined;

  private constructor(
    private readonly server: Server,
    readonly endpoint: OwnerEndpoint,
    private readonly key: Buffer,
    private readonly lock: LockHandle,
  ) {}

  /**
   * Becomes the owner of a data folder, or returns undefined when another
   * live process already is. A lock left by a process that died is taken
   * over, and so is one handed to this process (`handover`).
   */
  static async claim(dataDir: string, services: () => OwnerServices): Promise<OwnerSocket | undefined> {
    const endpoint = ownerEndpoint(dataDir);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const lock = takeLock(endpoint.lockPath);
    if (!lock) return undefined;
    let key: Buffer;
    try {
      key = writeKey(endpoint.keyPath);
    } catch (error) {
      lock.release();
      throw new AirlockError('unavailable', `Airlock could not write ${endpoint.keyPath}: ${(error as Error).message}`);
    }
    if (process.platform !== 'win32') rmSync(endpoint.socketPath, { force: true });
    let owner: OwnerSocket | undefined;
    const server = createServer((socket) => owner!.accept(socket, services));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        // SECURITY: the socket is created with the user's umask tightened to owner-only, inside a 0700 folder.
        const previous = process.umask(0o177);
        server.listen(endpoint.socketPath, () => {
          process.umask(previous);
          resolve();
        });
      });
    } catch (error) {
      lock.release();
      throw new AirlockError('unavailable', `Airlock could not open its local socket ${endpoint.socketPath}: ${(error as Error).message}`);
    }
    owner = new OwnerSocket(server, endpoint, key, lock);
    return owner;
  }

  /** True when a connected client has a terminal to ask on about the calls made through `origin`. */
  peerCanAsk(origin: string): boolean {
    for (const peer of this.peers.values()) if (peer.shell.origin === origin) return peer.terminal && !peer.socket.destroyed;
    return false;
  }

  /**
   * Sends an event to every authenticated client, as built for its shell:
   * confirmations and server questions only those routed to it; network
   * questions to none (see shell-events.ts).
   */
  broadcast<E extends EventName>(event: E, payload: PayloadOf<E>): void {
    for (const peer of this.peers.values()) {
      const mine = this.services?.eventFor(peer.shell, event, payload);
      if (mine !== undefined) write(peer.socket, { event, payload: mine });
    }
  }

  /** Tells clients the tools changed (the gateway sends tools/list_changed). */
  broadcastToolsChanged(): void {
    for (const peer of this.peers.values()) write(peer.socket, { event: 'tools.didChange', payload: null });
  }

  /** Tells clients what changed in the catalog (their gateways relay list changes, updates, log lines). */
  broadcastCatalogChange(change: CatalogChange): void {
    for (const peer of this.peers.values()) write(peer.socket, { event: 'catalog.change', payload: change });
  }

  /** Stops serving. With `handTo`, the lock is handed to that process instead of being removed. */
  async close(handTo?: number): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (process.platform !== 'win32') rmSync(this.endpoint.socketPath, { force: true });
    if (handTo !== undefined) this.lock.handTo(handTo);
    else this.lock.release();
  }

  // The handshake: the owner's nonce first; nothing but a valid hello until the client proved it can
  // read the key; then each request goes to the client's connection (peer-connection.ts).
  private accept(socket: Socket, factory: () => OwnerServices): void {
    this.sockets.add(socket);
    const nonce = randomBytes(32).toString('base64url');
    let connection: PeerConnection | undefined;
    const helloTimer = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    const socketId = this.nextSocketId++;
    socket.on('close', () => {
      clearTimeout(helloTimer);
      this.sockets.delete(socket);
      this.peers.delete(socket);
      connection?.closed();
    });
    socket.on('error', () => socket.destroy());
    write(socket, { event: CHALLENGE_EVENT, payload: { nonce } });
    readLines(socket, () => (connection ? MAX_LINE : MAX_HELLO_LINE), async (message) => {
      const request = message as Request;
      if (typeof request !== 'object' || request === null || typeof request.id !== 'number') return;
      if (connection) return connection.handle(request);
      // SECURITY: nothing but a valid hello before the peer has proved it can read the data folder.
      const hello = request.method === 'hello' ? readHello(request.params) : undefined;
      if (!hello || !proofMatches(this.key, `client:${nonce}`, hello.proof)) {
        write(socket, { id: request.id, error: { code: 'forbidden-sender', message: 'This connection did not prove it may use Airlock (owner.key).' } });
        socket.end();
        socket.destroy();
        return;
      }
      clearTimeout(helloTimer);
      const origin = `peer-${this.nextPeer++}`;
      const shell: ShellIdentity = { kind: 'terminal', origin, label: `${hello.role}: ${hello.label}` };
      this.services ??= factory();
      connection = new PeerConnection(socket, shell, this.services, socketId);
      this.peers.set(socket, { socket, terminal: hello.terminal, shell });
      write(socket, { id: request.id, result: { ok: true, proof: prove(this.key, `owner:${hello.nonce}`), windowCanAsk: this.services.windowCanAsk?.() === true } });
    });
  }
}
