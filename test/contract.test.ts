/**
 * The contract holds end to end: every channel has exactly one handler in the
 * core and one binding in the built preload, and nothing else crosses.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { channelNames, channels, eventNames, events } from '../shared/ipc';
import { AirlockHost } from '../electron/core/host';

const PRELOAD = join(import.meta.dirname, '../out/preload/index.cjs');

/** Runs the built preload with a recording stand-in for Electron's preload API. */
function loadPreload() {
  const exposed: Array<{ key: string; api: Record<string, (...args: unknown[]) => unknown> }> = [];
  const invoked: Array<{ channel: string; request: unknown }> = [];
  const listening = new Map<string, Set<(...args: unknown[]) => void>>();
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: never) => exposed.push({ key, api }) },
    ipcRenderer: {
      invoke: (channel: string, request: unknown) => {
        invoked.push({ channel, request });
        return Promise.resolve({ ok: true, value: null });
      },
      on: (event: string, listener: (...args: unknown[]) => void) => {
        const set = listening.get(event) ?? new Set();
        set.add(listener);
        listening.set(event, set);
      },
      removeListener: (event: string, listener: (...args: unknown[]) => void) => listening.get(event)?.delete(listener),
    },
  };
  const module = { exports: {} };
  const require = (name: string) => {
    if (name === 'electron') return electron;
    throw new Error(`the sandboxed preload tried to require ${name}`);
  };
  runInNewContext(readFileSync(PRELOAD, 'utf8'), { module, exports: module.exports, require, console, Promise, Object, Set, Map, Error, Symbol, JSON, Array, TypeError, RegExp, Reflect, Proxy, WeakMap, WeakSet, Number, String, Boolean, Date, Math, globalThis: {} });
  return { exposed, invoked, listening };
}

describe('the IPC contract', () => {
  it('declares each channel once with a request schema, a response schema and a doc line', () => {
    for (const name of channelNames) {
      expect(name).toMatch(/^[a-z]+\.[a-z][A-Za-z]*$/);
      expect(channels[name].doc.length).toBeGreaterThan(10);
      expect(channels[name].request).toBeDefined();
      expect(channels[name].response).toBeDefined();
    }
    for (const name of eventNames) {
      expect(name).toMatch(/^[a-z]+\.did[A-Z][A-Za-z]*$/);
      expect(events[name].doc.length).toBeGreaterThan(10);
    }
  });

  it('has exactly one core handler per channel', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'airlock-contract-'));
    try {
      const host = new AirlockHost({ dataDir, version: '0', hooks: { emit: () => {} } });
      expect(Object.keys(host.ipcHandlers()).sort()).toEqual([...channelNames].sort());
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the built preload exposes one frozen object that binds exactly the contract', async () => {
    expect(existsSync(PRELOAD), 'run `npm run build` first').toBe(true);
    const { exposed, invoked, listening } = loadPreload();
    expect(exposed.map((entry) => entry.key)).toEqual(['airlock']);
    const api = exposed[0]!.api;
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.keys(api).sort()).toEqual(['invoke', 'on']);

    for (const name of channelNames) await api.invoke!(name, {});
    expect(invoked.map((call) => call.channel)).toEqual(channelNames);

    const refused = await api.invoke!('fs.readFile', {});
    expect(refused).toMatchObject({ ok: false, code: 'unknown-channel' });
    expect(invoked).toHaveLength(channelNames.length);

    for (const name of eventNames) {
      const received: unknown[] = [];
      const off = api.on!(name, (payload: unknown) => received.push(payload)) as () => void;
      for (const listener of listening.get(name) ?? []) listener({ sender: 'secret' }, { hello: 1 });
      expect(received).toEqual([{ hello: 1 }]);
      off();
      expect(listening.get(name)?.size).toBe(0);
    }
    expect(() => api.on!('raw.anything', () => {})).toThrow(/no event named/);
  });
});
