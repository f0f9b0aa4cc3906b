/**
 * The gateway relays all of MCP, with the real core behind it and
 * server-everything in the real sandbox: resources (namespaced, reversible
 * URIs), templates, prompts (`server__prompt`), completion, logging,
 * subscriptions — and what the server asks back (sampling, elicitation),
 * relayed to the downstream SDK client only after Airlock's decision. The
 * transparent mode serves the one server as itself.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type CreateMessageRequest,
  type ElicitRequest,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultServerRequestSettings } from '../../../shared/domain';
import type { ServerRequestView } from '../../../shared/views';
import { createGatewayServer } from '../../../electron/core/gateway/gateway-server';
import { readServerRequestEntries } from '../../../electron/core/audit/server-request-entries';
import { createTestHost, EVERYTHING_SERVER, fixture, type TestHost } from '../host/host-support';

interface Downstream {
  client: Client;
  sampled: Array<CreateMessageRequest['params']>;
  elicited: Array<ElicitRequest['params']>;
  logs: LoggingMessageNotification['params'][];
  close(): Promise<void>;
}

/** An SDK client connected to a gateway session over the real core; it can sample, elicit and claims roots. */
async function connect(t: TestHost, options: Parameters<typeof createGatewayServer>[1] = {}, elicitAnswer: 'decline' | 'accept' = 'decline'): Promise<Downstream> {
  const server = createGatewayServer(t.host.gateway.core(), { clientName: 'Test App', log: () => {}, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test-app', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } });
  const sampled: Downstream['sampled'] = [];
  const elicited: Downstream['elicited'] = [];
  const logs: Downstream['logs'] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    sampled.push(request.params);
    return { model: 'app-model', role: 'assistant', content: { type: 'text', text: 'the app model says hi' } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicited.push(request.params);
    return elicitAnswer === 'decline' ? { action: 'decline' } : { action: 'accept', content: { name: 'From the app' } };
  });
  // The client claims a root; servers must get Airlock's grants instead.
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///etc', name: 'everything the app has' }] }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
  await client.connect(clientSide);
  return { client, sampled, elicited, logs, close: () => client.close() };
}

async function nextQuestion(t: TestHost, kind: ServerRequestView['kind']): Promise<ServerRequestView> {
  for (let i = 0; i < 400; i += 1) {
    const found = t.host.serverRequests.pending().find((q) => q.kind === kind);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no ${kind} question`);
}

const textOf = (result: unknown) => JSON.stringify((result as { content?: unknown }).content);

describe('the gateway relays resources, prompts, completion and logging', () => {
  let t: TestHost;
  let app: Downstream;
  let notes: string;
  beforeAll(async () => {
    t = await createTestHost();
    notes = t.folder('notes');
    await t.add('everything', [process.execPath, EVERYTHING_SERVER, 'stdio'], { profile: { filesystem: { read: [notes], write: [], persistentData: false } } });
    await t.add('abuse', [process.execPath, fixture('servers/catalog-abuse.mjs')]);
    for (const tool of ['log_all_levels', 'update_resource']) {
      await t.host.policy.addRule({ server: 'abuse', tool, effect: 'allow', fingerprint: t.host.supervisor.tools.lookup('abuse', tool)!.fingerprint, confirmDestructive: true });
    }
    app = await connect(t);
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });

  it('declares resources, prompts, completion and logging', () => {
    expect(app.client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} });
  });

  it('lists resources under reversible airlock:// URIs and reads them back', async () => {
    const { resources } = await app.client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.filter((r) => r.uri.startsWith('airlock://everything/')).every((r) => r.uri.startsWith('airlock://everything/demo://'))).toBe(true);
    // Two servers, one list, no collisions possible: each URI carries its server.
    expect(resources.map((r) => r.uri)).toContain('airlock://abuse/note://one');
    expect(resources.every((r) => /^airlock:\/\/(everything|abuse)\//.test(r.uri))).toBe(true);
    const { resourceTemplates } = await app.client.listResourceTemplates();
    const text = resourceTemplates.find((r) => r.uriTemplate === 'airlock://everything/demo://resource/dynamic/text/{resourceId}');
    expect(text).toBeDefined();
    // A URI expanded from the mapped template maps back to the server's own.
    const read = await app.client.readResource({ uri: 'airlock://everything/demo://resource/dynamic/text/3' });
    expect(read.contents[0]).toMatchObject({ uri: 'airlock://everything/demo://resource/dynamic/text/3', text: expect.stringContaining('Resource 3') });
    await expect(app.client.readResource({ uri: 'demo://resource/dynamic/text/3' })).rejects.toThrow(/Unknown resource/);
    await expect(app.client.readResource({ uri: 'airlock://other/demo://x' })).rejects.toThrow(/Unknown resource/);
  });

  it('lists prompts as server__prompt and gets one with arguments', async () => {
    const { prompts } = await app.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['everything__simple-prompt', 'everything__args-prompt']));
    const prompt = await app.client.getPrompt({ name: 'everything__args-prompt', arguments: { city: 'Porto' } });
    expect(JSON.stringify(prompt.messages)).toContain('Porto');
    const embedded = await app.client.getPrompt({ name: 'everything__resource-prompt', arguments: { resourceType: 'Text', resourceId: '2' } });
    expect(JSON.stringify(embedded.messages)).toContain('airlock://everything/demo://resource/dynamic/text/2');
  });

  it('completes arguments of prompts and templates', async () => {
    const result = await app.client.complete({ ref: { type: 'ref/prompt', name: 'everything__completable-prompt' }, argument: { name: 'department', value: 'Eng' } });
    expect(result.completion.values).toEqual(['Engineering']);
  });

  it('sets the log level per session and relays the lines at or above it, named by server', async () => {
    const other = await connect(t);
    try {
      await app.client.setLoggingLevel('error');
      await other.client.setLoggingLevel('debug');
      app.logs.length = 0;
      await app.client.callTool({ name: 'abuse__log_all_levels', arguments: {} });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const mine = app.logs.filter((line) => line.logger === 'abuse/abuse');
      expect(mine.map((line) => line.level)).toEqual(['error', 'critical', 'alert', 'emergency']);
      expect(mine[0]!.data).toBe('a error line');
      // The other session asked for everything and gets everything (the server was asked for debug).
      expect(other.logs.filter((line) => line.logger === 'abuse/abuse').map((line) => line.level)).toEqual(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
    } finally {
      await other.close();
    }
  });

  it('roots come from Airlock’s grants, not from what the app claims', async () => {
    const result = await app.client.callTool({ name: 'everything__get-roots-list', arguments: {} });
    expect(textOf(result)).toContain(`file://${notes}`);
    expect(textOf(result)).not.toContain('file:///etc');
  });

  it('subscriptions are per session; updates reach only the sessions that subscribed', async () => {
    const other = await connect(t);
    const updates = (client: Client) => {
      const seen: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
      return seen;
    };
    const mine = updates(app.client);
    const theirs = updates(other.client);
    try {
      await app.client.subscribeResource({ uri: 'airlock://abuse/note://one' });
      await app.client.callTool({ name: 'abuse__update_resource', arguments: {} });
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The fixture announces note://one and note://unsubscribed; only the subscribed one, only to its subscriber.
      expect(mine).toEqual(['airlock://abuse/note://one']);
      expect(theirs).toEqual([]);
      await app.client.unsubscribeResource({ uri: 'airlock://abuse/note://one' });
      await app.client.callTool({ name: 'abuse__update_resource', arguments: {} });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(mine).toEqual(['airlock://abuse/note://one']);
    } finally {
      await other.close();
    }
  });
});

describe('what a server asks back is relayed after Airlock’s decision', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost({ confirmationTimeoutMs: 20_000 });
    await t.add('everything', [process.execPath, EVERYTHING_SERVER, 'stdio']);
    // The tools that ask back are allowed, as a person would allow them: the questions here are the server's own.
    for (const tool of ['trigger-sampling-request', 'trigger-elicitation-request']) {
      await t.host.policy.addRule({ server: 'everything', tool, effect: 'allow', fingerprint: t.host.supervisor.tools.lookup('everything', tool)!.fingerprint });
    }
  });
  afterAll(() => t.close());

  it('sampling: the person edits the request in Airlock; the app’s model gets it edited, and its answer is reviewed before it goes back', async () => {
    t.ask.available = true;
    const app = await connect(t);
    try {
      const call = app.client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'from the server', maxTokens: 40 } });
      const question = await nextQuestion(t, 'sampling-request');
      if (question.kind !== 'sampling-request') throw new Error('wrong kind');
      expect(question).toMatchObject({ answerer: 'client', answererLabel: "Test App's model", during: 'Test App' });
      expect(app.sampled).toHaveLength(0);
      const edited = { ...question.params, messages: [{ role: 'user', content: { type: 'text', text: 'edited in Airlock' } }] };
      expect(t.host.serverRequests.answer(question.id, { choice: 'allow-once', params: edited }, { shell: 'test' })).toEqual({ accepted: true });
      const review = await nextQuestion(t, 'sampling-response');
      expect(app.sampled).toHaveLength(1);
      expect(JSON.stringify(app.sampled[0]!.messages)).toContain('edited in Airlock');
      expect(JSON.stringify(app.sampled[0]!.messages)).not.toContain('from the server');
      expect(t.host.serverRequests.answer(review.id, { choice: 'approve' }, { shell: 'test' })).toEqual({ accepted: true });
      expect(textOf(await call)).toContain('the app model says hi');
    } finally {
      await app.close();
    }
  });

  it('sampling denied in Airlock never reaches the app’s model', async () => {
    t.ask.available = true;
    const app = await connect(t);
    try {
      const call = app.client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'no', maxTokens: 40 } });
      const question = await nextQuestion(t, 'sampling-request');
      t.host.serverRequests.answer(question.id, { choice: 'deny' }, { shell: 'test' });
      expect(textOf(await call)).toMatch(/denied this sampling request/);
      expect(app.sampled).toHaveLength(0);
    } finally {
      await app.close();
    }
  });

  it('with an "always" rule the person set for this server, sampling runs without a question, within its caps', async () => {
    t.host.serverRequests.setSettings('everything', { ...defaultServerRequestSettings(), sampling: { ...defaultServerRequestSettings().sampling, rule: 'always' } });
    t.ask.available = false;
    const app = await connect(t);
    try {
      expect(textOf(await app.client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'ok', maxTokens: 40 } }))).toContain('the app model says hi');
      expect(app.sampled).toHaveLength(1);
      // Past the person's token cap: refused, never sent.
      expect(textOf(await app.client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'big', maxTokens: 100_000 } }))).toMatch(/more than the 4096 you allow/);
      expect(app.sampled).toHaveLength(1);
    } finally {
      await app.close();
      t.host.serverRequests.setSettings('everything', defaultServerRequestSettings());
    }
  });

  it('elicitation relayed to the app (the person allowed it for this server); a decline comes back as decline', async () => {
    t.host.serverRequests.setSettings('everything', { ...defaultServerRequestSettings(), elicitation: { answer: 'client', perMinute: 10 } });
    t.ask.available = false;
    const app = await connect(t, {}, 'decline');
    try {
      const result = await app.client.callTool({ name: 'everything__trigger-elicitation-request', arguments: {} });
      expect(app.elicited).toHaveLength(1);
      expect(textOf(result)).toContain('declined');
      const [latest] = await readServerRequestEntries(t.host.audit, { kind: 'elicitation' });
      expect(latest!.decision).toMatchObject({ final: 'allow', route: 'client', answerer: 'Test App' });
      expect(latest!.outcome).toMatchObject({ outcome: 'decline', answer: { how: 'decline', by: 'client' } });
    } finally {
      await app.close();
      t.host.serverRequests.setSettings('everything', defaultServerRequestSettings());
    }
  });

  it('elicitation not allowed for the app is asked in Airlock instead (the app never sees it)', async () => {
    t.ask.available = true;
    const app = await connect(t);
    try {
      const call = app.client.callTool({ name: 'everything__trigger-elicitation-request', arguments: {} });
      const question = await nextQuestion(t, 'elicitation-form');
      t.host.serverRequests.answer(question.id, { action: 'decline' }, { shell: 'test' });
      expect(textOf(await call)).toContain('declined');
      expect(app.elicited).toHaveLength(0);
    } finally {
      await app.close();
    }
  });
});

describe('the transparent single-server mode', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost();
    await t.add('everything', [process.execPath, EVERYTHING_SERVER, 'stdio']);
  });
  afterAll(() => t.close());

  it('serves one server with its own names, URIs, capabilities and server info, through the choke point', async () => {
    const described = await t.host.gateway.core().catalog!.describe('everything');
    const app = await connect(t, { transparent: described });
    try {
      expect(app.client.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything', title: 'Everything Reference Server' });
      expect(app.client.getServerCapabilities()).toMatchObject({ tools: {}, resources: { subscribe: true }, prompts: {}, logging: {} });
      expect(app.client.getInstructions()).toBe(described.instructions);
      const tools = (await app.client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain('echo');
      expect(tools.some((name) => name.includes('__'))).toBe(false);
      expect(textOf(await app.client.callTool({ name: 'echo', arguments: { message: 'as itself' } }))).toContain('Echo: as itself');
      expect((await app.client.listResources()).resources[0]!.uri).toMatch(/^demo:\/\//);
      expect((await app.client.readResource({ uri: 'demo://resource/dynamic/text/5' })).contents[0]!.uri).toBe('demo://resource/dynamic/text/5');
      expect((await app.client.listPrompts()).prompts.map((p) => p.name)).toContain('args-prompt');
      // The call went through the choke point: it is in the audit log with the app as caller.
      const [entry] = await t.host.audit.read({ server: 'everything', tool: 'echo' });
      expect(entry!.decision.caller).toEqual({ kind: 'client', name: 'Test App' });
    } finally {
      await app.close();
    }
  });
});
