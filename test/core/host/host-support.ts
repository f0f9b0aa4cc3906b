/** A real AirlockHost in a temporary data folder, with real servers in the real sandbox. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { EmitEvent } from '../../../shared/ipc';
import { AirlockHost, type HostOptions } from '../../../electron/core/host';
import { addLocalServer, type AddServerOptions } from '../../support/add-server';

export const REPO = resolve(import.meta.dirname, '../../..');
export const FILESYSTEM_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const EVERYTHING_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const MEMORY_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
export const fixture = (path: string) => join(REPO, 'test/fixtures', path);

export interface TestHost {
  host: AirlockHost;
  root: string;
  dataDir: string;
  home: string;
  /** Whether a shell can ask right now (tests flip it). */
  ask: { available: boolean };
  events: Array<{ event: string; payload: unknown }>;
  folder(name: string): string;
  /** Adds a local command through the real install flow (prepare → probe → commit). */
  add(name: string, argv: string[], options?: AddServerOptions): Promise<void>;
  close(): Promise<void>;
}

export async function createTestHost(options: Partial<HostOptions> = {}): Promise<TestHost> {
  const root = mkdtempSync(join(tmpdir(), 'airlock-host-'));
  const dataDir = join(root, 'data');
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  const ask = { available: false };
  const events: Array<{ event: string; payload: unknown }> = [];
  const emit: EmitEvent = (event, payload) => void events.push({ event, payload });
  const host = new AirlockHost({
    dataDir,
    version: '0.0.0-test',
    homeDir: home,
    hooks: { emit, canAsk: () => ask.available },
    confirmationTimeoutMs: 5_000,
    supervisor: { defaultCall: { timeoutMs: 2_000, maxTotalMs: 4_000 } },
    ...options,
  });
  return {
    host,
    root,
    dataDir,
    home,
    ask,
    events,
    folder(name) {
      const path = join(root, name);
      mkdirSync(path, { recursive: true });
      return path;
    },
    add: (name, argv, addOptions) => addLocalServer(host, name, argv, addOptions),
    async close() {
      await host.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
