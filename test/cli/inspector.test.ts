/**
 * A real MCP client no one here wrote — the MCP Inspector's CLI — talks to
 * `airlock gateway --stdio` the way another app would.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/airlock.js');
const INSPECTOR = join(REPO, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

let root: string;
let dataDir: string;
let work: string;

function inspector(args: string[]) {
  const result = spawnSync(process.execPath, [INSPECTOR, '--cli', process.execPath, BIN, '--data-dir', dataDir, 'gateway', '--stdio', '--no-terminal', '--client', 'MCP Inspector', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    cwd: root,
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'airlock-inspector-'));
  dataDir = join(root, 'data');
  work = join(root, 'work');
  mkdirSync(work);
  writeFileSync(join(work, 'hello.txt'), 'hello from the sandbox');
  const add = spawnSync(process.execPath, [BIN, '--data-dir', dataDir, 'add', 'files', '--read', work, '--yes', '--', process.execPath, FS_SERVER, work], { encoding: 'utf8' });
  expect(add.status).toBe(0);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the MCP Inspector CLI against airlock gateway --stdio', () => {
  it('lists the namespaced tools', () => {
    const { code, out, err } = inspector(['--method', 'tools/list']);
    expect(code, err).toBe(0);
    const names = (JSON.parse(out).tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(names).toContain('files__read_text_file');
    expect(names).toContain('files__write_file');
    expect(names.every((name) => name.startsWith('files__'))).toBe(true);
  });

  it('calls one, through Airlock’s policy, and gets the server’s answer', () => {
    const { code, out, err } = inspector(['--method', 'tools/call', '--tool-name', 'files__read_text_file', '--tool-arg', `path=${join(work, 'hello.txt')}`]);
    expect(code, err).toBe(0);
    expect(JSON.parse(out).content[0].text).toBe('hello from the sandbox');
  });

  it('a call that needs a confirmation is refused with how to get one (no app, no terminal)', () => {
    const { out } = inspector(['--method', 'tools/call', '--tool-name', 'files__write_file', '--tool-arg', `path=${join(work, 'x.txt')}`, '--tool-arg', 'content=x']);
    const result = JSON.parse(out);
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/confirmation.*open the Airlock app/s);
  });
});
