/**
 * Every outcome says what really happened (issue "the first hour, again",
 * item 8), as a person meets it with the built `airlock` command and the
 * published servers in the real sandbox:
 * - a mistyped tool name gets "did you mean …?";
 * - a call to a server that crashed (after a revoke took away the folder it
 *   needs) is shown and recorded as "not running", not as a denial;
 * - a write the sandbox blocked says so, with the grant that allows it,
 *   after the server's own error.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airlockCli, REPO } from '../support/cli';

const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const MEMORY_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

let notes: string;

const cli = airlockCli('airlock-true-outcomes-', { timeout: 120_000 });
const { home, run: airlock } = cli;

beforeAll(() => {
  notes = join(home, 'notes');
  mkdirSync(notes, { recursive: true });
  writeFileSync(join(notes, 'a.md'), 'a');
  expect(airlock(['add', 'memory', '--yes', '--', process.execPath, MEMORY_SERVER]).code).toBe(0);
}, 120_000);

afterAll(() => cli.remove());

describe('a mistyped tool name', () => {
  it('gets "did you mean …?" with the closest names, and how to list them all', () => {
    const result = airlock(['call', 'memory', 'read_grap']);
    expect(result.out).toContain('memory does not offer a tool named "read_grap". Did you mean read_graph? (`airlock show memory` lists its tools.)');
    expect(result.code).toBe(5);
  }, 60_000);

  it('a name nothing is close to says how many there are and where to see them', () => {
    const result = airlock(['call', 'memory', 'launch_rockets']);
    expect(result.out).toContain('memory does not offer a tool named "launch_rockets". It offers 9 tool(s): `airlock show memory` lists them.');
  }, 60_000);

  it('`show NAME TOOL` with a mistyped tool suggests too', () => {
    const result = airlock(['show', 'memory', 'serch_nodes']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('memory does not offer a tool named "serch_nodes". Did you mean search_nodes?');
  }, 60_000);
});

describe('a server that crashed', () => {
  it('after a revoke took the folder it needs: the call is "not sent: not running" with its last words, recorded so — never "denied"', () => {
    expect(airlock(['add', 'files', '--write', notes, '--yes', '--', process.execPath, FS_SERVER, notes]).code).toBe(0);
    expect(airlock(['revoke', 'files', '--write', notes]).code).toBe(0);
    const result = airlock(['call', 'files', 'list_directory', '--args', JSON.stringify({ path: notes })]);
    expect(result.out).toMatch(/^Not sent: files is not running\.\nfiles is not running: .*its last output: “Error: None of the specified directories are accessible”/);
    expect(result.out).not.toMatch(/denied/i);
    // Nobody refused it: a failure (1), not a denial (5).
    expect(result.code).toBe(1);
    const entries = JSON.parse(airlock(['audit', 'list', '--server', 'files', '--tool', 'list_directory', '--json']).out) as Array<{ kind: string; verdict?: string; outcome?: string }>;
    expect(entries.find((entry) => entry.kind === 'decision')?.verdict).toBe('not sent: the server was not running');
    expect(entries.find((entry) => entry.kind === 'outcome')?.outcome).toBe('not-running');
    const listed = airlock(['audit', 'list', '--server', 'files']).out;
    expect(listed).toMatch(/files › list_directory: not sent: the server was not running/);
    expect(listed).not.toMatch(/list_directory: denied/);
  }, 120_000);
});

describe('a write the sandbox blocked', () => {
  it('shows the server’s error, then that the sandbox did not allow writing there and the grant that would', () => {
    const docs = join(home, 'docs');
    mkdirSync(docs);
    expect(airlock(['add', 'reader', '--read', docs, '--yes', '--', process.execPath, FS_SERVER, docs]).code).toBe(0);
    expect(airlock(['rules', 'add', 'reader', 'write_file', 'allow', '--yes', '--confirm-destructive']).code).toBe(0);
    const target = join(docs, 'new.md');
    const result = airlock(['call', 'reader', 'write_file', '--args', JSON.stringify({ path: target, content: 'x' })]);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/EROFS|read-only file system/i);
    expect(result.out).toContain(`The sandbox did not allow writing here: reader may write only nowhere that lasts (a temporary folder). To let it write in ${docs}, grant it — \`airlock grant reader --write ${docs}\`, or Permissions on its page.`);
    expect(existsSync(target)).toBe(false);
  }, 120_000);
});
