/**
 * A data folder the person chose — `--data-dir` or `AIRLOCK_DATA_DIR` — keeps
 * everything inside it: using Airlock with it (add a server, call it, verify
 * the log, serve it to an app) writes nothing under the home folder — no
 * `~/.config/airlock-keys`, no `~/.local/state/airlock`. The log's end is then
 * unanchored, and `audit verify` says so and how to anchor it (a key file the
 * person names outside the folder). The published memory server, real sandbox.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/airlock.js');
const MEMORY_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

let root: string;
let home: string;

/** The person's environment: their own home, none of Airlock's variables unless given. */
function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, ...extra };
  for (const name of ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'AIRLOCK_DATA_DIR', 'AIRLOCK_AUDIT_KEY_FILE']) if (!(name in extra)) delete env[name];
  return env;
}
function airlock(args: string[], extra: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, env: environment(extra) });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** Every file and folder under the home folder, relative to it. */
function underHome(dir = home): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return [relative(home, path), ...(entry.isDirectory() ? underHome(path) : [])];
  });
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'airlock-data-dir-'));
  home = join(root, 'home');
  mkdirSync(home);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.each([
  ['--data-dir', (dir: string) => ({ args: ['--data-dir', dir], env: {} })],
  ['AIRLOCK_DATA_DIR', (dir: string) => ({ args: [], env: { AIRLOCK_DATA_DIR: dir } })],
])('a data folder given with %s', (_how, given) => {
  it('keeps everything inside it: nothing is written under the home folder', async () => {
    const dataDir = join(root, `data-${_how.replace(/\W/g, '')}`);
    const { args, env } = given(dataDir);
    expect(airlock([...args, 'add', 'memory', '--yes', '--', process.execPath, MEMORY_SERVER], env).code).toBe(0);
    expect(airlock([...args, 'call', 'memory', 'read_graph'], env).code).toBe(0);
    expect(airlock([...args, 'list'], env).code).toBe(0);
    // An app's connection to it, as an app starts the gateway.
    const client = new Client({ name: 'App', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, ...args, 'gateway', '--stdio'], env: environment(env) as Record<string, string>, stderr: 'ignore' }));
    expect((await client.callTool({ name: 'memory__read_graph', arguments: {} })).isError).toBeFalsy();
    await client.close();

    const verified = airlock([...args, 'audit', 'verify'], env);
    expect(verified.code).toBe(0);
    expect(verified.out).toContain('Without the audit key, nothing confirms that no entries were cut from its end. (A data folder you chose keeps no key outside it: set AIRLOCK_AUDIT_KEY_FILE to a file outside the folder to anchor its end.)');
    expect(underHome()).toEqual([]);
  }, 180_000);
});

describe('a key file the person names for a folder they chose', () => {
  it('anchors the log’s end, where they put it', () => {
    const dataDir = join(root, 'data-with-key');
    const keyFile = join(root, 'keys', 'audit-head.key');
    const env = { AIRLOCK_AUDIT_KEY_FILE: keyFile };
    expect(airlock(['--data-dir', dataDir, 'settings', 'strict-durability', 'on'], env).code).toBe(0);
    const verified = airlock(['--data-dir', dataDir, 'audit', 'verify'], env);
    expect(verified.out).toContain('Its end is confirmed by the keyed record of where it ended.');
    expect(readdirSync(join(root, 'keys'))).toEqual(['audit-head.key']);
    expect(underHome()).toEqual([]);
  }, 60_000);
});

describe('the app’s own folder named explicitly (as an app’s config entry for the gateway names it)', () => {
  it('is still the app’s: it shares the app’s audit key, kept outside it', () => {
    const appFolder = join(home, '.config', 'Airlock');
    expect(airlock(['--data-dir', appFolder, 'settings', 'strict-durability', 'on']).code).toBe(0);
    const verified = airlock(['--data-dir', appFolder, 'audit', 'verify']);
    expect(verified.out).toContain('Its end is confirmed by the keyed record of where it ended.');
    expect(underHome()).toContain(join('.config', 'airlock-keys', 'audit-head.key'));
    rmSync(join(home, '.config'), { recursive: true, force: true });
    rmSync(join(home, '.local'), { recursive: true, force: true });
  }, 60_000);
});
