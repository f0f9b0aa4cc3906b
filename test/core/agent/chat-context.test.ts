/**
 * The chat's `/` prompts and `@` resources, end to end: a real fixture server
 * (prompts, text and binary resources, a prompt that changes after approval)
 * in the real sandbox, and the scripted model server recording what reached
 * the model. A prompt changed since approval is refused, nothing saved.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../host/host-support';
import { createAgentHarness, type AgentHarness } from './agent-support';

describe('chat context: prompts and resources from servers', () => {
  let t: AgentHarness;

  beforeAll(async () => {
    t = await createAgentHarness({ confirmationTimeoutMs: 20_000 });
    const records = t.folder('records');
    await t.add('abuse', [process.execPath, fixture('servers/catalog-abuse.mjs'), records], { profile: { filesystem: { read: [], write: [records], persistentData: false } } });
    t.useProvider('anthropic');
  });
  afterAll(() => t?.close());
  beforeEach(() => t.model.reset());

  it('offers the prompts (with their arguments) and resources of the conversation’s servers', async () => {
    const id = t.host.agent.create().id;
    const commands = await t.host.ipcHandlers()['chat.commands']({ id });
    expect(commands.available).toBe(true);
    expect(commands.prompts).toContainEqual(expect.objectContaining({ server: 'abuse', name: 'summarise', arguments: [{ name: 'topic', description: 'What to summarise', required: true }] }));
    expect(commands.resources).toContainEqual(expect.objectContaining({ server: 'abuse', uri: 'note://one' }));
    // A conversation with no servers selected is offered none, and cannot use one.
    t.host.agent.setTools(id, { servers: [], hiddenTools: [] });
    expect(await t.host.ipcHandlers()['chat.commands']({ id })).toMatchObject({ prompts: [], resources: [] });
    await expect(t.host.agent.send(id, { text: 'x', resources: [{ server: 'abuse', uri: 'note://one' }] })).rejects.toThrow(/not among this conversation's servers/);
  });

  it('the prompt’s text and the resource’s text reach the model; binary content as a summary, not bytes', async () => {
    t.model.push({ text: 'Summarised.' });
    const id = t.host.agent.create().id;
    await t.host.agent.send(id, {
      text: 'and be brief',
      prompt: { server: 'abuse', name: 'summarise', arguments: { topic: 'zebras-42' } },
      resources: [
        { server: 'abuse', uri: 'note://one' },
        { server: 'abuse', uri: 'note://fake-text' },
      ],
    });
    expect(await t.host.agent.whenIdle(id)).toBe('done');
    const body = JSON.stringify(t.model.requests[0]!.body);
    expect(body).toContain('zebras-42');
    expect(body).toContain('and be brief');
    expect(body).toContain('the first note');
    expect(body).toContain('[Attached from abuse: note://one]');
    expect(body).toMatch(/Binary content from the server: text\/plain, 4 bytes — not attached/);
    expect(body).not.toContain('AAEC/w==');
  });

  it('a prompt changed since approval is refused with a clear message; nothing is saved or sent', async () => {
    await t.host.calls.call({ server: 'abuse', tool: 'change_prompt', arguments: {}, caller: { kind: 'user' } });
    const handlers = t.host.ipcHandlers();
    let pending = false;
    for (let i = 0; i < 200 && !pending; i += 1) {
      pending = (await handlers['catalog.get']({ name: 'abuse' })).prompts[0]?.pendingChange !== undefined;
      if (!pending) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(pending).toBe(true);
    const id = t.host.agent.create().id;
    // Withheld from the `/` list, and refused when asked for by name.
    expect((await handlers['chat.commands']({ id })).prompts.map((p) => p.name)).not.toContain('summarise');
    await expect(t.host.agent.send(id, { text: '', prompt: { server: 'abuse', name: 'summarise', arguments: { topic: 'x' } } })).rejects.toThrow(/changed since you approved it/);
    expect(t.host.agent.get(id).messages).toHaveLength(0);
    expect(t.model.requests).toHaveLength(0);
  });
});
