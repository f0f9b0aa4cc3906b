/**
 * Requests *from* a real server (server-everything, in the real sandbox)
 * through the core: sampling, elicitation and roots each pass the policy, a
 * person where needed, and the audit log — before any model, answer or
 * folder list is involved. The model is a tiny scripted SamplingModel that
 * counts what reaches it, so "never reached the model" is counted, not assumed.
 */
import { lookup } from 'node:dns/promises';
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRequestView } from '../../../shared/views';
import type { SamplingModel } from '../../../electron/core/server-requests/sampling-model';
import { readServerRequestEntries } from '../../../electron/core/audit/server-request-entries';
import { createTestHost, EVERYTHING_SERVER, type TestHost } from '../host/host-support';
import { dispatchIpc } from '../../../electron/core/ipc/dispatch';

/** A scripted model: records every request it gets and answers with a fixed text. */
class ScriptedModel implements SamplingModel {
  readonly received: Array<CreateMessageRequest['params']> = [];
  /** The audit log's server-request entries at the moment the model was called (ordering check). */
  readonly auditAtCall: number[] = [];
  constructor(private readonly countAudit: () => Promise<number>) {}
  async createMessage(params: CreateMessageRequest['params']): Promise<CreateMessageResult> {
    this.auditAtCall.push(await this.countAudit());
    this.received.push(structuredClone(params));
    return { model: 'scripted-1', role: 'assistant', content: { type: 'text', text: 'the scripted answer' }, stopReason: 'endTurn' };
  }
}

async function nextQuestion(t: TestHost, kind?: ServerRequestView['kind']): Promise<ServerRequestView> {
  for (let i = 0; i < 400; i += 1) {
    const pending = t.host.serverRequests.pending().filter((q) => kind === undefined || q.kind === kind);
    if (pending.length) return pending[0]!;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no ${kind ?? ''} question opened`);
}

const text = (result: { result?: { content?: unknown[] } }) => JSON.stringify(result.result?.content ?? []);

describe('server-everything asks back, through the core', () => {
  let t: TestHost;
  let model: ScriptedModel;
  let notes: string;

  beforeAll(async () => {
    let host: TestHost | undefined;
    model = new ScriptedModel(async () => (host ? (await readServerRequestEntries(host.host.audit, { kind: 'sampling' })).length : 0));
    t = await createTestHost({ samplingModel: model });
    host = t;
    notes = t.folder('notes');
    await t.add('everything', [process.execPath, EVERYTHING_SERVER, 'stdio'], { profile: { filesystem: { read: [], write: [notes], persistentData: false } } });
  });
  afterAll(() => t.close());

  it('declares sampling, elicitation and roots, so the server offers its tools for them', async () => {
    const tools = (await t.host.servers.detail('everything')).tools.map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list']));
  });

  it('roots are exactly the grants, and each answer is on record', async () => {
    const result = await t.host.calls.call({ server: 'everything', tool: 'get-roots-list', arguments: {}, caller: { kind: 'user' } });
    expect(result.outcome).toBe('ok');
    expect(text(result)).toContain(`file://${notes}`);
    expect(text(result).match(/URI: /g)?.length).toBe(1);
    const roots = await readServerRequestEntries(t.host.audit, { server: 'everything', kind: 'roots' });
    expect(roots.length).toBeGreaterThan(0);
    expect(roots[0]!.decision).toMatchObject({ final: 'allow', decidedBy: 'grants', response: [`file://${notes}`] });
  });

  it('sampling with nobody to ask is refused, and the model never sees it', async () => {
    t.ask.available = false;
    const result = await t.host.calls.call({ server: 'everything', tool: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 50 }, caller: { kind: 'user' } });
    expect(text(result)).toMatch(/no Airlock window or terminal is available/);
    expect(model.received).toHaveLength(0);
    const [latest] = await readServerRequestEntries(t.host.audit, { kind: 'sampling' });
    expect(latest!.decision).toMatchObject({ final: 'deny', decidedBy: 'no-approver' });
    expect(latest!.outcome).toMatchObject({ outcome: 'refused' });
  });

  it('a denied sampling request never reaches the model', async () => {
    t.ask.available = true;
    const call = t.host.calls.call({ server: 'everything', tool: 'trigger-sampling-request', arguments: { prompt: 'deny me', maxTokens: 50 }, caller: { kind: 'user' } });
    const question = await nextQuestion(t, 'sampling-request');
    expect(question.server).toBe('everything');
    expect(question.kind === 'sampling-request' && question.systemPrompt).toBe('You are a helpful test server.');
    expect(t.host.serverRequests.answer(question.id, { choice: 'deny' }, { shell: 'test' })).toEqual({ accepted: true });
    const result = await call;
    expect(text(result)).toMatch(/denied this sampling request/);
    expect(model.received).toHaveLength(0);
  });

  it('a request the person edited reaches the model edited; the answer goes back only after review', async () => {
    t.ask.available = true;
    const recordedBefore = (await readServerRequestEntries(t.host.audit, { kind: 'sampling' })).length;
    const call = t.host.calls.call({ server: 'everything', tool: 'trigger-sampling-request', arguments: { prompt: 'original words', maxTokens: 50 }, caller: { kind: 'user' } });
    const question = await nextQuestion(t, 'sampling-request');
    if (question.kind !== 'sampling-request') throw new Error('wrong question');
    expect(JSON.stringify(question.messages)).toContain('original words');
    expect(await dispatchIpc(t.host.ipcHandlers(), 'requests.pending', {})).toMatchObject({ ok: true });
    const edited = { ...question.params, messages: [{ role: 'user', content: { type: 'text', text: 'edited by the person' } }], maxTokens: 20 };
    // An edit past the person's own cap is refused and leaves the question open.
    expect(t.host.serverRequests.answer(question.id, { choice: 'allow-once', params: { ...edited, maxTokens: 999_999 } }, { shell: 'test' }).accepted).toBe(false);
    expect(t.host.serverRequests.answer(question.id, { choice: 'allow-once', params: edited }, { shell: 'test' })).toEqual({ accepted: true });
    const review = await nextQuestion(t, 'sampling-response');
    expect(model.received).toHaveLength(1);
    expect(JSON.stringify(model.received[0]!.messages)).toContain('edited by the person');
    expect(JSON.stringify(model.received[0]!.messages)).not.toContain('original words');
    expect(model.received[0]!.maxTokens).toBe(20);
    // This request's decision was on record when the model was called (counted at the call, from the log on disk).
    expect(model.auditAtCall[0]).toBe(recordedBefore + 1);
    if (review.kind !== 'sampling-response') throw new Error('wrong question');
    expect(await dispatchIpc(t.host.ipcHandlers(), 'requests.pending', {})).toMatchObject({ ok: true });
    expect(JSON.stringify(review.result)).toContain('the scripted answer');
    expect(t.host.serverRequests.answer(review.id, { choice: 'approve', result: { ...review.result, content: { type: 'text', text: 'reviewed answer' } } }, { shell: 'test' })).toEqual({ accepted: true });
    const result = await call;
    expect(text(result)).toContain('reviewed answer');
    const [latest] = await readServerRequestEntries(t.host.audit, { kind: 'sampling' });
    expect(latest!.decision).toMatchObject({ final: 'allow', answer: { how: 'allow-once', edited: true } });
    expect(latest!.outcome).toMatchObject({ outcome: 'answered', answer: { how: 'approve', edited: true } });
  });

  it('an elicitation the person declines comes back as decline', async () => {
    t.ask.available = true;
    const call = t.host.calls.call({ server: 'everything', tool: 'trigger-elicitation-request', arguments: {}, caller: { kind: 'user' } });
    const question = await nextQuestion(t, 'elicitation-form');
    if (question.kind !== 'elicitation-form') throw new Error('wrong question');
    expect(question.headline).toContain('everything asks you');
    // Enums and defaults (SEP-1330, SEP-1034) reach the form; nothing is filled in for the person.
    expect(question.fields.find((f) => f.key === 'untitledSingleSelectEnum')).toMatchObject({ type: 'choice', default: 'Monica' });
    expect(question.fields.find((f) => f.key === 'titledMultipleSelectEnum')).toMatchObject({ type: 'choices', options: expect.arrayContaining([{ value: 'fish-2', title: 'Salmon' }]) });
    expect(question.fields.find((f) => f.key === 'legacyTitledEnum')?.options?.[0]).toEqual({ value: 'pet-1', title: 'Cats' });
    expect(t.host.serverRequests.answer(question.id, { action: 'decline' }, { shell: 'test' })).toEqual({ accepted: true });
    const result = await call;
    expect(text(result)).toContain('declined');
    expect(text(result)).toContain('\\"action\\": \\"decline\\"');
  });

  it('an elicitation accepted with values that fit the form goes back; values that do not are refused', async () => {
    const call = t.host.calls.call({ server: 'everything', tool: 'trigger-elicitation-request', arguments: {}, caller: { kind: 'user' } });
    const question = await nextQuestion(t, 'elicitation-form');
    expect(t.host.serverRequests.answer(question.id, { action: 'accept', content: { name: 'Ada', untitledSingleSelectEnum: 'Nobody' } }, { shell: 'test' })).toMatchObject({ accepted: false, reason: expect.stringMatching(/untitledSingleSelectEnum must be one of the options/) });
    expect(t.host.serverRequests.answer(question.id, { action: 'accept', content: { name: 'Ada', integer: 7 } }, { shell: 'test' })).toEqual({ accepted: true });
    const result = await call;
    expect(text(result)).toContain('Name: Ada');
    const [latest] = await readServerRequestEntries(t.host.audit, { kind: 'elicitation' });
    // The answer's values are not in the log, only which fields were filled.
    expect(JSON.stringify(latest)).not.toContain('Ada');
    expect(latest!.outcome).toMatchObject({ outcome: 'accept', response: { action: 'accept', fields: ['name', 'integer'] } });
  });

  it('a URL question opens nothing until the person clicks; then only the https URL it checked', async () => {
    t.ask.available = true;
    const handlers = t.host.ipcHandlers();
    const call = t.host.calls.call({ server: 'everything', tool: 'trigger-url-elicitation', arguments: { url: 'https://xn--exmple-cua.com/login', message: 'Sign in here' }, caller: { kind: 'user' } });
    const question = await nextQuestion(t, 'elicitation-url');
    if (question.kind !== 'elicitation-url') throw new Error('wrong question');
    expect(question).toMatchObject({ url: 'https://xn--exmple-cua.com/login', host: 'exämple.com', asciiHost: 'xn--exmple-cua.com', punycode: true, opened: false });
    expect(question.reasons.join(' ')).toMatch(/Punycode/);
    await expect(Promise.resolve().then(() => handlers['requests.openUrl']({ id: 'not-a-question' }))).rejects.toThrow(/did not ask/);
    expect(await handlers['requests.openUrl']({ id: question.id })).toEqual({ url: 'https://xn--exmple-cua.com/login' });
    expect(t.host.serverRequests.pending().find((q) => q.id === question.id)).toMatchObject({ opened: true });
    expect(t.host.serverRequests.answer(question.id, { action: 'accept' }, { shell: 'test' })).toEqual({ accepted: true });
    expect(text(await call)).toMatch(/accept/);
  });

  it('a URL that is not https to a public host is declined before anyone sees it', async () => {
    t.ask.available = true;
    const before = (await readServerRequestEntries(t.host.audit, { kind: 'elicitation' })).length;
    for (const url of ['http://example.com/', 'https://127.0.0.1:8080/admin', 'https://user:pw@example.com/']) {
      const result = await t.host.calls.call({ server: 'everything', tool: 'trigger-url-elicitation', arguments: { url }, caller: { kind: 'user' } });
      expect(text(result)).toMatch(/decline/);
    }
    expect(t.host.serverRequests.pending()).toHaveLength(0);
    const entries = await readServerRequestEntries(t.host.audit, { kind: 'elicitation' });
    const refused = entries.slice(0, entries.length - before).filter((r) => r.decision.decidedBy === 'unsafe-url');
    expect(refused).toHaveLength(3);
  });

  it('what the shells are sent fits the contract (validated as the window would get it)', async () => {
    t.ask.available = true;
    const handlers = t.host.ipcHandlers();
    const call = t.host.calls.call({ server: 'everything', tool: 'trigger-elicitation-request', arguments: {}, caller: { kind: 'user' } });
    const question = await nextQuestion(t, 'elicitation-form');
    const pending = await dispatchIpc(handlers, 'requests.pending', {});
    expect(pending).toMatchObject({ ok: true, value: [expect.objectContaining({ id: question.id, kind: 'elicitation-form' })] });
    expect(await dispatchIpc(handlers, 'requests.extend', { id: question.id })).toMatchObject({ ok: true, value: { deadline: expect.any(Number) } });
    expect(await dispatchIpc(handlers, 'requests.answer', { id: question.id, answer: { action: 'cancel' } })).toEqual({ ok: true, value: { accepted: true } });
    await call;
    for (const [channel, request] of [
      ['requests.history', {}],
      ['requests.settings', { name: 'everything' }],
      ['catalog.get', { name: 'everything' }],
      ['resources.read', { server: 'everything', uri: 'demo://resource/dynamic/blob/2' }],
      ['prompts.get', { server: 'everything', name: 'resource-prompt', arguments: { resourceType: 'Blob', resourceId: '2' } }],
      ['completion.complete', { server: 'everything', ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: '' } }],
    ] as const) {
      const result = await dispatchIpc(handlers, channel, request);
      expect(result, channel).toMatchObject({ ok: true });
    }
    // A forged or malformed answer is refused at the contract, before the core.
    expect(await dispatchIpc(handlers, 'requests.answer', { id: 'x', answer: { action: 'accept', content: { a: { nested: true } } } })).toMatchObject({ ok: false, code: 'invalid-request' });
  });
});

// A server may ask at most so many questions a minute: these have a host of their own.
describe('a web page a server asks the person to open, its name looked up', () => {
  const names = new Map<string, readonly string[]>();
  let t: TestHost;

  beforeAll(async () => {
    // Host names the tests point somewhere (as a DNS answer would); any other name is looked up as usual.
    t = await createTestHost({ resolveHost: async (name) => names.get(name) ?? (await lookup(name, { all: true })).map((entry) => entry.address) });
    await t.add('everything', [process.execPath, EVERYTHING_SERVER, 'stdio']);
  });
  afterAll(() => t.close());

  it('a public-looking name that leads to this computer or the local network is declined before anyone sees it', async () => {
    t.ask.available = true;
    names.set('admin.127.0.0.1.nip.io', ['127.0.0.1']);
    names.set('router.example.net', ['192.168.1.1']);
    names.set('mixed.example.org', ['93.184.216.34', '::ffff:a00:5']);
    for (const url of ['https://admin.127.0.0.1.nip.io:8443/delete?all=1', 'https://router.example.net/', 'https://mixed.example.org/login']) {
      const result = await t.host.calls.call({ server: 'everything', tool: 'trigger-url-elicitation', arguments: { url }, caller: { kind: 'user' } });
      expect(text(result)).toMatch(/decline/);
    }
    expect(t.host.serverRequests.pending()).toHaveLength(0);
    const entries = await readServerRequestEntries(t.host.audit, { kind: 'elicitation' });
    const refused = entries.filter((entry) => entry.decision.decidedBy === 'unsafe-url');
    const reasons = refused.map((entry) => (entry.decision.reasons ?? []).join(' '));
    expect(reasons).toHaveLength(3);
    expect(reasons).toEqual(expect.arrayContaining([expect.stringContaining('its name leads to 127.0.0.1'), expect.stringContaining('its name leads to 192.168.1.1'), expect.stringContaining('its name leads to ::ffff:a00:5')]));
  });

  it('a name that leads into the local network by the time the person clicks is not opened', async () => {
    t.ask.available = true;
    names.set('later.example.com', ['93.184.216.34']);
    const handlers = t.host.ipcHandlers();
    const call = t.host.calls.call({ server: 'everything', tool: 'trigger-url-elicitation', arguments: { url: 'https://later.example.com/login' }, caller: { kind: 'user' } });
    const question = await nextQuestion(t, 'elicitation-url');
    names.set('later.example.com', ['10.0.0.7']);
    await expect(Promise.resolve().then(() => handlers['requests.openUrl']({ id: question.id }))).rejects.toThrow(/did not open later\.example\.com: its name leads to 10\.0\.0\.7/);
    // Once refused, it stays refused, whatever the name says next.
    names.set('later.example.com', ['93.184.216.34']);
    await expect(Promise.resolve().then(() => handlers['requests.openUrl']({ id: question.id }))).rejects.toThrow(/only https addresses it checked/);
    expect(t.host.serverRequests.pending().find((q) => q.id === question.id)).toMatchObject({ opened: false });
    expect(t.host.serverRequests.answer(question.id, { action: 'decline' }, { shell: 'test' })).toEqual({ accepted: true });
    expect(text(await call)).toMatch(/decline/);
  });

});
