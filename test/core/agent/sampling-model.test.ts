/**
 * The sampling adapter the server-requests room will call (after the
 * person's approval): an MCP `sampling/createMessage` answered by the
 * person's default model, over real HTTP to the scripted model server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentService, createSamplingModel } from '../../../electron/core/agent';
import { MAX_SAMPLING_TOKENS } from '../../../electron/core/agent/sampling-model';
import { SecretStore } from '../../../electron/core/secrets/secret-store';
import { ModelServer } from '../../fixtures/model-server/model-server';

describe('SamplingModel', () => {
  let dataDir: string;
  let model: ModelServer;
  let chat: AgentService;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'airlock-sampling-'));
    model = await ModelServer.start({ apiKey: 'sk-s' });
    chat = new AgentService({ dataDir, secrets: new SecretStore(dataDir), servers: () => [], tools: async () => [], callTool: async () => { throw new Error('none'); }, emit: { conversations: () => {}, models: () => {}, update: () => {} } });
  });
  afterAll(async () => {
    await model?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const sampling = () => createSamplingModel({ defaultModel: () => chat.models.defaultModel(), clientFor: (ref) => chat.clientFor(ref) });

  it('says so when no default model is chosen', async () => {
    await expect(sampling().createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 }, {})).rejects.toThrow(/No default model/);
  });

  it('answers with the default model: system prompt, messages and a capped token limit passed on; a valid MCP result back', async () => {
    const provider = chat.addProvider({ kind: 'anthropic', label: 'Scripted', baseUrl: model.baseUrl, apiKey: 'sk-s' });
    chat.setDefaultModel({ provider: provider.id, model: 'claude-haiku-4-5' });
    model.push({ text: 'Paris.' });
    const result = await sampling().createMessage(
      {
        systemPrompt: 'Answer in one word.',
        messages: [
          { role: 'user', content: { type: 'text', text: 'Capital of France?' } },
          { role: 'assistant', content: { type: 'text', text: 'Let me think.' } },
          { role: 'user', content: [{ type: 'text', text: 'Go on.' }] },
        ],
        maxTokens: 1_000_000,
        temperature: 0.2,
      },
      {},
    );
    expect(CreateMessageResultSchema.parse(result)).toEqual({ role: 'assistant', content: { type: 'text', text: 'Paris.' }, model: 'claude-haiku-4-5', stopReason: 'endTurn' });
    const body = model.requests[0]!.body;
    expect(body.system).toEqual([{ type: 'text', text: 'Answer in one word.' }]);
    expect(body.max_tokens).toBe(MAX_SAMPLING_TOKENS);
    expect(body.temperature).toBe(0.2);
    expect((body.messages as unknown[]).length).toBe(3);
  });

  it('refuses sampling with tools rather than dropping them silently', async () => {
    await expect(
      sampling().createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 5, tools: [{ name: 't', inputSchema: { type: 'object' } }] }, {}),
    ).rejects.toThrow(/Sampling with tools is not supported/);
  });
});
