/**
 * The provider adapter against the scripted model server over real HTTP:
 * each wire format streams text and tool calls (with their JSON input in
 * pieces) and usage, sends the key the way the real API expects it, and
 * lists models in the provider's own format.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient, listModels, type ModelStepEvent, type ProviderConfig } from '../../../electron/core/agent/model-client';
import { ModelServer } from '../../fixtures/model-server/model-server';

const KEY = 'sk-wire-test';

async function collect(events: AsyncIterable<ModelStepEvent>): Promise<ModelStepEvent[]> {
  const out: ModelStepEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('model clients speak the real wire formats', () => {
  let server: ModelServer;
  const config = (kind: ProviderConfig['kind']): ProviderConfig => ({ id: kind, kind, label: kind, baseUrl: server.baseUrl });

  beforeAll(async () => {
    server = await ModelServer.start({ apiKey: KEY, models: ['model-b', 'model-a'] });
  });
  afterAll(() => server?.close());
  beforeEach(() => server.reset());

  it.each(['anthropic', 'openai', 'openai-compatible'] as const)('%s: streams text, then a tool call’s input as it is written and whole, then usage', async (kind) => {
    server.push({ text: ['Hel', 'lo ', 'there.'], toolCalls: [{ id: 'call_1', name: 'files__write_file', input: { path: '/tmp/a b.txt', content: 'x'.repeat(40) } }], usage: { input: 12, output: 7 } });
    const client = createModelClient(config(kind), KEY, 'model-a');
    const events = await collect(
      client.step({
        system: 'be brief',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'files__write_file', description: 'writes', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
        toolChoice: 'auto',
        signal: new AbortController().signal,
      }),
    );
    // The arguments as they were written, piece by piece (the scripted Anthropic stream sends 16 characters at a time), for a screen.
    const written = events.filter((event) => event.type === 'tool-input-delta');
    expect(written.map((event) => event.delta).join('')).toBe(JSON.stringify({ path: '/tmp/a b.txt', content: 'x'.repeat(40) }));
    expect(new Set(written.map((event) => `${event.id} ${event.name}`))).toEqual(new Set(['call_1 files__write_file']));
    if (kind === 'anthropic') expect(written.length).toBeGreaterThan(3);
    expect(events.filter((event) => event.type !== 'tool-input-delta')).toEqual([
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo ' },
      { type: 'text', text: 'there.' },
      { type: 'tool-call', id: 'call_1', name: 'files__write_file', input: { path: '/tmp/a b.txt', content: 'x'.repeat(40) } },
      { type: 'finish', usage: { inputTokens: 12, outputTokens: 7 }, finishReason: 'tool-calls' },
    ]);
    const request = server.requests[0]!;
    expect(request.format).toBe(kind === 'anthropic' ? 'anthropic' : 'openai');
    expect(request.toolNames).toEqual(['files__write_file']);
    expect(request.system).toBe('be brief');
    expect(request.body.stream).toBe(true);
    if (kind === 'anthropic') {
      expect(request.headers['x-api-key']).toBe(KEY);
      expect(request.headers.authorization).toBeUndefined();
    } else {
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    }
  });

  it('sends tool results back in the provider’s format', async () => {
    server.push({ text: 'ok' }, { text: 'ok' });
    const history = [
      { role: 'user' as const, content: 'hi' },
      { role: 'assistant' as const, content: [{ type: 'tool-call' as const, toolCallId: 'call_9', toolName: 'files__read', input: {} }] },
      { role: 'tool' as const, content: [{ type: 'tool-result' as const, toolCallId: 'call_9', toolName: 'files__read', output: { type: 'text' as const, value: 'the file says hi' } }] },
    ];
    for (const kind of ['anthropic', 'openai'] as const) {
      await collect(createModelClient(config(kind), KEY, 'm').step({ system: '', messages: history, tools: [{ name: 'files__read', inputSchema: { type: 'object' } }], toolChoice: 'auto', signal: new AbortController().signal }));
    }
    expect(server.requests.map((request) => request.toolResults)).toEqual([[{ id: 'call_9', text: 'the file says hi' }], [{ id: 'call_9', text: 'the file says hi' }]]);
  });

  it('toolChoice none is sent as the provider spells it', async () => {
    server.push({ text: 'a' }, { text: 'b' });
    for (const kind of ['anthropic', 'openai'] as const) {
      await collect(createModelClient(config(kind), KEY, 'm').step({ system: '', messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 't', inputSchema: { type: 'object' } }], toolChoice: 'none', signal: new AbortController().signal }));
    }
    expect(server.requests.map((request) => request.toolChoice)).toEqual([{ type: 'none' }, 'none']);
  });

  it('never falls back to a key in the environment', async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = KEY;
    try {
      server.push({ text: 'should not be reached' });
      const events = await collect(createModelClient(config('anthropic'), undefined, 'm').step({ system: '', messages: [{ role: 'user', content: 'hi' }], tools: [], toolChoice: 'auto', signal: new AbortController().signal }));
      expect(events.at(-1)?.type).toBe('error');
      expect(server.requests.every((request) => request.headers['x-api-key'] !== KEY)).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it('generate() answers a request whole (for sampling)', async () => {
    server.push({ text: 'A short answer.', usage: { input: 3, output: 4 } });
    const result = await createModelClient(config('anthropic'), KEY, 'm').generate({ system: 'sys', messages: [{ role: 'user', content: 'q' }], maxTokens: 50 });
    expect(result).toEqual({ text: 'A short answer.', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 4 } });
    expect(server.requests[0]!.body.stream).toBeUndefined();
    expect(server.requests[0]!.body.max_tokens).toBe(50);
  });

  it.each(['anthropic', 'openai'] as const)('%s: lists models in its own format, sorted; a wrong key is named', async (kind) => {
    expect(await listModels(config(kind), KEY)).toEqual(['model-a', 'model-b']);
    await expect(listModels(config(kind), 'wrong')).rejects.toThrow(/The key was refused \(401/);
  });

  it('an endpoint that cannot be reached says where', async () => {
    const gone = await ModelServer.start();
    const baseUrl = gone.baseUrl;
    await gone.close();
    await expect(listModels({ id: 'x', kind: 'openai-compatible', label: 'x', baseUrl }, undefined)).rejects.toThrow(`could not reach ${baseUrl} (ECONNREFUSED)`);
  });
});
