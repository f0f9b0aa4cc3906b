/**
 * Claims checked against behaviour: a real server in the real sandbox whose
 * tools lie in their annotations (a "read-only" tool that writes, deletes
 * and renames in its grant; "not destructive" tools that delete, replace and
 * shorten a file that was there; a "stays on your machine" tool that makes a
 * network attempt), with the server trusted. The first call runs unasked, as
 * it always did; what the tool did is recorded as a `claims-contradicted`
 * entry with the right path or host; its claims are withdrawn, so the second
 * call is no longer allowed unasked — through the gateway, with nobody to
 * ask, it is refused and says why. An honest server doing the same things
 * under honest claims gets nothing; calls that overlap are both attributed.
 * Everything is checked from outside the server: the files on disk, the
 * audit log, the gateway's answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimsContradictedEntry } from '../../../electron/core/audit';
import { createGatewayServer } from '../../../electron/core/gateway/gateway-server';
import { createTestHost, fixture, type TestHost } from './host-support';

const SERVER = fixture('servers/claims-server.mjs');
const app = { kind: 'client', name: 'Test App' } as const;

/** An SDK client connected to a gateway session over the real core (as another AI app would be). */
async function gatewayClient(t: TestHost): Promise<Client> {
  const server = createGatewayServer(t.host.gateway.core(), { clientName: 'Test App', log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test-app', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const textOf = (result: unknown) => ((result as { content?: Array<{ text?: string }> }).content ?? []).map((item) => item.text ?? '').join('\n');

async function claimsEntries(t: TestHost, server: string, tool?: string): Promise<ClaimsContradictedEntry[]> {
  // A call is compared with its claims off the caller's path: once the comparisons under way are done.
  await t.host.claims.settled();
  const records = await t.host.audit.readActivity({ server, ...(tool ? { tool } : {}), limit: 500 });
  return records.flatMap((record) => ('claims' in record ? [record.claims] : []));
}

/** A loopback HTTP service whose answers the test releases (a request held open keeps a call in flight). */
async function heldService(): Promise<{ port: number; arrived: () => Promise<void>; release: () => void; close: () => Promise<void> }> {
  const waiting: ServerResponse[] = [];
  const arrivals: Array<() => void> = [];
  let arrivedCount = 0;
  const server: Server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    waiting.push(res);
    arrivedCount += 1;
    for (const wake of arrivals.splice(0)) wake();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    arrived: () => (arrivedCount > 0 ? Promise.resolve() : new Promise<void>((resolve) => arrivals.push(resolve))),
    release: () => {
      for (const res of waiting.splice(0)) res.end('released');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a trusted server whose tools lie about what they do', () => {
  let t: TestHost;
  let granted: string;
  let client: Client;

  beforeAll(async () => {
    t = await createTestHost();
    granted = t.folder('granted');
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'victim.txt', 'replace-me.txt', 'long.txt', 'log.txt']) writeFileSync(join(granted, name), `${name}: the person's own words, long enough to shrink\n`);
    await t.add('liar', [process.execPath, SERVER], { trusted: true, profile: { filesystem: { read: [], write: [granted], persistentData: false } } });
    client = await gatewayClient(t);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('observes the server: its launch has a proxy and watched write grants', () => {
    expect(t.host.claims.observing('liar')).toBe(true);
  });

  it('a "read-only" tool that writes: the first call runs unasked; the contradiction names the path; the second call through the gateway is refused and says why', async () => {
    const first = await client.callTool({ name: 'liar__touch', arguments: { action: 'write', path: join(granted, 'new.txt') } });
    expect(first.isError ?? false).toBe(false);
    expect(readFileSync(join(granted, 'new.txt'), 'utf8')).toBe('written by touch\n');

    const entries = await claimsEntries(t, 'liar', 'touch');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ type: 'claims-contradicted', server: 'liar', tool: 'touch', claims: ['readOnlyHint'], effect: 'withdrawn' });
    expect(entries[0]!.evidence).toEqual([expect.objectContaining({ claim: 'readOnlyHint', did: 'wrote', target: join(granted, 'new.txt') })]);
    // The entry names the call it happened during: the decision that let it through.
    const decision = (await t.host.audit.read({ server: 'liar', tool: 'touch', limit: 5 }))[0]!.decision;
    expect(entries[0]!.callId).toBe(decision.callId);
    expect(decision).toMatchObject({ final: 'allow', decidedBy: 'trusted-read-only' });

    // The second call: no longer allowed unasked; nobody can be asked through the gateway.
    const second = await client.callTool({ name: 'liar__touch', arguments: { action: 'write', path: join(granted, 'second.txt') } });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toContain('did something its claims say it does not');
    expect(textOf(second)).toContain(join(granted, 'new.txt'));
    expect(existsSync(join(granted, 'second.txt'))).toBe(false);
    const refused = (await t.host.audit.read({ server: 'liar', tool: 'touch', limit: 5 }))[0]!.decision;
    expect(refused).toMatchObject({ verdict: 'ask', final: 'deny', decidedBy: 'claims-contradicted', answer: { how: 'no-approver' } });

    // Other apps are no longer told its claims: the gateway lists it as a tool that claims nothing.
    const listed = (await client.listTools()).tools.find((tool) => tool.name === 'liar__touch')!;
    expect(listed.annotations).toBeUndefined();
    expect((await client.listTools()).tools.find((tool) => tool.name === 'liar__lookup')?.annotations).toMatchObject({ openWorldHint: false });

    // The person is told: an event for the shells, the Servers list, the tool's row.
    expect(t.events.some((e) => e.event === 'claims.didContradict' && (e.payload as { tool: string }).tool === 'touch')).toBe(true);
    expect(t.host.servers.list().find((s) => s.name === 'liar')?.claimsToReview).toBeGreaterThanOrEqual(1);
    const row = (await t.host.servers.detail('liar')).tools.find((tool) => tool.name === 'touch')!;
    expect(row.claimsCheck).toMatchObject({ state: 'withdrawn', claims: ['readOnlyHint'] });
    expect(row.claimsCheck!.evidence[0]!.words).toContain(`created ${join(granted, 'new.txt')}, though it says it only reads`);
    expect(row.preview).toMatchObject({ verdict: 'ask' });
    // Airlock's reading: a tool that claims nothing (destructive); the claims still show as what the server said.
    expect(row.reading.class).toBe('destructive');
    expect(row.reading.claims).toContain('The server says: read-only');
  });

  it('deleting and renaming are contradictions of a read-only claim too (each call recorded)', async () => {
    await client.callTool({ name: 'liar__touch', arguments: { action: 'delete', path: join(granted, 'a.txt') } }).catch(() => undefined);
    // Its claims are withdrawn: the call is refused (nobody to ask) and nothing is deleted.
    expect(existsSync(join(granted, 'a.txt'))).toBe(true);
    // The person's own call (the window's console) still runs it, and what it does is still recorded.
    const deleted = await t.host.calls.call({ server: 'liar', tool: 'touch', arguments: { action: 'delete', path: join(granted, 'a.txt') }, caller: { kind: 'user' } });
    expect(deleted.outcome).toBe('ok');
    const renamed = await t.host.calls.call({ server: 'liar', tool: 'touch', arguments: { action: 'rename', path: join(granted, 'b.txt'), to: join(granted, 'b2.txt') }, caller: { kind: 'user' } });
    expect(renamed.outcome).toBe('ok');
    const entries = await claimsEntries(t, 'liar', 'touch');
    const byCall = (callId: string) => entries.find((entry) => entry.callId === callId);
    expect(byCall(deleted.callId)).toMatchObject({ effect: 'already-withdrawn', evidence: [expect.objectContaining({ did: 'deleted', target: join(granted, 'a.txt') })] });
    expect(byCall(renamed.callId)).toMatchObject({ evidence: [expect.objectContaining({ did: 'renamed', target: `${join(granted, 'b.txt')} → ${join(granted, 'b2.txt')}` })] });
  });

  it('"not destructive" tools that delete, replace or shorten a file that was there: contradictions, each with its path', async () => {
    const tidy = await client.callTool({ name: 'liar__tidy', arguments: { path: join(granted, 'victim.txt') } });
    // Not read-only: even trusted, it asks — with nobody to ask, it is refused before doing anything.
    expect(tidy.isError).toBe(true);
    expect(existsSync(join(granted, 'victim.txt'))).toBe(true);
    // Run by the person; an "always allow" made on the strength of its claim counts until it contradicts them.
    const rule = await t.host.policy.addRule({ server: 'liar', tool: 'tidy', effect: 'allow', fingerprint: t.host.supervisor.tools.lookup('liar', 'tidy')!.fingerprint });
    expect(rule.current).toBe(true);
    const allowed = await client.callTool({ name: 'liar__tidy', arguments: { path: join(granted, 'victim.txt') } });
    expect(allowed.isError ?? false).toBe(false);
    expect(existsSync(join(granted, 'victim.txt'))).toBe(false);
    const [tidied] = await claimsEntries(t, 'liar', 'tidy');
    expect(tidied).toMatchObject({ claims: ['destructiveHint'], effect: 'withdrawn', evidence: [expect.objectContaining({ did: 'deleted', target: join(granted, 'victim.txt') })] });
    // The rule was made on the strength of the claim: it no longer counts (asks again — refused here).
    const again = await client.callTool({ name: 'liar__tidy', arguments: { path: join(granted, 'c.txt') } });
    expect(again.isError).toBe(true);
    expect(existsSync(join(granted, 'c.txt'))).toBe(true);
    expect(t.host.policy.rules().find((r) => r.tool === 'tidy')?.current).toBe(false);

    const save = await t.host.calls.call({ server: 'liar', tool: 'save', arguments: { path: join(granted, 'replace-me.txt'), text: 'gone' }, caller: { kind: 'user' } });
    expect(save.outcome).toBe('ok');
    const [saved] = await claimsEntries(t, 'liar', 'save');
    // A temporary file renamed over it (read by the time Airlock looked: the file in its place is new).
    expect(saved).toMatchObject({ claims: ['destructiveHint'], evidence: [expect.objectContaining({ did: 'overwrote', target: join(granted, 'replace-me.txt') })] });

    const shrink = await t.host.calls.call({ server: 'liar', tool: 'shrink', arguments: { path: join(granted, 'long.txt') }, caller: { kind: 'user' } });
    expect(shrink.outcome).toBe('ok');
    const [shrunk] = await claimsEntries(t, 'liar', 'shrink');
    expect(shrunk).toMatchObject({ claims: ['destructiveHint'], evidence: [expect.objectContaining({ did: 'overwrote', target: join(granted, 'long.txt') })] });

    // Adding to a file is what a tool that is not destructive may do: nothing recorded.
    const append = await t.host.calls.call({ server: 'liar', tool: 'append', arguments: { path: join(granted, 'log.txt') }, caller: { kind: 'user' } });
    expect(append.outcome).toBe('ok');
    expect(await claimsEntries(t, 'liar', 'append')).toEqual([]);
  });

  it('a "stays on your machine" tool that makes a network attempt: the contradiction names the host (refused or not)', async () => {
    const first = await client.callTool({ name: 'liar__lookup', arguments: { url: 'http://example.invalid:8080/x' } });
    expect(first.isError ?? false).toBe(false);
    expect(textOf(first)).toContain('"ok":false');
    // Straight after (the comparison runs off the first call's path): the second is decided only once it is done.
    const second = await client.callTool({ name: 'liar__lookup', arguments: { url: 'http://example.invalid:8080/x' } });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toContain('example.invalid:8080');
    const [entry] = await claimsEntries(t, 'liar', 'lookup');
    expect(entry).toMatchObject({ claims: ['openWorldHint'], effect: 'withdrawn', evidence: [expect.objectContaining({ did: 'network', target: 'example.invalid:8080', allowed: false })] });
  });

  it('a read-only tool that only reads gets nothing, and runs unasked still', async () => {
    const read = await client.callTool({ name: 'liar__read', arguments: { path: join(granted, 'log.txt') } });
    expect(read.isError ?? false).toBe(false);
    expect(await claimsEntries(t, 'liar', 'read')).toEqual([]);
    const again = await client.callTool({ name: 'liar__read', arguments: { path: join(granted, 'log.txt') } });
    expect(again.isError ?? false).toBe(false);
  });

  it('what the server does between calls is not attributed to any tool', async () => {
    const before = (await claimsEntries(t, 'liar')).length;
    writeFileSync(join(granted, 'between.txt'), 'made between calls\n');
    mkdirSync(join(granted, 'between-dir'));
    const read = await client.callTool({ name: 'liar__read', arguments: { path: join(granted, 'log.txt') } });
    expect(read.isError ?? false).toBe(false);
    expect((await claimsEntries(t, 'liar')).length).toBe(before);
  });

  it('the review is the person’s: "keep trusting" gives the claims back (a change entry); a stale review is refused', async () => {
    const row = (await t.host.servers.detail('liar')).tools.find((tool) => tool.name === 'touch')!;
    await expect(t.host.claims.review('liar', 'touch', 'keep', '2000-01-01T00:00:00.000Z', 'window')).rejects.toMatchObject({ code: 'conflict' });
    const detail = await t.host.claims.review('liar', 'touch', 'keep', row.claimsCheck!.last, 'window');
    expect(detail.tools.find((tool) => tool.name === 'touch')?.claimsCheck?.state).toBe('kept');
    await t.host.changes.settled();
    const changes = (await t.host.audit.readActivity({ server: 'liar', tool: 'touch', limit: 50 })).flatMap((r) => ('change' in r ? [r.change] : []));
    expect(changes[0]).toMatchObject({ change: 'claims-reviewed', by: 'window', tool: 'touch' });
    // Trusted again for this definition: runs unasked; doing it again is recorded, not withdrawn again.
    const call = await client.callTool({ name: 'liar__touch', arguments: { action: 'write', path: join(granted, 'kept.txt') } });
    expect(call.isError ?? false).toBe(false);
    const latest = (await claimsEntries(t, 'liar', 'touch'))[0]!;
    expect(latest).toMatchObject({ effect: 'kept', evidence: [expect.objectContaining({ target: join(granted, 'kept.txt') })] });
    // "Don't trust": treated as claiming nothing, for good.
    const check = (await t.host.servers.detail('liar')).tools.find((tool) => tool.name === 'touch')!.claimsCheck!;
    await t.host.claims.review('liar', 'touch', 'distrust', check.last, 'command-line');
    const refused = await client.callTool({ name: 'liar__touch', arguments: { action: 'write', path: join(granted, 'refused.txt') } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('You chose not to trust this tool’s claims');
  });
});

describe('an honest server doing the same things under honest claims', () => {
  let t: TestHost;
  let granted: string;

  beforeAll(async () => {
    t = await createTestHost();
    granted = t.folder('granted');
    for (const name of ['a.txt', 'b.txt', 'victim.txt', 'replace-me.txt', 'long.txt']) writeFileSync(join(granted, name), `${name}: the person's own words, long enough to shrink\n`);
    await t.add('honest', [process.execPath, SERVER, '--honest'], { trusted: true, profile: { filesystem: { read: [], write: [granted], persistentData: false } } });
  });
  afterAll(() => t?.close());

  it('gets no contradiction, whatever it writes, deletes, renames, replaces or reaches', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['touch', { action: 'write', path: join(granted, 'new.txt') }],
      ['touch', { action: 'delete', path: join(granted, 'a.txt') }],
      ['touch', { action: 'rename', path: join(granted, 'b.txt'), to: join(granted, 'b2.txt') }],
      ['tidy', { path: join(granted, 'victim.txt') }],
      ['save', { path: join(granted, 'replace-me.txt'), text: 'new' }],
      ['shrink', { path: join(granted, 'long.txt') }],
      ['lookup', { url: 'http://example.invalid:8080/x' }],
    ];
    for (const [tool, args] of calls) {
      const result = await t.host.calls.call({ server: 'honest', tool, arguments: args, caller: { kind: 'user' } });
      expect(result.outcome, `${tool}: ${result.message ?? ''}`).toBe('ok');
    }
    expect(existsSync(join(granted, 'victim.txt'))).toBe(false);
    expect(await claimsEntries(t, 'honest')).toEqual([]);
    const detail = await t.host.servers.detail('honest');
    expect(detail.tools.filter((tool) => tool.claimsCheck)).toEqual([]);
    expect(detail.claimsToReview).toBe(0);
  });
});

describe('calls to one server that overlap', () => {
  let t: TestHost;
  let granted: string;
  let service: Awaited<ReturnType<typeof heldService>>;

  beforeAll(async () => {
    service = await heldService();
    t = await createTestHost();
    granted = t.folder('granted');
    await t.add('liar', [process.execPath, SERVER], {
      trusted: true,
      profile: { filesystem: { read: [], write: [granted], persistentData: false }, network: { allowedDomains: [`127.0.0.1:${service.port}`] } },
    });
  });
  afterAll(async () => {
    await t?.close();
    await service?.close();
  });

  it('a change made while two calls run is attributed to both, each naming the other', async () => {
    // `hold` (says read-only, reaches outside: honest about its request) waits on the test's service.
    const holding = t.host.calls.call({ server: 'liar', tool: 'hold', arguments: { url: `http://127.0.0.1:${service.port}/wait` }, caller: app });
    await service.arrived();
    // While it waits, the lying `touch` writes a file.
    const touch = await t.host.calls.call({ server: 'liar', tool: 'touch', arguments: { action: 'write', path: join(granted, 'during.txt') }, caller: app });
    expect(touch.outcome).toBe('ok');
    service.release();
    const held = await holding;
    expect(held.outcome).toBe('ok');

    const touchEntry = (await claimsEntries(t, 'liar', 'touch'))[0]!;
    const holdEntry = (await claimsEntries(t, 'liar', 'hold'))[0]!;
    expect(touchEntry).toMatchObject({ callId: touch.callId, evidence: [expect.objectContaining({ did: 'wrote', target: join(granted, 'during.txt'), alongside: ['hold'] })] });
    expect(holdEntry).toMatchObject({ callId: held.callId, evidence: [expect.objectContaining({ did: 'wrote', target: join(granted, 'during.txt'), alongside: ['touch'] })] });
    // `hold`'s own request came before `touch` started: not attributed to `touch` (and `hold` says it reaches outside).
    expect(touchEntry.evidence.some((item) => item.did === 'network')).toBe(false);
    const row = (await t.host.servers.detail('liar')).tools.find((tool) => tool.name === 'hold')!;
    expect(row.claimsCheck!.evidence[0]!.words).toContain('other calls to the server were running at the same time — touch');
  });
});

describe('a server with no grants and no network', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost();
    await t.add('contained', [process.execPath, SERVER], { trusted: true });
  });
  afterAll(() => t?.close());

  it('is not observed at all: no proxy, no watcher, nothing attributed', async () => {
    const result = await t.host.calls.call({ server: 'contained', tool: 'read', arguments: { path: '/etc/hostname' }, caller: app });
    expect(['ok', 'tool-error']).toContain(result.outcome);
    expect(t.host.claims.observing('contained')).toBe(false);
    expect((await t.host.servers.detail('contained')).grants).toEqual([]);
  });
});
