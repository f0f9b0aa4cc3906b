/**
 * The owner lock: one owner per data folder; a lock left by a dead process
 * is taken over; a lock handed to a process is taken only by that process,
 * and lapses when it never comes (so a bogus hand-over cannot lock Airlock
 * out of its folder for good).
 */
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OwnerSocket } from '../../../electron/core/ipc/local-socket';

let dataDir: string;
const lock = () => join(dataDir, 'owner.lock');
const noServices = () => {
  throw new Error('no client connects in these tests');
};

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'airlock-owner-lock-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the owner lock', () => {
  it('is taken once: a second claim while the owner lives is refused, and a lock of a dead process is taken over', async () => {
    const first = await OwnerSocket.claim(dataDir, noServices);
    expect(first).toBeDefined();
    expect(await OwnerSocket.claim(dataDir, noServices)).toBeUndefined();
    await first!.close();
    writeFileSync(lock(), '2147483646');
    const next = await OwnerSocket.claim(dataDir, noServices);
    expect(next).toBeDefined();
    expect(readFileSync(lock(), 'utf8')).toBe(String(process.pid));
    await next!.close();
  });

  it('handed to another live process, it waits for that process; handed to this one, this one takes it', async () => {
    writeFileSync(lock(), '1 handed');
    expect(await OwnerSocket.claim(dataDir, noServices)).toBeUndefined();
    writeFileSync(lock(), `${process.pid} handed`);
    const owner = await OwnerSocket.claim(dataDir, noServices);
    expect(owner).toBeDefined();
    expect(readFileSync(lock(), 'utf8')).toBe(String(process.pid));
    await owner!.close();
  });

  it('a hand-over the named process never takes up lapses', async () => {
    writeFileSync(lock(), '1 handed');
    const past = new Date(Date.now() - 60_000);
    utimesSync(lock(), past, past);
    const owner = await OwnerSocket.claim(dataDir, noServices);
    expect(owner).toBeDefined();
    await owner!.close();
  });

  it('a new owner writes a new key, readable by the user only', async () => {
    const first = await OwnerSocket.claim(dataDir, noServices);
    const key = readFileSync(join(dataDir, 'owner.key'), 'utf8');
    await first!.close();
    const second = await OwnerSocket.claim(dataDir, noServices);
    expect(readFileSync(join(dataDir, 'owner.key'), 'utf8')).not.toBe(key);
    const { statSync } = await import('node:fs');
    expect(statSync(join(dataDir, 'owner.key')).mode & 0o777).toBe(0o600);
    await second!.close();
  });
});
