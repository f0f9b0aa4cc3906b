import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canonicalHost,
  isNonPublicAddress,
  matchesGrant,
  startServerProxy,
  type NetworkDecision,
  type ServerProxy,
} from '../../../electron/core/sandbox/network-proxy';

describe('grant matching', () => {
  it.each([
    ['api.example.com', 443, 'api.example.com', true],
    ['API.Example.com.', 443, 'api.example.com', true],
    ['api.example.com', 443, '*.example.com', true],
    ['example.com', 443, '*.example.com', false],
    ['evilexample.com', 443, '*.example.com', false],
    ['api.example.com.evil.net', 443, 'api.example.com', false],
    ['127.0.0.1', 8080, '127.0.0.1:8080', true],
    ['127.0.0.1', 8081, '127.0.0.1:8080', false],
    ['127.0.0.1', 22, '127.0.0.1', true],
    ['::1', 8080, '[::1]:8080', true],
    ['example.com', 8443, 'example.com:443', false],
    ['0:0:0:0:0:0:0:1', 8080, '[::1]:8080', true],
  ])('%s:%d against %s → %s', (host, port, grant, expected) => {
    const canonical = canonicalHost(host);
    expect(canonical !== undefined && matchesGrant(canonical, port, grant)).toBe(expected);
  });

  it.each(['evil.com\0.example.com', 'a b', '2130706433', '127.1', '0x7f000001', 'ex%61mple.com', ''])(
    'refuses the malformed or shorthand host %j',
    (host) => {
      expect(canonicalHost(host)).toBeUndefined();
    },
  );

  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.20.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['93.184.216.34', false],
    ['2606:2800:220:1:248:1893:25c8:1946', false],
  ])('%s is non-public: %s', (address, expected) => {
    expect(isNonPublicAddress(address)).toBe(expected);
  });
});

/** Talks to a proxy's Unix socket the way the in-sandbox bridge does. */
function exchange(socketPath: string, bytes: Buffer[], until: (data: Buffer) => boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(socketPath);
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
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      resolve(data);
    }, 3000).unref();
  });
}

describe('one server’s proxy, driven directly', () => {
  let dir: string;
  let echo: Server;
  let echoPort: number;
  let proxy: ServerProxy;
  const decisions: NetworkDecision[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'airlock-proxy-test-'));
    echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    echoPort = (echo.address() as { port: number }).port;
    proxy = await startServerProxy(join(dir, 'proxy.sock'), {
      serverName: 'direct',
      allowedDomains: [`127.0.0.1:${echoPort}`, 'localhost'],
      onDecision: (d) => decisions.push(d),
    });
  });

  afterAll(async () => {
    await proxy.close();
    await new Promise((r) => echo.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  const socksConnect = (host: Buffer, port: number, atyp: number) =>
    Buffer.concat([Buffer.from([0x05, 0x01, 0x00, atyp]), host, Buffer.from([port >> 8, port & 0xff])]);

  it('tunnels SOCKS5 to a granted IP', async () => {
    const reply = await exchange(
      proxy.socketPath,
      [Buffer.from([0x05, 0x01, 0x00]), socksConnect(Buffer.from([127, 0, 0, 1]), echoPort, 0x01), Buffer.from('ping')],
      (data) => data.includes('ping'),
    );
    expect(reply.subarray(0, 2)).toEqual(Buffer.from([0x05, 0x00]));
    expect(reply.subarray(2, 4)).toEqual(Buffer.from([0x05, 0x00]));
    expect(reply.toString('latin1')).toContain('ping');
  });

  it('refuses SOCKS5 to an ungranted port with "not allowed by ruleset"', async () => {
    const reply = await exchange(
      proxy.socketPath,
      [Buffer.from([0x05, 0x01, 0x00]), socksConnect(Buffer.from([127, 0, 0, 1]), echoPort + 1 > 65535 ? 1 : echoPort + 1, 0x01)],
      (data) => data.length >= 4,
    );
    expect(reply[3]).toBe(0x02);
  });

  it('refuses a granted name that resolves to loopback (DNS rebinding)', async () => {
    const name = Buffer.from('localhost');
    const reply = await exchange(
      proxy.socketPath,
      [Buffer.from([0x05, 0x01, 0x00]), socksConnect(Buffer.concat([Buffer.from([name.length]), name]), echoPort, 0x03)],
      (data) => data.length >= 4,
    );
    expect(reply[3]).toBe(0x02);
    expect(decisions).toContainEqual({ serverName: 'direct', host: 'localhost', port: echoPort, allowed: false, reason: 'non-public-address' });
  });

  it('answers CONNECT to an ungranted host with 403 and never dials it', async () => {
    const reply = await exchange(proxy.socketPath, [Buffer.from('CONNECT 10.0.0.1:443 HTTP/1.1\r\nHost: 10.0.0.1:443\r\n\r\n')], (data) =>
      data.includes('\r\n\r\n'),
    );
    expect(reply.toString()).toMatch(/^HTTP\/1.1 403/);
    expect(decisions).toContainEqual({ serverName: 'direct', host: '10.0.0.1', port: 443, allowed: false, reason: 'not-granted' });
  });

  it('counts no live connections once the clients are gone', async () => {
    await new Promise((r) => setTimeout(r, 50));
    expect(proxy.openConnections).toBe(0);
  });

  it('asks once per host, gives up on a question left unanswered, and stops asking past a cap', async () => {
    const asked: string[] = [];
    const local: NetworkDecision[] = [];
    const asking = await startServerProxy(join(dir, 'ask.sock'), {
      serverName: 'asker',
      allowedDomains: [],
      askTimeoutMs: 100,
      ask: (server, host, port) => {
        asked.push(`${server} ${host}:${port}`);
        return port === 1 ? new Promise(() => {}) : Promise.resolve(false);
      },
      onDecision: (d) => local.push(d),
    });
    const connectTo = (host: string, port: number) =>
      exchange(asking.socketPath, [Buffer.from(`CONNECT ${host}:${port} HTTP/1.1\r\n\r\n`)], (data) => data.includes('\r\n\r\n'));
    try {
      expect((await connectTo('10.9.9.9', 1)).toString()).toMatch(/^HTTP\/1.1 403/);
      expect(local.at(-1)).toMatchObject({ reason: 'ask-failed', allowed: false });
      for (let port = 2; port <= 40; port += 1) await connectTo('10.9.9.9', port);
      await connectTo('10.9.9.9', 2);
      expect(asked).toHaveLength(32);
      expect(asked[0]).toBe('asker 10.9.9.9:1');
      expect(local.at(-2)).toMatchObject({ reason: 'too-many-questions', allowed: false });
      expect(local.at(-1)).toMatchObject({ port: 2, reason: 'user-denied' });
    } finally {
      await asking.close();
    }
  });

  it('close() stops listening and removes the socket', async () => {
    const short = await startServerProxy(join(dir, 'short.sock'), { serverName: 'short', allowedDomains: [] });
    expect(existsSync(short.socketPath)).toBe(true);
    await short.close();
    expect(existsSync(short.socketPath)).toBe(false);
  });
});
