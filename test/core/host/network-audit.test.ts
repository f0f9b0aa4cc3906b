/**
 * Network decisions in the audit log (issues 16.6 and 9.8): a real server in
 * the real sandbox reaches hosts through its proxy; every decision is an
 * entry of its own naming the server, host, port, decision and who decided —
 * and "denied: nobody could be asked" is not "denied by you". A flood of
 * identical requests is counted, not written one by one.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog, type NetworkEntry } from '../../../electron/core/audit/audit-log';
import { ESCAPE_SERVER } from '../sandbox/sandbox-harness';
import { createTestHost, type TestHost } from './host-support';
import { join } from 'node:path';

async function httpService(): Promise<{ port: number; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits += 1;
    res.end('hello');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as { port: number }).port, hits: () => hits, close: () => new Promise((r) => server.close(() => r())) };
}

describe('network decisions in the audit log', () => {
  let t: TestHost;
  let granted: Awaited<ReturnType<typeof httpService>>;
  let nobody: Awaited<ReturnType<typeof httpService>>;
  let refused: Awaited<ReturnType<typeof httpService>>;
  let allowed: Awaited<ReturnType<typeof httpService>>;

  beforeAll(async () => {
    [granted, nobody, refused, allowed] = await Promise.all([httpService(), httpService(), httpService(), httpService()]);
    t = await createTestHost();
    await t.add('net', [process.execPath, ESCAPE_SERVER], { profile: { network: { allowedDomains: [`127.0.0.1:${granted.port}`] } } });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([granted, nobody, refused, allowed].map((s) => s?.close()));
  });

  const fetchVia = async (port: number) => {
    const result = await t.host.calls.call({ server: 'net', tool: 'fetch_via_proxy', arguments: { url: `http://127.0.0.1:${port}/x` }, caller: { kind: 'user' } });
    const text = (result.result?.content as Array<{ text: string }> | undefined)?.[0]?.text ?? '{}';
    return JSON.parse(text) as { ok: boolean };
  };

  async function answerNext(allow: boolean): Promise<void> {
    for (let i = 0; i < 400; i++) {
      const question = t.host.approvals.network.list()[0];
      if (question) {
        expect(t.host.approvals.answerNetwork(question.id, allow, false, 'window')).toEqual({ accepted: true });
        return;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('no network question opened');
  }

  it('records who decided each request: the grant, nobody, you (denied), you (allowed)', async () => {
    expect((await fetchVia(granted.port)).ok).toBe(true);

    t.ask.available = false;
    expect((await fetchVia(nobody.port)).ok).toBe(false);

    t.ask.available = true;
    const denying = fetchVia(refused.port);
    await answerNext(false);
    expect((await denying).ok).toBe(false);

    const allowing = fetchVia(allowed.port);
    await answerNext(true);
    expect((await allowing).ok).toBe(true);

    expect([nobody.hits(), refused.hits(), allowed.hits()]).toEqual([0, 0, 1]);

    const rows = (await t.host.activity.entries({ server: 'net' })).filter((row) => row.kind === 'network');
    const byPort = (port: number) => rows.find((row) => row.target === `127.0.0.1:${port}`);
    expect(byPort(granted.port)).toMatchObject({ verdict: 'allowed: granted', server: 'net' });
    expect(byPort(nobody.port)).toMatchObject({ verdict: 'denied: nobody could be asked' });
    expect(byPort(refused.port)).toMatchObject({ verdict: 'denied by you (window)' });
    expect(byPort(allowed.port)).toMatchObject({ verdict: 'allowed by you (window)' });

    const entries = (await t.host.audit.readActivity({ server: 'net', limit: 100 })).flatMap((r) => ('network' in r ? [r.network] : []));
    expect(entries.find((e) => e.port === nobody.port)).toMatchObject({ type: 'network', host: '127.0.0.1', decision: 'deny', reason: 'ask-failed', decidedBy: 'nobody' });
    expect(entries.find((e) => e.port === refused.port)).toMatchObject({ decision: 'deny', reason: 'user-denied', decidedBy: 'person', answeredBy: 'window' });
  });

  it('a flood of identical requests is counted into one entry, and the count is kept at shutdown', async () => {
    for (let i = 0; i < 15; i++) expect((await fetchVia(granted.port)).ok).toBe(true);
    const dataDir = t.dataDir;
    await t.host.dispose();
    const log = new AuditLog({ dir: join(dataDir, 'audit') });
    const grantedEntries = (await log.readActivity({ server: 'net', limit: 1000 }))
      .flatMap((r) => ('network' in r ? [r.network] : []))
      .filter((e: NetworkEntry) => e.port === granted.port);
    // 1 + 15 requests in all: the first written at once, the rest counted into one entry.
    expect(grantedEntries.length).toBeLessThanOrEqual(2);
    expect(grantedEntries.reduce((sum, e) => sum + 1 + (e.repeats ?? 0), 0)).toBe(16);
    expect((await log.verify()).ok).toBe(true);
  });
});
