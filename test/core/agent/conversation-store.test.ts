/**
 * Conversations on disk: crash-safe (a process killed mid-stream loses at
 * most the unfinished message and the file still loads), searchable by
 * title and text, renamed and deleted for good.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../../shared/chat';
import { AgentService } from '../../../electron/core/agent';
import { ConversationStore, INTERRUPTED_CALL } from '../../../electron/core/agent/conversation-store';
import { toModelMessages } from '../../../electron/core/agent/history';
import { SecretStore } from '../../../electron/core/secrets/secret-store';
import { ModelServer } from '../../fixtures/model-server/model-server';
import { until } from './agent-support';

const REPO = join(import.meta.dirname, '../../..');

function service(dataDir: string): AgentService {
  return new AgentService({
    dataDir,
    secrets: new SecretStore(dataDir),
    servers: () => [],
    tools: async () => [],
    callTool: async () => {
      throw new Error('no tools');
    },
    emit: { conversations: () => {}, models: () => {}, update: () => {} },
  });
}

describe('conversations on disk', () => {
  let dataDir: string;
  let model: ModelServer;
  beforeAll(async () => {
    model = await ModelServer.start({ apiKey: 'sk-child' });
  });
  afterAll(() => model?.close());
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'airlock-chat-'));
    model.reset();
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a process killed mid-stream loses only the unfinished message; the file loads and the conversation goes on', async () => {
    model.push({ text: Array.from({ length: 400 }, (_, n) => `w${n} `), chunkDelayMs: 20 });
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/chat-child.ts'), dataDir, model.baseUrl], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    try {
      await until(() => (out.match(/^delta$/gm) ?? []).length >= 5, `streamed text in the child (stderr: ${err})`, 60_000);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((resolve) => child.once('exit', resolve));
    const id = /conversation (\S+)/.exec(out)![1]!;

    const after = service(dataDir);
    const loaded = after.get(id);
    expect(loaded.problems).toEqual([]);
    expect(loaded.messages).toEqual([expect.objectContaining({ role: 'user', text: 'Tell me a long story.' })]);
    expect(loaded.title).toBe('Tell me a long story.');

    model.push({ text: 'A short one, then.' });
    await after.send(id, { text: 'Shorter, please.' });
    expect(await after.whenIdle(id)).toBe('done');
    expect(new ConversationStore(dataDir).get(id).messages.map((message) => message.role)).toEqual(['user', 'user', 'assistant']);
  });

  it('a line cut off by a kill is skipped and reported; the next line starts fresh; nothing is rewritten', () => {
    const store = new ConversationStore(dataDir);
    const { id } = store.create({ now: '2026-01-01T00:00:00.000Z' });
    store.appendMessage(id, { id: 'u1', role: 'user', at: '2026-01-01T00:00:01.000Z', text: 'first' });
    const path = join(dataDir, 'conversations', `${id}.jsonl`);
    appendFileSync(path, '{"t":"message","message":{"id":"u2","role":"us');
    const damaged = readFileSync(path, 'utf8');

    const reopened = new ConversationStore(dataDir);
    const loaded = reopened.get(id);
    expect(loaded.messages.map((message) => message.id)).toEqual(['u1']);
    expect(loaded.problems).toEqual(['The last line of the file was cut off (Airlock stopped while writing it); it was skipped.']);
    expect(readFileSync(path, 'utf8')).toBe(damaged);

    reopened.appendMessage(id, { id: 'u3', role: 'user', at: '2026-01-01T00:00:02.000Z', text: 'after the crash' });
    const again = new ConversationStore(dataDir).get(id);
    expect(again.messages.map((message) => message.id)).toEqual(['u1', 'u3']);
    expect(again.problems).toEqual(['Line 3 of the file could not be read; it was skipped.']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'conversations')).mode & 0o777).toBe(0o700);
  });

  it('a call left running by a stopped process loads as "outcome unknown", and the model gets an answer for it', () => {
    const store = new ConversationStore(dataDir);
    const { id } = store.create({ now: '2026-01-01T00:00:00.000Z' });
    const message: AssistantMessage = {
      id: 'a1',
      role: 'assistant',
      at: '2026-01-01T00:00:01.000Z',
      model: { provider: 'p', model: 'm' },
      status: 'complete',
      parts: [{ type: 'tool', card: { id: 'call_1', modelName: 'files__write_file', server: 'files', tool: 'write_file', arguments: {}, state: 'requested', warnings: [] } }],
    };
    store.appendMessage(id, message);
    const loaded = new ConversationStore(dataDir).get(id).messages[0] as AssistantMessage;
    expect(loaded.parts[0]).toMatchObject({ type: 'tool', card: { state: 'done', outcome: 'unknown', message: INTERRUPTED_CALL } });
    const forModel = toModelMessages([{ id: 'u', role: 'user', at: '', text: 'hi' }, loaded]);
    expect(forModel.at(-1)).toMatchObject({ role: 'tool', content: [{ toolCallId: 'call_1', output: { type: 'error-text', value: expect.stringContaining('may have acted') } }] });
  });

  it('search finds titles and text; rename and delete are for good', async () => {
    const chat = service(dataDir);
    const provider = chat.addProvider({ kind: 'anthropic', label: 'Scripted', baseUrl: model.baseUrl, apiKey: 'sk-child' });
    chat.setDefaultModel({ provider: provider.id, model: 'm' });
    const first = chat.create();
    model.push({ text: 'The capital of Australia is Canberra.' });
    await chat.send(first.id, { text: 'What is the capital of Australia?' });
    await chat.whenIdle(first.id);
    const second = chat.rename(chat.create().id, 'Holiday plans');

    expect(chat.list().map((summary) => summary.id)).toEqual([second.id, first.id]);
    expect(chat.list('canberra')).toEqual([expect.objectContaining({ id: first.id, snippet: expect.stringContaining('Canberra') })]);
    expect(chat.list('HOLIDAY').map((summary) => summary.id)).toEqual([second.id]);
    expect(chat.list('nothing like this')).toEqual([]);
    expect(() => chat.rename(first.id, '   ')).toThrow(/cannot be empty/);

    await chat.remove(first.id);
    expect(existsSync(join(dataDir, 'conversations', `${first.id}.jsonl`))).toBe(false);
    expect(() => chat.get(first.id)).toThrow(/no such conversation/);
    expect(() => chat.get('../models')).toThrow(/no such conversation/);
  });

  it('a corrupt models file is kept aside and reported, never overwritten silently', () => {
    writeFileSync(join(dataDir, 'models.json'), '{ not json');
    const chat = service(dataDir);
    expect(chat.modelsView().notices[0]).toMatch(/models file could not be read.*kept as .*models\.corrupt-/);
    expect(chat.modelsView().providers).toEqual([]);
  });
});
