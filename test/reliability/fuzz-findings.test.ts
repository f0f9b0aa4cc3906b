/**
 * What the fuzzers found, each pinned by a plain test through the same real
 * path (the Electron wrapper, dispatchIpc, a real host), checked on disk.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AirlockHost } from '../../electron/core/host';
import { registerIpcHandlers } from '../../electron/main/ipc';
import { APP_ORIGIN } from '../../electron/main/window';

const root = mkdtempSync(join(tmpdir(), 'airlock-fuzz-findings-'));
const dataDir = join(root, 'data');
const host = new AirlockHost({ dataDir, homeDir: join(root, 'home'), version: 'test', hooks: { emit: () => {} }, audit: { key: null } });
const listeners = new Map<string, (event: unknown, request: unknown) => Promise<unknown>>();
registerIpcHandlers({ handle: (channel: string, listener: never) => void listeners.set(channel, listener) } as never, host.ipcHandlers(), { appOrigin: APP_ORIGIN });
const frame = { url: `${APP_ORIGIN}/index.html` };
const invoke = (channel: string, request: unknown) => listeners.get(channel)!({ senderFrame: frame, sender: { mainFrame: frame } }, request);
const file = (name: string) => (existsSync(join(dataDir, name)) ? readFileSync(join(dataDir, name), 'utf8') : '');

afterAll(async () => {
  await host.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('a model provider with a blank name (found by the IPC fuzz)', () => {
  it('is refused in words, and neither the provider nor its key is saved', async () => {
    // The contract lets " " through (one character); the models file does not take a blank name.
    expect(await invoke('models.addProvider', { kind: 'anthropic', label: '   ', apiKey: 'sk-fuzz-blank-label' })).toEqual({
      ok: false,
      code: 'invalid-request',
      message: 'A model provider needs a name; the one given is blank.',
    });
    expect(file('models.json')).not.toContain('"kind"');
    expect(file('secrets.json')).not.toContain('sk-fuzz-blank-label');
  });

  it('a rename to a blank name is refused the same way; the provider keeps its name', async () => {
    const added = (await invoke('models.addProvider', { kind: 'openai-compatible', label: 'Local', baseUrl: 'http://127.0.0.1:11434/v1' })) as { ok: true; value: { id: string } };
    expect(added.ok).toBe(true);
    expect(await invoke('models.updateProvider', { id: added.value.id, label: '\t' })).toMatchObject({ ok: false, code: 'invalid-request', message: 'A model provider needs a name; the one given is blank.' });
    expect(JSON.parse(file('models.json')).providers).toMatchObject([{ id: added.value.id, label: 'Local' }]);
  });
});
