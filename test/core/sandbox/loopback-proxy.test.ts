/**
 * A server's proxy on a loopback port (the macOS and Windows backends):
 * any program on the computer — and on Windows any other sandboxed server —
 * can connect to it, so it must demand that server's credential. Written as
 * the attack: a local program that knows the port but not the credential
 * tries CONNECT, plain HTTP and SOCKS5 to a host the server was granted;
 * the target listener must see nothing, and the person is never asked.
 */
import { connect as netConnect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxInitError } from '../../../electron/core/sandbox/errors';
import { startLoopbackProxy, type LoopbackProxy } from '../../../electron/core/sandbox/loopback-proxy';
import type { NetworkDecision } from '../../../electron/core/sandbox/network-proxy';

/** Writes `bytes` one message per reply to 127.0.0.1:`port`, and returns everything read. */
function exchange(port: number, bytes: Buffer[], until: (data: Buffer) => boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: '127.0.0.1', port });
    let data = Buffer.alloc(0);
    let step = 0;
    socket.once('connect', () => socket.write(bytes[step++]!));
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      if (step < bytes.length) socket.write(bytes[step++]!);
      else if (until(data)) {
        socket.destroy();
        resolve(data);
      }
    });
    socket.on('end', () => resolve(data));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      resolve(data);
    }, 3000).unref();
  });
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe("a server's proxy on a loopback port demands its credential", () => {
  let target: Server;
  let targetPort: number;
  let reached = 0;
  let proxy: LoopbackProxy;
  let asked = 0;
  const decisions: NetworkDecision[] = [];

  beforeAll(async () => {
    target = createServer((socket) => {
      reached += 1;
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetPort = (target.address() as { port: number }).port;
    proxy = await startLoopbackProxy({
      serverName: 'tcp-proxied',
      allowedDomains: [`127.0.0.1:${targetPort}`],
      ask: async () => {
        asked += 1;
        return true;
      },
      onDecision: (decision) => decisions.push(decision),
    });
  });

  afterAll(async () => {
    await proxy.close();
    await new Promise((resolve) => target.close(resolve));
  });

  it('listens on 127.0.0.1 with a fresh random credential', () => {
    expect(proxy.host).toBe('127.0.0.1');
    expect(proxy.port).toBeGreaterThan(0);
    expect(proxy.credential.token).toMatch(/^[0-9a-f]{48}$/);
  });

  it('answers CONNECT without a credential with 407 and never dials the granted host', async () => {
    const reply = await exchange(proxy.port, [Buffer.from(`CONNECT 127.0.0.1:${targetPort} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)], (data) => data.includes('\r\n\r\n'));
    expect(reply.toString()).toMatch(/^HTTP\/1.1 407/);
    expect(reply.toString()).toContain('Proxy-Authenticate: Basic');
    expect(reached).toBe(0);
    expect(decisions.at(-1)).toEqual({ serverName: 'tcp-proxied', host: '127.0.0.1', port: targetPort, allowed: false, reason: 'no-credential' });
  });

  it('answers a wrong credential with 407 (the user name alone is not enough)', async () => {
    const reply = await exchange(
      proxy.port,
      [Buffer.from(`CONNECT 127.0.0.1:${targetPort} HTTP/1.1\r\nProxy-Authorization: ${basic(proxy.credential.user, 'guess')}\r\n\r\n`)],
      (data) => data.includes('\r\n\r\n'),
    );
    expect(reply.toString()).toMatch(/^HTTP\/1.1 407/);
    expect(reached).toBe(0);
  });

  it('answers plain HTTP without a credential with 407', async () => {
    const reply = await exchange(proxy.port, [Buffer.from(`GET http://127.0.0.1:${targetPort}/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)], (data) => data.includes('\r\n\r\n'));
    expect(reply.toString()).toMatch(/^HTTP\/1.1 407/);
    expect(reached).toBe(0);
  });

  it('refuses SOCKS5 "no authentication", and a wrong SOCKS5 password', async () => {
    const noAuth = await exchange(proxy.port, [Buffer.from([0x05, 0x01, 0x00])], (data) => data.length >= 2);
    expect([...noAuth.subarray(0, 2)]).toEqual([0x05, 0xff]);
    const user = Buffer.from('airlock');
    const wrong = Buffer.from('guess');
    const reply = await exchange(
      proxy.port,
      [Buffer.from([0x05, 0x01, 0x02]), Buffer.concat([Buffer.from([0x01, user.length]), user, Buffer.from([wrong.length]), wrong])],
      (data) => data.length >= 4,
    );
    expect([...reply.subarray(0, 4)]).toEqual([0x05, 0x02, 0x01, 0x01]);
    expect(reached).toBe(0);
  });

  it('never asks the person about an unauthenticated request', async () => {
    await exchange(proxy.port, [Buffer.from('CONNECT 10.1.2.3:443 HTTP/1.1\r\n\r\n')], (data) => data.includes('\r\n\r\n'));
    expect(asked).toBe(0);
  });

  it('with the credential, tunnels to the granted host over CONNECT and SOCKS5', async () => {
    const connectReply = await exchange(
      proxy.port,
      [Buffer.from(`CONNECT 127.0.0.1:${targetPort} HTTP/1.1\r\nProxy-Authorization: ${basic('srt.anything', proxy.credential.token)}\r\n\r\n`), Buffer.from('ping')],
      (data) => data.includes('ping'),
    );
    expect(connectReply.toString()).toMatch(/^HTTP\/1.1 200/);
    const user = Buffer.from(proxy.credential.user);
    const token = Buffer.from(proxy.credential.token);
    const request = Buffer.concat([Buffer.from([0x05, 0x01, 0x00, 0x01, 127, 0, 0, 1]), Buffer.from([targetPort >> 8, targetPort & 0xff])]);
    const socksReply = await exchange(
      proxy.port,
      [Buffer.from([0x05, 0x01, 0x02]), Buffer.concat([Buffer.from([0x01, user.length]), user, Buffer.from([token.length]), token]), request, Buffer.from('pong')],
      (data) => data.includes('pong'),
    );
    expect([...socksReply.subarray(0, 4)]).toEqual([0x05, 0x02, 0x01, 0x00]);
    expect(socksReply.toString('latin1')).toContain('pong');
    expect(reached).toBe(2);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(2);
  });
});

/** Whether `port` on 127.0.0.1 can be listened on now. */
const portFree = (port: number) =>
  new Promise<boolean>((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });

/**
 * Two free neighbouring ports, below Linux's range for outgoing connections
 * (32768 and up), where other tests' connections running at the same time
 * would otherwise take one between this check and the proxies' start.
 */
async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 20000 + Math.floor(Math.random() * 10000);
    if ((await portFree(base)) && (await portFree(base + 1))) return base;
  }
  throw new Error('no two free neighbouring ports between 20000 and 30000');
}

describe('a loopback proxy in a fixed port range (Windows lets the sandbox reach only 60080–60089)', () => {
  it('takes a free port of the range, and says plainly when every one is taken', async () => {
    const holders: Server[] = [];
    const base = await freePortPair();
    const range = [base, base + 1] as const;
    const first = await startLoopbackProxy({ serverName: 'a', allowedDomains: [] }, { portRange: range });
    const second = await startLoopbackProxy({ serverName: 'b', allowedDomains: [] }, { portRange: range });
    try {
      expect([first.port, second.port].sort()).toEqual([base, base + 1]);
      const attempt = startLoopbackProxy({ serverName: 'c', allowedDomains: [] }, { portRange: range });
      await expect(attempt).rejects.toBeInstanceOf(SandboxInitError);
      await expect(attempt).rejects.toThrow(/at most 2 servers with network access/);
    } finally {
      await first.close();
      await second.close();
      for (const holder of holders) holder.close();
    }
  });
});
