// A remote server as the supervisor runs it: a real MCP server over HTTP (the SDK's server side, its
// own process on 127.0.0.1) reached through the remote connector — streamable HTTP, the HTTP+SSE
// fallback, headers with secrets, and refusals (a web page, an address more private than the server's).
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type RemoteSpec, type ServerSpec } from '../../../shared/domain';
import { ChannelError } from '../../../electron/core/servers/connection-channel';
import type { SupervisedServer } from '../../../electron/core/servers/supervisor';
import { createRemoteConnector, type RemoteConnectorOptions } from '../../../electron/core/remote/remote-connector';
import { MemoryVault } from '../../../electron/core/remote/oauth-vault';
import { testContext } from '../servers/support/pass-through-launcher';
import { recordDir } from '../servers/support/fixtures';
import { makeSupervisor, waitForState } from '../servers/support/harness';
import { startRemoteFixture } from './support/remote-fixture';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function remoteSpec(url: string, remote: Partial<RemoteSpec> = {}): ServerSpec {
  return { command: url, args: [], env: {}, remote: { url, transport: 'auto', headers: [], ...remote } };
}

function supervisedRemote(name: string, spec: ServerSpec, extra: Partial<RemoteConnectorOptions> = {}): SupervisedServer {
  const link = createRemoteConnector({ label: name, spec: spec.remote!, secrets: () => ({}), vault: new MemoryVault(), ...extra });
  cleanups.push(() => link.close());
  return { spec, profile: defaultSandboxProfile(), context: testContext(name), remote: link };
}

async function fixture(env: Record<string, string>) {
  const rec = recordDir();
  const server = await startRemoteFixture({ AIRLOCK_RECORD_DIR: rec.dir, ...env });
  cleanups.push(rec.cleanup, () => server.stop());
  return { rec, server };
}

describe('remote servers under the supervisor', () => {
  it('runs a streamable HTTP server: ready, tools listed, a call reaches it; no process, no sandbox', async () => {
    const { rec, server } = await fixture({ REMOTE_MODE: 'streamable' });
    const { supervisor, launcher, states } = makeSupervisor({ web: supervisedRemote('web', remoteSpec(server.url)) });
    cleanups.push(() => supervisor.stopAll());

    await supervisor.start('web');
    const status = supervisor.status('web');
    expect(status).toMatchObject({ state: 'ready', sandboxed: false, serverInfo: { name: 'remote-streamable' } });
    expect(status.pid).toBeUndefined();
    expect(status.remote).toBe(`${server.url} over streamable HTTP`);
    expect(launcher.planned).toBe(0); // nothing was launched
    expect(supervisor.tools.lookup('web', 'echo')?.definition.name).toBe('echo');

    const result = await supervisor.callTool('web', 'echo', { message: 'over http' }, { timeoutMs: 5000, maxTotalMs: 10_000 });
    expect(result.content).toEqual([{ type: 'text', text: 'over http' }]);
    expect(rec.lines('calls')).toEqual(['echo']);

    await supervisor.stop('web');
    expect(states.web).toEqual(['starting', 'ready', 'stopped']);
    // The session was ended on the server (DELETE), not just dropped.
    expect(rec.lines('requests')).toContain('DELETE /mcp');
  });

  it('falls back to HTTP+SSE when the server refuses the streamable POST (4xx), and says so', async () => {
    const { rec, server } = await fixture({ REMOTE_MODE: 'sse' });
    const { supervisor } = makeSupervisor({ old: supervisedRemote('old', remoteSpec(server.url)) });
    cleanups.push(() => supervisor.stopAll());

    await supervisor.start('old');
    const status = supervisor.status('old');
    expect(status).toMatchObject({ state: 'ready', serverInfo: { name: 'remote-sse' } });
    expect(status.remote).toBe(`${server.url} over HTTP+SSE`);
    expect(supervisor.log('old').map((line) => line.text).join('\n')).toMatch(/streamable HTTP was refused \(HTTP 405\); trying the older HTTP\+SSE transport/);
    const result = await supervisor.callTool('old', 'echo', { message: 'over sse' }, { timeoutMs: 5000, maxTotalMs: 10_000 });
    expect(result.content).toEqual([{ type: 'text', text: 'over sse' }]);
    expect(rec.lines('requests').slice(0, 2)).toEqual(['POST /mcp', 'GET /mcp']);
    expect(rec.lines('calls')).toEqual(['echo']);
  });

  it('refuses a server that answers with a web page, plainly, and does not retry on its own', async () => {
    const { server } = await fixture({ REMOTE_MODE: 'html' });
    const { supervisor } = makeSupervisor({ page: supervisedRemote('page', remoteSpec(server.url, { transport: 'streamable-http' })) });
    cleanups.push(() => supervisor.stopAll());

    await supervisor.start('page').catch(() => undefined);
    const status = supervisor.status('page');
    expect(status.state).toBe('stopped');
    expect(status.lastError).toMatch(/answered with a web page \(text\/html\), not MCP/);
  });

  it('refuses a redirect to another origin (here the cloud metadata address) with the reason; nothing follows it', async () => {
    const { server } = await fixture({ REMOTE_MODE: 'redirect' });
    const link = createRemoteConnector({ label: 'moved', spec: remoteSpec(server.url).remote!, secrets: () => ({}), vault: new MemoryVault() });
    cleanups.push(() => link.close());
    const error = await link.open({ initializeTimeoutMs: 5000 }, new AbortController().signal).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ChannelError);
    expect((error as Error).message).toMatch(/redirected to .*169\.254\.169\.254.*Airlock follows a redirect only within the same origin/);
  });

  it('sends a header with its secret filled in, and only when the secret is set (else nothing is sent)', async () => {
    const { rec, server } = await fixture({ REMOTE_MODE: 'streamable', REMOTE_AUTH: 'key', REMOTE_API_KEY: 'k-123' });
    const headers = [{ name: 'X-Api-Key', value: '${secret.API_KEY}' }];

    const missing = makeSupervisor({ keyless: supervisedRemote('keyless', remoteSpec(server.url, { headers })) });
    cleanups.push(() => missing.supervisor.stopAll());
    await missing.supervisor.start('keyless').catch(() => undefined);
    expect(missing.supervisor.status('keyless').lastError).toMatch(/header X-Api-Key needs the secret API_KEY, which is not set.*Nothing was sent/);
    expect(rec.lines('requests')).toEqual([]);

    const keyed = makeSupervisor({ keyed: supervisedRemote('keyed', remoteSpec(server.url, { headers }), { secrets: () => ({ API_KEY: 'k-123' }) }) });
    cleanups.push(() => keyed.supervisor.stopAll());
    await keyed.supervisor.start('keyed');
    expect(keyed.supervisor.state('keyed')).toBe('ready');
    const verdicts = rec.lines('api-key');
    expect(verdicts.length).toBeGreaterThan(0);
    expect(new Set(verdicts)).toEqual(new Set(['ok']));

    // A wrong key: the server's 401 is told plainly, and the server is not retried on its own.
    const wrong = makeSupervisor({ wrong: supervisedRemote('wrong', remoteSpec(server.url, { headers }), { secrets: () => ({ API_KEY: 'nope' }) }) });
    cleanups.push(() => wrong.supervisor.stopAll());
    await wrong.supervisor.start('wrong').catch(() => undefined);
    // A key header named Authorization would disable sign-in; X-Api-Key does not, so the 401 starts a
    // sign-in — which, with no person at hand, says so instead of opening a browser.
    expect(wrong.supervisor.status('wrong')).toMatchObject({ state: 'stopped' });
    expect(wrong.supervisor.status('wrong').lastError).toMatch(/needs you to sign in|refused the credentials/);
  });

  it('a session the server forgot (404): the call is refused as not run, the server is reconnected, and the next call works', async () => {
    const { rec, server } = await fixture({ REMOTE_MODE: 'streamable' });
    const { supervisor } = makeSupervisor({ web: supervisedRemote('web', remoteSpec(server.url)) }, { policy: { backoffInitialMs: 50, backoffMaxMs: 200 } });
    cleanups.push(() => supervisor.stopAll());
    await supervisor.start('web');
    const forgot = await fetch(new URL('/__forget-sessions', server.url), { method: 'POST' });
    expect(forgot.status).toBe(204);

    const error = await supervisor.callTool('web', 'echo', { message: 'lost' }, { timeoutMs: 5000, maxTotalMs: 10_000 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ kind: 'refused', outcomeUnknown: false });
    expect((error as Error).message).toMatch(/no longer knows this session \(404\).*nothing was done/);
    expect(rec.lines('calls')).toEqual([]); // the tool never ran

    await waitForState(supervisor, 'web', 'ready', 20_000);
    const again = await supervisor.callTool('web', 'echo', { message: 'back' }, { timeoutMs: 5000, maxTotalMs: 10_000 });
    expect(again.content).toEqual([{ type: 'text', text: 'back' }]);
    expect(rec.lines('calls')).toEqual(['echo']);
  });

  it('refuses to connect when the name resolves somewhere more private than the server’s zone (DNS rebinding): nothing reaches it', async () => {
    const { rec, server } = await fixture({ REMOTE_MODE: 'streamable' });
    const url = `http://rebind.example.test:${server.port}/mcp`;
    const link = createRemoteConnector({
      label: 'rebind',
      spec: remoteSpec(url).remote!,
      zone: 'public',
      secrets: () => ({}),
      vault: new MemoryVault(),
      // The name resolved to a public address when the person added it; now it answers 127.0.0.1.
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    cleanups.push(() => link.close());
    const error = await link.open({ initializeTimeoutMs: 5000 }, new AbortController().signal).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ChannelError);
    expect(error).toMatchObject({ kind: 'address-refused', serverMayHaveActed: false });
    expect((error as Error).message).toMatch(/resolves to 127\.0\.0\.1, this computer \(loopback\).*the internet/);
    expect(rec.lines('requests')).toEqual([]);

    // The same server in its own (loopback) zone connects: the refusal above was the zone check.
    const own = createRemoteConnector({ label: 'own', spec: remoteSpec(url).remote!, zone: 'loopback', secrets: () => ({}), vault: new MemoryVault(), resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    cleanups.push(() => own.close());
    const connection = await own.open({ initializeTimeoutMs: 5000 }, new AbortController().signal);
    cleanups.push(() => connection.close());
    expect(rec.lines('requests')).toContain('POST /mcp');
  });
});
