/**
 * The owner socket as a hostile same-user process meets it: raw JSON lines
 * on the socket, no Airlock client code. The owner is a real SharedHost with
 * a real host and real servers in the real sandbox; every effect is checked
 * from outside (the file the server would write, the fixture's own record of
 * calls, the audit log).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfirmationView } from '../../../shared/views';
import { AirlockHost } from '../../../electron/core/host';
import { OwnerClient, ownerEndpoint } from '../../../electron/core/ipc/local-socket';
import { SharedHost } from '../../../electron/core/ipc/shared-host';
import { layoutTerminalPrompt, promptText, terminalCallFromView } from '../../../electron/cli/confirmation-prompt';
import { addLocalServer } from '../../support/add-server';
import { RawPeer } from '../../support/raw-peer';
import { FILESYSTEM_SERVER, fixture } from '../host/host-support';

const LIAR = fixture('policy/liar.mjs');
const ESC = '\u001b';

let root: string;
let dataDir: string;
let work: string;
let records: string;
let owner: SharedHost;
let host: AirlockHost;
let endpoint: ReturnType<typeof ownerEndpoint>;
/** The real, honest gateway client with a terminal: the one the confirmations are routed to. */
let gateway: OwnerClient;
const gatewayEvents: ConfirmationView[][] = [];

const tidyCalls = () => (existsSync(join(records, 'tidy')) ? readFileSync(join(records, 'tidy'), 'utf8').split('\n').filter(Boolean).length : 0);

async function auditRows() {
  return host.activity.entries({ limit: 500 });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'airlock-owner-socket-'));
  dataDir = join(root, 'data');
  work = join(root, 'work');
  records = join(root, 'records');
  for (const dir of [work, records, join(root, 'home')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(work, 'notes.md'), 'notes');
  owner = await SharedHost.open({
    dataDir,
    role: 'gateway',
    label: 'test owner',
    // The owner has no terminal of its own: only a client's terminal can be asked.
    canAsk: () => false,
    createHost: (hooks) =>
      new AirlockHost({ dataDir, version: '0.0.0-test', homeDir: join(root, 'home'), hooks, confirmationTimeoutMs: 60_000, supervisor: { defaultCall: { timeoutMs: 10_000, maxTotalMs: 20_000 } } }),
  });
  host = owner.localHost!;
  await addLocalServer(host, 'files', [process.execPath, FILESYSTEM_SERVER, work], { profile: { filesystem: { read: [work], write: [work], persistentData: false } } });
  await addLocalServer(host, 'liar', [process.execPath, LIAR, records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
  endpoint = ownerEndpoint(dataDir);
  gateway = (await OwnerClient.connect(dataDir, { role: 'gateway', terminal: true, label: 'honest gateway' }))!;
  gateway.onEvent((event, payload) => {
    if (event === 'approvals.didChange') gatewayEvents.push(payload as ConfirmationView[]);
  });
}, 120_000);

afterAll(async () => {
  gateway?.close();
  await owner?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the owner socket authenticates its peers', () => {
  it('refuses a request before the peer proved it can read owner.key, and closes the connection', async () => {
    const peer = await RawPeer.connect(endpoint.socketPath);
    const reply = await peer.request('ipc', { channel: 'settings.setPolicyMode', request: { mode: 'strict' } });
    expect(reply.error).toMatchObject({ code: 'forbidden-sender' });
    await expect.poll(() => peer.closed).toBe(true);
    expect(host.policy.mode()).toBe('default');
  });

  it('refuses a hello with a wrong proof (a key the peer could not read)', async () => {
    const peer = await RawPeer.connect(endpoint.socketPath);
    await peer.waitFor((message) => message.event === 'owner.challenge');
    const reply = await peer.request('hello', { role: 'app', terminal: true, label: 'Airlock app', nonce: 'n'.repeat(32), proof: createHmac('sha256', 'guess').update('x').digest('base64url') });
    expect(reply.error).toMatchObject({ code: 'forbidden-sender' });
    await expect.poll(() => peer.closed).toBe(true);
  });

  it('an authenticated client cannot be the window: its own call is typed cli, and a destructive one is refused with nobody to ask', async () => {
    const peer = await RawPeer.connect(endpoint.socketPath);
    await peer.authenticate(endpoint.keyPath, { role: 'app', label: 'Airlock app' });
    const target = join(work, 'as-user.txt');
    const reply = await peer.request('ipc', { channel: 'tools.call', request: { server: 'files', tool: 'write_file', arguments: { path: target, content: 'x' } } });
    const result = (reply.result as { value: { outcome: string; nobodyToAsk?: boolean } }).value;
    expect(result).toMatchObject({ outcome: 'denied', nobodyToAsk: true });
    expect(existsSync(target)).toBe(false);
    const decision = (await auditRows()).find((row) => row.kind === 'decision' && row.tool === 'write_file');
    expect(decision).toMatchObject({ caller: 'You (command line)', callerKind: 'cli', verdict: 'refused: nobody could be asked' });
    peer.close();
  });

  it('a caller kind sent with a gateway call is ignored: it runs as a client, whatever it claims', async () => {
    const peer = await RawPeer.connect(endpoint.socketPath);
    await peer.authenticate(endpoint.keyPath);
    const target = join(work, 'claimed-user.txt');
    const reply = await peer.request('tools.call', { server: 'files', tool: 'write_file', arguments: { path: target, content: 'x' }, caller: { kind: 'user' }, clientName: 'You' });
    expect(JSON.stringify(reply)).toMatch(/confirmation/);
    expect(existsSync(target)).toBe(false);
    const decision = (await auditRows()).find((row) => row.kind === 'decision' && row.arguments && (row.arguments as { path?: string }).path === target);
    expect(decision).toMatchObject({ caller: 'app “You”', callerKind: 'client', verdict: 'refused: nobody could be asked' });
    peer.close();
  });

  it('strict mode applies to a client’s own calls: even a read asks, and with no terminal is refused', async () => {
    host.policy.setMode('strict');
    try {
      const peer = await RawPeer.connect(endpoint.socketPath);
      await peer.authenticate(endpoint.keyPath, { role: 'cli' });
      const reply = await peer.request('ipc', { channel: 'tools.call', request: { server: 'files', tool: 'read_text_file', arguments: { path: join(work, 'notes.md') } } });
      expect((reply.result as { value: unknown }).value).toMatchObject({ outcome: 'denied', nobodyToAsk: true, content: [] });
      peer.close();
    } finally {
      host.policy.setMode('default');
    }
  });
});

describe('confirmations go only to the shell the call came through', () => {
  it('another client neither sees nor can answer a confirmation routed to the honest gateway; its terminal answer decides', async () => {
    const attacker = await RawPeer.connect(endpoint.socketPath);
    await attacker.authenticate(endpoint.keyPath, { role: 'app', terminal: true, label: 'Airlock app' });
    writeFileSync(join(records, 'victim.txt'), 'keep');
    const before = tidyCalls();
    const call = gateway.callTool({ server: 'liar', tool: 'tidy_up', arguments: { path: join(records, 'victim.txt') }, caller: { kind: 'client', name: 'Honest App' } });
    // The honest gateway is shown its confirmation (it has a terminal)…
    await expect.poll(() => gatewayEvents.at(-1)?.length ?? 0, { timeout: 20_000 }).toBe(1);
    const view = gatewayEvents.at(-1)![0]!;
    expect(view.callerLabel).toBe('Honest App');
    // …the attacker is not: not in a listing, not in an event.
    const listed = await attacker.request('ipc', { channel: 'approvals.list', request: {} });
    expect((listed.result as { value: unknown[] }).value).toEqual([]);
    for (const message of attacker.messages.filter((m) => m.event === 'approvals.didChange')) expect(message.payload).toEqual([]);
    // Even knowing the id, its answer is refused, and it cannot extend the deadline.
    const answered = await attacker.request('ipc', { channel: 'approvals.answer', request: { id: view.id, choice: 'allow-once' } });
    expect((answered.result as { value: unknown }).value).toEqual({ accepted: false, reason: 'Airlock did not ask this.' });
    const extended = await attacker.request('ipc', { channel: 'approvals.extend', request: { id: view.id } });
    expect((extended.result as { value: unknown }).value).toEqual({});
    expect(tidyCalls()).toBe(before);
    expect(host.confirmations.get(view.id)).toBeDefined();
    // The honest gateway's answer (its person at its terminal) is the one that counts.
    expect(await gateway.invoke('approvals.answer', { id: view.id, choice: 'deny' })).toEqual({ accepted: true });
    await expect(call).rejects.toThrow(/denied/);
    expect(tidyCalls()).toBe(before);
    expect(readFileSync(join(records, 'victim.txt'), 'utf8')).toBe('keep');
    const decision = (await auditRows()).find((row) => row.kind === 'decision' && row.tool === 'tidy_up');
    expect(decision).toMatchObject({ caller: 'app “Honest App”', verdict: 'denied after you answered in the terminal', answeredBy: 'deny (terminal)' });
    attacker.close();
  });

  it('a client that has no terminal is not asked: its call is refused at once, never routed elsewhere', async () => {
    const peer = await RawPeer.connect(endpoint.socketPath);
    await peer.authenticate(endpoint.keyPath, { terminal: false });
    const before = tidyCalls();
    const reply = await peer.request('tools.call', { server: 'liar', tool: 'tidy_up', arguments: { path: join(records, 'victim.txt') }, clientName: 'No Terminal' });
    expect(JSON.stringify(reply)).toMatch(/nobody could be asked/);
    expect(gatewayEvents.at(-1)).toEqual([]);
    expect(tidyCalls()).toBe(before);
    peer.close();
  });

  it('network questions are never shown to a client process', async () => {
    const peer = await RawPeer.connect(endpoint.socketPath);
    await peer.authenticate(endpoint.keyPath, { role: 'app', terminal: true });
    expect((await peer.request('ipc', { channel: 'network.pending', request: {} })).result).toEqual({ ok: true, value: [] });
    expect((await peer.request('ipc', { channel: 'network.answer', request: { id: 'x'.repeat(20), allow: true, remember: true } })).result).toEqual({ ok: true, value: { accepted: false } });
    peer.close();
  });
});

describe('labels a client chose are inert wherever they are printed', () => {
  it('escape sequences in a client name reach neither the audit log’s words nor the terminal prompt', async () => {
    const peer = await RawPeer.connect(endpoint.socketPath);
    await peer.authenticate(endpoint.keyPath, { label: `${ESC}[2J${ESC}]0;pwned\u0007` });
    const name = `${ESC}[2J${ESC}[1;1H\u202eYou\u0007`;
    await peer.request('tools.call', { server: 'liar', tool: 'tidy_up', arguments: { path: join(records, `${ESC}[31mred`) }, clientName: name });
    const decision = (await auditRows()).find((row) => row.kind === 'decision' && row.caller.includes('You') && row.callerKind === 'client' && row.tool === 'tidy_up' && row.verdict === 'refused: nobody could be asked');
    expect(decision).toBeDefined();
    expect(decision!.caller).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    // The prompt a terminal prints, built from a view carrying hostile text everywhere a client or server chose it.
    const text = promptText(layoutTerminalPrompt(terminalCallFromView({
      id: 'x',
      headline: 'h',
      consequence: 'it may delete or overwrite things',
      targets: [],
      argumentList: [],
      restatement: '',
      caller: { kind: 'client', name },
      callerLabel: name,
      server: `files${ESC}[2J`,
      serverTrusted: false,
      serverSandboxed: true,
      sandboxSummary: '',
      tool: `write${ESC}[8m`,
      inputSchema: {},
      arguments: { path: `${ESC}]8;;http://x${ESC}\\` },
      reading: { class: 'destructive' } as never,
      reasons: [],
      destructive: true,
      deadline: 0,
      createdAt: 0,
    } as ConfirmationView), { columns: 80, code: 'K7QX' }));
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    peer.close();
  });
});

describe('an owner whose own shell is a terminal (a gateway started on one)', () => {
  it('is asked about its own calls only; a call that came through no shell of its own is refused at once, not left to expire', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-owner-terminal-'));
    const seen: ConfirmationView[][] = [];
    const shared = await SharedHost.open({
      dataDir: join(dir, 'data'),
      role: 'gateway',
      label: 'gateway on a terminal',
      canAsk: () => true,
      onEvent: (event, payload) => {
        if (event === 'approvals.didChange') seen.push(payload as ConfirmationView[]);
      },
      createHost: (hooks) => new AirlockHost({ dataDir: join(dir, 'data'), version: '0.0.0-test', homeDir: join(root, 'home'), hooks, confirmationTimeoutMs: 60_000 }),
    });
    try {
      const local = shared.localHost!;
      const own = join(dir, 'records');
      mkdirSync(own);
      await addLocalServer(local, 'liar', [process.execPath, LIAR, own], { profile: { filesystem: { read: [], write: [own], persistentData: false } } });
      // The built-in agent's call has no terminal of its own: only a window could be asked, and there is none.
      const started = Date.now();
      const agent = await local.calls.call({ server: 'liar', tool: 'tidy_up', arguments: { path: join(own, 'x') }, caller: { kind: 'agent', provider: 'test', model: 'm' } });
      expect(agent).toMatchObject({ outcome: 'denied', nobodyToAsk: true });
      expect(Date.now() - started).toBeLessThan(30_000);
      // The gateway's own call is asked on its terminal: its shell is shown the confirmation and answers it.
      const call = shared.callTool({ server: 'liar', tool: 'tidy_up', arguments: { path: join(own, 'y') }, caller: { kind: 'client', name: 'Local App' } });
      await expect.poll(() => seen.at(-1)?.length ?? 0, { timeout: 20_000 }).toBe(1);
      const view = seen.at(-1)![0]!;
      expect(await shared.invoke('approvals.answer', { id: view.id, choice: 'deny' })).toEqual({ accepted: true });
      await expect(call).rejects.toThrow(/denied/);
    } finally {
      await shared.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

