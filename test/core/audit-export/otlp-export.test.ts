/**
 * The audit log streamed over OTLP/HTTP to a receiver on loopback that
 * decodes real OTLP (protobuf and JSON) with OpenTelemetry's own protocol
 * definitions: records for real calls with the attributes promised, the
 * chain checkable from the records alone, an outage of the collector in the
 * middle of 50 calls losing nothing, the environment variables and the
 * policy's precedence, redaction exactly as in the log, and a range sent by hand.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IpcHandlers } from '../../../shared/ipc';
import { WINDOW_SHELL } from '../../../electron/core/ipc/shell-identity';
import { linuxPolicySource } from '../../../electron/core/managed-policy/policy-sources';
import { createTestHost, fixture, type TestHost } from '../host/host-support';
import { OtlpReceiver } from '../../support/otlp-receiver';
import type { HostOptions } from '../../../electron/core/host';

const ECHO = fixture('servers/echo.mjs');
const FAST = { pollMs: 20, batchDelayMs: 20, backoff: { initialMs: 50, maxMs: 400 }, timeoutMs: 2_000 };

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(options: Partial<HostOptions> = {}): Promise<{ t: TestHost; h: IpcHandlers; receiver: OtlpReceiver; logLines: () => Array<Record<string, unknown>> }> {
  const receiver = new OtlpReceiver();
  await receiver.start();
  cleanups.push(() => receiver.stop());
  const t = await createTestHost({ auditExport: { env: {}, tuning: FAST }, ...options });
  cleanups.push(() => t.close());
  await t.add('echo', [process.execPath, ECHO]);
  const logLines = () => readFileSync(join(t.dataDir, 'audit', 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  return { t, h: t.host.ipcHandlers(WINDOW_SHELL), receiver, logLines };
}

describe('the audit log over OTLP/HTTP, with the OpenTelemetry SDK', () => {
  it.each(['http/protobuf', 'http/json'] as const)('%s: every entry becomes one record with the attributes, and the chain checks out from the records', async (protocol) => {
    const { t, h, receiver, logLines } = await setUp();
    const configured = await h['audit.setExport']({ endpoint: receiver.url, protocol, headers: { 'x-collector-key': 'k-123' } });
    expect(configured).toMatchObject({ from: 'settings', endpoint: `${receiver.url}/v1/logs`, protocol, headerNames: ['x-collector-key'] });
    expect(JSON.stringify(configured)).not.toContain('k-123');
    const result = await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'hello' } });
    expect(result.outcome).toBe('ok');
    await t.host.changes.settled();
    await t.host.audit.flush();
    const head = logLines().at(-1)!.seq as number;
    await until(() => receiver.seqs().at(-1) === head, 'every entry to arrive');
    await until(() => t.host.auditExport.view().acknowledged === head, 'the acknowledgement to be kept');

    const request = receiver.requests[0]!;
    expect(request.contentType).toBe(protocol === 'http/json' ? 'application/json' : 'application/x-protobuf');
    expect(request.headers['x-collector-key']).toBe('k-123');
    const records = receiver.records;
    // One record per entry, in order, none twice.
    expect(receiver.seqs()).toEqual(logLines().map((entry) => entry.seq));
    expect(records).toHaveLength(logLines().length);
    const first = records[0]!;
    expect(first.resource).toMatchObject({ 'service.name': 'airlock', 'service.version': '0.0.0-test', 'host.name': expect.any(String), 'service.instance.id': expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(first.scope.name).toBe('airlock.audit');
    const decision = records.find((record) => record.attributes['airlock.entry.type'] === 'decision')!;
    const logged = logLines().find((entry) => entry.type === 'decision')!;
    expect(decision.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.session.id': logged.session,
      'airlock.server': 'echo',
      'airlock.caller.kind': 'user',
      'airlock.decision': logged.verdict,
      'airlock.final': 'allow',
      'airlock.decided_by': logged.decidedBy,
      'airlock.seq': logged.seq,
      'airlock.hash': logged.hash,
      'airlock.prev_hash': logged.prevHash,
      'airlock.arguments': JSON.stringify(logged.arguments),
    });
    expect(decision.eventName).toBe('airlock.audit.decision');
    expect(decision.body).toBe(`echo › echo: allowed (${String(logged.verdict)}, ${String(logged.decidedBy)})`);
    const outcome = records.find((record) => record.attributes['airlock.entry.type'] === 'outcome')!;
    expect(outcome.attributes).toMatchObject({ 'airlock.outcome': 'ok', 'gen_ai.tool.name': 'echo' });
    expect(outcome.attributes['error.type']).toBeUndefined();
    // A collector can check the chain: each record's previous hash is the record before's hash.
    const bySeq = new Map(records.map((record) => [record.attributes['airlock.seq'] as number, record]));
    for (const record of records) {
      const seq = record.attributes['airlock.seq'] as number;
      if (seq > 1) expect(record.attributes['airlock.prev_hash']).toBe(bySeq.get(seq - 1)!.attributes['airlock.hash']);
    }
    // What was acknowledged is remembered.
    const state = JSON.parse(readFileSync(join(t.dataDir, 'audit-export.json'), 'utf8')) as { acknowledged: Record<string, number> };
    expect(state.acknowledged[`${receiver.url}/v1/logs`]).toBe(head);
    expect((await h['audit.exportStatus']({})).backlog).toBe(0);
  });

  it('a failed call carries error.type; arguments are redacted exactly as the log holds them', async () => {
    const { t, h, receiver, logLines } = await setUp();
    await h['audit.setExport']({ endpoint: receiver.url });
    const secret = `sk-ant-api03-${'Q'.repeat(40)}`;
    await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: `key ${secret}` } });
    await h['tools.call']({ server: 'echo', tool: 'no_such_tool', arguments: {} });
    await t.host.changes.settled();
    await t.host.audit.flush();
    const head = logLines().at(-1)!.seq as number;
    await until(() => receiver.seqs().at(-1) === head, 'every entry to arrive');
    const all = JSON.stringify(receiver.records);
    expect(all).not.toContain(secret);
    const logged = logLines().find((entry) => entry.type === 'decision' && entry.tool === 'echo')!;
    const record = receiver.records.find((item) => item.attributes['airlock.seq'] === logged.seq)!;
    expect(record.attributes['airlock.arguments']).toBe(JSON.stringify(logged.arguments));
    expect(record.attributes['airlock.arguments.redacted']).toEqual(logged.redacted);
    const denied = receiver.records.find((item) => item.attributes['airlock.entry.type'] === 'outcome' && item.attributes['gen_ai.tool.name'] === 'no_such_tool')!;
    expect(denied.attributes['error.type']).toBe('denied');
  });

  it('the collector stopped during 50 calls and started again: every record arrives, sequence numbers without a gap; no call waited for it', async () => {
    const { t, h, receiver, logLines } = await setUp();
    await h['audit.setExport']({ endpoint: receiver.url });
    await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'warm-up' } });
    const durations: number[] = [];
    for (let i = 0; i < 50; i++) {
      if (i === 10) await receiver.stop();
      if (i === 40) await receiver.start();
      const started = performance.now();
      const result = await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: `call ${i}` } });
      durations.push(performance.now() - started);
      expect(result.outcome).toBe('ok');
      if (i === 30) {
        // The outage is visible, with its backlog (once the SDK's own retries of the first attempt gave up).
        await until(() => t.host.auditExport.view().state === 'retrying', 'the outage to show');
        const status = await h['audit.exportStatus']({});
        expect(status.state).toBe('retrying');
        expect(status.backlog).toBeGreaterThan(0);
        expect(status.lastError).toBeDefined();
      }
    }
    await t.host.changes.settled();
    await t.host.audit.flush();
    const logged = logLines().map((entry) => entry.seq as number);
    await until(() => receiver.seqs().at(-1) === logged.at(-1), 'the backlog to be caught up', 20_000);
    const seqs = receiver.seqs();
    expect(seqs).toEqual(Array.from({ length: logged.at(-1)! }, (_, k) => k + 1));
    expect(seqs).toEqual(logged);
    // Calls during the outage were not slowed by it: none waited for a retry (the backoff is ≥ 50 ms, the exporter's time limit 2 s).
    expect(Math.max(...durations.slice(10, 40))).toBeLessThan(1_000);
  });

  it('survives a restart of Airlock: the position is remembered, the rest is sent from the log', async () => {
    const receiver = new OtlpReceiver();
    await receiver.start();
    cleanups.push(() => receiver.stop());
    const t = await createTestHost({ auditExport: { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, tuning: FAST } });
    await t.add('echo', [process.execPath, ECHO]);
    const h = t.host.ipcHandlers(WINDOW_SHELL);
    await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'one' } });
    await until(() => receiver.seqs().length > 0, 'the first records');
    await receiver.stop();
    await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'two' } });
    await t.host.dispose();
    const logged = readFileSync(join(t.dataDir, 'audit', 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    await receiver.start();
    // A new Airlock on the same data folder (the collector back up).
    const { AirlockHost } = await import('../../../electron/core/host');
    const again = new AirlockHost({ dataDir: t.dataDir, version: '0.0.0-test', homeDir: t.home, hooks: { emit: () => {} }, auditExport: { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, tuning: FAST } });
    cleanups.push(async () => {
      await again.dispose();
      rmSync(t.root, { recursive: true, force: true });
    });
    await until(() => (receiver.seqs().at(-1) ?? 0) >= logged, 'the rest of the log');
    expect(receiver.seqs()).toEqual(Array.from({ length: receiver.seqs().at(-1)! }, (_, k) => k + 1));
  });

  it('the OTEL_EXPORTER_OTLP_* variables configure it; the policy wins over them and over Settings, and the environment adds no header to its collector', async () => {
    const envReceiver = new OtlpReceiver();
    await envReceiver.start();
    cleanups.push(() => envReceiver.stop());
    const dir = mkdtempSync(join(tmpdir(), 'airlock-otlp-policy-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const policyFile = join(dir, 'managed-policy.json');
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: envReceiver.url, OTEL_EXPORTER_OTLP_HEADERS: 'x-from-env=e%201', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
    const { t, h, receiver } = await setUp({ auditExport: { env, tuning: FAST }, managedPolicy: { source: linuxPolicySource({ path: policyFile }), pollMs: 0 } });
    expect(await h['audit.exportStatus']({})).toMatchObject({ from: 'environment', endpoint: `${envReceiver.url}/v1/logs`, protocol: 'http/json', headerNames: ['x-from-env'] });
    await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'env' } });
    await until(() => envReceiver.records.length > 0, 'records at the environment’s collector');
    expect(envReceiver.requests[0]!.headers['x-from-env']).toBe('e 1');
    // The organisation's collector: locked, and the environment's header does not go there.
    process.env.OTEL_EXPORTER_OTLP_HEADERS = 'x-from-process-env=leak';
    cleanups.push(() => void delete process.env.OTEL_EXPORTER_OTLP_HEADERS);
    writeFileSync(policyFile, JSON.stringify({ version: 1, audit: { otlp: { endpoint: receiver.url, protocol: 'http/protobuf', headers: { authorization: 'Bearer org' } } } }));
    await t.host.organisation.reload();
    const status = await h['audit.exportStatus']({});
    expect(status).toMatchObject({ from: 'policy', endpoint: `${receiver.url}/v1/logs`, protocol: 'http/protobuf', headerNames: ['authorization'], lock: { key: 'audit.otlp' } });
    await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'org' } });
    await until(() => receiver.records.length > 0, 'records at the organisation’s collector');
    expect(receiver.requests[0]!.headers.authorization).toBe('Bearer org');
    expect(receiver.requests[0]!.headers['x-from-env']).toBeUndefined();
    expect(receiver.requests[0]!.headers['x-from-process-env']).toBeUndefined();
    // The policy's header value never reaches the audit log.
    expect(readFileSync(join(t.dataDir, 'audit', 'audit.jsonl'), 'utf8')).not.toContain('Bearer org');
  });

  it('while the organisation’s policy cannot be read, nothing is sent to any collector (not the person’s own): paused, said so, and caught up once it is fixed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-otlp-paused-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const policyFile = join(dir, 'managed-policy.json');
    const { t, h, receiver, logLines } = await setUp({ managedPolicy: { source: linuxPolicySource({ path: policyFile }), pollMs: 0 } });
    // The person's own collector, streaming.
    await h['audit.setExport']({ endpoint: receiver.url });
    await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'before' } });
    await t.host.changes.settled();
    await t.host.audit.flush();
    const before = logLines().at(-1)!.seq as number;
    await until(() => receiver.seqs().at(-1) === before, 'the entries before the broken policy');
    // A policy that cannot be read (it might have named the organisation's own collector).
    writeFileSync(policyFile, '{\n  "version": 1,\n  "audit": { "otlp": { "endpoint": "http://127.0.0.1:9" }\n');
    await t.host.organisation.reload();
    const brokenAt = Date.now();
    const paused = await h['audit.exportStatus']({});
    expect(paused.state).toBe('paused');
    expect(paused.lastError).toContain(`${policyFile}, line`);
    expect(paused.lastError).toMatch(/sent to no collector until it is fixed/);
    const seen = receiver.requests.length;
    // Calls go on (the export never holds one up); their entries wait in the log.
    for (let i = 0; i < 3; i++) expect((await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: `while broken ${i}` } })).outcome).toBe('denied');
    await t.host.changes.settled();
    await t.host.audit.flush();
    const during = logLines().at(-1)!.seq as number;
    expect(during).toBeGreaterThan(before);
    // Sending by hand is refused too, saying why.
    await expect(Promise.resolve().then(() => h['audit.exportRange']({ from: 1 }))).rejects.toThrow(/Paused: your organisation's policy could not be read/);
    // The exporter looked again (a poll every 20 ms) and stayed paused.
    await until(() => t.host.auditExport.exporter.status().state === 'paused' && Date.now() - brokenAt > 200, 'a few polls while paused');
    expect(receiver.requests.length).toBe(seen);
    // Fixed (a policy without a collector): the person's collector gets everything, from where it stopped, without a gap.
    writeFileSync(policyFile, JSON.stringify({ version: 1 }));
    await t.host.organisation.reload();
    await until(() => (receiver.seqs().at(-1) ?? 0) >= during, 'the entries written while paused');
    expect(receiver.requests[seen]!.records[0]!.attributes['airlock.seq']).toBe(before + 1);
    expect(receiver.seqs()).toEqual(Array.from({ length: receiver.seqs().at(-1)! }, (_, k) => k + 1));
    expect((await h['audit.exportStatus']({})).state).not.toBe('paused');
  });

  it('a backlog past its threshold is a warning, in the status and the app’s notices; it goes once the collector catches up', async () => {
    const { t, h, receiver, logLines } = await setUp({ auditExport: { env: {}, tuning: { ...FAST, backlogWarning: { entries: 8, ageMs: 60 * 60 * 1000 } } } });
    await h['audit.setExport']({ endpoint: receiver.url });
    await t.host.changes.settled();
    await t.host.audit.flush();
    await until(() => t.host.auditExport.view().backlog === 0, 'the first entries to be taken');
    expect(t.host.auditExport.view().warning).toBeUndefined();
    await receiver.stop();
    // Under the threshold: no warning yet.
    await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'one' } });
    await t.host.audit.flush();
    await until(() => t.host.auditExport.view().state === 'retrying', 'the outage to show');
    expect(t.host.auditExport.view().backlog).toBeLessThan(8);
    expect(t.host.auditExport.view().warning).toBeUndefined();
    for (let i = 0; i < 4; i++) await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: `more ${i}` } });
    await t.host.changes.settled();
    await t.host.audit.flush();
    const status = await h['audit.exportStatus']({});
    expect(status.backlog).toBeGreaterThanOrEqual(8);
    expect(status.warning).toMatch(new RegExp(`has not taken ${status.backlog} entries`));
    expect(status.warning).toMatch(/nothing is lost/);
    await until(() => t.host.auditExport.view().oldestWaitingAt !== undefined, 'the oldest waiting entry to be read');
    expect(Date.parse(t.host.auditExport.view().oldestWaitingAt!)).toBeLessThanOrEqual(Date.now());
    expect(t.host.app.info().notices).toContainEqual({ level: 'warning', message: expect.stringMatching(/Streaming the activity log is falling behind/) });
    await receiver.start();
    const head = logLines().at(-1)!.seq as number;
    await until(() => t.host.auditExport.view().acknowledged >= head, 'the backlog to be caught up', 20_000);
    expect(t.host.auditExport.view().warning).toBeUndefined();
    expect(t.host.app.info().notices.some((notice) => notice.message.includes('falling behind'))).toBe(false);
  });

  it('`audit.exportRange` sends a range by hand, without moving the streamed position', async () => {
    const { t, h, receiver } = await setUp({ auditExport: { env: {}, tuning: { ...FAST, pollMs: 60_000 } } });
    await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'a' } });
    await h['tools.call']({ server: 'echo', tool: 'echo', arguments: { message: 'b' } });
    await t.host.changes.settled();
    // Streaming off (no target): a range by hand needs one.
    await expect(Promise.resolve().then(() => h['audit.exportRange']({ from: 1, to: 2 }))).rejects.toThrow(/No OpenTelemetry collector/);
    await h['audit.setExport']({ endpoint: receiver.url });
    await until(() => receiver.records.length > 0, 'the stream');
    const before = receiver.records.length;
    const sent = await h['audit.exportRange']({ from: 2, to: 3 });
    expect(sent).toMatchObject({ sent: 2, first: 2, last: 3 });
    expect(receiver.records.slice(before).map((record) => record.attributes['airlock.seq'])).toEqual([2, 3]);
  });
});
