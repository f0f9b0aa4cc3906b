/**
 * Quiet by default: what `airlock add` and `airlock show` print says each
 * thing once — one "claims" line per tool in the server's terms (not "The
 * server says:" four times), one warning per cause (two copies of a server
 * share all fourteen tool names: one line, not fourteen), each tool's
 * arguments with their types and which are required, and `show NAME TOOL`
 * for one tool in full with a call to copy. The published filesystem server
 * in the real sandbox.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airlockCli, REPO } from '../support/cli';

const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

let docs: string;

const cli = airlockCli('airlock-quiet-', { env: { NO_COLOR: '1' }, timeout: 120_000 });
const { home, run: airlock } = cli;

beforeAll(() => {
  docs = join(home, 'docs');
  mkdirSync(docs, { recursive: true });
  writeFileSync(join(docs, 'plan.md'), 'line one\nline two\n');
  expect(airlock(['add', 'files', '--read', docs, '--yes', '--', process.execPath, FS_SERVER, docs]).code).toBe(0);
}, 120_000);

afterAll(() => cli.remove());

describe('adding a second copy of a server', () => {
  let out: string;
  beforeAll(() => {
    const added = airlock(['add', 'files-copy', '--read', docs, '--yes', '--', process.execPath, FS_SERVER, docs]);
    expect(added.code, added.err).toBe(0);
    out = added.out;
  }, 120_000);

  it('says each tool’s claims once, on one line, in the server’s terms', () => {
    expect(out).not.toContain('The server says:');
    const claims = out.split('\n').filter((line) => line.trim().startsWith('claims:'));
    expect(claims).toHaveLength(14);
    expect(out).toContain('      claims: not read-only · destructive · safe to repeat · stays on your machine');
  });

  it('says a warning many tools share once, naming how many and which', () => {
    const same = out.split('\n').filter((line) => line.includes('same name'));
    expect(same).toEqual(['  warning: 14 of these tools (read_file, read_text_file, read_media_file, read_multiple_files, write_file and 9 more): Another server offers a tool with the same name (files). Airlock keeps them apart by server.']);
  });
});

describe('airlock show', () => {
  it('lists each tool’s arguments with their types, which are required, and how to see one in full', () => {
    const shown = airlock(['show', 'files']);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('      arguments: path (string, required) · tail (number) · head (number)');
    expect(shown.out).toContain('      arguments: path (string, required) · edits ({oldText: string, newText: string}[], required) · dryRun (boolean)');
    expect(shown.out).toContain('      arguments: none');
    expect(shown.out).toContain('One tool in full, with what each argument means: airlock show files TOOL');
  }, 60_000);

  it('`show NAME TOOL` shows one tool in full: its whole description, every argument with what it means, and a call that works as shown', () => {
    const shown = airlock(['show', 'files', 'read_text_file']);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('files › read_text_file — the server calls it “Read Text File”');
    // The whole description, not folded at 300 characters.
    expect(shown.out).toContain('Operates on the file as text regardless of extension. Only works within allowed directories.');
    expect(shown.out).toContain('    head — number, optional\n      ┆ If provided, returns only the first N lines of the file');
    const example = /Call it: (airlock call files read_text_file --args '(.*)')/.exec(shown.out)!;
    expect(example[1]).toBe(`airlock call files read_text_file --args '{"path":"…"}'`);
    // The person fills in the value and runs it.
    const args = JSON.parse(example[2]!) as Record<string, unknown>;
    const call = airlock(['call', 'files', 'read_text_file', '--args', JSON.stringify({ ...args, path: join(docs, 'plan.md') })]);
    expect(call.code, call.err).toBe(0);
    expect(call.out).toContain('line two');
  }, 60_000);

  it('--json gives the tool’s view', () => {
    const shown = JSON.parse(airlock(['show', 'files', 'write_file', '--json']).out) as { name: string; inputSchema: { required: string[] } };
    expect(shown.name).toBe('write_file');
    expect(shown.inputSchema.required).toEqual(['path', 'content']);
  }, 60_000);
});
