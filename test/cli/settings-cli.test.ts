/** `airlock settings` of the built command: strict durability, and what the setting means, in words. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '../../bin/airlock.js');

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'airlock-settings-cli-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function airlock(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, AIRLOCK_DATA_DIR: join(root, 'data'), AIRLOCK_AUDIT_KEY_FILE: join(root, 'key') },
    encoding: 'utf8',
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe('airlock settings', () => {
  it('shows the window a power cut can lose, turns strict durability on and off, and refuses anything else', () => {
    const shown = airlock(['settings']);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('Strict durability: off');
    expect(shown.out).toMatch(/flushed to disk within 50 ms; a power cut can lose/);
    const on = airlock(['--json', 'settings', 'strict-durability', 'on']);
    expect(on.code).toBe(0);
    expect(JSON.parse(on.out)).toMatchObject({ strictDurability: true, flushWindowMs: 50, policyMode: 'default' });
    expect(airlock(['settings']).out).toContain('Strict durability: on — every decision is flushed to disk before its call is sent');
    expect(airlock(['settings', 'strict-durability', 'off']).out).toContain('Strict durability: off');
    const wrong = airlock(['settings', 'strict-durability', 'maybe']);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('Say `on` or `off`.');
  });

  it('a setting changed at the command line is an audit entry saying so (task L, item 3)', () => {
    expect(airlock(['settings', 'strict-durability', 'on']).code).toBe(0);
    // Setting it to what it is changes nothing, and records nothing.
    expect(airlock(['settings', 'strict-durability', 'on']).code).toBe(0);
    const listed = airlock(['audit']);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/^\S+ #1 You \(command line\) → settings: strict durability changed\n    strict durability: on \(was off\)$/m);
    expect(listed.out).not.toContain('#2');
    const json = JSON.parse(airlock(['--json', 'audit']).out) as Array<Record<string, unknown>>;
    expect(json).toEqual([expect.objectContaining({ kind: 'change', callerKind: 'cli', server: '', changes: ['strict durability: on (was off)'] })]);
    expect(airlock(['audit', 'verify']).out).toContain('The audit log verifies: 1 entries');
  });
});
