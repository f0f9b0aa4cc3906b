/**
 * The SOCKS5 side of a server's proxy (network-proxy.ts), and the proxy's
 * credential check. A proxy on a Unix socket only its server's sandbox sees
 * asks for no credential (SOCKS5 method "no authentication"); a proxy on a
 * loopback port, which any program on the computer can reach, demands the
 * server's credential: HTTP Basic (`Proxy-Authorization`) for CONNECT and
 * plain HTTP, RFC 1929 user/password for SOCKS5. The user name is not
 * checked (sandbox-runtime's environment puts its own there); the password
 * is the credential, compared in constant time.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Verdict } from './network-decision';

/** The header a 407 answer carries. */
export const CHALLENGE = 'Proxy-Authenticate: Basic realm="airlock"';

/** Whether `a` and `b` are the same string, in time that does not depend on where they differ. */
function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Whether a `Proxy-Authorization` header is `Basic` with `credential` as its password. */
export function basicPasswordMatches(header: string | string[] | undefined, credential: string): boolean {
  if (typeof header !== 'string') return false;
  const match = /^\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return false;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  return sameSecret(decoded.slice(colon + 1), credential);
}

type Tunnel = (client: Duplex, address: string, port: number, onOpen: () => void, onFail: () => void) => void;

/**
 * A minimal SOCKS5 server side: CONNECT only; "no authentication" when the
 * proxy has no credential, else only user/password with the credential as
 * the password (a connection offering no such method is refused before any
 * request is read).
 */
export function handleSocks5(
  socket: Socket,
  first: Buffer,
  decide: (host: string, port: number) => Promise<Verdict>,
  tunnel: Tunnel,
  credential: string | undefined,
  refuseUnauthorised: (host: string, port: number) => void,
): void {
  let buffer = first;
  let stage: 'greeting' | 'auth' | 'request' | 'done' = 'greeting';
  const fail = (code: number): void => {
    socket.end(Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
  };
  const step = (): void => {
    if (stage === 'greeting') {
      if (buffer.length < 2) return;
      const count = buffer[1]!;
      if (buffer.length < 2 + count) return;
      const methods = buffer.subarray(2, 2 + count);
      buffer = buffer.subarray(2 + count);
      const wanted = credential === undefined ? 0x00 : 0x02;
      if (!methods.includes(wanted)) {
        // SECURITY (invariant 5): a proxy with a credential never falls back to "no authentication".
        if (credential !== undefined) refuseUnauthorised('(unknown)', 0);
        socket.end(Buffer.from([0x05, 0xff]));
        stage = 'done';
        return;
      }
      socket.write(Buffer.from([0x05, wanted]));
      stage = credential === undefined ? 'request' : 'auth';
    }
    if (stage === 'auth') {
      // RFC 1929: VER=1, ULEN, UNAME, PLEN, PASSWD.
      if (buffer.length < 2) return;
      const userLength = buffer[1]!;
      if (buffer.length < 2 + userLength + 1) return;
      const passwordLength = buffer[2 + userLength]!;
      const end = 3 + userLength + passwordLength;
      if (buffer.length < end) return;
      const password = buffer.subarray(3 + userLength, end).toString('utf8');
      const version = buffer[0];
      buffer = buffer.subarray(end);
      if (version !== 0x01 || !sameSecret(password, credential!)) {
        refuseUnauthorised('(unknown)', 0);
        socket.end(Buffer.from([0x01, 0x01]));
        stage = 'done';
        return;
      }
      socket.write(Buffer.from([0x01, 0x00]));
      stage = 'request';
    }
    if (stage === 'request') {
      if (buffer.length < 5) return;
      if (buffer[0] !== 0x05 || buffer[1] !== 0x01) {
        stage = 'done';
        fail(0x07);
        return;
      }
      const atyp = buffer[3];
      let host: string;
      let offset: number;
      if (atyp === 0x01) {
        if (buffer.length < 10) return;
        host = Array.from(buffer.subarray(4, 8)).join('.');
        offset = 8;
      } else if (atyp === 0x03) {
        const len = buffer[4]!;
        if (buffer.length < 5 + len + 2) return;
        host = buffer.subarray(5, 5 + len).toString('latin1');
        offset = 5 + len;
      } else if (atyp === 0x04) {
        if (buffer.length < 22) return;
        const parts: string[] = [];
        for (let i = 0; i < 16; i += 2) parts.push(buffer.readUInt16BE(4 + i).toString(16));
        host = parts.join(':');
        offset = 20;
      } else {
        stage = 'done';
        fail(0x08);
        return;
      }
      const port = buffer.readUInt16BE(offset);
      const rest = buffer.subarray(offset + 2);
      stage = 'done';
      socket.off('data', onData);
      socket.pause();
      void decide(host, port).then((verdict) => {
        if (!verdict.allowed) {
          fail(0x02);
          return;
        }
        tunnel(
          socket,
          verdict.address,
          port,
          () => {
            socket.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
            if (rest.length > 0) socket.unshift(rest);
            socket.resume();
          },
          () => fail(0x05),
        );
      });
    }
  };
  const onData = (chunk: Buffer): void => {
    buffer = Buffer.concat([buffer, chunk]);
    if (buffer.length > 1024) {
      socket.destroy();
      return;
    }
    step();
  };
  socket.on('data', onData);
  socket.resume();
  step();
}
