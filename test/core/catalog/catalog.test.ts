/**
 * What servers offer besides tools, through the core, with real servers in
 * the real sandbox: server-everything for the ordinary case, and a fixture
 * for the bad inputs (an oversized resource, binary labelled as text, a
 * prompt changed after approval, a flood of questions, a malformed sampling
 * request). What reached the fixture is counted from outside.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { readServerRequestEntries } from '../../../electron/core/audit/server-request-entries';
import { createGatewayServer } from '../../../electron/core/gateway/gateway-server';
import { createTestHost, EVERYTHING_SERVER, fixture, type TestHost } from '../host/host-support';

const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : []);

async function waitFor<T>(read: () => T | Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i += 1) {
    const value = await read();
    if (ok(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('server-everything’s resources, prompts and completion through the core', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost();
    await t.add('everything', [process.execPath, EVERYTHING_SERVER, 'stdio']);
  });
  afterAll(() => t.close());

  it('lists resources, templates and prompts, pinned at install', async () => {
    const handlers = t.host.ipcHandlers();
    const catalog = await waitFor(() => handlers['catalog.get']({ name: 'everything' }), (c) => c.prompts.length > 0, 'the catalog');
    expect(catalog.offers).toMatchObject({ resources: true, subscribe: true, prompts: true, logging: true });
    expect(catalog.resources.some((r) => r.uri.startsWith('demo://resource/static/document/'))).toBe(true);
    expect(catalog.resources[0]!.gatewayUri).toBe(`airlock://everything/${catalog.resources[0]!.uri}`);
    expect(catalog.resourceTemplates.map((r) => r.uriTemplate)).toContain('demo://resource/dynamic/text/{resourceId}');
    const args = catalog.prompts.find((p) => p.name === 'args-prompt')!;
    expect(args).toMatchObject({ namespacedName: 'everything__args-prompt', isNew: false, approvedAt: expect.any(String) });
    expect(args.arguments.map((a) => a.name)).toEqual(['city', 'state']);
  });

  it('reads text and binary resources, and gets a prompt with arguments', async () => {
    const handlers = t.host.ipcHandlers();
    const textual = await handlers['resources.read']({ server: 'everything', uri: 'demo://resource/dynamic/text/1' });
    expect(textual.contents[0]).toMatchObject({ kind: 'text', text: expect.stringContaining('Resource 1') });
    const binary = await handlers['resources.read']({ server: 'everything', uri: 'demo://resource/dynamic/blob/1' });
    expect(binary.contents[0]).toMatchObject({ kind: 'binary', blob: expect.any(String) });
    const prompt = await handlers['prompts.get']({ server: 'everything', name: 'args-prompt', arguments: { city: 'Lisbon' } });
    expect(JSON.stringify(prompt.messages)).toContain('Lisbon');
  });

  it('completes a prompt argument, in context', async () => {
    const handlers = t.host.ipcHandlers();
    const departments = await handlers['completion.complete']({ server: 'everything', ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'S' } });
    expect(departments.values).toEqual(['Sales', 'Support']);
    const names = await handlers['completion.complete']({ server: 'everything', ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Engineering' } } });
    expect(names.values).toEqual(['Alice', 'Bob', 'Charlie']);
  });

  it('a resource a server does not have is a clear error', async () => {
    await expect(t.host.ipcHandlers()['resources.read']({ server: 'everything', uri: 'demo://nothing/here' })).rejects.toThrow(/everything: /);
  });
});

describe('bad input from a server’s catalog', () => {
  let t: TestHost;
  let records: string;
  beforeAll(async () => {
    t = await createTestHost({ confirmationTimeoutMs: 20_000 });
    records = t.folder('records');
    // The fixture records what reached it into the folder it was granted (its first argument).
    await t.add('abuse', [process.execPath, fixture('servers/catalog-abuse.mjs'), records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
  });
  afterAll(() => t.close());

  it('an oversized resource is refused with a clear error; the server and Airlock stay up', async () => {
    const handlers = t.host.ipcHandlers();
    await expect(handlers['resources.read']({ server: 'abuse', uri: 'note://huge' })).rejects.toThrow(/sent 5\.0 MiB for note:\/\/huge, more than the 4\.0 MiB Airlock passes on/);
    expect((await handlers['resources.read']({ server: 'abuse', uri: 'note://one' })).contents[0]!.text).toBe('the first note');
    expect(t.host.supervisor.state('abuse')).toBe('ready');
  });

  it('binary passed off as text is flagged, never shown as text', async () => {
    const handlers = t.host.ipcHandlers();
    const fake = await handlers['resources.read']({ server: 'abuse', uri: 'note://fake-text' });
    // Four bytes sent (base64 'AAEC/w=='): the padding is not data.
    expect(fake.contents[0]).toMatchObject({ kind: 'binary', bytes: 4, warnings: [expect.objectContaining({ kind: 'claimed-text-sent-binary' })] });
    expect(fake.contents[0]!.text).toBeUndefined();
    const nul = await handlers['resources.read']({ server: 'abuse', uri: 'note://nul-text' });
    expect(nul.contents[0]!.warnings.map((w) => w.kind)).toContain('binary-in-text');
  });

  it('a template resource reads through its own URI', async () => {
    const read = await t.host.ipcHandlers()['resources.read']({ server: 'abuse', uri: 'note://by-id/42' });
    expect(read.contents[0]!.text).toBe('note 42');
  });

  it('a prompt changed after approval is shown as a diff and withheld until approved again', async () => {
    const handlers = t.host.ipcHandlers();
    const before = await waitFor(() => handlers['catalog.get']({ name: 'abuse' }), (c) => c.prompts.length === 1, 'prompts');
    expect(before.prompts[0]!.pendingChange).toBeUndefined();
    await t.host.calls.call({ server: 'abuse', tool: 'change_prompt', arguments: {}, caller: { kind: 'user' } });
    const after = await waitFor(() => handlers['catalog.get']({ name: 'abuse' }), (c) => c.prompts[0]?.pendingChange !== undefined, 'the change');
    const prompt = after.prompts[0]!;
    expect(prompt.pendingChange!.diff.changes.map((c) => c.field)).toContain('Description');
    expect(prompt.warnings.map((w) => w.kind)).toContain('addresses-model');
    await expect(handlers['prompts.get']({ server: 'abuse', name: 'summarise', arguments: { topic: 'x' } })).rejects.toThrow(/changed since you approved it/);
    expect((await t.host.gateway.core().catalog!.prompts(['abuse'])).length).toBe(0);
    // Approving what the person saw releases it.
    await handlers['catalog.approve']({ name: 'abuse', kind: 'prompt', key: 'summarise', fingerprint: prompt.fingerprint });
    expect((await handlers['prompts.get']({ server: 'abuse', name: 'summarise', arguments: { topic: 'x' } })).messages).toHaveLength(1);
    // A stale fingerprint is refused.
    await expect(handlers['catalog.approve']({ name: 'abuse', kind: 'prompt', key: 'summarise', fingerprint: before.prompts[0]!.fingerprint })).rejects.toThrow(/changed again/);
  });

  it('log lines arrive in the server’s log with their level and logger; the level Airlock asks for is sent and kept', async () => {
    const handlers = t.host.ipcHandlers();
    expect(await handlers['logging.setLevel']({ name: 'abuse', level: 'warning' })).toEqual({ level: 'warning' });
    expect(lines(join(records, 'levels'))).toContain('warning');
    expect(t.host.servers.record('abuse').logLevel).toBe('warning');
    await t.host.calls.call({ server: 'abuse', tool: 'log_all_levels', arguments: {}, caller: { kind: 'user' } });
    const log = await waitFor(() => t.host.supervisor.log('abuse'), (l) => l.some((line) => line.text.includes('a emergency line')), 'log lines');
    expect(log.find((line) => line.text.includes('a warning line'))).toMatchObject({ source: 'notification', text: '[warning] abuse: a warning line' });
    // After a restart the level is asked for again.
    await t.host.servers.restart('abuse');
    await waitFor(() => lines(join(records, 'levels')), (l) => l.filter((x) => x === 'warning').length >= 2, 'the level again');
  });

  it('a subscribed resource’s updates travel; others do not; unsubscribing tells the server', async () => {
    const seen: unknown[] = [];
    const catalog = t.host.gateway.core().catalog!;
    const sub = catalog.onDidChange((change) => change.kind === 'resource-updated' && seen.push(change));
    await catalog.subscribe('abuse', 'note://one', 'session-a');
    await catalog.subscribe('abuse', 'note://one', 'session-b');
    expect(lines(join(records, 'subscriptions')).filter((l) => l === '+note://one')).toHaveLength(1);
    await t.host.calls.call({ server: 'abuse', tool: 'update_resource', arguments: {}, caller: { kind: 'user' } });
    await waitFor(() => seen, (s) => s.length > 0, 'an update');
    expect(seen).toEqual([{ server: 'abuse', kind: 'resource-updated', uri: 'note://one' }]);
    await catalog.release('session-a');
    expect(lines(join(records, 'subscriptions'))).not.toContain('-note://one');
    await catalog.unsubscribe('abuse', 'note://one', 'session-b');
    expect(lines(join(records, 'subscriptions'))).toContain('-note://one');
    sub.dispose();
  });

  it('a flood of questions is capped: most are declined without asking, Airlock stays up', async () => {
    t.ask.available = true;
    const call = t.host.calls.call({ server: 'abuse', tool: 'flood_elicitations', arguments: {}, caller: { kind: 'user' } });
    // Answer what is asked (cancel), as a person closing each dialog would.
    const answering = setInterval(() => {
      for (const q of t.host.serverRequests.pending()) t.host.serverRequests.answer(q.id, { action: 'cancel' }, { shell: 'test' });
    }, 20);
    const result = await call;
    clearInterval(answering);
    const counts = JSON.parse((result.result!.content[0] as { text: string }).text) as Record<string, number>;
    expect(counts.cancel).toBe(10);
    expect(counts.decline).toBe(20);
    // Only the first refusal past the cap is on record, not the whole flood.
    const refused = (await readServerRequestEntries(t.host.audit, { server: 'abuse', kind: 'elicitation' })).filter((r) => r.decision.decidedBy === 'rate-cap');
    expect(refused).toHaveLength(1);
    expect(t.host.supervisor.log('abuse').some((line) => line.text.includes('refusing the rest of this minute'))).toBe(true);
    expect(t.host.supervisor.state('abuse')).toBe('ready');
  });

  it('a malformed sampling request gets a protocol error; nothing is asked', async () => {
    const result = await t.host.calls.call({ server: 'abuse', tool: 'bad_sampling', arguments: {}, caller: { kind: 'user' } });
    expect((result.result!.content[0] as { text: string }).text).toMatch(/sampling refused: -32602 .*Invalid sampling request/);
    expect(t.host.serverRequests.pending()).toHaveLength(0);
  });

  it('ping works both ways; a request Airlock never declared is a protocol error, never a question', async () => {
    const pinged = await t.host.calls.call({ server: 'abuse', tool: 'ping_client', arguments: {}, caller: { kind: 'user' } });
    expect((pinged.result!.content[0] as { text: string }).text).toBe('the client answered ping');
    await t.host.supervisor.withConnection('abuse', (connection) => connection.ping());
    const unknown = await t.host.calls.call({ server: 'abuse', tool: 'unknown_request', arguments: {}, caller: { kind: 'user' } });
    expect((unknown.result!.content[0] as { text: string }).text).toBe('refused: -32601');
    expect(t.host.serverRequests.pending()).toHaveLength(0);
  });
});

describe('what the person never reviewed is not served: a prompt and a template swapped in after install', () => {
  let t: TestHost;
  let records: string;
  beforeAll(async () => {
    t = await createTestHost({ confirmationTimeoutMs: 20_000 });
    records = t.folder('records');
    await t.add('swapper', [process.execPath, fixture('servers/catalog-abuse.mjs'), records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
  });
  afterAll(() => t.close());

  /** An app's view, through the gateway, with the SDK's own client. */
  async function appClient() {
    const server = createGatewayServer(t.host.gateway.core(), { log: () => {} });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'an-app', version: '1.0.0' });
    await client.connect(clientSide);
    return client;
  }

  it('the new prompt and template are withheld from apps, shown as new for review, and served once approved', async () => {
    const handlers = t.host.ipcHandlers();
    await waitFor(() => handlers['catalog.get']({ name: 'swapper' }), (c) => c.prompts.length === 1, 'prompts');
    await t.host.calls.call({ server: 'swapper', tool: 'swap_prompt', arguments: {}, caller: { kind: 'user' } });
    const after = await waitFor(() => handlers['catalog.get']({ name: 'swapper' }), (c) => c.prompts[0]?.name === 'summarise-v2' && c.resourceTemplates.length === 2, 'the swap');
    expect(after.prompts[0]).toMatchObject({ name: 'summarise-v2', isNew: true });
    expect(after.resourceTemplates.find((r) => r.uriTemplate === 'note://v2/{id}')).toMatchObject({ isNew: true });

    const client = await appClient();
    expect((await client.listPrompts()).prompts).toEqual([]);
    expect((await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).toEqual([expect.stringContaining('by-id')]);
    await expect(client.getPrompt({ name: 'swapper__summarise-v2', arguments: { topic: 'x' } })).rejects.toThrow(/new since you reviewed swapper/);
    await expect(handlers['prompts.get']({ server: 'swapper', name: 'summarise-v2', arguments: { topic: 'x' } })).rejects.toThrow(/new since you reviewed/);
    // The server never served the injection to anyone.
    expect(lines(join(records, 'prompts'))).toEqual([]);

    await handlers['catalog.approve']({ name: 'swapper', kind: 'prompt', key: 'summarise-v2', fingerprint: after.prompts[0]!.fingerprint });
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['swapper__summarise-v2']);
    await client.close();
  });

  it('a prompt it does not list, or a read through its new template, is not served either (through the gateway, the window and completion)', async () => {
    const handlers = t.host.ipcHandlers();
    // summarise was reviewed and approved at install, then dropped from the list; never-listed never was in it.
    const client = await appClient();
    for (const name of ['swapper__summarise', 'swapper__never-listed']) {
      await expect(client.getPrompt({ name, arguments: { topic: 'x' } }), name).rejects.toThrow(/does not list/);
    }
    await expect(handlers['prompts.get']({ server: 'swapper', name: 'never-listed', arguments: {} })).rejects.toThrow(/does not list/);
    await expect(client.complete({ ref: { type: 'ref/prompt', name: 'swapper__never-listed' }, argument: { name: 'topic', value: 'a' } })).rejects.toThrow(/does not list/);
    await expect(handlers['completion.complete']({ server: 'swapper', ref: { type: 'ref/resource', uri: 'note://v3/{id}' }, argument: { name: 'id', value: '1' } })).rejects.toThrow(/does not list/);
    await expect(handlers['completion.complete']({ server: 'swapper', ref: { type: 'ref/resource', uri: 'note://v2/{id}' }, argument: { name: 'id', value: '1' } })).rejects.toThrow(/new since you reviewed/);
    expect(lines(join(records, 'prompts'))).toEqual([]);

    // A read through the template the person has not approved is refused; a listed resource, a read through the
    // approved template, and an address the server links to (listed nowhere, as MCP allows) are served.
    const byId = (await client.listResourceTemplates()).resourceTemplates[0]!.uriTemplate;
    await expect(client.readResource({ uri: byId.replace('by-id/{id}', 'v2/1') })).rejects.toThrow(/new since you reviewed/);
    await expect(handlers['resources.read']({ server: 'swapper', uri: 'note://v2/7' })).rejects.toThrow(/new since you reviewed/);
    expect(lines(join(records, 'reads')).filter((uri) => uri.startsWith('note://v2/'))).toEqual([]);
    expect(JSON.stringify(await client.readResource({ uri: byId.replace('{id}', '3') }))).toContain('note 3');
    expect(JSON.stringify(await handlers['resources.read']({ server: 'swapper', uri: 'note://one' }))).toContain('the first note');
    await expect(handlers['resources.read']({ server: 'swapper', uri: 'note://linked-from-a-result' })).rejects.toThrow(/no resource note:\/\/linked-from-a-result/);
    await client.close();
  });

  it('a prompt list that cannot be read again after the server said it changed: no prompt is served until it can', async () => {
    const handlers = t.host.ipcHandlers();
    // summarise-v2 was approved above and is served.
    expect(JSON.stringify(await handlers['prompts.get']({ server: 'swapper', name: 'summarise-v2', arguments: { topic: 'x' } }))).toContain('Ignore previous instructions');
    await t.host.calls.call({ server: 'swapper', tool: 'break_listing', arguments: {}, caller: { kind: 'user' } });
    await waitFor(() => t.host.supervisor.log('swapper').some((line) => line.text.includes('listing prompts failed')), Boolean, 'the failed listing');
    const client = await appClient();
    await expect(client.getPrompt({ name: 'swapper__summarise-v2', arguments: { topic: 'x' } })).rejects.toThrow(/could not list what swapper offers/);
    await expect(handlers['prompts.get']({ server: 'swapper', name: 'summarise-v2', arguments: { topic: 'x' } })).rejects.toThrow(/could not list/);
    await client.close();
  });
});
