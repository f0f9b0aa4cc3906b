/**
 * An `airlock.json` that cannot be read is never silent: every command says
 * so on stderr — that it was unreadable and why (the line and column of a
 * JSON mistake), where the file was kept, how to get it back — at every start
 * until the person acts, not just the first; `airlock list` exits 1 instead of
 * "No servers yet."; and `airlock settings restore` puts the repaired file
 * back, checking it first and losing nothing. The built command, the
 * published memory server.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airlockCli, REPO } from '../support/cli';

const MEMORY_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

let original: string;

const cli = airlockCli('airlock-corrupt-settings-', { env: { NO_COLOR: '1' }, timeout: 120_000 });
const { root, dataDir, run: airlock } = cli;
const keptCopies = () => readdirSync(dataDir).filter((name) => name.startsWith('airlock.corrupt-'));

beforeAll(() => {
  expect(airlock(['add', 'memory', '--yes', '--', process.execPath, MEMORY_SERVER]).code).toBe(0);
  original = readFileSync(join(dataDir, 'airlock.json'), 'utf8');
  // A save cut short by hand: the file ends half-way.
  writeFileSync(join(dataDir, 'airlock.json'), original.slice(0, Math.floor(original.length / 2)));
}, 120_000);

afterAll(() => cli.remove());

describe('a settings file that cannot be read', () => {
  it('`airlock list` says so on stderr — why, where it was kept, how to restore — and exits 1, not "No servers yet."', () => {
    const listed = airlock(['list']);
    expect(listed.code).toBe(1);
    const [copy] = keptCopies();
    expect(copy).toBeDefined();
    const kept = join(dataDir, copy!);
    expect(listed.out).toBe('No servers in use — Airlock could not read its settings file (see the warning above).\n');
    expect(listed.out).not.toContain('No servers yet');
    expect(listed.err).toMatch(/^airlock: Warning: Airlock's settings file could not be read \(it is not valid JSON: .* at line \d+, column \d+\), so Airlock is running with empty settings/);
    expect(listed.err).toContain(`The unreadable file is kept as ${kept}`);
    expect(listed.err).toContain(`repair that file and run \`airlock settings restore ${kept}\``);
    expect(listed.err).toContain('If you do not need it, delete it and this warning stops.');
    // Nothing was lost: the exact bytes are kept.
    expect(readFileSync(kept, 'utf8')).toBe(original.slice(0, Math.floor(original.length / 2)));
  }, 60_000);

  it('every later command says it again, not only the first (--json too, on stderr)', () => {
    const again = airlock(['list', '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out)).toEqual([]);
    expect(again.err).toContain("Airlock's settings file could not be read");
    const settings = airlock(['settings']);
    expect(settings.code).toBe(0);
    expect(settings.err).toContain("Airlock's settings file could not be read");
    expect(keptCopies()).toHaveLength(1);
  }, 60_000);

  it('restoring a copy that is still broken changes nothing and says where it is broken', () => {
    const kept = join(dataDir, keptCopies()[0]!);
    const restore = airlock(['settings', 'restore', kept, '--yes']);
    expect(restore.code).toBe(2);
    expect(restore.err).toMatch(/still cannot be used: it is not valid JSON: .* at line \d+, column \d+\. Repair it and try again; nothing was changed\./);
    expect(existsSync(kept)).toBe(true);
  }, 60_000);

  it('once repaired, `airlock settings restore FILE` puts it back, keeps the settings in use beside it, and the warning stops', () => {
    const kept = join(dataDir, keptCopies()[0]!);
    // In use meanwhile: a setting changed after the reset, so there is something to keep.
    expect(airlock(['settings', 'strict-durability', 'on']).code).toBe(0);
    writeFileSync(kept, original);
    const restore = airlock(['settings', 'restore', kept, '--yes']);
    expect(restore.code, restore.err).toBe(0);
    const replaced = /kept as (\S+\.json)\./.exec(restore.out)![1]!;
    expect(restore.out).toContain(`Restored 1 server(s) and 0 rule(s) from ${kept}.`);
    expect(JSON.parse(readFileSync(replaced, 'utf8')).settings.strictDurability).toBe(true);
    expect(existsSync(kept)).toBe(false);

    const listed = airlock(['list']);
    expect(listed.code).toBe(0);
    expect(listed.err).toBe('');
    expect(listed.out).toMatch(/^memory /);
    const call = airlock(['call', 'memory', 'read_graph']);
    expect(call.code, call.err).toBe(0);
  }, 120_000);

  it('without a terminal and without --yes, restore asks first and changes nothing', () => {
    const backup = join(root, 'backup.json');
    writeFileSync(backup, original);
    const restore = airlock(['settings', 'restore', backup]);
    expect(restore.code).toBe(4);
    expect(readdirSync(dataDir).filter((name) => name.startsWith('airlock.replaced-'))).toHaveLength(1);
  }, 60_000);
});
