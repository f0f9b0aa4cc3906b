/**
 * Bounded validation keeps the owner responsive (issue 10, item 6): a
 * gateway process owns the data folder; a server's tool has a 1.3 KB input
 * schema with 26 levels of `allOf` doubling; a person edits the arguments of
 * a call to it. The edit is refused within the step bound with a clear
 * message while `airlock list` — another process, through the owner — is
 * answered; allowing the arguments as sent still works. Before the bound,
 * the owner was blocked for minutes and `airlock list` timed out.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnerClient } from '../../electron/core/ipc/local-socket';

const REPO = join(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/airlock.js');
const EXPONENTIAL = join(REPO, 'test/fixtures/unseen/exponential-schema.mjs');

let root: string;
let dataDir: string;
let records: string;
let home: string;
let owner: ChildProcess;
let window_: OwnerClient;

/** `airlock …` as another process, without blocking this one; killed after `timeoutMs`. */
function airlockAsync(args: string[], timeoutMs = 30_000): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, ...args], { env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'airlock-schema-cost-'));
  dataDir = join(root, 'data');
  records = join(root, 'records');
  home = join(root, 'home');
  for (const dir of [records, home]) mkdirSync(dir, { recursive: true });
  const added = spawnSync(process.execPath, [BIN, '--data-dir', dataDir, 'add', 'sch', '--write', records, '--yes', '--', process.execPath, EXPONENTIAL, records], {
    env: { ...process.env, HOME: home },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(added.status, added.stderr).toBe(0);
  owner = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'gateway', '--http', '0', '--no-terminal', '--client', 'Test App'], { env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    owner.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/Airlock gateway on http/.test(out)) resolve();
    });
    owner.once('exit', (code) => reject(new Error(`the gateway exited (${code})`)));
  });
  // The window: a client of the owner that can ask a person.
  window_ = (await OwnerClient.connect(dataDir, { role: 'app', terminal: true, label: 'test window' }))!;
  expect(window_).toBeDefined();
}, 120_000);

afterAll(async () => {
  window_?.close();
  if (owner && owner.exitCode === null) {
    const exited = new Promise((resolve) => owner.once('exit', resolve));
    owner.kill('SIGTERM');
    const timer = setTimeout(() => owner.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(root, { recursive: true, force: true });
});

describe('an edited answer against an exponential schema', () => {
  it('is refused within the step bound while `airlock list` is served, and the arguments as sent can still be allowed', async () => {
    const call = window_.callTool({ server: 'sch', tool: 'pick', arguments: { x: 'as sent' }, caller: { kind: 'client', name: 'Test App' } });
    let id: string | undefined;
    for (let i = 0; i < 400 && !id; i += 1) {
      id = (await window_.invoke('approvals.list', {}))[0]?.id;
      if (!id) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(id).toBeDefined();

    // The person edits x; at the same moment another process asks the owner for the server list.
    const edited = window_.invoke('approvals.answer', { id: id!, choice: 'allow-once', arguments: { x: 'edited' } });
    const list = await airlockAsync(['list', '--json']);
    expect(list.err).toBe('');
    expect(list.code).toBe(0);
    expect((JSON.parse(list.out) as Array<{ name: string }>).map((server) => server.name)).toEqual(['sch']);
    const answer = await edited;
    expect(answer.accepted).toBe(false);
    expect(answer.reason).toMatch(/too complex to check within Airlock’s limit of 100,000 steps/);

    // Nothing was sent; the question is still open, and allowing the arguments as sent works.
    expect(existsSync(join(records, 'calls'))).toBe(false);
    expect(await window_.invoke('approvals.answer', { id: id!, choice: 'allow-once' })).toEqual({ accepted: true });
    expect(JSON.stringify((await call).content)).toContain('picked as sent');
    expect(readFileSync(join(records, 'calls'), 'utf8')).toBe('{"x":"as sent"}\n');
  });
});
