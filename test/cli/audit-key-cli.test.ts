/**
 * What each shell promises about the end of the audit log (task L, item 5;
 * docs/activity-log.md, "What it can prove, and what it cannot"): the app builds its host without an audit
 * key of its own (electron/main/index.ts passes no `audit` option), so it
 * uses the same file key as the command line, and each confirms the end the
 * other wrote. The keychain-sealed key the core also supports would make
 * every end the app wrote unconfirmable by the command line — why the app
 * does not use it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sealedFileAuditKey } from '../../electron/core/audit';
import { AirlockHost, type HostOptions } from '../../electron/core/host';

const BIN = join(import.meta.dirname, '../../bin/airlock.js');

let root: string;
let home: string;
let dataDir: string;
const saved = { xdg: process.env.XDG_CONFIG_HOME, keyFile: process.env.AIRLOCK_AUDIT_KEY_FILE };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'airlock-audit-key-cli-'));
  home = join(root, 'home');
  // The default data folder (XDG_CONFIG_HOME/Airlock): a folder the person chose keeps no key outside it (data-dir-cli.test.ts).
  dataDir = join(home, '.config', 'Airlock');
  mkdirSync(home, { recursive: true });
  // The default place, under this test's home: as on a person's machine.
  process.env.XDG_CONFIG_HOME = join(home, '.config');
  delete process.env.AIRLOCK_AUDIT_KEY_FILE;
});
afterEach(() => {
  if (saved.xdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = saved.xdg;
  if (saved.keyFile !== undefined) process.env.AIRLOCK_AUDIT_KEY_FILE = saved.keyFile;
  rmSync(root, { recursive: true, force: true });
});

function airlock(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  delete env.AIRLOCK_AUDIT_KEY_FILE;
  delete env.AIRLOCK_DATA_DIR;
  const result = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** A host built as the Electron app builds it (no audit key option), plus what a test adds. */
async function asTheAppDoes(extra: Partial<HostOptions> = {}): Promise<void> {
  const host = new AirlockHost({ dataDir, version: '0.0.0-test', homeDir: home, hooks: { emit: () => undefined }, ...extra });
  host.policy.setMode('strict');
  await host.changes.settled();
  await host.dispose();
}

describe('the audit key each shell uses', () => {
  it('the app and the command line share the file key: each confirms the end the other wrote', async () => {
    await asTheAppDoes();
    const verified = airlock(['audit', 'verify']);
    expect(verified.code).toBe(0);
    expect(verified.out).toContain('The audit log verifies: 1 entries in 1 file(s). Its end is confirmed by the keyed record of where it ended.');
    // The command line writes; the app's host confirms the end it wrote.
    expect(airlock(['settings', 'strict-durability', 'on']).code).toBe(0);
    const host = new AirlockHost({ dataDir, version: '0.0.0-test', homeDir: home, hooks: { emit: () => undefined } });
    try {
      expect(await host.audit.verify()).toMatchObject({ ok: true, entries: 2, end: 'confirmed' });
    } finally {
      await host.dispose();
    }
  });

  it('a keychain-sealed key (the core supports it) would leave every end the app wrote unconfirmable at the command line', async () => {
    const cipher = { id: 'test-keychain', encrypt: (plain: string) => Buffer.from(plain).toString('base64'), decrypt: (sealed: string) => Buffer.from(sealed, 'base64').toString() };
    await asTheAppDoes({ audit: { key: sealedFileAuditKey(join(root, 'sealed', 'audit-head.key'), cipher, dataDir) } });
    const verified = airlock(['audit', 'verify']);
    expect(verified.code).toBe(1);
    expect(verified.out).toMatch(/does NOT verify: .*end-unconfirmed: .*another key.*cannot confirm/);
  });
});
